// kitoken on npm (the Rust engine compiled to WebAssembly, its Node build `kitoken/node`)
// as a subject of the harness.
//
// Speaks the subject protocol (docs/subject-protocol.md): one JSON object per line on
// stdin, one answer per line on stdout, in order. Usage:
//     node subject.mjs <path to the unpacked package folder>
// The package is installed (pinned by version and integrity) by the harness.
//
// The mapping onto the protocol's tiers, as for the PyPI kitoken (its program.py):
// `Kitoken.from_tokenizers(bytes)` loads; `encode(text, true)` gives the ids (every
// special category on: tokenizers matches added tokens in every text); `decode(ids,
// !skip_special_tokens)` gives bytes, read as UTF-8 with U+FFFD for what is not (the
// WHATWG decoder's replacement, one per maximal invalid subpart, as Python's). The
// binding gives ids only: tokens, offsets, masks, type ids and pairs are absent, and
// `add_special_tokens` has no counterpart (its encode applies no post-processor template).
// What the binding throws for a Rust error is a string: a refusal (that message; the rule is
// the message without a serde position, as in program.py); an id the binding's Uint32Array cannot hold is
// refused by the adapter (rule "id-out-of-range": a Uint32Array would wrap it). A trap
// of the WebAssembly instance (a Rust panic, built with panic=abort) may leave the
// instance unusable: it ends the process (status 101, `panic: ...` on stderr), and the
// harness starts the subject again; any other exception ends it with status 102.
import { createInterface } from "node:readline";
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const packageDir = process.argv[2];
if (!packageDir) {
  process.stderr.write("usage: node subject.mjs <package folder>\n");
  process.exit(2);
}
const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
const { Kitoken } = createRequire(import.meta.url)(join(packageDir, "dist", "node.cjs"));

const handles = new Map();
let nextHandle = 1;
const utf8 = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
const encoder = new TextEncoder();
const SERDE_POSITION = / at line \d+ column \d+$/;

class ProtocolError extends Error {}

class Refusal extends Error {
  constructor(rule, message) {
    super(message);
    this.rule = rule;
  }
}

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

function handleOf(request) {
  const tokenizer = handles.get(request.handle);
  if (tokenizer === undefined) throw new ProtocolError(`unknown handle ${request.handle}`);
  return tokenizer;
}

function idsOf(ids) {
  if (!Array.isArray(ids)) throw new ProtocolError("ids must be a list");
  for (const id of ids) {
    if (!Number.isInteger(id) || id < 0 || id > 0xffffffff) {
      throw new Refusal("id-out-of-range", `id ${id} is not a u32 (the binding takes a Uint32Array)`);
    }
  }
  return Uint32Array.from(ids);
}

function answer(request) {
  switch (request.op) {
    case "load": {
      const tokenizer = Kitoken.from_tokenizers(encoder.encode(request.document));
      const handle = nextHandle++;
      handles.set(handle, tokenizer);
      return { handle };
    }
    case "free": {
      const tokenizer = handles.get(request.handle);
      handles.delete(request.handle);
      tokenizer?.free();
      return {};
    }
    case "encode": {
      const tokenizer = handleOf(request);
      if (request.pair !== undefined && request.pair !== null) {
        throw new ProtocolError("a pair, but the subject has no pairs capability");
      }
      return { ids: Array.from(tokenizer.encode(request.text, true)) };
    }
    case "decode": {
      const tokenizer = handleOf(request);
      const bytes = tokenizer.decode(idsOf(request.ids), !request.skip_special_tokens);
      return { text: utf8.decode(bytes) };
    }
    default:
      throw new ProtocolError(`unknown op ${JSON.stringify(request.op)}`);
  }
}

send({
  hello: {
    protocol: 1,
    name: "kitoken-npm",
    version: `${manifest.name}@${manifest.version}`,
    capabilities: ["decode", "ids"],
  },
});

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  let request;
  try {
    request = JSON.parse(line);
  } catch (error) {
    send({ id: null, protocol_error: String(error).slice(0, 400) });
    return;
  }
  try {
    send({ id: request.id, ok: answer(request) });
  } catch (error) {
    if (error instanceof ProtocolError) {
      send({ id: request.id, protocol_error: error.message });
    } else if (error instanceof Refusal) {
      send({ id: request.id, refused: { rule: error.rule, message: error.message.slice(0, 400) } });
    } else if (typeof error === "string") {
      send({ id: request.id, refused: { rule: error.replace(SERDE_POSITION, "").slice(0, 200),
                                        message: error.slice(0, 400) } });
    } else if (error instanceof WebAssembly.RuntimeError) {
      process.stderr.write(`panic: ${error.message}\n`);
      process.exit(101);
    } else {
      process.stderr.write(`exception: ${String(error)}\n`);
      process.exit(102);
    }
  }
});
lines.on("close", () => { process.exit(0); });
