// The browser encoder (ui/web/bpe.js) against the JavaScript tokenizers from npm, in node: ratios in one run.
//
//   node --expose-gc bench/bench_js.mjs [--rounds 5] [--bytes 4000000] [--encodings cl100k_base,o200k_base]
//                                       [--regexp page|explicit|native] [--no-tiktoken] [--inputs DIR]
//
// bench/js_inputs.py writes the app's own model files of cl100k_base and o200k_base and a mixed corpus (prose,
// code, the pages' samples, many scripts); each is encoded, special tokens as text, by bpe.js (``Encoder.encode``,
// what the page's worker calls: ids, byte lengths and the text's UTF-8), by gpt-tokenizer and by js-tiktoken
// (devDependencies only). Cold: a new encoder every round, its table built before the clock starts (so no chunk is
// cached); warm: the same encoder again. The engines take turns within a round, in a rotating order, with a
// garbage collection before each (under --expose-gc); times are CPU seconds of this process (process.cpuUsage),
// which a shared machine changes less than wall-clock time; each ratio is the median of the per-round ratios.
// Every result's ids are checked against the first one (bpe.js's) and the run fails on any difference.
// ``--regexp page`` splits as the page's worker does (the browser's own \p{…}, checked against regex's tables,
// for a pattern past pattern.OPTIMIZED characters; the pattern written out below it).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

import { GptEncoding } from "gpt-tokenizer/GptEncoding";
import { Tiktoken } from "js-tiktoken/lite";

import { Encoder, parseModel } from "../ui/web/bpe.js";
import { OPTIMIZED, checkProperty, explicitSource, finish } from "../ui/web/pattern.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const PYTHON = process.env.PYTHON || ROOT + ".venv/bin/python";

const { values: opts } = parseArgs({
  options: {
    "rounds": { type: "string", default: "5" },
    "bytes": { type: "string", default: "4000000" },
    "encodings": { type: "string", default: "cl100k_base,o200k_base" },
    "regexp": { type: "string", default: "page" },
    "no-tiktoken": { type: "boolean", default: false },
    "inputs": { type: "string" },
  },
});
const ROUNDS = Number(opts.rounds);
const ENCODINGS = opts.encodings.split(",");
if (!["page", "explicit", "native"].includes(opts.regexp)) throw new Error("--regexp is page, explicit or native");
for (const name of ENCODINGS) {
  if (!["cl100k_base", "o200k_base"].includes(name)) throw new Error(`--encodings: ${name} is not cl100k_base or o200k_base`);
}

function cpuSeconds() {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

const collect = typeof globalThis.gc === "function" ? globalThis.gc : () => {};

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function inputs() {
  if (opts.inputs) return { dir: opts.inputs, temporary: false };
  const dir = mkdtempSync(join(tmpdir(), "bpe-lab-bench-js-"));
  execFileSync(PYTHON, [ROOT + "bench/js_inputs.py", dir, "--bytes", opts.bytes], { cwd: ROOT, stdio: "inherit" });
  return { dir, temporary: true };
}

const diffs = {}; // property -> how node's \p{…} differs from regex's tables (pattern.checkProperty), once per run

/** The engines for one encoding: name -> {make: () => encoder, encode: (encoder, text) => ids}. */
async function engines(name, dir) {
  const file = readFileSync(join(dir, `${name}.bin`));
  const buffer = file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength);
  const model = parseModel(buffer);
  const native =
    model.pattern !== null && (opts.regexp === "native" || (opts.regexp === "page" && explicitSource(model.pattern).length > OPTIMIZED));
  if (native) for (const [p, ranges] of Object.entries(model.pattern.props)) diffs[p] ??= finish(checkProperty(p, ranges));
  const gptRanks = (await import(`gpt-tokenizer/bpeRanks/${name}`)).default;
  const out = {
    "bpe.js": {
      make: () => {
        const enc = new Encoder(parseModel(buffer));
        if (native) enc.useNative(diffs);
        return enc;
      },
      encode: (enc, text) => enc.encode(text).ids,
    },
    "gpt-tokenizer": {
      make: () => GptEncoding.getEncodingApi(name, () => gptRanks),
      encode: (enc, text) => enc.encode(text, { disallowedSpecial: new Set() }),
    },
  };
  if (!opts["no-tiktoken"]) {
    const ranks = (await import(`js-tiktoken/ranks/${name}`)).default;
    out["js-tiktoken"] = { make: () => new Tiktoken(ranks), encode: (enc, text) => enc.encode(text, [], []) };
  }
  return { engines: out, native };
}

