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
    for (let b = 0; b < 256; b++) if (!table.has(b)) table.set(b, Uint8Array.of(b));
  }
  const tokenBytes = (id) => {
    let got = table.get(id);
    if (got === undefined && merges && id >= 256 && id - 256 < merges.left.length) {
      // a merge's token is its halves' bytes; built iteratively, deepest first (no recursion limit)
      const todo = [id];
      while (todo.length) {
        const t = todo[todo.length - 1];
        const a = merges.left[t - 256];
        const b = merges.right[t - 256];
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
  return { rank: r, newId: 256 + r, pair: [m.left[r], m.right[r]], count: m.count[r] };
}

/** What the page shows at slider position k (ui/step/model.py's encoding_view / training_view). */
export function viewAt(trace, replayer, k) {
  k = Math.max(0, Math.min(trace.n, k));
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
