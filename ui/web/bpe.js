// The BPE encoder of BPE Lab's core (tokenizer/bpe/encoder.py), in the browser: the same ids, held equal by the parity tests.
//
// A tokenizer comes as a model file (ui/web/model.py writes it): its merges in rank order as
// (left, right, new id), the ids of the 256 bytes, the whole tokens (tokens no merge builds, taken
// only for a chunk equal to one), its special tokens and its split pattern as data for a RegExp
// (ui/web/jsregex.py, pattern.js). Encoding is the core's rule, step for step:
//
//   1. lone surrogates become U+FFFD (tokenizer.errors.clean_text); a model whose own package normalizes
//      (Qwen: NFC) puts the text in that form as Python's unicodedata does (nfcAsPython);
//   2. with special tokens recognised, the text is cut at each one (leftmost, longest first);
//   3. each piece is split by the pattern (text it leaves unmatched stays a chunk of its own);
//   4. a chunk equal to a whole token is that token; any other chunk starts as its UTF-8 bytes
//      and merges the leftmost pair of lowest rank until no pair has a merge (encoder.bpe_short,
//      bpe_heap: the same order, so the same ids, for every kind of tokenizer: OpenAI's, the open
//      models' whose merges build on later ones, and the user's own).
//
// Plain ES module, no DOM: the worker (worker.js) runs it, node's test runner tests it.
import { explicitSource, nativeSource } from "./pattern.js";
import { isPrintable } from "./unicode.js";

export const MAGIC = "BPEL";
export const VERSION = 2;
const HEADER_WORDS = 8; // magic, version, merges, whole tokens, whole bytes, pattern bytes, specials bytes, normal form
// the normal form a model puts text in first (model.py NORMAL_FORMS): 0 none, 1 NFC
const NORMAL_FORMS = [null, "NFC"];
const NO_RANK = 0x7fffffff;
// chunks shorter than this are merged by rescanning (fast for words); longer ones with a heap
const SHORT_CHUNK = 48;
// the chunk cache forgets everything past this many chunks (tokenizer/bpe/encoder.py ChunkCache's policy)
export const CACHE_LIMIT = 200_000;

const utf8 = new TextEncoder();
const strict = new TextDecoder("utf-8", { fatal: true });

/** The model file as typed arrays and strings; throws on a file that is not one.
 * @param {ArrayBuffer} buffer
 */
export function parseModel(buffer) {
  if (!(buffer instanceof ArrayBuffer) || buffer.byteLength < 4 * (HEADER_WORDS + 256)) {
    throw new Error("not a BPE Lab model file (too short)");
  }
  const head = new Uint32Array(buffer, 0, HEADER_WORDS);
  const magic = String.fromCharCode(...new Uint8Array(buffer, 0, 4));
  if (magic !== MAGIC) throw new Error("not a BPE Lab model file (bad magic)");
  if (head[1] !== VERSION) throw new Error(`model file version ${head[1]}, this page reads version ${VERSION}`);
  const [nMerges, nWhole, wholeBytes, patternBytes, specialBytes, form] = head.subarray(2, 8);
  if (form >= NORMAL_FORMS.length) throw new Error(`model file asks for normal form ${form}, which this page does not know`);
  let at = 4 * HEADER_WORDS;
  const words = (n) => {
    const out = new Uint32Array(buffer, at, n);
    at += 4 * n;
    return out;
  };
  const byteIds = words(256);
  const merges = words(3 * nMerges);
  const wholeIds = words(nWhole);
  const wholeLens = words(nWhole);
  const bytes = (n) => {
    const out = new Uint8Array(buffer, at, n);
    at += n;
    return out;
  };
  const wholeData = bytes(wholeBytes);
  const pattern = patternBytes ? JSON.parse(strict.decode(bytes(patternBytes))) : null;
  const specials = specialBytes ? JSON.parse(strict.decode(bytes(specialBytes))) : {};
  if (at !== buffer.byteLength) throw new Error("model file has the wrong length");
  const whole = [];
  let pos = 0;
  for (let i = 0; i < nWhole; i++) {
    whole.push([wholeIds[i], wholeData.subarray(pos, pos + wholeLens[i])]);
    pos += wholeLens[i];
  }
  return { byteIds, merges, whole, pattern, specials, normalizer: NORMAL_FORMS[form] };
}

