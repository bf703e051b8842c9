// The Tokenize page's Web Worker: it encodes, so typing never waits for a long text (a 3 MB paste
// included). Messages in:
//   {type: "model", key, url}            fetch and read a model file (the Cache API keeps it by its
//                                        hashed name; without it, the browser's HTTP cache): byte-level
//                                        BPE (bpe.js) or SentencePiece-style BPE (spm.js), as its magic says
//   {type: "model", key, buffer}         a model given as bytes
//   {type: "model", key, kind: "chars"}  the "Characters" baseline (one token per code point)
//   {type: "encode", seq, key, text, recognise, specials, specialsId}  (specials: null for the model's own;
//                                        specialsId names them, so a RegExp is built once per set)
// Messages out:
//   {type: "ready", key, ms} | {type: "result", seq, key, ids, lens, special, data, chars, inserted, ms}
//                                        (inserted: spm.js's dummy-prefix spaces in data, else undefined)
//   {type: "error", seq?, key, message}
// A newer "encode" makes an older one stop at its next pause (every few thousand chunks), so
// stale work never delays fresh work; results carry their seq and the page keeps only the newest.
import { CharEncoder, Encoder, parseModel } from "./bpe.js";
import { OPTIMIZED, checkProperty, explicitSource } from "./pattern.js";
import { SpmEncoder, isSpmModel, parseSpmModel } from "./spm.js";

const CACHE = "bpe-lab-models-v1";
const KEEP = 4; // models kept in memory (switching back and forth between tokenizers is instant)
const models = new Map(); // key -> Promise<Encoder>
let latest = 0;
const checked = new Map(); // property -> Promise<{extra, missing} | null>, once per worker

/** The encoder of a model file, of the kind the file is. */
function encoderOf(buffer) {
  return isSpmModel(buffer) ? new SpmEncoder(parseSpmModel(buffer)) : new Encoder(parseModel(buffer));
}

async function fetchModel(url) {
  const cache = typeof caches !== "undefined" ? await caches.open(CACHE).catch(() => null) : null;
  let response = cache ? await cache.match(url) : undefined;
  if (!response) {
    response = await fetch(url);
    if (!response.ok) throw new Error(`could not load the model (${response.status} ${response.statusText})`);
    if (cache) await cache.put(url, response.clone()).catch(() => {});
  }
  return response.arrayBuffer();
}

function load(msg) {
  let encoder = models.get(msg.key);
  if (!encoder) {
    const t0 = performance.now();
    encoder =
      msg.kind === "chars"
        ? Promise.resolve(new CharEncoder())
        : (msg.buffer ? Promise.resolve(msg.buffer) : fetchModel(msg.url)).then(encoderOf);
    encoder.then(
      (enc) => {
        postMessage({ type: "ready", key: msg.key, ms: performance.now() - t0 });
        if (enc.pattern !== null && explicitSource(enc.pattern).length > OPTIMIZED && msg.native !== false) upgrade(msg.key, enc);
      },
      (e) => {
        models.delete(msg.key);
        postMessage({ type: "error", key: msg.key, message: String(e && e.message ? e.message : e) });
      },
    );
    models.set(msg.key, encoder);
    while (models.size > KEEP) models.delete(models.keys().next().value);
  }
  return encoder;
}

const channel = new MessageChannel();
const waiting = [];
channel.port1.onmessage = () => waiting.shift()();
// give way to queued messages (a newer encode), then go on: faster than setTimeout's clamp
const pause = () => new Promise((resolve) => {
  waiting.push(resolve);
  channel.port2.postMessage(0);
});

/** Check the pattern's properties in the background (between other work), then split natively. */
async function upgrade(key, encoder) {
  const diffs = {};
  for (const [name, ranges] of Object.entries(encoder.pattern.props)) {
    if (!checked.has(name)) {
      checked.set(name, (async () => {
        const steps = checkProperty(name, ranges);
        for (;;) {
          const { value, done } = steps.next();
          if (done) return value;
          await pause();
        }
      })());
    }
    diffs[name] = await checked.get(name);
  }
  encoder.useNative(diffs);
  postMessage({ type: "native", key });
}

async function encode(msg) {
  const encoder = await models.get(msg.key);
  if (!encoder || msg.seq !== latest) return;
  const t0 = performance.now();
  if (encoder.specialsId !== msg.specialsId) {
    encoder.setSpecials(msg.specials || encoder.specials);
    encoder.specialsId = msg.specialsId;
  }
  const steps = encoder.encodeSteps(msg.text, { recognise: !!msg.recognise });
  let last = performance.now();
  for (;;) {
    const { value, done } = steps.next();
    if (done) {
      const r = value;
      postMessage(
        { type: "result", seq: msg.seq, key: msg.key, ids: r.ids, lens: r.lens, special: r.special, data: r.data, chars: r.chars, inserted: r.inserted, ms: performance.now() - t0 },
        [r.ids.buffer, r.lens.buffer, r.special.buffer, r.data.buffer],
      );
      return;
    }
    if (performance.now() - last > 8) {
      await pause();
      if (msg.seq !== latest) return; // a newer text came in: this result would be stale
      last = performance.now();
    }
  }
}

self.onmessage = (event) => {
  const msg = event.data;
  if (msg.type === "model") {
    load(msg);
  } else if (msg.type === "encode") {
    latest = msg.seq;
    if (!models.has(msg.key)) {
      postMessage({ type: "error", seq: msg.seq, key: msg.key, message: "no model loaded under this key" });
      return;
    }
    encode(msg).catch((e) => postMessage({ type: "error", seq: msg.seq, key: msg.key, message: String(e && e.message ? e.message : e) }));
  }
};
