// tokenizers on npm (the Rust core behind N-API) as a subject of the harness: the control.
//
// Speaks the subject protocol (docs/subject-protocol.md): one JSON object per line on
// stdin, one answer per line on stdout, in order (decode is asynchronous in this binding:
// requests are answered one after another through a chain). Usage:
//     node subject.mjs <path to the unpacked package folder>
// The package is installed (pinned by version and integrity) by the harness.
import { createInterface } from "node:readline";
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { join } from "node:path";

// A panic's message must stay in the last lines of stderr (the harness keeps its tail):
// no backtrace after it.
process.env.RUST_BACKTRACE = "0";
const packageDir = process.argv[2];
if (!packageDir) {
  process.stderr.write("usage: node subject.mjs <package folder>\n");
  process.exit(2);
}
const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
const { Tokenizer } = createRequire(import.meta.url)(join(packageDir, "index.js"));

const handles = new Map();
let nextHandle = 1;

class ProtocolError extends Error {}

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

function errorMessage(error) {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.slice(0, 400);
}

function handleOf(request) {
  const tokenizer = handles.get(request.handle);
  if (tokenizer === undefined) throw new ProtocolError(`unknown handle ${request.handle}`);
  return tokenizer;
}

async function answer(request) {
  switch (request.op) {
    case "load": {
      const handle = nextHandle++;
      handles.set(handle, Tokenizer.fromString(request.document));
      return { handle };
    }
    case "free":
      handles.delete(request.handle);
      return {};
    case "encode": {
      const tokenizer = handleOf(request);
      const encoding = await tokenizer.encode(request.text, request.pair ?? null,
                                              { addSpecialTokens: request.add_special_tokens });
      return {
        ids: encoding.getIds(), tokens: encoding.getTokens(),
        offsets: encoding.getOffsets(),
        special_tokens_mask: encoding.getSpecialTokensMask(),
        type_ids: encoding.getTypeIds(), attention_mask: encoding.getAttentionMask(),
        word_ids: encoding.getWordIds(), sequence_ids: encoding.getSequenceIds(),
      };
    }
    case "decode": {
      const tokenizer = handleOf(request);
      return { text: await tokenizer.decode(request.ids, request.skip_special_tokens) };
    }
    default:
      throw new ProtocolError(`unknown op ${JSON.stringify(request.op)}`);
  }
}

send({
  hello: {
    protocol: 1,
    name: "tokenizers-npm",
    version: `${manifest.name}@${manifest.version}`,
    capabilities: ["ids", "tokens", "spans", "special_mask", "type_ids", "attention_mask",
                   "pairs", "decode"],
  },
});

let chain = Promise.resolve();
const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  chain = chain.then(async () => {
    let request;
    try {
      request = JSON.parse(line);
    } catch (error) {
      send({ id: null, protocol_error: errorMessage(error) });
      return;
    }
    try {
      send({ id: request.id, ok: await answer(request) });
    } catch (error) {
      if (error instanceof ProtocolError) {
        send({ id: request.id, protocol_error: error.message });
      } else {
        send({ id: request.id, refused: { rule: error?.name ?? "Error",
                                          message: errorMessage(error) } });
      }
    }
  });
});
lines.on("close", () => { chain.then(() => process.exit(0)); });