/** A model from plain arrays (tests, and the tiny models built in the page). */
export function makeModel({ merges = [], byteIds = null, whole = [], pattern = null, specials = {}, normalizer = null } = {}) {
  const flat = new Uint32Array(3 * merges.length);
  merges.forEach(([a, b, id], i) => flat.set([a, b, id], 3 * i));
  const ids = new Uint32Array(256);
  for (let b = 0; b < 256; b++) ids[b] = byteIds ? byteIds[b] : b;
  return { byteIds: ids, merges: flat, whole: whole.map(([id, data]) => [id, Uint8Array.from(data)]), pattern, specials, normalizer };
}

/**
 * NFC as Python's unicodedata (Unicode 14 in Python 3.11) computes it, whatever Unicode version the
 * browser's String.prototype.normalize knows. A code point Python cannot print is either unassigned
 * there (Python leaves it alone and composes nothing across it: it is a starter that pairs with
 * nothing) or assigned and inert (controls, format characters, separators, private use: none composes
 * or reorders; only U+2000 and U+2001 change, to U+2002 and U+2003, tests/ui/web/test_model.py checks
 * this over all of Unicode). So the text is cut at those code points, and each run between them, made
 * of characters Unicode 14 assigned, is normalized by the browser: the same result in every later
 * version (Unicode's normalization stability policy).
 */
export function nfcAsPython(text) {
  let ascii = true;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 0x7f) {
      ascii = false;
      break;
    }
  }
  if (ascii) return text;
  let out = "";
  let start = 0;
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i);
    const n = cp > 0xffff ? 2 : 1;
    if (cp > 0x7f && !isPrintable(cp)) {
      out += text.slice(start, i).normalize("NFC");
      out += cp === 0x2000 ? "\u2002" : cp === 0x2001 ? "\u2003" : text.slice(i, i + n);
      start = i + n;
    }
    i += n;
  }
  return out + text.slice(start).normalize("NFC");
}

/** Escape a string for a RegExp (the ``u`` flag allows escapes of syntax characters only). */
export function escapeRegExp(s) {
  return s.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}

/** A RegExp that finds any of ``tokens``, longest first (bpe.special_regex), or null for none. */
export function specialRegExp(tokens) {
  const list = [...tokens].filter((t) => t.length > 0);
  if (!list.length) return null;
  list.sort((a, b) => [...b].length - [...a].length || (a < b ? -1 : a > b ? 1 : 0));
  return new RegExp(list.map(escapeRegExp).join("|"), "gu");
}

/** The text with every lone surrogate replaced by U+FFFD (clean_text). */
export function cleanText(text) {
  return typeof text.toWellFormed === "function" ? text.toWellFormed() : text.replace(/\p{Cs}/gu, "\ufffd");
}