function sameIds(expected, got) {
  if (expected.length !== got.length) return false;
  for (let i = 0; i < expected.length; i++) if (expected[i] !== got[i]) return false;
  return true;
}

function firstDifference(expected, got) {
  let i = 0;
  while (i < expected.length && i < got.length && expected[i] === got[i]) i++;
  return i;
}

function timed(fn) {
  collect();
  const t0 = cpuSeconds();
  const out = fn();
  return [cpuSeconds() - t0, out];
}

async function benchOne(name, dir, text) {
  const { engines: table, native } = await engines(name, dir);
  const names = Object.keys(table);
  const times = Object.fromEntries(names.map((n) => [n, { load: [], cold: [], warm: [] }]));
  let reference = null;
  let count = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const order = names.map((_, i) => names[(i + round) % names.length]);
    for (const engine of order) {
      const { make, encode } = table[engine];
      const [load, enc] = timed(make);
      const [cold, coldIds] = timed(() => encode(enc, text));
      const [warm, warmIds] = timed(() => encode(enc, text));
      for (const ids of [coldIds, warmIds]) {
        reference ??= ids;
        if (!sameIds(reference, ids)) {
          const at = firstDifference(reference, ids);
          throw new Error(`${name}: ${engine}'s ids differ from the first engine's at token ${at} (of ${reference.length} and ${ids.length})`);
        }
      }
      count = reference.length;
      times[engine].load.push(load);
      times[engine].cold.push(cold);
      times[engine].warm.push(warm);
    }
  }
  return { name, native, times, count };
}

function report({ name, native, times, count }, chars) {
  const ours = times["bpe.js"];
  console.log(`\n${name}: ${count.toLocaleString("en")} ids, identical across engines; bpe.js splits with ${native ? "node's own \\p{…} (checked)" : "the pattern written out"}`);
  console.log(`${"engine".padEnd(14)} ${"load s".padStart(8)} ${"cold s".padStart(8)} ${"warm s".padStart(8)} ${"cold MB/s".padStart(10)}  ${"bpe.js / engine: cold".padStart(22)} ${"warm".padStart(6)}`);
  for (const [engine, t] of Object.entries(times)) {
    const cold = median(t.cold);
    const ratio = (k) => median(ours[k].map((x, i) => x / t[k][i])).toFixed(2);
    const ratios = engine === "bpe.js" ? "" : `${ratio("cold").padStart(22)} ${ratio("warm").padStart(6)}`;
    console.log(
      `${engine.padEnd(14)} ${median(t.load).toFixed(3).padStart(8)} ${cold.toFixed(3).padStart(8)} ${median(t.warm).toFixed(3).padStart(8)} ${(chars / 1e6 / cold).toFixed(2).padStart(10)}  ${ratios}`,
    );
  }
}

async function main() {
  const { dir, temporary } = inputs();
  try {
    const text = readFileSync(join(dir, "corpus.txt"), "utf-8");
    const bytes = Buffer.byteLength(text, "utf-8");
    console.log(`node ${process.version}; corpus ${(bytes / 1e6).toFixed(1)} MB (${text.length.toLocaleString("en")} UTF-16 units), ${ROUNDS} rounds`);
    console.log("CPU seconds, medians; ratio = bpe.js's time / the engine's, median of the rounds' ratios (below 1: bpe.js is faster)");
    if (typeof globalThis.gc !== "function") console.log("(run with node --expose-gc for a collection before each timing)");
    for (const name of ENCODINGS) report(await benchOne(name, dir, text), bytes);
  } finally {
    if (temporary) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
