// SentencePiece-style BPE in the browser (tokenizer/bpe/sentencepiece.py, tokenizer/spm.py): the same ids, held
// equal by the parity tests.
//
// The second kind of BPE (Llama 2, Phi-3, Gemma 4). A model comes as its own kind of model file
// (ui/web/model.py spm_model_file): every piece, its type, and either its score or the model's merge list.
// Encoding is the core's rule, step for step:
//
//   1. lone surrogates become U+FFFD (tokenizer.errors.clean_text);
//   2. the text is cut at user-defined pieces (always) and at the recognised special tokens, leftmost and
//      longest first (SentencePiecePreTokenizer._fragments);
//   3. each stretch of text gets the dummy prefix's space where the model adds one (after a special token too,
//      as llama.cpp does), and every space becomes ▁ (SentencePiecePreTokenizer.view, SentencePieceEngine);
//   4. the merge list's models cut it at runs of newlines, a run that is a piece being that piece
//      (SentencePieceBPE.words, whole_word);
//   5. its characters are merged: again and again the adjacent pair whose join is the best-scored piece (or,
//      with a merge list, whose merge comes first), the leftmost on a tie (SentencePieceBPE._merge);
//   6. a symbol that is no piece falls back to its UTF-8 bytes, one <0xNN> token each (SentencePieceBPE._emit).
//
// The result has bpe.js's shape (ids, lens, special, data, chars), data being the model's view (the text with
// the dummy prefix's space, a typed ▁ as the space it stands for), whose bytes the tokens are in order: what the
// server sends for this kind (ui/web/payload.server_result), so tokenize.js draws both alike; ``inserted`` says
// where the view's prefix spaces are, so the page marks a token's own characters in the text box.
//
// Plain ES module, no DOM: the worker (worker.js) runs it, node's test runner tests it.
import { cleanText, specialRegExp, utf8Length } from "./bpe.js";

export const SPM_MAGIC = "BPES";
export const SPM_VERSION = 1;
const HEADER_WORDS = 8; // magic, version, pieces, merges, pieces' bytes, specials' bytes, flags, 0
// the header's flags (model.py SPM_PREFIX, SPM_NEWLINES, SPM_MERGES)
export const SPM_PREFIX = 1;
export const SPM_NEWLINES = 2;
export const SPM_MERGES = 4;
// tokenizer.ggml.token_type of a byte-fallback token (<0xNN>) and of a user-defined piece
const BYTE = 6;
const USER_DEFINED = 4;
export const SPACE = "\u2581";
// heap pops between two pauses of encodeSteps (a worker gives way to newer work there)
const EVERY = 4096;

