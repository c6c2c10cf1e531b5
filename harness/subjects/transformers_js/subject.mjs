// transformers.js (the npm package @huggingface/tokenizers) as a subject of the harness.
//
// Speaks the subject protocol (docs/subject-protocol.md): one JSON object per line on
// stdin, one answer per line on stdout, in order. Usage:
//     node subject.mjs <path to the unpacked package folder>
// The package is installed (pinned by version and integrity) by the harness; this script
// only drives it. stdout carries nothing but protocol lines.
import { createInterface } from "node:readline";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const packageDir = process.argv[2];
if (!packageDir) {
  process.stderr.write("usage: node subject.mjs <package folder>\n");
  process.exit(2);
}
const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
const { Tokenizer } = await import(pathToFileURL(join(packageDir, "dist", "tokenizers.mjs")).href);

// The tokenizers library has no tokenizer_config.json: an empty config, and decoding
// without transformers' clean-up of tokenization spaces (a layer above tokenizer.json).
const CONFIG = {};
const DECODE_OPTIONS = { clean_up_tokenization_spaces: false };

const handles = new Map();
let nextHandle = 1;

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

class ProtocolError extends Error {}

function answer(request) {
  switch (request.op) {
    case "load": {
      const document = JSON.parse(request.document);
      const tokenizer = new Tokenizer(document, CONFIG);
      const handle = nextHandle++;
      handles.set(handle, tokenizer);
      return { handle };
    }
    case "free":
      handles.delete(request.handle);
      return {};
    case "encode": {
      const tokenizer = handleOf(request);
      const encoding = tokenizer.encode(request.text, {
        text_pair: request.pair ?? null,
        add_special_tokens: request.add_special_tokens,
        return_token_type_ids: true,
      });
      const result = { ids: encoding.ids, tokens: encoding.tokens,
                       attention_mask: encoding.attention_mask };
      if (encoding.token_type_ids !== undefined) result.type_ids = encoding.token_type_ids;
      return result;
    }
    case "decode": {
      const tokenizer = handleOf(request);
      const text = tokenizer.decode(request.ids, {
        ...DECODE_OPTIONS, skip_special_tokens: request.skip_special_tokens,
      });
      return { text };
    }
    default:
      throw new ProtocolError(`unknown op ${JSON.stringify(request.op)}`);
  }
}

send({
  hello: {
    protocol: 1,
    name: "transformers-js",
    version: `${manifest.name}@${manifest.version}`,
    capabilities: ["ids", "tokens", "attention_mask", "type_ids", "pairs", "decode"],
  },
});

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  let request;
  try {
    request = JSON.parse(line);
  } catch (error) {
    send({ id: null, protocol_error: errorMessage(error) });
    return;
  }
  try {
    send({ id: request.id, ok: answer(request) });
  } catch (error) {
    if (error instanceof ProtocolError) {
      send({ id: request.id, protocol_error: error.message });
    } else {
      send({ id: request.id, refused: { rule: error?.name ?? "Error",
                                        message: errorMessage(error) } });
    }
  }
});
lines.on("close", () => process.exit(0));