/** How many UTF-8 bytes ``s[from:to]`` takes (the text is well formed). */
export function utf8Length(s, from = 0, to = s.length) {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c < 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** The index after the code point at ``i`` (a RegExp with the u flag never starts a match inside a pair). */
function afterCodePoint(text, i) {
  const c = text.charCodeAt(i);
  return c >= 0xd800 && c < 0xdc00 && i + 1 < text.length ? i + 2 : i + 1;
}

/** Chunks of ``text`` under ``re`` (a global RegExp), with the text between matches kept as chunks. */
export function splitText(re, text) {
  if (!text) return [];
  if (re === null) return [text];
  const out = [];
  let pos = 0;
  re.lastIndex = 0;
  let m;
  while ((m = re.exec(text)) !== null) {
    const s = m.index;
    const e = s + m[0].length;
    if (e === s) {
      re.lastIndex = afterCodePoint(text, s); // never for the patterns jsregex writes (they cannot match the empty string)
      continue;
    }
    if (s > pos) out.push(text.slice(pos, s));
    out.push(m[0]);
    pos = e;
  }
  if (pos < text.length) out.push(text.slice(pos));
  return out;
}

export class Encoder {
  /** @param model what parseModel or makeModel returns */
  constructor(model) {
    this.byteIds = model.byteIds;
    this.specials = model.specials || {};
    this.normalizer = model.normalizer || null;
    this.pattern = model.pattern; // the spec (jsregex.pattern_spec) or null: the whole text is one chunk
    this.setRegExp(model.pattern === null ? null : explicitSource(model.pattern));
    this.native = false;
    const merges = model.merges;
    const n = merges.length / 3;
    this.newIds = new Uint32Array(n);
    // open addressing over (left, right), four words a slot: left (-1: empty), right, rank, new id. A pair
    // listed twice keeps its last rank, and ranks from the number of distinct pairs on never apply (the
    // core builds {pair: (rank, new id)} in list order and merges ranks below its length).
    let size = 16;
    while (size < 2 * n) size *= 2;
    this.mask = size - 1;
    const slots = new Int32Array(4 * size).fill(-1);
    let distinct = 0;
    for (let r = 0; r < n; r++) {
      const a = merges[3 * r];
      const b = merges[3 * r + 1];
      this.newIds[r] = merges[3 * r + 2];
      let h = this.hash(a, b);
      while (slots[4 * h] !== -1 && !(slots[4 * h] === a && slots[4 * h + 1] === b)) h = (h + 1) & this.mask;
      if (slots[4 * h] === -1) distinct++;
      slots[4 * h] = a;
      slots[4 * h + 1] = b;
      slots[4 * h + 2] = r;
      slots[4 * h + 3] = merges[3 * r + 2];
    }
    for (let h = 0; h < size; h++) if (slots[4 * h] !== -1 && slots[4 * h + 2] >= distinct) slots[4 * h + 2] = NO_RANK;
    this.slots = slots;
    this.whole = new Map(); // chunk text -> id; a whole token that is not valid UTF-8 is never a chunk
    for (const [id, data] of model.whole) {
      try {
        this.whole.set(strict.decode(data), id);
      } catch {
        // not text: no chunk of text equals it
      }
    }
    this.cache = new ChunkCache();
    // one chunk's tokens while it is merged (grown for a longer chunk): ids, byte lengths, pair ranks
    this.tok = new Int32Array(256);
    this.len = new Int32Array(256);
    this.rs = new Int32Array(256);
  }

  /** Split with the browser's own \\p{…} from now on, corrected by ``diffs`` (pattern.checkProperty's, per
   * property): the same chunks, faster. */
  useNative(diffs) {
    if (this.pattern === null) return;
    this.setRegExp(nativeSource(this.pattern, diffs));
    this.native = true;
  }

  /** The pattern as a global RegExp (splitText's) and as a sticky one: ``test`` at a chunk's start finds the
   * match a global search from there finds first, without making a match array. */
  setRegExp(source) {
    this.regexp = source === null ? null : new RegExp(source, "gu");
    this.sticky = source === null ? null : new RegExp(source, "yu");
  }

  hash(a, b) {
    return ((Math.imul(a, 0x9e3779b1) ^ Math.imul(b + 0x7f4a7c15, 0x85ebca77)) >>> 0) & this.mask;
  }

  /** The rank of merging (a, b), or NO_RANK. */
  rankOf(a, b) {
    const slots = this.slots;
    const mask = this.mask;
    let h = ((Math.imul(a, 0x9e3779b1) ^ Math.imul(b + 0x7f4a7c15, 0x85ebca77)) >>> 0) & mask;
    for (;;) {
      const k = slots[4 * h];
      if (k === -1) return NO_RANK;
      if (k === a && slots[4 * h + 1] === b) return slots[4 * h + 2];
      h = (h + 1) & mask;
    }
  }

  /** BPE over bytes: [id, byte length, ...]. */
  mergeBytes(data) {
    const n = data.length;
    this.reserve(n);
    for (let i = 0; i < n; i++) {
      this.tok[i] = this.byteIds[data[i]];
      this.len[i] = 1;
    }
    const m = this.merge(n);
    const out = new Uint32Array(2 * m);
    for (let i = 0; i < m; i++) {
      out[2 * i] = this.tok[i];
      out[2 * i + 1] = this.len[i];
    }
    return out;
  }

  /** Room for a chunk of ``n`` bytes in the scratch arrays. */
  reserve(n) {
    if (n <= this.tok.length) return;
    let cap = this.tok.length;
    while (cap < n) cap *= 2;
    this.tok = new Int32Array(cap);
    this.len = new Int32Array(cap);
    this.rs = new Int32Array(cap);
  }

  /** Merge the ``n`` tokens in this.tok/this.len in place; how many are left. */
  merge(n) {
    if (n >= SHORT_CHUNK) return this.mergeHeap(n);
    // bpe_short: the ranks of neighbouring pairs in a list; merge the leftmost lowest, look again
    const tok = this.tok;
    const len = this.len;
    const rs = this.rs;
    for (let i = 0; i + 1 < n; i++) rs[i] = this.rankOf(tok[i], tok[i + 1]);
    let m = n;
    while (m > 1) {
      let best = NO_RANK;
      let at = -1;
      for (let i = 0; i < m - 1; i++) {
        if (rs[i] < best) {
          best = rs[i];
          at = i;
        }
      }
      if (at < 0) break;
      tok[at] = this.newIds[best];
      len[at] += len[at + 1];
      for (let i = at + 1; i < m - 1; i++) {
        tok[i] = tok[i + 1];
        len[i] = len[i + 1];
      }
      for (let i = at + 1; i < m - 2; i++) rs[i] = rs[i + 1];
      m--;
      if (at > 0) rs[at - 1] = this.rankOf(tok[at - 1], tok[at]);
      if (at < m - 1) rs[at] = this.rankOf(tok[at], tok[at + 1]);
    }
    return m;
  }

  /** bpe_heap: a heap of (rank, position) over a linked list; the same order as the short path. */
  mergeHeap(n) {
    const tok = this.tok;
    const len = this.len;
    const next = new Int32Array(n);
    const prev = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      next[i] = i + 1;
      prev[i] = i - 1;
    }
    const heap = new MinHeap(n);
    const SCALE = 4294967296; // rank * 2^32 + position: one float, ordered by rank, then position
    for (let i = 0; i + 1 < n; i++) {
      const r = this.rankOf(tok[i], tok[i + 1]);
      if (r !== NO_RANK) heap.push(r * SCALE + i);
    }
    while (heap.size) {
      const key = heap.pop();
      const r = Math.floor(key / SCALE);
      const i = key - r * SCALE;
      if (tok[i] < 0) continue;
      const j = next[i];
      if (j >= n || this.rankOf(tok[i], tok[j]) !== r) continue; // stale
      tok[i] = this.newIds[r];
      len[i] += len[j];
      tok[j] = -1;
      const k = next[j];
      next[i] = k;
      if (k < n) prev[k] = i;
      const p = prev[i];
      if (p >= 0) {
        const rr = this.rankOf(tok[p], tok[i]);
        if (rr !== NO_RANK) heap.push(rr * SCALE + p);
      }
      if (k < n) {
        const rr = this.rankOf(tok[i], tok[k]);
        if (rr !== NO_RANK) heap.push(rr * SCALE + i);
      }
    }
    let m = 0;
    for (let i = 0; i < n; i = next[i]) {
      tok[m] = tok[i];
      len[m] = len[i];
      m++;
    }
    return m;
  }

  /** The tokens of the chunk ``text[start:end]``, not in the cache: put there; their place in cache.out. */
  encodeNew(text, start, end, hash) {
    const id = this.whole.size ? this.whole.get(text.slice(start, end)) : undefined;
    if (id !== undefined) {
      this.tok[0] = id;
      this.len[0] = utf8Length(text, start, end);
      return this.cache.add(text, start, end, hash, this.tok, this.len, 1);
    }
    // the chunk's UTF-8 (the text is well formed: cleanText), each byte as its id
    this.reserve(3 * (end - start));
    const tok = this.tok;
    const len = this.len;
    const byteIds = this.byteIds;
    let n = 0;
    for (let i = start; i < end; i++) {
      let c = text.charCodeAt(i);
      if (c < 0x80) {
        tok[n++] = byteIds[c];
        continue;
      }
      if (c < 0x800) {
        tok[n++] = byteIds[0xc0 | (c >> 6)];
      } else {
        if (c >= 0xd800 && c < 0xdc00) {
          c = 0x10000 + ((c - 0xd800) << 10) + (text.charCodeAt(++i) - 0xdc00);
          tok[n++] = byteIds[0xf0 | (c >> 18)];
          tok[n++] = byteIds[0x80 | ((c >> 12) & 0x3f)];
        } else {
          tok[n++] = byteIds[0xe0 | (c >> 12)];
        }
        tok[n++] = byteIds[0x80 | ((c >> 6) & 0x3f)];
      }
      tok[n++] = byteIds[0x80 | (c & 0x3f)];
    }
    len.fill(1, 0, n);
    return this.cache.add(text, start, end, hash, this.tok, this.len, this.merge(n));
  }

  /** Where the chunk of ``text`` that starts at ``pos`` ends: splitText's chunks, one at a time. */
  chunkEnd(text, pos) {
    const sticky = this.sticky;
    if (sticky === null) return text.length;
    sticky.lastIndex = pos;
    if (sticky.test(text) && sticky.lastIndex > pos) return sticky.lastIndex;
    // no match starts here: the text up to the next match is a chunk (splitText skips empty matches)
    const global = this.regexp;
    global.lastIndex = pos;
    let m;
    while ((m = global.exec(text)) !== null && m[0].length === 0) global.lastIndex = afterCodePoint(text, m.index);
    if (m === null) return text.length;
    return m.index > pos ? m.index : m.index + m[0].length;
  }

  /**
   * Encode the chunks of ``text`` from ``pos`` on into ``out``, at most ``budget`` of them; where it stopped.
   * The chunks are splitText's: each match of the pattern, and the text between matches.
   */
  encodeRun(text, pos, budget, out) {
    const cache = this.cache;
    const length = text.length;
    let done = 0;
    while (pos < length && done < budget) {
      const end = this.chunkEnd(text, pos);
      // FNV-1a over the UTF-16 units, then a final mix (murmur3's) so the low bits index the table well
      let h = 0x811c9dc5;
      for (let i = pos; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
      h ^= h >>> 16;
      h = Math.imul(h, 0x85ebca6b);
      h ^= h >>> 13;
      h = Math.imul(h, 0xc2b2ae35);
      h ^= h >>> 16;
      let at = cache.find(text, pos, end, h);
      if (at < 0) at = this.encodeNew(text, pos, end, h);
      const toks = cache.out;
      const k = toks[at];
      if (out.count + k > out.ids.length) out.grow(k);
      const ids = out.ids;
      const lens = out.lens;
      let c = out.count;
      for (let t = at + 1, stop = at + 1 + 2 * k; t < stop; t += 2) {
        ids[c] = toks[t];
        lens[c] = toks[t + 1];
        c++;
      }
      out.count = c;
      pos = end;
      done++;
    }
    out.chunks += done;
    return pos;
  }

  /** The pieces of ``text``: ``[text, special id or -1]``, cut at the recognised special tokens. */
  pieces(text, specialRe) {
    if (!text) return [];
    if (specialRe === null) return [[text, -1]];
    const out = [];
    let pos = 0;
    specialRe.lastIndex = 0;
    let m;
    while ((m = specialRe.exec(text)) !== null) {
      if (m.index > pos) out.push([text.slice(pos, m.index), -1]);
      out.push([m[0], this.specialIds.get(m[0])]);
      pos = m.index + m[0].length;
    }
    if (pos < text.length) out.push([text.slice(pos), -1]);
    return out;
  }

  /** Recognise these special tokens ({string: id}) in encodeText from now on (null or {}: none). */
  setSpecials(specials) {
    this.specialIds = new Map(Object.entries(specials || {}));
    this.specialRe = specialRegExp(this.specialIds.keys());
  }

  /**
   * Encode a text: a generator that yields now and then (so a worker can give way to newer work)
   * and returns the result. ``recognise``: special-token strings become their ids (the pages'
   * "Recognise special tokens"), else they are text.
   * Result: ids, lens (bytes per token), special (1 for a special token), data (the text's UTF-8),
   * chars (code points).
   */
  *encodeSteps(text, { recognise = false, every = 4096 } = {}) {
    text = cleanText(text);
    let chars = 0; // the user's characters (before any normalization), as the server counts them
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c < 0xd800 || c >= 0xdc00) chars++;
    }
    if (this.normalizer === "NFC") text = nfcAsPython(text); // the tokens' bytes are this text's
    if (this.specialIds === undefined) this.setSpecials(this.specials);
    const pieces = this.pieces(text, recognise ? this.specialRe : null);
    const out = new Tokens(1024 + (text.length >> 2)); // about a token per four characters: rarely grown
    let budget = every;
    for (const [piece, sid] of pieces) {
      if (sid >= 0) {
        if (out.count + 1 > out.ids.length) out.grow(1);
        out.ids[out.count] = sid;
        out.lens[out.count] = utf8Length(piece);
        out.special[out.count] = 1;
        out.count++;
        continue;
      }
      let pos = 0;
      while (pos < piece.length) {
        const before = out.chunks;
        pos = this.encodeRun(piece, pos, budget, out);
        budget -= out.chunks - before;
        if (budget === 0) {
          budget = every;
          yield out.count;
        }
      }
    }
    const n = out.count;
    return { ids: out.ids.slice(0, n), lens: out.lens.slice(0, n), special: out.special.slice(0, n), data: utf8.encode(text), chars };
  }

  /** encodeSteps run to the end, at once. */
  encode(text, options = {}) {
    const steps = this.encodeSteps(text, options);
    for (;;) {
      const { value, done } = steps.next();
      if (done) return value;
    }
  }
}

