// Step through's trace in the browser: read the compact payload of ui/step/payload.py and replay it to any step.
// Pure logic, no DOM (tests/web/replay.test.mjs checks every view against ui/step/model.py's).
//
// The state after j trace steps is, for every byte offset, the token that starts there (id and end), as
// EncodeTrace.boundaries_at keeps it: a step sets the token at each of its positions. Checkpoints (copies of
// that state every `every` steps) make any step a copy plus at most `every` steps away, so the slider can jump
// anywhere at once even in the largest trace; Next is one step.

function b64bytes(text) {
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function undelta(values) {
  const out = new Int32Array(values.length);
  let acc = 0;
  for (let i = 0; i < values.length; i++) out[i] = acc += values[i];
  return out;
}

function triples(flat) {
  const out = [];
  for (let i = 0; i < flat.length; i += 3) out.push([flat[i], flat[i + 1], flat[i + 2]]);
  return out;
}

/** The payload (parsed JSON) as typed arrays and lookups. */
export function decode(p) {
  if (p.v !== 1) throw new Error(`Step through: payload version ${p.v}, expected 1`);
  const data = b64bytes(p.text);
  const byteIds = p.byteIds ? Int32Array.from(p.byteIds) : Int32Array.from({ length: 256 }, (_, i) => i);
  const table = new Map();
  {
    const blob = b64bytes(p.tokens.bytes);
    const ids = undelta(p.tokens.ids);
    let at = 0;
    for (let i = 0; i < ids.length; i++) {
      table.set(ids[i], blob.subarray(at, at + p.tokens.len[i]));
      at += p.tokens.len[i];
    }
  }
  let merges = null;
  if (p.mode === "training") {
    merges = { left: Int32Array.from(p.merges.left), right: Int32Array.from(p.merges.right), count: undelta(p.merges.count) };
    // merge r makes id 256 + r, or offset + r from where an id run starts (a base with special tokens among its ids)
    const runs = new Map(p.merges.idRuns || []);
    merges.newId = new Int32Array(merges.left.length);
    merges.rankOf = runs.size ? new Map() : null;
    for (let r = 0, off = 256; r < merges.left.length; r++) {
      if (runs.has(r)) off = runs.get(r);
      merges.newId[r] = off + r;
      if (merges.rankOf) merges.rankOf.set(off + r, r);
    }
    for (let b = 0; b < 256; b++) if (!table.has(b)) table.set(b, Uint8Array.of(b));
  }
  const tokenBytes = (id) => {
    let got = table.get(id);
    const rankOf = (t) => (merges.rankOf ? merges.rankOf.get(t) : t >= 256 && t - 256 < merges.left.length ? t - 256 : undefined);
    if (got === undefined && merges && rankOf(id) !== undefined) {
      // a merge's token is its halves' bytes; built iteratively, deepest first (no recursion limit)
      const todo = [id];
      while (todo.length) {
        const t = todo[todo.length - 1];
        const a = merges.left[rankOf(t)];
        const b = merges.right[rankOf(t)];
        const ba = table.get(a);
        const bb = table.get(b);
        if (ba === undefined) todo.push(a);
        else if (bb === undefined) todo.push(b);
        else {
          const both = new Uint8Array(ba.length + bb.length);
          both.set(ba);
          both.set(bb, ba.length);
          table.set(t, both);
          todo.pop();
        }
      }
      got = table.get(id);
    }
    if (got === undefined) throw new Error(`Step through: no bytes for token ${id}`);
    return got;
  };
  const s = p.steps;
  const m = s.count.length;
  const rank = undelta(s.rank);
  const newId = new Int32Array(m);
  for (let i = 0; i < m; i++) newId[i] = rank[i] + (Array.isArray(s.idOff) ? s.idOff[i] : s.idOff);
  const left = new Int32Array(m);
  const right = new Int32Array(m);
  for (let i = 0; i < m; i++) {
    left[i] = merges ? merges.left[rank[i]] : s.left[i];
    right[i] = merges ? merges.right[rank[i]] : s.right[i];
  }
  const count = Int32Array.from(s.count);
  const posStart = new Int32Array(m + 1);
  for (let i = 0; i < m; i++) posStart[i + 1] = posStart[i] + count[i];
  const pos = new Int32Array(posStart[m]);
  for (let i = 0, at = 0; i < m; i++) {
    let q = 0;
    for (let c = 0; c < count[i]; c++) pos[at] = q += s.pos[at++];
  }
  const specials = triples(p.specials);
  const wholes = triples(p.wholes);
  let nTok = data.length;
  for (const [, len] of [...specials, ...wholes]) nTok -= len - 1;
  const initialCount = nTok;
  const drops = new Map(s.drop);
  const nTokens = new Int32Array(m);
  for (let i = 0; i < m; i++) nTokens[i] = nTok -= count[i] + (drops.get(i) || 0);
  const stepLen = new Int32Array(m);
  for (let i = 0; i < m; i++) stepLen[i] = tokenBytes(newId[i]).length;
  let chunkStart = null;
  if (p.chunks.length) {
    chunkStart = new Uint8Array(data.length + 1);
    for (const a of undelta(p.chunks)) chunkStart[a] = 1;
  }
  let lengthAt = null;
  if (merges) {
    const diff = new Map(p.length.diff);
    lengthAt = new Float64Array(p.n + 1);
    lengthAt[0] = p.length.initial;
    for (let k = 1; k <= p.n; k++) lengthAt[k] = lengthAt[k - 1] - (merges.count[k - 1] - (diff.get(k) || 0));
  }
  return {
    id: p.id,
    variant: decodeVariant(p),
    mode: p.mode,
    n: p.n,
    data,
    byteIds,
    tokenBytes,
    specials,
    wholes,
    specialIds: new Set(specials.map((t) => t[2])),
    steps: { length: m, rank, newId, left, right, count, posStart, pos, nTokens, stepLen },
    initialCount,
    chunkStart,
    merges,
    lengthAt,
    shownChars: p.shownChars,
    corpusChars: p.corpusChars,
  };
}

/** A training variant's part of the payload (ui/step/payload.py's variant_payload), or null for plain BPE. */
function decodeVariant(p) {
  const v = p.variant;
  if (!v) return null;
  if (v.kind === "parity") {
    return { kind: v.kind, languages: v.languages, served: Int32Array.from(v.served), lengths: v.lengths.map(undelta) };
  }
  if (v.kind === "superwords") {
    // before the transition the shown text is cut as stage 1 cut it: a trace of its own over the same text and merges
    const cut1 = v.cut1 ? decode({ ...p, ...v.cut1, variant: null }) : null;
    return { kind: v.kind, stage1: v.stage1, stage2Start: v.stage2Start, cut1 };
  }
  if (v.kind === "continued") return { kind: v.kind, firstLearned: v.firstLearned, base: v.base };
  return null;
}

/** Parity-aware training: the language merge k + 1 serves (null: a plain merge, or another kind of training). */
export function servedAt(trace, k) {
  const v = trace.variant;
  if (!v || v.kind !== "parity") return null;
  const g = v.served[k];
  return g < 0 ? null : v.languages[g];
}

/** Parity-aware training: [language, tokens after k merges] for every language. */
export function languageTokens(trace, k) {
  const v = trace.variant;
  return v.languages.map((lang, g) => [lang, v.lengths[g][k]]);
}

/** Where the count of merge k + 1's pair was taken (ui/step/model.py's counted_in). */
export function countedIn(trace, k) {
  const v = trace.variant;
  if (v && v.kind === "parity" && k < trace.n) {
    const lang = servedAt(trace, k);
    return lang === null ? "the training text" : `the ${lang} text`;
  }
  return "the training text";
}

function comma(n) {
  const s = String(Math.abs(Math.trunc(n))).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return n < 0 ? "-" + s : s;
}

/** What step k + 1 of a training variant does differently, in a sentence, or null (ui/step/model.py's variant_note). */
export function variantNote(trace, k) {
  const v = trace.variant;
  const n = trace.n;
  if (!v) return null;
  if (v.kind === "parity") {
    if (k >= n) return null;
    const lang = servedAt(trace, k);
    if (lang === null) return `Step ${comma(k + 1)} is one of the plain merges made first: the pairs are counted in every text.`;
    const tokens = languageTokens(trace, k);
    const mine = tokens.find(([l]) => l === lang)[1];
    // the two longest others, as Python sorts (tokens, name) pairs in reverse
    const others = tokens
      .filter(([l]) => l !== lang)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? 1 : a[0] > b[0] ? -1 : 0))
      .slice(0, 2);
    const rest = others.map(([l, t]) => `${l} ${comma(t)}`).join("; ");
    return (
      `Step ${comma(k + 1)} serves ${lang}, the worst-compressed language now (${comma(mine)} tokens; ${rest}): ` +
      `its most frequent pair is merged in every text. The pairs below are counted in the ${lang} text.`
    );
  }
  if (v.kind === "superwords") {
    const t = v.stage1;
    if (k < t) return `Stage 1 (merges 1 to ${comma(t)}): plain BPE, within the chunks of the split pattern.`;
    if (k === t) {
      return (
        "Stage 2 starts: the text is cut again by the superword pattern, so merges may cross words " +
        `(${comma(trace.lengthAt[t])} tokens at the end of stage 1; ${comma(v.stage2Start)} cut again).`
      );
    }
    return `Stage 2 (merges ${comma(t + 1)} to ${comma(n)}): the chunks hold several words, so tokens may cross them.`;
  }
  if (v.kind === "continued") {
    const b = v.firstLearned;
    if (k < b) {
      return (
        `Merge ${comma(k + 1)} comes with ${v.base}, learned on other text: here it is replayed on yours, ` +
        `so it need not be the top pair. This text's own merges start at step ${comma(b + 1)}.`
      );
    }
    return `Merge ${comma(k + 1)} was learned on this text, on top of ${v.base}'s ${comma(b)} merges.`;
  }
  return null;
}