const utf8 = new TextEncoder();
// a piece may begin with U+FEFF: it is the piece's, not a byte-order mark
const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Whether ``buffer`` is a SentencePiece-style model file (else it is bpe.js's kind). */
export function isSpmModel(buffer) {
  return buffer instanceof ArrayBuffer && buffer.byteLength >= 4 && String.fromCharCode(...new Uint8Array(buffer, 0, 4)) === SPM_MAGIC;
}

/** The model file as typed arrays and strings (SentencePieceBPE's arguments); throws on a file that is not one.
 * @param {ArrayBuffer} buffer
 */
export function parseSpmModel(buffer) {
  if (!(buffer instanceof ArrayBuffer) || buffer.byteLength < 4 * HEADER_WORDS) throw new Error("not a SentencePiece model file (too short)");
  if (!isSpmModel(buffer)) throw new Error("not a SentencePiece model file (bad magic)");
  const head = new Uint32Array(buffer, 0, HEADER_WORDS);
  if (head[1] !== SPM_VERSION) throw new Error(`SentencePiece model file version ${head[1]}, this page reads version ${SPM_VERSION}`);
  const [n, nMerges, textBytes, specialBytes, flags] = head.subarray(2, 7);
  const need = 4 * HEADER_WORDS + (flags & SPM_MERGES ? 8 * nMerges : 4 * n) + 3 * n + textBytes + specialBytes;
  if (buffer.byteLength !== need) throw new Error("SentencePiece model file has the wrong length");
  let at = 4 * HEADER_WORDS;
  let scores = null;
  let merges = null;
  if (flags & SPM_MERGES) {
    merges = new Uint32Array(buffer, at, 2 * nMerges);
    at += 8 * nMerges;
  } else {
    scores = new Float32Array(buffer, at, n);
    at += 4 * n;
  }
  const units = new Uint16Array(buffer, at, n);
  at += 2 * n;
  const types = new Uint8Array(buffer, at, n);
  at += n;
  const all = strict.decode(new Uint8Array(buffer, at, textBytes));
  at += textBytes;
  const pieces = new Array(n);
  let pos = 0;
  for (let i = 0; i < n; i++) {
    pieces[i] = all.slice(pos, pos + units[i]);
    pos += units[i];
  }
  if (pos !== all.length) throw new Error("SentencePiece model file's pieces do not add up");
  const specials = specialBytes ? JSON.parse(strict.decode(new Uint8Array(buffer, at, specialBytes))) : {};
  return { pieces, scores, types, merges, addSpacePrefix: !!(flags & SPM_PREFIX), splitNewlines: !!(flags & SPM_NEWLINES), specials };
}

/**
 * A SentencePiece BPE vocabulary (tokenizer/bpe/sentencepiece.py SentencePieceBPE): ``pieces[i]`` is token i's text,
 * ``scores[i]`` its merge priority; with ``merges`` (left and right ids, best first, each pair once) the merges'
 * order is the priority instead; ``splitNewlines`` cuts the text at runs of newlines first.
 */
export class SentencePieceBPE {
  constructor({ pieces, scores = null, types, addSpacePrefix = true, merges = null, splitNewlines = false }) {
    if (pieces.length !== types.length || (merges === null && (scores === null || scores.length !== pieces.length))) {
      throw new Error("pieces, scores and types must have one entry per token");
    }
    this.pieces = pieces;
    this.scores = scores;
    this.types = types;
    this.addSpacePrefix = addSpacePrefix;
    this.pieceToId = new Map();
    for (let i = 0; i < pieces.length; i++) if (!this.pieceToId.has(pieces[i])) this.pieceToId.set(pieces[i], i);
    this.byteIds = new Int32Array(256).fill(-1);
    let bytes = 0;
    for (let i = 0; i < pieces.length; i++) {
      if (types[i] !== BYTE) continue;
      const b = parseInt(pieces[i].slice(3, 5), 16);
      if (this.byteIds[b] < 0) bytes++;
      this.byteIds[b] = i;
    }
    if (bytes !== 256) throw new Error(`a byte-fallback vocabulary has 256 byte tokens <0x00>…<0xFF>; this one has ${bytes}`);
    this.splitNewlines = splitNewlines;
    this.mergeRank = null; // left id * n_vocab + right id -> the merge's place in the list
    if (merges !== null) this.readMerges(merges);
  }

  /** The merge list as ranks (model.py sends each pair once, at its first place). */
  readMerges(merges) {
    const n = this.pieces.length;
    this.mergeRank = new Map();
    for (let r = 0; r < merges.length / 2; r++) {
      const key = merges[2 * r] * n + merges[2 * r + 1];
      if (!this.mergeRank.has(key)) this.mergeRank.set(key, r);
    }
  }

  get nVocab() {
    return this.pieces.length;
  }

  /** The text as the model sees it: the dummy prefix, then every space as ▁. */
  normalize(text) {
    if (!text) return "";
    return ((this.addSpacePrefix ? " " : "") + text).replaceAll(" ", SPACE);
  }

  /** The stretches of the model's view merged apart: all of it, or each run of newlines and each stretch between. */
  words(view) {
    if (!this.splitNewlines) return view ? [view] : [];
    return view.match(/[^\n]+|\n+/gu) || [];
  }

  /** The piece a word is without any merge (a run of newlines that is a piece, as llama.cpp takes Gemma 4's). */
  wholeWord(word) {
    return this.splitNewlines && word[0] === "\n" ? this.pieceToId.get(word) ?? null : null;
  }

  /** The ids of the model's view (spaces as ▁), word by word, appended to ``out``; yields now and then. */
  *mergeText(view, out, every = EVERY) {
    for (const word of this.words(view)) {
      const tid = this.wholeWord(word);
      if (tid !== null) {
        out.push(tid);
        continue;
      }
      yield* this.merge(Array.from(word), out, every);
    }
  }

  /** The ids of ``symbols`` (characters) merged, appended to ``out``; yields every ``every`` merges. */
  *merge(symbols, out, every = EVERY) {
    const n = symbols.length;
    const text = symbols.slice(); // each symbol's current text ("" once merged into its left neighbour)
    const prev = new Int32Array(n);
    const nxt = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      prev[i] = i - 1;
      nxt[i] = i + 1 < n ? i + 1 : -1;
    }
    const queue = new PairQueue(n); // (-score, left, right, joined length)

    const mergeRank = this.mergeRank;
    const ids = this.pieceToId;
    const width = this.pieces.length;
    const scores = this.scores;

    const add = (left, right) => {
      if (left < 0 || right < 0) return;
      if (mergeRank !== null) { // the first merge in the list first; every piece a merge joins is in ids
        const a = ids.get(text[left]);
        const b = ids.get(text[right]);
        const r = a === undefined || b === undefined ? undefined : mergeRank.get(a * width + b);
        if (r === undefined) return;
        queue.push(r, left, right, text[left].length + text[right].length);
        return;
      }
      const joined = text[left] + text[right];
      const tid = ids.get(joined);
      if (tid === undefined) return;
      queue.push(-scores[tid], left, right, joined.length);
    };

    for (let i = 1; i < n; i++) add(i - 1, i);
    let work = 0;
    while (queue.size) {
      queue.pop();
      const left = queue.left;
      const right = queue.right;
      if (!text[left] || !text[right] || text[left].length + text[right].length !== queue.joined) continue; // one side was merged since: a stale pair
      text[left] += text[right];
      text[right] = "";
      nxt[left] = nxt[right];
      if (nxt[right] >= 0) prev[nxt[right]] = left;
      add(prev[left], left);
      add(left, nxt[left]);
      if (++work === every) {
        work = 0;
        yield;
      }
    }
    for (let i = n ? 0 : -1; i !== -1; i = nxt[i]) this.emit(text[i], out);
  }

  emit(piece, out) {
    const tid = this.pieceToId.get(piece);
    if (tid !== undefined) {
      out.push(tid);
      return;
    }
    for (const b of utf8.encode(piece)) out.push(this.byteIds[b]); // byte fallback
  }
}