/** Where encodeSteps writes: each token's id, byte length and special flag, grown as needed. */
class Tokens {
  constructor(capacity) {
    this.ids = new Uint32Array(capacity);
    this.lens = new Uint32Array(capacity);
    this.special = new Uint8Array(capacity);
    this.count = 0;
    this.chunks = 0; // chunks encoded so far
  }

  grow(need) {
    let cap = this.ids.length;
    while (this.count + need > cap) cap *= 2;
    for (const name of ["ids", "lens", "special"]) {
      const old = this[name];
      this[name] = new old.constructor(cap);
      this[name].set(old);
    }
  }
}

/**
 * Each chunk's tokens by the chunk's text, in flat typed arrays (no string, array or object a chunk): an
 * open-addressing table of [hash, key start, key length, tokens start] over a pool of the keys' UTF-16
 * units and one of the tokens, [count, id, byte length, id, byte length, ...]. It forgets everything past
 * CACHE_LIMIT chunks, as the core's ChunkCache (tokenizer/bpe/encoder.py) forgets past its limit.
 */
export class ChunkCache {
  constructor() {
    this.clear();
  }

  clear() {
    this.size = 0;
    this.mask = 4095;
    this.table = new Int32Array(4 * 4096);
    this.keys = new Uint16Array(1 << 16);
    this.keyEnd = 0;
    this.out = new Uint32Array(1 << 16);
    this.outEnd = 0;
  }

