// node --test: ui/web/spm.js encodes SentencePiece-style BPE as the Python core does (tokenizer/bpe/sentencepiece.py,
// tokenizer/spm.py). Known answers (llama.cpp's own test vectors for Llama 2's, Phi-3's and Gemma 4's vocabularies,
// and small cases worked by hand), and the core's ids and the server's view of them on the registered models and on
// tiny vocabularies tests/web/spm_fixtures.py makes for each run (a new seed every run, printed on failure).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { test } from "node:test";

import { SPACE, SentencePieceBPE, SpmEncoder, isSpmModel, parseSpmModel } from "../../ui/web/spm.js";
import { tokenOffsets } from "../../ui/web/bpe.js";
import { boxOffsets, spansOf } from "../../ui/web/tokenize.js";
import { ROOT, python } from "./pyfixtures.mjs";

const SEED = Math.floor(Math.random() * 2 ** 31);
// a text may begin with U+FEFF, which is its own character, not a byte-order mark to drop
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
let cached = null;

function fixtures() {
  if (cached === null) {
    const out = execFileSync(python(), [ROOT + "tests/web/spm_fixtures.py", String(SEED)], { cwd: ROOT, maxBuffer: 1 << 28, encoding: "utf-8" });
    cached = JSON.parse(out);
  }
  return cached;
}

function bufferOf(b64) {
  const bytes = Buffer.from(b64, "base64");
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
}

function encoderOf(b64) {
  return new SpmEncoder(parseSpmModel(bufferOf(b64)));
}

const BYTES = Array.from({ length: 256 }, (_, b) => `<0x${b.toString(16).toUpperCase().padStart(2, "0")}>`);

/** A tiny scored vocabulary, laid out as a GGUF lays out Llama 2's: <unk>, <s>, </s>, the bytes, then the rest. */
function tiny(rest, { scores = null, types = null, addSpacePrefix = true } = {}) {
  const pieces = ["<unk>", "<s>", "</s>", ...BYTES, ...rest];
  const t = [2, 3, 3, ...BYTES.map(() => 6), ...(types || rest.map(() => 1))];
  const s = Float32Array.from([0, 0, 0, ...BYTES.map(() => 0), ...(scores || rest.map((_, i) => -i))]);
  const enc = new SpmEncoder({ pieces, scores: s, types: Uint8Array.from(t), merges: null, addSpacePrefix, splitNewlines: false, specials: { "<unk>": 0, "<s>": 1, "</s>": 2 } });
  return { enc, id: (p) => pieces.indexOf(p) };
}

function check(where, enc, c) {
  c.texts.forEach((text, k) => {
    const at = `${where} (seed ${SEED}), text ${k} ${JSON.stringify(text.slice(0, 60))}`;
    const r = enc.encode(text);
    assert.deepEqual(Array.from(r.ids), c.ids[k], at);
    assert.deepEqual(Array.from(enc.encode(text, { recognise: true }).ids), c.recognised[k], at + ", special tokens recognised");
    const server = c.server[k];
    assert.deepEqual(Array.from(r.lens), server.lens, at + ": byte lengths");
    assert.deepEqual([...r.special.keys()].filter((i) => r.special[i]), server.special, at + ": special flags");
    assert.equal(r.chars, server.chars, at + ": characters");
    // the server sends its view when it is not the (cleaned) text itself: the bytes the tokens are, in order
    assert.equal(decoder.decode(r.data), server.text ?? text.toWellFormed(), at + ": the model's view");
    assert.equal(r.lens.reduce((a, b) => a + b, 0), r.data.length, at);
  });
}

test("llama.cpp's own test vectors: Llama 2's, Phi-3's and Gemma 4's ids, special tokens as text", () => {
  const { models } = fixtures();
  assert.deepEqual(models.map((m) => m.name).sort(), ["gemma4", "llama2", "phi3"]);
  for (const m of models) {
    const enc = encoderOf(m.model);
    assert.equal(m.vectors.length, 46);
    for (const { text, ids } of m.vectors) assert.deepEqual(Array.from(enc.encode(text).ids), ids, `${m.name}: ${JSON.stringify(text)}`);
  }
});

test("the registered models: the core's ids in both special-token modes and the server's lengths, flags and view", { timeout: 120_000 }, () => {
  for (const m of fixtures().models) check(m.name, encoderOf(m.model), m);
});

test("tiny vocabularies made for this run: score ties, byte fallback, user-defined pieces, a merge list", () => {
  for (const m of fixtures().small) check(m.name, encoderOf(m.model), m);
});

test("the best-scored pair first, the leftmost on a tie, whatever the pairs' order of discovery", () => {
  // "▁ab" can come from ▁a + b or ▁ + ab; ab scores better than ▁a, so ▁ + ab it is, then ▁ab
  const { enc, id } = tiny(["▁", "a", "b", "ab", "▁a", "▁ab", "bb"], { scores: [-5, -5, -5, -1, -2, -3, -1] });
  assert.deepEqual(Array.from(enc.encode("ab").ids), [id("▁ab")]);
  // bbb: two pairs bb of one score; the leftmost is joined: bb + b
  assert.deepEqual(Array.from(enc.encode("bbb", {}).ids), [id("▁"), id("bb"), id("b")]);
});