/**
 * The merge loop's heap of (priority, left, right, joined length), smallest first as Python's heapq orders those
 * tuples; ``pop`` leaves the entry in ``priority``, ``left``, ``right``, ``joined``.
 */
class PairQueue {
  constructor(capacity) {
    const cap = Math.max(16, capacity);
    this.p = new Float64Array(cap);
    this.l = new Int32Array(cap);
    this.r = new Int32Array(cap);
    this.s = new Int32Array(cap);
    this.size = 0;
  }

  /** Entry i against (p, l, r, s): negative if it comes first, 0 if equal, positive if after. */
  cmp(i, p, l, r, s) {
    const q = this.p[i];
    if (q !== p) return q < p ? -1 : 1;
    return this.l[i] - l || this.r[i] - r || this.s[i] - s;
  }

  move(from, to) {
    this.p[to] = this.p[from];
    this.l[to] = this.l[from];
    this.r[to] = this.r[from];
    this.s[to] = this.s[from];
  }

  put(i, p, l, r, s) {
    this.p[i] = p;
    this.l[i] = l;
    this.r[i] = r;
    this.s[i] = s;
  }

  push(p, l, r, s) {
    if (this.size === this.p.length) {
      for (const name of ["p", "l", "r", "s"]) {
        const b = new this[name].constructor(2 * this.size);
        b.set(this[name]);
        this[name] = b;
      }
    }
    let i = this.size++;
    while (i > 0) {
      const up = (i - 1) >> 1;
      if (this.cmp(up, p, l, r, s) <= 0) break;
      this.move(up, i);
      i = up;
    }
    this.put(i, p, l, r, s);
  }

  pop() {
    this.priority = this.p[0];
    this.left = this.l[0];
    this.right = this.r[0];
    this.joined = this.s[0];
    const last = --this.size;
    const p = this.p[last];
    const l = this.l[last];
    const r = this.r[last];
    const s = this.s[last];
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= last) break;
      if (c + 1 < last && this.cmp(c + 1, this.p[c], this.l[c], this.r[c], this.s[c]) < 0) c++;
      if (this.cmp(c, p, l, r, s) >= 0) break;
      this.move(c, i);
      i = c;
    }
    this.put(i, p, l, r, s);
  }
}

/**
 * A SentencePiece-style model with bpe.js Encoder's interface (setSpecials, encodeSteps, encode), for the worker:
 * tokenizer/spm.py's SentencePiecePreTokenizer (special and user-defined pieces cut out, the dummy prefix) and
 * SentencePieceEngine (each stretch merged by SentencePieceBPE) together.
 */