  /** Where the tokens of ``text[start:end]`` (its hash ``h``) are in this.out, or -1. */
  find(text, start, end, h) {
    const table = this.table;
    const keys = this.keys;
    const n = end - start;
    const mask = this.mask;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const n2 = table[4 * s + 2];
      if (n2 === 0) return -1; // chunks are never empty: an empty slot
      if (table[4 * s] === h && n2 === n) {
        const k = table[4 * s + 1];
        let i = 0;
        while (i < n && keys[k + i] === text.charCodeAt(start + i)) i++;
        if (i === n) return table[4 * s + 3];
      }
    }
  }

  /** Keep the ``count`` tokens in tok/len as those of ``text[start:end]``; where they are in this.out. */
  add(text, start, end, h, tok, len, count) {
    if (this.size >= CACHE_LIMIT) this.clear();
    if (2 * (this.size + 1) > this.mask + 1) this.rehash();
    const n = end - start;
    if (this.keyEnd + n > this.keys.length) this.keys = grown(this.keys, this.keyEnd + n);
    const keys = this.keys;
    for (let i = 0; i < n; i++) keys[this.keyEnd + i] = text.charCodeAt(start + i);
    if (this.outEnd + 1 + 2 * count > this.out.length) this.out = grown(this.out, this.outEnd + 1 + 2 * count);
    const out = this.out;
    const at = this.outEnd;
    out[at] = count;
    for (let t = 0; t < count; t++) {
      out[at + 1 + 2 * t] = tok[t];
      out[at + 2 + 2 * t] = len[t];
    }
    let s = h & this.mask;
    while (this.table[4 * s + 2] !== 0) s = (s + 1) & this.mask;
    this.table[4 * s] = h;
    this.table[4 * s + 1] = this.keyEnd;
    this.table[4 * s + 2] = n;
    this.table[4 * s + 3] = at;
    this.keyEnd += n;
    this.outEnd += 1 + 2 * count;
    this.size++;
    return at;
  }

  rehash() {
    const old = this.table;
    const size = 2 * (this.mask + 1);
    const mask = size - 1;
    const table = new Int32Array(4 * size);
    for (let s = 0; s < old.length; s += 4) {
      if (old[s + 2] === 0) continue;
      let t = old[s] & mask;
      while (table[4 * t + 2] !== 0) t = (t + 1) & mask;
      table.set(old.subarray(s, s + 4), 4 * t);
    }
    this.table = table;
    this.mask = mask;
  }
}

