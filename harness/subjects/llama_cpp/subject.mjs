// llama.cpp's tokenizer (through the npm package node-llama-cpp, CPU build) as a subject of
// the harness.
//
// Speaks the subject protocol (docs/subject-protocol.md): one JSON object per line on
// stdin, one answer per line on stdout, in order. Usage:
//     node subject.mjs <npm folder> <GGUF cache folder> <converter command as JSON>
// The npm tree and the converter's environment are installed (pinned) by the harness; this
// script only drives them. A document is converted once into a vocabulary-only GGUF
// (convert.py, by sha256 of the document in the cache folder); a document the GGUF cannot
// express is refused with the rule not-expressible. stdout carries nothing but protocol
// lines: llama.cpp's logs are off.
import { createInterface } from "node:readline";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { pathToFileURL } from "node:url";

const [npmDir, cacheDir, converterJson] = process.argv.slice(2);
if (!npmDir || !cacheDir || !converterJson) {
  process.stderr.write("usage: node subject.mjs <npm folder> <cache folder> <converter>\n");
  process.exit(2);
}
const converter = JSON.parse(converterJson);
const converterText = readFileSync(converter[converter.length - 1], "utf8");
const packageDir = join(npmDir, "node_modules", "node-llama-cpp");
const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
const { getLlama, LlamaLogLevel } = await import(pathToFileURL(join(packageDir, "dist", "index.js")).href);

// The prebuilt CPU binary of @node-llama-cpp/linux-x64: never a build, never a download.
const llama = await getLlama({
  gpu: false, build: "never", usePrebuiltBinaries: true, skipDownload: true,
  progressLogs: false, logLevel: LlamaLogLevel.disabled,
  logger: (level, message) => process.stderr.write(`[llama.cpp ${level}] ${message}\n`),
});

const handles = new Map();
let nextHandle = 1;

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

function errorMessage(error) {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.slice(0, 400);
}

class ProtocolError extends Error {}

class Refusal extends Error {
  constructor(rule, message) {
    super(message);
    this.rule = rule;
  }
}

function handleOf(request) {
  const loaded = handles.get(request.handle);
  if (loaded === undefined) throw new ProtocolError(`unknown handle ${request.handle}`);
  return loaded;
}

// The GGUF of a document and what convert.py said of it ({ok: {...}} or {refused: "..."}),
// converted once per document.
function converted(document) {
  // Keyed by the converter's own text too: a changed converter converts again.
  const digest = createHash("sha256").update(converterText).update("\0")
    .update(document, "utf8").digest("hex");
  const gguf = join(cacheDir, `${digest}.gguf`);
  const said = join(cacheDir, `${digest}.json`);
  if (!existsSync(said)) {
    const run = spawnSync(converter[0], [...converter.slice(1), gguf],
                          { input: document, encoding: "utf8", maxBuffer: 1 << 26 });
    if (run.status !== 0) {
      throw new Error(`convert.py failed (${run.status}): ${(run.stderr || "").slice(-300)}`);
    }
    const temporary = `${said}.${process.pid}.tmp`;
    writeFileSync(temporary, run.stdout.trim());
    renameSync(temporary, said);
  }
  return { gguf, said: JSON.parse(readFileSync(said, "utf8")) };
}

async function answer(request) {
  switch (request.op) {
    case "load": {
      const { gguf, said } = converted(request.document);
      if (said.refused !== undefined) throw new Refusal("not-expressible", said.refused);
      const model = await llama.loadModel({ modelPath: gguf, vocabOnly: true, gpuLayers: 0 });
      const handle = nextHandle++;
      handles.set(handle, { model, plan: said.ok });
      return { handle };
    }
    case "free": {
      const loaded = handles.get(request.handle);
      handles.delete(request.handle);
      if (loaded !== undefined) await loaded.model.dispose();
      return {};
    }
    case "encode": {
      const { model, plan } = handleOf(request);
      if (request.pair !== undefined && request.pair !== null) {
        throw new ProtocolError("pairs are not a capability");
      }
      let ids = Array.from(model.tokenize(request.text, true));
      if (request.add_special_tokens) {
        // llama_tokenize's add_special: BOS and EOS as the GGUF's add_bos/add_eos say.
        if (plan.add_bos && model.tokens.bos !== null) ids = [model.tokens.bos, ...ids];
        if (plan.add_eos && model.tokens.eos !== null) ids = [...ids, model.tokens.eos];
      }
      return { ids };
    }
    case "decode": {
      const { model, plan } = handleOf(request);
      if (plan.decode_not_expressible !== null) {
        throw new Refusal("not-expressible", plan.decode_not_expressible);
      }
      return { text: model.detokenize(request.ids, !request.skip_special_tokens) };
    }
    default:
      throw new ProtocolError(`unknown op ${JSON.stringify(request.op)}`);
  }
}

send({
  hello: {
    protocol: 1,
    name: "llama-cpp",
    version: `${manifest.name}@${manifest.version}`,
    capabilities: ["ids", "decode"],
  },
});

// Requests are answered one at a time, in order (loading a model is asynchronous).
let queue = Promise.resolve();
const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  queue = queue.then(async () => {
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
      } else if (error instanceof Refusal) {
        send({ id: request.id, refused: { rule: error.rule, message: error.message } });
      } else {
        send({ id: request.id, refused: { rule: error?.name ?? "Error",
                                          message: errorMessage(error) } });
      }
    }
  });
});
lines.on("close", () => { queue.then(() => process.exit(0)); });