export class SpmEncoder {
  /** @param model what parseSpmModel returns */
  constructor(model) {
    this.model = new SentencePieceBPE(model);
    this.specials = model.specials || {};
    this.pattern = null; // no split pattern: nothing for the worker to upgrade
    // user-defined pieces: found in any text, as llama.cpp finds them
    this.always = new Map();
    model.pieces.forEach((p, i) => {
      if (model.types[i] === USER_DEFINED && [...p].length > 1) this.always.set(p, i);
    });
    // a special token's bytes are its own text (SentencePieceTokenizer.vocab), the last one named wins
    this.specialText = new Map();
    for (const [text, id] of Object.entries(this.specials)) this.specialText.set(id, text);
    this.lengths = new Int32Array(this.model.nVocab).fill(-1);
  }

  /** Recognise these special tokens ({string: id}) from now on, when asked to (null or {}: none). */
  setSpecials(specials) {
    this.allowed = new Map(Object.entries(specials || {}));
    this.cuts = null;
  }

  /** What the text is cut at (``{**always, **allowed}``): a Map and its RegExp, with or without the special tokens. */
  cutsFor(recognise) {
    if (this.allowed === undefined) this.setSpecials(this.specials);
    if (!this.cuts) this.cuts = {};
    const key = recognise ? "allowed" : "always";
    if (!this.cuts[key]) {
      const map = new Map(recognise ? [...this.always, ...this.allowed] : this.always);
      this.cuts[key] = { map, re: specialRegExp(map.keys()) };
    }
    return this.cuts[key];
  }

  /** The text cut at what ``cutsFor`` gives: ``[piece, id or null]`` (tokenizer.pretokenize.pretokenizer._cut). */
  fragments(text, recognise) {
    const { map, re } = this.cutsFor(recognise);
    if (re === null) return text ? [[text, null]] : [];
    const out = [];
    let pos = 0;
    re.lastIndex = 0;
    let m;
    while ((m = re.exec(text)) !== null) {
      if (m.index > pos) out.push([text.slice(pos, m.index), null]);
      out.push([m[0], map.get(m[0])]);
      pos = m.index + m[0].length;
    }
    if (pos < text.length) out.push([text.slice(pos), null]);
    return out;
  }

  /** Token ``tid``'s text in the model's view (SentencePieceTokenizer.vocab): a special token's own, else its piece
   * with ▁ as a space. */
  tokenText(tid) {
    return this.specialText.get(tid) ?? this.model.pieces[tid].replaceAll(SPACE, " ");
  }

  /** How many bytes token ``tid`` stands for: a byte token one, any other its text's UTF-8. */
  tokenLength(tid) {
    if (tid < this.lengths.length && this.lengths[tid] >= 0) return this.lengths[tid];
    const special = this.specialText.get(tid);
    const n = special !== undefined ? utf8Length(special) : this.model.types[tid] === BYTE ? 1 : utf8Length(this.tokenText(tid));
    if (tid < this.lengths.length) this.lengths[tid] = n;
    return n;
  }

  /**
   * Encode a text: a generator that yields now and then (so a worker can give way to newer work) and returns
   * the result, as bpe.js Encoder.encodeSteps does. ``recognise``: special-token strings become their ids.
   * Result: ids, lens (bytes per token), special (1 for a special token), data (the model's view as UTF-8),
   * chars (the text's code points), inserted (the UTF-16 offsets in the view of the dummy prefix's spaces).
   */
  *encodeSteps(text, { recognise = false, every = EVERY } = {}) {
    text = cleanText(text);
    let chars = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c < 0xd800 || c >= 0xdc00) chars++;
    }
    const out = [];
    const view = [];
    const inserted = []; // where in the view (UTF-16 units) a dummy prefix's space is, which no typed character made
    let at = 0;
    let afterToken = true;
    for (const [fragment, tid] of this.fragments(text, recognise)) {
      if (tid !== null) {
        out.push(tid);
        view.push(this.tokenText(tid));
        at += view[view.length - 1].length;
        afterToken = true;
      } else {
        const prefix = this.model.addSpacePrefix && afterToken;
        if (prefix) inserted.push(at);
        const chunk = (prefix ? " " : "") + fragment.replaceAll(SPACE, " ");
        view.push(chunk);
        at += chunk.length;
        yield* this.model.mergeText(chunk.replaceAll(" ", SPACE), out, every);
        afterToken = false;
      }
    }
    const n = out.length;
    const ids = Uint32Array.from(out);
    const lens = new Uint32Array(n);
    const special = new Uint8Array(n);
    const specialText = this.specialText;
    for (let i = 0; i < n; i++) {
      lens[i] = this.tokenLength(ids[i]);
      if (specialText.has(ids[i])) special[i] = 1;
    }
    return { ids, lens, special, data: utf8.encode(view.join("")), chars, inserted: Uint32Array.from(inserted) };
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