/** A copy of ``a`` with room for at least ``n`` elements (doubled). */
function grown(a, n) {
  let cap = a.length;
  while (cap < n) cap *= 2;
  const b = new a.constructor(cap);
  b.set(a);
  return b;
}

/** The "Characters" baseline (tokenizer.baselines.CharTokenizer): one token per code point, its id. */
export class CharEncoder {
  constructor() {
    this.specials = {};
    this.pattern = null;
  }

  setSpecials() {}

  *encodeSteps(text) {
    yield 0; // one pause, as the BPE encoder makes (a worker gives way to newer work there)
    text = cleanText(text);
    const ids = [];
    const lens = [];
    for (const ch of text) {
      const cp = ch.codePointAt(0);
      ids.push(cp);
      lens.push(cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4);
    }
    return { ids: Uint32Array.from(ids), lens: Uint32Array.from(lens), special: new Uint8Array(ids.length), data: utf8.encode(text), chars: ids.length };
  }

  encode(text) {
    const steps = this.encodeSteps(text);
    steps.next();
    return steps.next().value;
  }
}

/** A binary min-heap of numbers that grows as needed. */
class MinHeap {
  constructor(capacity) {
    this.a = new Float64Array(Math.max(16, capacity));
    this.size = 0;
  }

  push(x) {
    if (this.size === this.a.length) {
      const b = new Float64Array(2 * this.a.length);
      b.set(this.a);
      this.a = b;
    }
    const a = this.a;
    let i = this.size++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (a[p] <= x) break;
      a[i] = a[p];
      i = p;
    }
    a[i] = x;
  }

  pop() {
    const a = this.a;
    const top = a[0];
    const x = a[--this.size];
    let i = 0;
    const n = this.size;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && a[c + 1] < a[c]) c++;
      if (a[c] >= x) break;
      a[i] = a[c];
      i = c;
    }
    a[i] = x;
    return top;
  }
}

