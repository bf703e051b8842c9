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
const CACHE_LIMIT = 200_000;

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
      re.lastIndex = s + 1; // never for the patterns jsregex writes (they cannot match the empty string)
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
    this.regexp = model.pattern === null ? null : new RegExp(explicitSource(model.pattern), "gu");
    this.native = false;
    const merges = model.merges;
    const n = merges.length / 3;
    this.newIds = new Uint32Array(n);
    // open addressing over (left, right): keys in two arrays, the rank in a third. A pair listed
    // twice keeps its last rank, and ranks from the number of distinct pairs on never apply (the
    // core builds {pair: (rank, new id)} in list order and merges ranks below its length).
    let size = 16;
    while (size < 2 * n) size *= 2;
    this.mask = size - 1;
    this.keyL = new Int32Array(size).fill(-1);
    this.keyR = new Int32Array(size);
    this.rank = new Int32Array(size);
    let distinct = 0;
    for (let r = 0; r < n; r++) {
      const a = merges[3 * r];
      const b = merges[3 * r + 1];
      this.newIds[r] = merges[3 * r + 2];
      let h = this.hash(a, b);
      while (this.keyL[h] !== -1 && !(this.keyL[h] === a && this.keyR[h] === b)) h = (h + 1) & this.mask;
      if (this.keyL[h] === -1) distinct++;
      this.keyL[h] = a;
      this.keyR[h] = b;
      this.rank[h] = r;
    }
    this.limit = distinct;
    this.whole = new Map(); // chunk text -> id; a whole token that is not valid UTF-8 is never a chunk
    for (const [id, data] of model.whole) {
      try {
        this.whole.set(strict.decode(data), id);
      } catch {
        // not text: no chunk of text equals it
      }
    }
    this.cache = new Map(); // chunk -> Uint32Array [id, byte length, id, byte length, ...]
  }

  /** Split with the browser's own \\p{…} from now on, corrected by ``diffs`` (pattern.checkProperty's, per
   * property): the same chunks, faster. */
  useNative(diffs) {
    if (this.pattern === null) return;
    this.regexp = new RegExp(nativeSource(this.pattern, diffs), "gu");
    this.native = true;
  }

  hash(a, b) {
    return ((Math.imul(a, 0x9e3779b1) ^ Math.imul(b + 0x7f4a7c15, 0x85ebca77)) >>> 0) & this.mask;
  }

  /** The rank of merging (a, b), or NO_RANK. */
  rankOf(a, b) {
    let h = this.hash(a, b);
    const keyL = this.keyL;
    for (;;) {
      const k = keyL[h];
      if (k === -1) return NO_RANK;
      if (k === a && this.keyR[h] === b) {
        const r = this.rank[h];
        return r < this.limit ? r : NO_RANK;
      }
      h = (h + 1) & this.mask;
    }
  }

  /** One chunk's tokens as [id, byte length, ...] (cached per chunk text). */
  encodeChunk(chunk) {
    let out = this.cache.get(chunk);
    if (out !== undefined) return out;
    const id = this.whole.get(chunk);
    if (id !== undefined) out = Uint32Array.of(id, utf8Length(chunk));
    else out = this.mergeBytes(utf8.encode(chunk));
    if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
    this.cache.set(chunk, out);
    return out;
  }

  /** BPE over bytes: [id, byte length, ...]. */
  mergeBytes(data) {
    const n = data.length;
    const ids = new Array(n);
    const lens = new Array(n);
    for (let i = 0; i < n; i++) {
      ids[i] = this.byteIds[data[i]];
      lens[i] = 1;
    }
    if (n >= SHORT_CHUNK) return this.mergeHeap(ids, lens);
    // bpe_short: the ranks of neighbouring pairs in a list; merge the leftmost lowest, look again
    const rs = new Array(Math.max(0, n - 1));
    for (let i = 0; i + 1 < n; i++) rs[i] = this.rankOf(ids[i], ids[i + 1]);
    while (rs.length) {
      let best = NO_RANK;
      let at = -1;
      for (let i = 0; i < rs.length; i++) {
        if (rs[i] < best) {
          best = rs[i];
          at = i;
        }
      }
      if (at < 0) break;
      ids.splice(at, 2, this.newIds[best]);
      lens.splice(at, 2, lens[at] + lens[at + 1]);
      rs.splice(at, 1);
      if (at > 0) rs[at - 1] = this.rankOf(ids[at - 1], ids[at]);
      if (at < rs.length) rs[at] = this.rankOf(ids[at], ids[at + 1]);
    }
    const out = new Uint32Array(2 * ids.length);
    for (let i = 0; i < ids.length; i++) {
      out[2 * i] = ids[i];
      out[2 * i + 1] = lens[i];
    }
    return out;
  }

  /** bpe_heap: a heap of (rank, position) over a linked list; the same order as mergeBytes. */
  mergeHeap(ids, lens) {
    const n = ids.length;
    const tok = Int32Array.from(ids);
    const len = Int32Array.from(lens);
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
    const out = [];
    for (let i = 0; i < n; i = next[i]) out.push(tok[i], len[i]);
    return Uint32Array.from(out);
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
    let cap = 1024;
    let ids = new Uint32Array(cap);
    let lens = new Uint32Array(cap);
    let special = new Uint8Array(cap);
    let count = 0;
    const grow = (need) => {
      if (count + need <= cap) return;
      while (count + need > cap) cap *= 2;
      const i2 = new Uint32Array(cap);
      i2.set(ids);
      ids = i2;
      const l2 = new Uint32Array(cap);
      l2.set(lens);
      lens = l2;
      const s2 = new Uint8Array(cap);
      s2.set(special);
      special = s2;
    };
    let done = 0;
    for (const [piece, sid] of pieces) {
      if (sid >= 0) {
        grow(1);
        ids[count] = sid;
        lens[count] = utf8Length(piece);
        special[count] = 1;
        count++;
        continue;
      }
      for (const chunk of splitText(this.regexp, piece)) {
        const toks = this.encodeChunk(chunk);
        const k = toks.length / 2;
        grow(k);
        for (let t = 0; t < k; t++) {
          ids[count + t] = toks[2 * t];
          lens[count + t] = toks[2 * t + 1];
        }
        count += k;
        if (++done % every === 0) yield count;
      }
    }
    return { ids: ids.slice(0, count), lens: lens.slice(0, count), special: special.slice(0, count), data: utf8.encode(text), chars };
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