test("byte fallback: a character with no piece is its UTF-8 bytes, one <0xNN> token of one byte each", () => {
  const { enc, id } = tiny(["▁", "a"]);
  const r = enc.encode("a 你");
  assert.deepEqual(Array.from(r.ids), [id("▁"), id("a"), id("▁"), id("<0xE4>"), id("<0xBD>"), id("<0xA0>")]);
  assert.deepEqual(Array.from(r.lens), [1, 1, 1, 1, 1, 1]);
  assert.equal(decoder.decode(r.data), " a 你");
  const spans = spansOf(r, 10);
  assert.deepEqual(Array.from(spans[3].bytes), [0xe4], "a byte token is drawn as its byte");
});

test("special tokens: text unless recognised, and the dummy prefix again after one; user-defined pieces always", () => {
  const { enc, id } = tiny(["▁", "a", "<u>", "<", ">", "u", "s", "/"], { types: [1, 1, 4, 1, 1, 1, 1, 1] });
  const plain = enc.encode("a<s>a");
  assert.ok(!Array.from(plain.ids).includes(id("<s>")));
  const rec = enc.encode("a<s>a", { recognise: true });
  assert.deepEqual(Array.from(rec.ids), [id("▁"), id("a"), id("<s>"), id("▁"), id("a")]);
  assert.deepEqual(Array.from(rec.special), [0, 0, 1, 0, 0]);
  assert.equal(decoder.decode(rec.data), " a<s> a");
  assert.deepEqual(Array.from(enc.encode("a<u>").ids), [id("▁"), id("a"), id("<u>")], "a user-defined piece needs no recognising");
  // a typed ▁ is the space it stands for
  assert.deepEqual(Array.from(enc.encode(SPACE + "a").ids), Array.from(enc.encode(" a").ids));
});

test("a token's characters in the text box: the view's prefix spaces are no typed character", () => {
  const { enc } = tiny(["▁", "a", "b", "▁a", "▁b", "你"]);
  const r = enc.encode("a<s>b 你", { recognise: true });
  assert.equal(decoder.decode(r.data), " a<s> b 你");
  assert.deepEqual(Array.from(r.inserted), [0, 5]);
  const box = boxOffsets(tokenOffsets(r.lens, r.data), r.inserted);
  const text = "a<s>b 你";
  const marked = Array.from(r.ids, (_, t) => text.slice(box.start16[t], box.end16[t]));
  assert.deepEqual(marked, ["a", "<s>", "b", " ", "你"]);
  assert.deepEqual(Array.from(box.start), [0, 1, 4, 5, 6]);
  assert.equal(boxOffsets(tokenOffsets(r.lens, r.data), new Uint32Array(0)).start16[1], 2, "nothing inserted: the view's own offsets");
});

test("no dummy prefix where the model adds none, and lone surrogates become U+FFFD", () => {
  const { enc, id } = tiny(["▁", "a", "\ufffd"], { addSpacePrefix: false });
  assert.deepEqual(Array.from(enc.encode("a a").ids), [id("a"), id("▁"), id("a")]);
  const r = enc.encode("\ud800a");
  assert.deepEqual(Array.from(r.ids), [id("\ufffd"), id("a")]);
  assert.equal(r.chars, 2);
});

test("encodeSteps gives way during a long merge and ends with encode's result", () => {
  const { enc } = tiny(["▁", "a", "aa", "aaaa"]);
  const text = "a".repeat(20_000);
  const steps = enc.encodeSteps(text, { every: 100 });
  let pauses = 0;
  let r;
  for (;;) {
    const { value, done } = steps.next();
    if (done) {
      r = value;
      break;
    }
    pauses++;
  }
  assert.ok(pauses > 10, `${pauses} pauses`);
  assert.deepEqual(Array.from(r.ids), Array.from(enc.encode(text).ids));
});

test("a model file says its kind; a damaged one is refused", () => {
  const file = bufferOf(fixtures().small[0].model);
  assert.ok(isSpmModel(file));
  assert.ok(!isSpmModel(new Uint8Array([66, 80, 69, 76, 2, 0, 0, 0]).buffer), "bpe.js's kind (BPEL)");
  assert.throws(() => parseSpmModel(file.slice(0, file.byteLength - 1)), /wrong length/);
  const other = file.slice(0);
  new Uint32Array(other, 0, 2)[1] = 99;
  assert.throws(() => parseSpmModel(other), /version 99/);
  assert.throws(() => new SentencePieceBPE({ pieces: ["a"], scores: Float32Array.of(0), types: Uint8Array.of(1) }), /256 byte tokens/);
});