/** The core's character offsets of each token (trace.make_spans), and UTF-16 offsets for the page.
 * start/end: code points, as the core counts; start16/end16: UTF-16 units of the (cleaned) text,
 * for selecting the token's place in a text box. A token that starts inside a character points at it.
 */
export function tokenOffsets(lens, data) {
  const n = lens.length;
  const start = new Uint32Array(n);
  const end = new Uint32Array(n);
  const start16 = new Uint32Array(n);
  const end16 = new Uint32Array(n);
  let chars = 0;
  let units = 0;
  let pos = 0;
  let lastLead = 0; // UTF-16 length of the last character begun
  for (let t = 0; t < n; t++) {
    const len = lens[t];
    const inside = len > 0 && (data[pos] & 0xc0) === 0x80;
    start[t] = inside ? Math.max(0, chars - 1) : chars;
    start16[t] = inside ? Math.max(0, units - lastLead) : units;
    for (let i = pos; i < pos + len; i++) {
      const b = data[i];
      if ((b & 0xc0) !== 0x80) {
        chars++;
        lastLead = b >= 0xf0 ? 2 : 1;
        units += lastLead;
      }
    }
    end[t] = Math.max(chars, start[t] + (len ? 1 : 0));
    end16[t] = Math.max(units, start16[t] + (len ? lastLead : 0));
    pos += len;
  }
  return { start, end, start16, end16 };
}