/** The trace steps shown at slider position k: k in encoding mode; in training mode the steps of rank below k. */
export function traceStep(trace, k) {
  if (trace.mode === "encoding") return k;
  const rank = trace.steps.rank;
  let lo = 0;
  let hi = rank.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (rank[mid] < k) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The state of the text after any number of trace steps, with checkpoints. */
export class Replayer {
  constructor(trace, { memory = 24e6 } = {}) {
    this.trace = trace;
    const n = trace.data.length;
    const m = trace.steps.length;
    this.id = new Int32Array(n).fill(-1);
    this.end = new Int32Array(n);
    for (const [off, len, tid] of [...trace.specials, ...trace.wholes]) {
      this.id[off] = tid;
      this.end[off] = off + len;
    }
    this.at = 0;
    // as many checkpoints as `memory` bytes hold (two Int32Arrays each)
    const most = Math.max(1, Math.floor(memory / (8 * Math.max(n, 1))));
    this.every = Math.max(8, Math.ceil((m + 1) / most));
    this.checkpoints = [];
    for (let j = 0; j <= m; j++) {
      if (j % this.every === 0) this.checkpoints.push([this.id.slice(), this.end.slice()]);
      if (j < m) this._apply(j);
    }
    this.at = m;
    this.seek(0);
    const cut1 = trace.variant && trace.variant.cut1;
    this.cut1 = cut1 ? new Replayer(cut1, { memory }) : null; // tokens across words: stage 1's cut of the text
  }

  _apply(j) {
    const { posStart, pos, newId, stepLen } = this.trace.steps;
    const tid = newId[j];
    const len = stepLen[j];
    const id = this.id;
    const end = this.end;
    for (let i = posStart[j]; i < posStart[j + 1]; i++) {
      const q = pos[i];
      // a merge built on a later one is replayed first; the later one builds a part of it, which stays inside it
      if (q + len > end[q]) {
        id[q] = tid;
        end[q] = q + len;
      }
    }
  }

  /** Move to the state after j trace steps. */
  seek(j) {
    if (j < this.at || j - this.at > this.every) {
      const c = Math.floor(j / this.every);
      const [id, end] = this.checkpoints[c];
      this.id.set(id);
      this.end.set(end);
      this.at = c * this.every;
    }
    while (this.at < j) this._apply(this.at++);
  }

  /** The tokens now: parallel arrays of byte starts, byte ends and ids. */
  tokens() {
    const { data, byteIds } = this.trace;
    const n = data.length;
    const starts = [];
    const ends = [];
    const ids = [];
    for (let i = 0; i < n; ) {
      const tid = this.id[i];
      starts.push(i);
      if (tid >= 0) {
        ends.push(this.end[i]);
        ids.push(tid);
        i = this.end[i];
      } else {
        ends.push(i + 1);
        ids.push(byteIds[data[i]]);
        i += 1;
      }
    }
    return { starts, ends, ids };
  }
}

function stepInfo(trace, j) {
  const s = trace.steps;
  return { step: j + 1, rank: s.rank[j], newId: s.newId[j], pair: [s.left[j], s.right[j]], count: s.count[j], nTokens: s.nTokens[j] };
}

function mergeInfo(trace, r) {
  const m = trace.merges;
  return { rank: r, newId: m.newId[r], pair: [m.left[r], m.right[r]], count: m.count[r] };
}

/** What the page shows at slider position k (ui/step/model.py's encoding_view / training_view). */
export function viewAt(trace, replayer, k) {
  k = Math.max(0, Math.min(trace.n, k));
  if (replayer.cut1 && k < trace.variant.stage1) return { ...viewAt(trace.variant.cut1, replayer.cut1, k), stage1: true };
  const j = traceStep(trace, k);
  replayer.seek(j);
  const toks = replayer.tokens();
  const index = new Map(); // byte start -> span index (only looked up for the few highlighted places)
  const lookup = (q) => {
    if (!index.size) toks.starts.forEach((a, i) => index.set(a, i));
    return index.get(q);
  };
  const highlight = new Set();
  const s = trace.steps;
  const cuts = new Set();
  if (trace.chunkStart) {
    for (let i = 1; i < toks.starts.length; i++) if (trace.chunkStart[toks.starts[i]]) cuts.add(i);
  }
  const view = { mode: trace.mode, k, n: trace.n, j, tokens: toks, highlight, cuts };
  if (trace.mode === "encoding") {
    if (k > 0) for (let i = s.posStart[k - 1]; i < s.posStart[k]; i++) highlight.add(lookup(s.pos[i]));
    view.step = k > 0 ? stepInfo(trace, k - 1) : null;
    view.upcoming = k < trace.n ? stepInfo(trace, k) : null;
    view.count = toks.ids.length;
  } else {
    const next = j < s.length && s.rank[j] === k ? j : -1;
    if (next >= 0) {
      for (let i = s.posStart[next]; i < s.posStart[next + 1]; i++) {
        const at = lookup(s.pos[i]);
        highlight.add(at);
        if (at + 1 < toks.ids.length) highlight.add(at + 1);
      }
    }
    view.last = k > 0 ? mergeInfo(trace, k - 1) : null;
    view.next = k < trace.n ? mergeInfo(trace, k) : null;
    view.nextInExcerpt = next >= 0 ? s.count[next] : 0;
    view.count = toks.ids.length;
    view.trainingTokens = trace.lengthAt[k];
    view.trainingBytes = trace.lengthAt[0];
  }
  return view;
}

/** The spans of a view, as spans.js renders them (index, id, bytes, special). */
export function spansOf(trace, view) {
  const { starts, ends, ids } = view.tokens;
  const out = new Array(ids.length);
  for (let i = 0; i < ids.length; i++) {
    out[i] = { index: i, id: ids[i], bytes: trace.data.subarray(starts[i], ends[i]), special: trace.specialIds.has(ids[i]) };
  }
  return out;
}

/** Tokens after each encode step, 0 (the bytes) to the end: the length chart of encoding mode. */
export function encodeLengths(trace) {
  const out = new Float64Array(trace.steps.length + 1);
  out[0] = trace.initialCount;
  out.set(trace.steps.nTokens, 1);
  return out;
}
