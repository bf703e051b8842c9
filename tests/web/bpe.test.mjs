// node --test: ui/web/bpe.js encodes as the Python core does, and pattern.js splits as Python's regex does.
// Known answers, a textbook BPE written here as the reference on random merge tables, and the core's own ids
// on tokenizers tests/web/bpe_fixtures.py trains for each run (a new seed every run, printed on failure).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { test } from "node:test";

import { CACHE_LIMIT, ChunkCache, Encoder, cleanText, makeModel, parseModel, specialRegExp, splitText, tokenOffsets, utf8Length } from "../../ui/web/bpe.js";
import { checkProperty, classSource, explicitSource, finish, nativeSource, subtract, union } from "../../ui/web/pattern.js";
import { ROOT, python } from "./pyfixtures.mjs";

const utf8 = new TextEncoder();

function fixtures(seed) {
  const out = execFileSync(python(), [ROOT + "tests/web/bpe_fixtures.py", String(seed)], { cwd: ROOT, maxBuffer: 1 << 28, encoding: "utf-8" });
  return JSON.parse(out);
}

function modelOf(b64) {
  const bytes = Buffer.from(b64, "base64");
  return parseModel(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

// a small seeded generator (mulberry32), so a failing case can be replayed from its seed
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The textbook (minbpe's encode loop): while a pair has a merge, merge every occurrence of the lowest-ranked one. */
function textbook(bytes, merges) {
  const ranks = new Map();
  merges.forEach(([a, b, id], r) => ranks.set(a + "," + b, [r, id])); // a pair listed twice: the last one counts
  const limit = ranks.size;
  let ids = Array.from(bytes);
  for (;;) {
    let best = null;
    for (let i = 0; i + 1 < ids.length; i++) {
      const r = ranks.get(ids[i] + "," + ids[i + 1]);
      if (r && r[0] < limit && (best === null || r[0] < best[0])) best = r;
    }
    if (best === null) return ids;
    const [r] = best;
    const [a, b] = merges[r];
    const out = [];
    for (let i = 0; i < ids.length; i++) {
      if (i + 1 < ids.length && ids[i] === a && ids[i + 1] === b) {
        out.push(best[1]);
        i++;
      } else out.push(ids[i]);
    }
    ids = out;
  }
}

test("minbpe's example: aaabdaaabac", () => {
  const enc = new Encoder(makeModel({ merges: [[97, 97, 256], [256, 97, 257], [257, 98, 258]] }));
  assert.deepEqual(Array.from(enc.encode("aaabdaaabac").ids), [258, 100, 258, 97, 99]);
  assert.deepEqual(Array.from(enc.encode("aaabdaaabac").lens), [4, 1, 4, 1, 1]);
});

test("random merge tables: the same ids as the textbook, short chunks and long ones", () => {
  const seed = Math.floor(Math.random() * 2 ** 31);
  const rand = rng(seed);
  for (let round = 0; round < 60; round++) {
    const alphabet = 2 + Math.floor(rand() * 4); // few symbols: many merges apply
    const merges = [];
    const ids = Array.from({ length: alphabet }, (_, i) => 97 + i);
    for (let k = 0; k < 40; k++) {
      const a = ids[Math.floor(rand() * ids.length)];
      const b = ids[Math.floor(rand() * ids.length)];
      merges.push([a, b, 256 + k]);
      ids.push(256 + k);
    }
    if (rand() < 0.3) merges.push(merges[Math.floor(rand() * merges.length)].slice(0, 2).concat([999])); // a pair twice
    const enc = new Encoder(makeModel({ merges }));
    for (let t = 0; t < 20; t++) {
      const n = rand() < 0.5 ? Math.floor(rand() * 40) : 40 + Math.floor(rand() * 400);
      const bytes = Uint8Array.from({ length: n }, () => 97 + Math.floor(rand() * alphabet));
      const text = new TextDecoder().decode(bytes);
      assert.deepEqual(Array.from(enc.mergeBytes(bytes)).filter((_, i) => i % 2 === 0), textbook(bytes, merges), `seed ${seed}`);
      assert.deepEqual(Array.from(enc.encode(text).ids), textbook(bytes, merges), `seed ${seed}`);
    }
  }
});

test("byte ids that are not the identity, and whole tokens only for a chunk equal to one", () => {
  const byteIds = Array.from({ length: 256 }, (_, b) => 255 - b);
  const enc = new Encoder(makeModel({ byteIds, merges: [[255 - 97, 255 - 98, 300]], whole: [[400, utf8.encode("xyz")]] }));
  assert.deepEqual(Array.from(enc.encode("ab").ids), [300]);
  assert.deepEqual(Array.from(enc.encode("xyz").ids), [400]);
  assert.deepEqual(Array.from(enc.encode("xyzx").ids), [255 - 120, 255 - 121, 255 - 122, 255 - 120]);
});

test("special tokens: as text, or recognised leftmost and longest first", () => {
  const enc = new Encoder(makeModel({ specials: { "<a>": 1000, "<a>b": 1001, "<": 1002 } }));
  assert.deepEqual(Array.from(enc.encode("x<a>b<a>", { recognise: true }).ids), [120, 1001, 1000]);
  assert.deepEqual(Array.from(enc.encode("<<a>", { recognise: true }).ids), [1002, 1000]);
  assert.deepEqual(Array.from(enc.encode("<a>", { recognise: false }).ids), [60, 97, 62]);
  const r = enc.encode("<a>b", { recognise: true });
  assert.deepEqual([Array.from(r.special), Array.from(r.lens)], [[1], [4]]);
  assert.equal(specialRegExp([]), null);
  assert.ok(specialRegExp(["a.b", "(x)", "[|]", "/\\"]).test("[|]"), "syntax characters are escaped");
});

test("lone surrogates become U+FFFD, and lengths and offsets follow the core's rules", () => {
  assert.equal(cleanText("a\ud800b\udc00"), "a\ufffdb\ufffd");
  assert.equal(utf8Length("aé你😄"), 1 + 2 + 3 + 4);
  const enc = new Encoder(makeModel());
  const r = enc.encode("a\ud83d");
  assert.deepEqual(Array.from(r.data), [97, 0xef, 0xbf, 0xbd]);
  assert.equal(r.chars, 2);
  // bytes of "😄" split in two tokens: both point at the emoji (trace.make_spans)
  const off = tokenOffsets(Uint32Array.of(1, 2, 2), utf8.encode("a😄"));
  assert.deepEqual([Array.from(off.start), Array.from(off.end)], [[0, 1, 1], [1, 2, 2]]);
  assert.deepEqual([Array.from(off.start16), Array.from(off.end16)], [[0, 1, 1], [1, 3, 3]]);
});

test("splitText keeps the text the pattern does not match", () => {
  assert.deepEqual(splitText(/\d+/gu, "ab12cd3"), ["ab", "12", "cd", "3"]);
  assert.deepEqual(splitText(null, "abc"), ["abc"]);
  assert.deepEqual(splitText(/x/gu, ""), []);
});

/** The chunks the encoder takes, one chunkEnd at a time. */
function chunksOf(enc, text) {
  const out = [];
  for (let pos = 0; pos < text.length; ) {
    const end = enc.chunkEnd(text, pos);
    assert.ok(end > pos, `a chunk at ${pos} ends after it`);
    out.push(text.slice(pos, end));
    pos = end;
  }
  return out;
}

test("the encoder's chunks are splitText's: matches, the text between them, and patterns that match nothing or the empty string", { timeout: 60_000 }, () => {
  const enc = new Encoder(makeModel());
  const texts = ["", "ab12cd3", "12", "x", "a😄1 22 😄😄b\n", "😄", " \t\n1 2", "aaa1aaa"];
  for (const source of ["\\d+", "[a-z]+|\\s+", "a*", "(?:)", "\\d*|b", "(?=\\d)\\d\\d?", "\\p{L}+|\\p{N}", "\\u{1F604}"]) {
    enc.setRegExp(source);
    for (const text of texts) assert.deepEqual(chunksOf(enc, text), splitText(new RegExp(source, "gu"), text), `${source} on ${JSON.stringify(text)}`);
  }
  enc.setRegExp(null);
  assert.deepEqual(chunksOf(enc, "a b"), ["a b"]);
});

test("encodeSteps gives way every few chunks and ends with encode's result", () => {
  const enc = new Encoder(makeModel({ merges: [[97, 98, 256]], pattern: null }));
  enc.setRegExp("\\S+|\\s+");
  const text = "ab ab abab x y ";
  const steps = enc.encodeSteps(text, { every: 2 });
  const counts = [];
  let r;
  while (!(r = steps.next()).done) counts.push(r.value);
  assert.equal(counts.length, Math.floor(splitText(enc.regexp, text).length / 2)); // 10 chunks: 5 pauses
  assert.deepEqual(counts, [...counts].sort((a, b) => a - b));
  assert.deepEqual(Array.from(r.value.ids), Array.from(enc.encode(text).ids));
  assert.deepEqual(Array.from(r.value.ids), [256, 32, 256, 32, 256, 256, 32, 120, 32, 121, 32]);
});

test("the chunk cache tells chunks of one hash apart, and forgets everything past its limit", () => {
  const cache = new ChunkCache();
  const tok = Int32Array.of(7, 8);
  const len = Int32Array.of(1, 2);
  const text = "abcabdab";
  const a = cache.add(text, 0, 3, 42, tok, len, 2); // "abc"
  tok[0] = 9;
  const b = cache.add(text, 3, 6, 42, tok, len, 1); // "abd", the same hash
  assert.equal(cache.find("xabc", 1, 4, 42), a);
  assert.equal(cache.find(text, 3, 6, 42), b);
  assert.equal(cache.find(text, 6, 8, 42), -1, "ab: a prefix of both, not either");
  assert.deepEqual(Array.from(cache.out.subarray(a, a + 5)), [2, 7, 1, 8, 2]);
  assert.deepEqual(Array.from(cache.out.subarray(b, b + 3)), [1, 9, 1]);
  // distinct keys up to the limit are all kept (the table grows); one more and only it is left
  const full = new ChunkCache();
  const keys = Array.from({ length: CACHE_LIMIT + 1 }, (_, i) => "k" + i.toString(36));
  const found = (i) => full.find(keys[i], 0, keys[i].length, Math.imul(i, 7919)) !== -1;
  keys.slice(0, CACHE_LIMIT).forEach((k, i) => full.add(k, 0, k.length, Math.imul(i, 7919), tok, len, 1));
  assert.equal(full.size, CACHE_LIMIT);
  assert.ok(found(0) && found(5) && found(CACHE_LIMIT - 1));
  full.add(keys[CACHE_LIMIT], 0, keys[CACHE_LIMIT].length, Math.imul(CACHE_LIMIT, 7919), tok, len, 1);
  assert.equal(full.size, 1);
  assert.ok(found(CACHE_LIMIT) && !found(0) && !found(5));
});

test("more distinct chunks than the cache keeps: the textbook's ids all along", () => {
  const seed = Math.floor(Math.random() * 2 ** 31);
  const rand = rng(seed);
  const merges = [[97, 98, 256], [256, 99, 257], [98, 99, 258], [257, 257, 259], [100, 97, 260]];
  const enc = new Encoder(makeModel({ merges }));
  enc.setRegExp(" ?[a-z]+");
  const words = Array.from({ length: CACHE_LIMIT + 30_000 }, (_, i) => " " + "abcd"[Math.floor(rand() * 4)] + i.toString(4).replace(/[0-3]/g, (d) => "abcd"[d]));
  const text = words.join("");
  const expected = words.flatMap((w) => textbook(utf8.encode(w), merges));
  assert.deepEqual(Array.from(enc.encode(text).ids), expected, `seed ${seed}`);
  assert.ok(enc.cache.size < CACHE_LIMIT, "the cache started afresh");
  assert.deepEqual(Array.from(enc.encode(text).ids), expected, `seed ${seed}, again`);
});

test("range arithmetic and classes", () => {
  assert.deepEqual(union([[5, 9]], [[1, 2], [3, 4]], [[20, 20]]), [[1, 9], [20, 20]]);
  assert.deepEqual(subtract([[0, 10], [20, 30]], [[2, 3], [10, 22], [29, 40]]), [[0, 1], [4, 9], [23, 28]]);
  assert.equal(classSource([[0x61, 0x63], [0x2d, 0x2d], [0x1f600, 0x1f600]]), "[a-c\\u{2d}😀]");
  assert.equal(classSource([[0x41, 0x41]]), "A");
});

test("a browser property that differs from regex's is corrected: the same chunks either way", () => {
  // pretend this engine's \p{Lu} lacks "B" and has "é" too: the class must still be regex's set
  const upper = [[0x41, 0x5a]];
  const spec = { parts: [0, "+|", 1], atoms: [{ ranges: upper, negate: false, props: ["Lu"], rest: [] }, { ranges: [[0, 0x40], [0x5b, 0x10ffff]], negate: true, props: ["Lu"], rest: [] }], props: { Lu: upper } };
  const browser = finish(checkProperty("Lu", upper)); // this engine's real difference, if any
  const fake = { Lu: { extra: union(browser.extra, [[0xe9, 0xe9]]), missing: union(browser.missing, [[0x42, 0x42]]) } };
  // nativeSource believes the engine's \p{Lu} is upper - B + é: it adds B back and removes é
  const source = nativeSource(spec, fake);
  assert.match(source, /\\p\{Lu\}/);
  const text = "ABCé DÉ xyzB";
  const explicit = splitText(new RegExp(explicitSource(spec), "gu"), text);
  // what nativeSource writes for a fake engine is checked on a fake engine: rewrite \p{Lu} as its fake set
  const fakeLu = classSource(union(subtract(upper, [[0x42, 0x42]]), [[0xe9, 0xe9]])).slice(1, -1);
  const onFake = source.replaceAll("\\p{Lu}", fakeLu);
  assert.deepEqual(splitText(new RegExp(onFake, "gu"), text), explicit);
  assert.equal(checkProperty("NoSuchProperty", []).next().value, null);
});

test("the core's ids for trained tokenizers and one built from ranks, explicit and native splitting", () => {
  const seed = Math.floor(Math.random() * 2 ** 31);
  const data = fixtures(seed);
  const diffs = {};
  for (const c of data.cases) {
    const model = modelOf(c.model);
    const enc = new Encoder(model);
    const modes = [["explicit", () => {}]];
    if (model.pattern !== null) {
      modes.push([
        "native",
        () => {
          for (const [p, r] of Object.entries(model.pattern.props)) diffs[p] ??= finish(checkProperty(p, r));
          enc.useNative(diffs);
        },
      ]);
    }
    for (const [mode, prepare] of modes) {
      prepare();
      c.texts.forEach((text, i) => {
        const label = `seed ${seed}, ${c.name}, ${mode}, text ${i}: ${JSON.stringify(text.slice(0, 60))}`;
        const clean = cleanText(text);
        if (enc.regexp !== null) assert.deepEqual(chunksOf(enc, clean), splitText(enc.regexp, clean), label + ": splitText's chunks");
        assert.deepEqual(Array.from(enc.encode(text).ids), c.ids[i], label + " (special tokens as text)");
        const r = enc.encode(text, { recognise: true });
        assert.deepEqual(Array.from(r.ids), c.recognised[i], label + " (recognised)");
        assert.equal(r.lens.reduce((a, b) => a + b, 0), r.data.length, label + ": the tokens' bytes are the text's");
      });
    }
  }
});

test("the live view counts code points as the server does (its limit is in the server's characters)", async () => {
  const { codePoints } = await import("../../ui/web/tokenize.js");
  assert.equal(codePoints("a😄b"), 3);
  assert.equal(codePoints("\ud800\ud800\udc00"), 2, "a lone surrogate is one character, as in Python");
  assert.equal(codePoints("\udc00"), 1);
  const text = "😄".repeat(150_000); // 300,000 UTF-16 units, 150,000 code points: under a 200,000 limit
  assert.equal(codePoints(text, 200_000), 150_000);
  assert.ok(codePoints("x".repeat(300_000), 200_000) > 200_000);
});

test("the live view's id list holds every id once, in order, the first ones hoverable by their index", async () => {
  const { idsHtml, IDS_BLOCK } = await import("../../ui/web/tokenize.js");
  let seed = 7;
  const rand = (n) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  for (const [length, hoverable] of [[0, 0], [1, 1], [5, 5], [5, 2], [3, 0], [IDS_BLOCK * 2 + 7, 100], [IDS_BLOCK, 0], [IDS_BLOCK + 1, IDS_BLOCK]]) {
    const ids = Uint32Array.from({ length }, () => rand(300_000));
    const html = idsHtml(ids, Math.min(hoverable, length));
    // its text (tags removed) is a list of exactly the ids, in order, whatever the blocks
    const text = html.replace(/<[^>]*>/g, "");
    assert.deepEqual(JSON.parse(text), Array.from(ids), `${length}/${hoverable}`);
    assert.ok(!text.includes(",,") && !/^\[,/.test(text), text.slice(0, 40));
    const spans = [...html.matchAll(/<span data-i="(\d+)">(\d+)<\/span>/g)];
    assert.deepEqual(spans.map((m) => Number(m[1])), Array.from({ length: Math.min(hoverable, length) }, (_, i) => i));
    assert.deepEqual(spans.map((m) => Number(m[2])), Array.from(ids.subarray(0, Math.min(hoverable, length))));
    const blocks = (html.match(/class="bpe-ids-more"/g) || []).length;
    assert.equal(blocks, Math.ceil((length - Math.min(hoverable, length)) / IDS_BLOCK));
  }
});

test("the screen readers' table filled a block at a time is the whole table", async () => {
  const { srRows, srTable } = await import("../../ui/web/spans.js");
  const bytes = new TextEncoder().encode("a<b>&\u00e9");
  const spans = Array.from({ length: 23 }, (_, i) => ({ index: i, id: 1000 + i, bytes: bytes.subarray(i % 4, (i % 4) + 2), special: false }));
  const whole = srTable(spans, { caption: "Tokens" });
  for (const cut of [0, 1, 10, 23]) {
    const first = srTable(spans.slice(0, cut), { caption: "Tokens", total: spans.length });
    assert.equal(first.replace("</table>", srRows(spans.slice(cut)) + "</table>"), whole);
  }
  assert.ok(whole.includes("Tokens: 23 tokens") && whole.includes("a&lt;") && !whole.includes("<b>"));
});
