// The live Tokenize view (mounted by ui/tokenize/live.py through Streamlit's components v2): a labelled text
// box, the counts, the coloured spans and the ids, updated as the user types.
//
// Rank-based and SentencePiece-style tokenizers encode in a Web Worker (worker.js, bpe.js, spm.js): the model file
// comes once (cached by its hashed name), every keystroke is encoded in the page, and no key waits for the server. The server hears the
// text only when it needs it: COMMIT_DELAY after typing stops, on leaving the box and on Ctrl+Enter (then the
// share link, the token table below and the text other pages share catch up). A tokenizer the browser cannot
// run exactly (a tokenizer.json pipeline, a pattern JavaScript reads differently), a text past the live limit,
// and chat mode are tokenized on the server: the box then sends the text SERVER_DELAY after the last key and
// draws the ids the server sends back, and the page says so.
//
// Hovering a token links its three places: the span, its characters in the text box (a highlight drawn
// behind the box) and its id in the list of ids.
import { tokenOffsets } from "./bpe.js";
import { colorsFor, escapeHtml, fmtInt, renderSpans, srRows, srTable } from "./spans.js";

export const COMMIT_DELAY = 1200;
export const SERVER_DELAY = 200;
// a custom split pattern that runs this long in the browser is handed to the server (which has a time limit)
export const WATCHDOG = 4000;
const LABELS = [
  ["tokens", "Tokens"],
  ["chars", "Characters"],
  ["bytes", "UTF-8 bytes"],
  ["ratio", "Chars per token"],
];

/** The shared worker of this window (one per set of modules: a new version of them starts a new one). */
function sharedWorker(base) {
  const w = window.__bpeLiveWorker;
  if (w && w.base === base && !w.dead) return w;
  if (w) w.worker.terminate();
  const worker = new Worker(base + "worker.js", { type: "module" });
  const entry = { base, worker, listeners: new Set(), loaded: new Map(), dead: false };
  worker.onmessage = (event) => {
    const msg = event.data;
    if (msg.type === "ready" || msg.type === "native") entry.loaded.set(msg.key, msg.type);
    if (msg.type === "error" && msg.seq === undefined) entry.loaded.delete(msg.key);
    for (const fn of entry.listeners) fn(msg);
  };
  worker.onerror = (event) => {
    for (const fn of entry.listeners) fn({ type: "error", key: null, message: event.message || "the worker stopped" });
  };
  window.__bpeLiveWorker = entry;
  return entry;
}

function el(tag, attrs = {}, text = null) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== null) node.textContent = text;
  return node;
}

/** The tokens as the renderers take them: [{index, id, bytes, special}], the first ``limit`` of them. */
export function spansOf(result, limit) {
  const out = [];
  let pos = 0;
  const n = Math.min(result.ids.length, limit);
  for (let i = 0; i < n; i++) {
    const len = result.lens[i];
    out.push({ index: i, id: result.ids[i], bytes: result.data.subarray(pos, pos + len), special: result.special[i] === 1 });
    pos += len;
  }
  return out;
}

/** Which token covers UTF-16 offset ``at`` (binary search over the tokens' starts), or -1. */
export function tokenAt(offsets, at) {
  const { start16, end16 } = offsets;
  let lo = 0;
  let hi = start16.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (start16[mid] > at) hi = mid - 1;
    else if (end16[mid] <= at) lo = mid + 1;
    else {
      while (mid > 0 && start16[mid - 1] === start16[mid] && end16[mid - 1] > at) return mid - 1;
      return mid;
    }
  }
  return -1;
}

/** Token offsets in the model's view (tokenOffsets) as offsets in the text box: each space the model put in
 * (``inserted``, sorted UTF-16 offsets in the view: SentencePiece's dummy prefix) moves what follows it back one. */
export function boxOffsets(offsets, inserted) {
  if (!inserted || !inserted.length) return offsets;
  const out = {};
  for (const [units, points] of [["start16", "start"], ["end16", "end"]]) {
    const u = Uint32Array.from(offsets[units]);
    const p = Uint32Array.from(offsets[points]);
    let k = 0; // inserted spaces before u[t]: the offsets only grow, so one pass
    for (let t = 0; t < u.length; t++) {
      while (k < inserted.length && inserted[k] < offsets[units][t]) k++;
      u[t] -= k;
      p[t] -= k;
    }
    out[units] = u;
    out[points] = p;
  }
  return out;
}

/** The counts the page shows, as text (the core's definitions: code points, UTF-8 bytes). */
export function countsOf(result) {
  const tokens = result.ids.length;
  return {
    tokens: fmtInt(tokens),
    chars: fmtInt(result.chars),
    bytes: fmtInt(result.data.length),
    ratio: tokens ? (result.chars / tokens).toFixed(2) : "0.00",
  };
}

/** A server result (JSON from ui/web/payload.server_result) in the worker's shape. */
export function fromServer(server, text) {
  const data = new TextEncoder().encode(server.text ?? text);
  const special = new Uint8Array(server.ids.length);
  for (const i of server.special) special[i] = 1;
  return { ids: Uint32Array.from(server.ids), lens: Uint32Array.from(server.lens), special, data, chars: server.chars };
}

class LiveView {
  constructor(root) {
    this.root = root;
    this.version = null;
    this.counter = 0; // the seq of the box's text: a new one for every edit
    this.textSeq = 0;
    this.committed = null; // [seq] the server was last told
    this.data = null;
    this.result = null; // what is drawn: {ids, lens, special, data, chars, source}
    this.pending = null; // the encode request in flight: {seq, key, ...}
    this.timers = {};
    this.hovered = -1;
    this.build();
  }

  build() {
    const wrap = el("div", { class: "bpe-live" });
    const input = el("div", { class: "bpe-live-in" });
    const id = "bpe-live-text-" + Math.random().toString(36).slice(2);
    input.append(el("label", { for: id, class: "bpe-live-label" }, "Text"));
    const box = el("div", { class: "bpe-live-box" });
    this.backdrop = el("div", { class: "bpe-live-backdrop", "aria-hidden": "true" });
    this.textarea = el("textarea", { id, spellcheck: "false", autocomplete: "off", "aria-describedby": id + "-status" });
    box.append(this.backdrop, this.textarea);
    this.status = el("div", { id: id + "-status", class: "bpe-live-status", role: "status", "aria-live": "polite" });
    input.append(box, this.status);
    const output = el("div", { class: "bpe-live-out" });
    this.counts = el("div", { class: "bpe-counts", role: "group", "aria-label": "Counts" });
    this.countValues = {};
    for (const [key, label] of LABELS) {
      const card = el("div", { class: "bpe-count", "data-count": key });
      const value = el("div", { class: "val" }, "–");
      card.append(el("div", { class: "lbl" }, label), value);
      this.counts.append(card);
      this.countValues[key] = value;
    }
    this.notes = el("div", { class: "bpe-live-notes" });
    this.spans = el("div", { class: "bpe-live-spans" });
    this.hint = el("div", { class: "bpe-live-hint" });
    const idsHead = el("div", { class: "bpe-live-ids-head" });
    idsHead.append(el("span", { class: "lbl", id: id + "-ids" }, "Token ids"));
    this.copy = el("button", { type: "button", class: "bpe-live-copy" }, "Copy ids");
    idsHead.append(this.copy);
    this.ids = el("pre", { class: "bpe-live-ids", tabindex: "0", role: "region", "aria-labelledby": id + "-ids" });
    output.append(this.counts, this.notes, this.spans, this.hint, idsHead, this.ids);
    wrap.append(input, output);
    this.root.append(wrap);
    this.wrap = wrap;
    this.input = input;

    this.textarea.addEventListener("input", () => this.edited());
    this.textarea.addEventListener("blur", () => this.commit());
    this.textarea.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        this.commit(true);
      }
    });
    this.textarea.addEventListener("scroll", () => {
      this.backdrop.scrollTop = this.textarea.scrollTop;
      this.backdrop.scrollLeft = this.textarea.scrollLeft;
    });
    this.textarea.addEventListener("mousemove", (e) => this.hoverText(e));
    this.textarea.addEventListener("mouseleave", () => this.hover(-1));
    this.spans.addEventListener("mouseover", (e) => this.hoverSpan(e));
    this.spans.addEventListener("mouseleave", () => this.hover(-1));
    this.ids.addEventListener("mouseover", (e) => {
      const t = e.target.closest && e.target.closest("[data-i]");
      this.hover(t ? Number(t.dataset.i) : -1);
    });
    this.ids.addEventListener("mouseleave", () => this.hover(-1));
    // a click on a token (its span or its id) asks the server for its merge tree, drawn under the view
    for (const root of [this.spans, this.ids]) {
      root.addEventListener("click", (e) => {
        const t = e.target.closest && e.target.closest("[data-i]");
        if (t) this.pick(Number(t.dataset.i));
      });
    }
    this.copy.addEventListener("click", () => {
      const text = this.result ? "[" + Array.from(this.result.ids).join(", ") + "]" : "[]";
      navigator.clipboard?.writeText(text).then(
        () => this.flash("Copied"),
        () => this.flash("Select the ids and copy them"),
      );
    });
  }

  flash(text) {
    this.copy.textContent = text;
    clearTimeout(this.timers.copy);
    this.timers.copy = setTimeout(() => (this.copy.textContent = "Copy ids"), 1500);
  }

  /** Take over the text box that ui/tokenize/live.js drew before this module loaded: its text, focus and selection. */
  adopt(early) {
    const box = early.querySelector("textarea");
    const focused = box && document.activeElement === box;
    early.remove();
    if (!box) return;
    if (box.value !== this.textarea.value) {
      this.textarea.value = box.value;
      this.edited();
    }
    if (focused) {
      this.textarea.focus({ preventScroll: true });
      this.textarea.setSelectionRange(box.selectionStart, box.selectionEnd);
    }
  }

  setTrigger(fn) {
    this.trigger = fn;
  }

  /** New data from the server (every rerun). */
  update(data, base) {
    const previous = this.data;
    this.data = data;
    this.base = base;
    this.wrap.classList.toggle("chat", data.mode === "chat");
    this.wrap.classList.toggle("bpe-live-present", !!data.present);
    if (data.version !== this.version) {
      this.version = data.version;
      if (this.textarea.value !== data.text) this.textarea.value = data.text;
      this.textSeq = data.seq;
      this.committed = data.seq;
      this.wrap.dataset.typed = String(this.textSeq);
    }
    this.counter = Math.max(this.counter, data.seq, this.textSeq);
    this.hint.textContent = data.hint || "";
    if (data.kind === "bpe" || data.kind === "chars") this.attachWorker(previous);
    this.refresh();
  }

  attachWorker(previous) {
    const w = sharedWorker(this.base);
    this.worker = w;
    if (!this.listener) {
      this.listener = (msg) => this.fromWorker(msg);
      w.listeners.add(this.listener);
    }
    const key = this.modelKey();
    if (!w.loaded.has(key) && !(previous && previous.model && previous.model.id === this.data.model.id && this.loading === key)) {
      this.loading = key;
      const msg = { type: "model", key, kind: this.data.kind };
      if (this.data.model && this.data.model.url) msg.url = new URL(this.data.model.url, document.baseURI).href;
      w.worker.postMessage(msg);
    }
  }

  modelKey() {
    return this.data.kind === "chars" ? "chars" : this.data.model.id;
  }

  /** Whether the browser encodes the box's text now (else the server does). */
  live() {
    const d = this.data;
    return d.mode !== "chat" && (d.kind === "bpe" || d.kind === "chars") && !this.gaveUp && codePoints(this.textarea.value, d.limits.live) <= d.limits.live;
  }

  edited() {
    this.textSeq = ++this.counter;
    this.wrap.dataset.typed = String(this.textSeq);
    this.syncBackdrop();
    this.refresh();
    clearTimeout(this.timers.commit);
    this.timers.commit = setTimeout(() => this.commit(), COMMIT_DELAY);
  }

  /** Tell the server the text (the link, the tables and the other pages follow it); full: a whole-page rerun. */
  commit(force = false) {
    clearTimeout(this.timers.commit);
    if (!this.trigger || this.data.mode === "chat") return;
    if (!force && this.committed === this.textSeq) return;
    this.committed = this.textSeq;
    this.trigger("text", { text: this.textarea.value, seq: this.textSeq, full: true });
  }

  /** What the view shows for the current text: encode it here, or ask the server, or draw what it sent. */
  refresh() {
    const d = this.data;
    const text = this.textarea.value;
    if (d.mode !== "chat" && this.backdropText !== text) this.syncBackdrop();
    if (this.live()) {
      this.requestEncode();
      return;
    }
    if (d.server && (d.mode === "chat" || d.server.seq === this.textSeq)) {
      this.show(fromServer(d.server, text), "server", d.server);
      return;
    }
    // the server's result is for another text: ask for this one
    this.setStatus(this.serverNote(true));
    clearTimeout(this.timers.server);
    if (d.mode !== "chat") {
      this.timers.server = setTimeout(() => {
        if (this.trigger && !this.live()) this.trigger("text", { text: this.textarea.value, seq: this.textSeq, full: false });
      }, SERVER_DELAY);
    }
  }

  requestEncode() {
    const d = this.data;
    const key = this.modelKey();
    const request = {
      type: "encode",
      seq: this.textSeq * 1000 + (this.nonce = ((this.nonce || 0) + 1) % 1000),
      key,
      text: this.textarea.value,
      recognise: !!d.recognise,
      specials: d.specials || null,
      specialsId: d.specialsId || "",
    };
    const same = this.shown && this.shown.key === key && this.shown.text === request.text && this.shown.recognise === request.recognise && this.shown.specialsId === request.specialsId;
    if (same) {
      // the drawn tokens are this text's already (settings that only change the drawing, or the same text
      // under a new seq after the server's rerun): they are this seq's drawing
      this.wrap.dataset.seq = String(this.textSeq);
      this.draw();
      return;
    }
    const p = this.pending;
    if (p && p.key === key && p.text === request.text && p.recognise === request.recognise && p.specialsId === request.specialsId) return; // on its way
    if (!this.worker.loaded.has(key)) {
      this.setStatus(`Loading ${d.label} into your browser (${d.model ? fmtSize(d.model.size) + ", " : ""}once)…`);
      this.queued = request;
      return;
    }
    this.pending = request;
    this.startedAt = performance.now();
    this.worker.worker.postMessage(request);
    clearTimeout(this.timers.watchdog);
    this.timers.watchdog = setTimeout(() => this.giveUp(request), WATCHDOG);
  }

  /** The browser took too long (a custom pattern that backtracks): the server, with its time limit, takes over. */
  giveUp(request) {
    if (this.pending !== request) return;
    this.gaveUp = true;
    this.worker.dead = true;
    this.worker.worker.terminate();
    this.worker.listeners.delete(this.listener);
    this.listener = null;
    this.pending = null;
    this.refresh();
  }

  fromWorker(msg) {
    if (!this.data) return;
    if ((msg.type === "ready" || msg.type === "native") && msg.key === this.modelKey()) {
      if (this.queued) {
        const q = this.queued;
        this.queued = null;
        if (q.text === this.textarea.value) this.requestEncode();
        else this.refresh();
      } else if (msg.type === "ready") this.refresh();
      return;
    }
    if (msg.type === "error") {
      if (msg.seq !== undefined && (!this.pending || msg.seq !== this.pending.seq)) return;
      if (msg.key !== null && msg.key !== this.modelKey()) return;
      this.pending = null;
      clearTimeout(this.timers.watchdog);
      this.gaveUp = true; // the server takes over and says what went wrong, if anything
      this.setStatus("The browser could not tokenize this (" + msg.message + "): the server does.");
      this.refresh();
      return;
    }
    if (msg.type !== "result" || !this.pending || msg.seq !== this.pending.seq) return; // stale
    clearTimeout(this.timers.watchdog);
    const request = this.pending;
    this.pending = null;
    this.shown = request;
    if (request.text !== this.textarea.value) {
      this.requestEncode(); // typed on meanwhile: this one is stale, encode the newest text
      return;
    }
    this.show(msg, "browser", { ms: msg.ms });
  }

  show(result, source, info) {
    // which of the box's texts is drawn (data-seq on the view: tests and the benchmark wait for it)
    // (a browser result for the box's present text is this text's drawing, whichever seq asked for it)
    const browserSeq = () => (this.shown.text === this.textarea.value ? this.textSeq : Math.floor(this.shown.seq / 1000));
    this.wrap.dataset.seq = String(source === "browser" && this.shown ? browserSeq() : this.data.mode === "chat" ? 0 : this.data.server.seq);
    this.wrap.dataset.source = source;
    this.result = result;
    this.source = source;
    this.info = info;
    this.offsets = null;
    this.draw();
  }

  serverNote(waiting) {
    const d = this.data;
    if (d.mode === "chat") return "Chat mode: the server lays out the conversation in the model's format and tokenizes it.";
    let why;
    if (this.gaveUp && (d.kind === "bpe" || d.kind === "chars")) why = "the browser gave up on this text (the split pattern took too long), so the server tokenizes it, with its time limit";
    else if (d.kind === "server") why = `${d.label} is tokenized on the server: ${d.reason}. Tokens follow your typing a moment later than in the browser`;
    else why = `This text is longer than ${fmtInt(d.limits.live)} characters: the server tokenizes it (the page's limit: it tokenizes the first ${fmtInt(d.limits.live)}), after you stop typing`;
    return waiting ? why + " …" : why + ".";
  }

  setStatus(text) {
    this.status.textContent = text;
  }

  draw() {
    const r = this.result;
    const d = this.data;
    if (!r) return;
    if (this.source === "browser") {
      const ms = this.info && this.info.ms !== undefined ? ` · ${this.info.ms < 10 ? this.info.ms.toFixed(1) : Math.round(this.info.ms)} ms` : "";
      this.setStatus(`Live: tokenized in your browser with ${d.label}${ms}. The page hears the text when you stop typing.`);
    } else {
      this.setStatus(this.serverNote(false));
    }
    const counts = countsOf(r);
    for (const [key] of LABELS) this.countValues[key].textContent = counts[key];
    // notes: the server's (a cut text, an error) and the special-token strings counted as text
    this.notes.replaceChildren();
    const server = this.source === "server" ? d.server : null;
    if (server && server.error) this.notes.append(el("div", { class: "bpe-live-error", role: "alert" }, server.error));
    if (server && server.dropped) {
      this.notes.append(el("div", { class: "bpe-live-warn" }, `The text is ${fmtInt(server.dropped + server.chars)} characters long; only the first ${fmtInt(d.limits.live)} are tokenized (the page's limit, about 200 kB of English). Tokenize the rest separately, or use python -m tokenizer for whole files.`));
    }
    if (!d.recognise && d.mode !== "chat" && d.specialNames && d.specialNames.length) {
      const text = this.textarea.value;
      const found = d.specialNames.filter((s) => text.includes(s)).slice(0, 4);
      if (found.length) {
        this.notes.append(el("div", { class: "bpe-live-note" }, `Your text contains ${found.join(", ")}: counted here as ordinary text. Choose “Recognise special tokens” to count each as one token.`));
      }
    }
    if (!r.ids.length) {
      this.spans.innerHTML = `<div class="bpe-empty">${escapeHtml(server && server.error ? "Nothing to show: see the message above." : "Nothing to tokenize yet. Type or paste some text, or load a sample text.")}</div>`;
      this.ids.textContent = "[]";
      this.drawn = (this.drawn || 0) + 1;
      this.clearBackdrop();
      this.hintShown(false);
      return;
    }
    const limit = d.limits.spans;
    const spans = spansOf(r, limit);
    // the screen readers' table of the tokens is filled SR_BLOCK rows at a time, one block a frame: 2,500 rows
    // at once held the page still for a quarter of a second after every key
    const first = spans.slice(0, SR_BLOCK);
    this.spans.innerHTML = renderSpans(spans, { showWhitespace: !!d.whitespace, limit: null, srTableToo: false }) + srTable(first, { caption: "Tokens", total: spans.length });
    this.fillTable(spans, SR_BLOCK);
    const tokens = this.spans.querySelectorAll(".bpe-spans .t");
    tokens.forEach((node, i) => (node.dataset.i = String(i)));
    if (r.ids.length > limit) {
      this.spans.append(el("div", { class: "bpe-more" }, `Showing the first ${fmtInt(limit)} of ${fmtInt(r.ids.length)} tokens.`));
    }
    this.hintShown(true, r.ids.length > limit);
    // ids: the first ``limit`` can be hovered, the rest is plain text (all of them are there, and can be copied)
    const n = Math.min(r.ids.length, limit);
    this.ids.innerHTML = idsHtml(r.ids, n);
    this.hovered = -1;
    this.clearBackdrop();
    if (this.picked >= 0 && this.picked < n && r.ids[this.picked] === this.pickedId) {
      for (const root of [this.spans, this.ids]) root.querySelector(`[data-i="${this.picked}"]`)?.classList.add("picked");
    } else {
      this.picked = -1;
    }
  }

  /** The rest of the screen readers' table, a block per animation frame (a new drawing stops the old one). */
  fillTable(spans, from) {
    const generation = (this.drawn = (this.drawn || 0) + 1);
    const body = this.spans.querySelector(".bpe-sr tbody");
    const step = (at) => {
      if (this.drawn !== generation || at >= spans.length || !body) return;
      body.insertAdjacentHTML("beforeend", srRows(spans.slice(at, at + SR_BLOCK)));
      requestAnimationFrame(() => step(at + SR_BLOCK));
    };
    requestAnimationFrame(() => step(from));
  }

  /** The token at ``i`` was clicked: marked, and its id sent to the server (which draws its merge tree). */
  pick(i) {
    if (!this.result || i < 0 || i >= this.result.ids.length || !this.trigger) return;
    this.picked = i;
    this.pickedId = this.result.ids[i];
    for (const root of [this.spans, this.ids]) {
      root.querySelector(".picked")?.classList.remove("picked");
      root.querySelector(`[data-i="${i}"]`)?.classList.add("picked");
    }
    this.trigger("pick", { id: this.result.ids[i], index: i });
  }

  hintShown(on, cut = false) {
    if (!on) {
      this.hint.textContent = "";
      return;
    }
    let text = "Hover a token: its place in the text and its id light up too. Click it to see how it was built, below. The colour belongs to the token id: the same token looks the same everywhere.";
    if (cut) text += ` Only the first ${fmtInt(this.data.limits.spans)} tokens are drawn, to keep the page fast; the counts, ids and tables have them all.`;
    this.hint.textContent = text;
  }

  /** A new text in the box: the backdrop is emptied (it is filled only while a token is hovered, and then only
   * as far as the hoverable tokens reach: laying out a 200,000-character copy on every key froze the page). */
  syncBackdrop() {
    this.backdropText = this.textarea.value;
    this.clearBackdrop();
  }

  clearBackdrop() {
    if (this.backdrop.firstChild) this.backdrop.replaceChildren();
    this.backdropEnd = 0;
    this.marked = -1;
  }

  /** How far the backdrop's copy of the text goes: to the end of the line holding the last hoverable token's
   * characters (the text after a line's end cannot move what comes before it), the whole text if shorter. */
  backdropReach() {
    const text = this.backdropText ?? "";
    const offsets = this.offsetsOf();
    if (!offsets || !offsets.end16.length) return text.length;
    const last = Math.min(offsets.end16.length, this.data.limits.spans) - 1;
    const nl = text.indexOf("\n", offsets.end16[last]);
    return nl < 0 ? text.length : nl;
  }

  /** Draw the backdrop: the text up to its reach, token i's characters marked (-1: none). */
  fillBackdrop(i) {
    const text = this.backdropText ?? "";
    const end = this.backdropReach();
    const tail = end >= text.length ? "\n" : "";
    if (i < 0) {
      this.backdrop.textContent = text.slice(0, end) + tail;
    } else {
      const offsets = this.offsetsOf();
      const a = Math.min(offsets.start16[i], end);
      const b = Math.min(offsets.end16[i], end);
      const mark = el("mark", {}, text.slice(a, b));
      mark.style.background = colorsFor([this.result.ids[i]])[0];
      this.backdrop.replaceChildren(text.slice(0, a), mark, text.slice(b, end) + tail);
    }
    this.backdropEnd = end;
    this.marked = i;
    this.backdrop.scrollTop = this.textarea.scrollTop;
    this.backdrop.scrollLeft = this.textarea.scrollLeft;
  }

  offsetsOf() {
    if (!this.offsets && this.result) this.offsets = boxOffsets(tokenOffsets(this.result.lens, this.result.data), this.result.inserted);
    return this.offsets;
  }

  hoverSpan(e) {
    const t = e.target.closest && e.target.closest(".t[data-i]");
    this.hover(t ? Number(t.dataset.i) : -1);
  }

  /** The token under the mouse in the text box: the box is made transparent to find the backdrop's character. */
  hoverText(e) {
    if (!this.result || this.source !== "browser" && this.data.mode === "chat") return;
    if (this.backdropText !== this.textarea.value || (this.shown && this.shown.text !== this.textarea.value && this.source === "browser")) return;
    const ta = this.textarea;
    ta.style.pointerEvents = "none"; // for this hit test only: the backdrop's character is under the box's
    this.backdrop.style.pointerEvents = "auto";
    let offset = -1;
    try {
      if (!this.backdrop.firstChild) this.fillBackdrop(-1);
      // past the backdrop's reach (scrolled beyond the hoverable tokens) no character is under the mouse
      if (this.backdrop.scrollTop === this.textarea.scrollTop) {
        const pos = document.caretPositionFromPoint ? document.caretPositionFromPoint(e.clientX, e.clientY) : null;
        const range = !pos && document.caretRangeFromPoint ? document.caretRangeFromPoint(e.clientX, e.clientY) : null;
        const node = pos ? pos.offsetNode : range ? range.startContainer : null;
        if (node && this.backdrop.contains(node)) {
          // the offset in the whole backdrop (a marked token splits its text into three nodes)
          const upto = document.createRange();
          upto.setStart(this.backdrop, 0);
          upto.setEnd(node, pos ? pos.offset : range.startOffset);
          offset = upto.toString().length;
          if (offset >= this.backdropEnd) offset = -1;
        }
      }
    } finally {
      ta.style.pointerEvents = "";
      this.backdrop.style.pointerEvents = "";
    }
    const offsets = this.offsetsOf();
    const i = offset >= 0 && offsets ? tokenAt(offsets, offset) : -1;
    this.hover(i >= 0 && i < this.data.limits.spans ? i : -1, false);
  }

  /** Light up token i in all three places (-1: none). */
  hover(i, mark = true) {
    if (i === this.hovered && (this.marked === i || !mark)) return;
    const old = this.hovered;
    this.hovered = i;
    for (const root of [this.spans, this.ids]) {
      if (old >= 0) root.querySelector(`[data-i="${old}"]`)?.classList.remove("hov");
      if (i >= 0) root.querySelector(`[data-i="${i}"]`)?.classList.add("hov");
    }
    this.markText(i);
  }

  /** The token's characters in the text box: a highlight in the backdrop, behind the transparent box. */
  markText(i) {
    const offsets = this.offsetsOf();
    if (i < 0 || !offsets || this.source === "server" && this.data.mode === "chat") {
      if (this.marked !== -1) this.clearBackdrop();
      return;
    }
    this.fillBackdrop(i);
  }

  destroy() {
    for (const t of Object.values(this.timers)) clearTimeout(t);
    if (this.worker && this.listener) this.worker.listeners.delete(this.listener);
    this.commit();
    this.wrap.remove();
    delete this.root.__bpeLive;
  }
}

/** How many ids a block of the id list holds past the hoverable ones: the blocks are laid out only when
 * scrolled to (content-visibility), so 70,000 ids cost the page no more than a screenful. */
export const IDS_BLOCK = 2000;
/** How many rows of the screen readers' token table are added in one animation frame. */
export const SR_BLOCK = 250;

/** The id list's HTML: ``[a, b, …]``, the first ``hoverable`` ids as spans with their index (data-i), the rest as
 * plain text in blocks of IDS_BLOCK (one string: one parse, not 70,000 DOM calls). Ids are numbers: no escaping. */
export function idsHtml(ids, hoverable) {
  const parts = ["["];
  for (let i = 0; i < hoverable; i++) parts.push(`${i ? ", " : ""}<span data-i="${i}">${ids[i]}</span>`);
  if (ids.length > hoverable && hoverable) parts.push(",");
  for (let at = hoverable; at < ids.length; at += IDS_BLOCK) {
    const end = Math.min(at + IDS_BLOCK, ids.length);
    const block = Array.from(ids.subarray(at, end)).join(", ");
    parts.push(`<span class="bpe-ids-more">${block}${end < ids.length ? "," : ""}</span>`);
  }
  parts.push("]");
  return parts.join("");
}

/** The number of code points in ``text`` (the server's len()), counted exactly up to ``limit`` + 1. */
export function codePoints(text, limit = Infinity) {
  if (text.length <= limit) {
    let n = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c < 0xdc00 || c > 0xdfff || i === 0 || (text.charCodeAt(i - 1) & 0xfc00) !== 0xd800) n++;
    }
    return n;
  }
  // more units than the limit: at most twice as many code points fewer; count until past the limit
  let n = 0;
  for (let i = 0; i < text.length && n <= limit; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xdc00 || c > 0xdfff || i === 0 || (text.charCodeAt(i - 1) & 0xfc00) !== 0xd800) n++;
  }
  return n;
}

function fmtSize(bytes) {
  return bytes >= 1e6 ? (bytes / 1e6).toFixed(1) + " MB" : Math.max(1, Math.round(bytes / 1e3)) + " kB";
}

/** Mount (or update) the view in the component's element; Streamlit calls this on every rerun with new data. */
export function mount(component, base) {
  const { data, parentElement, setTriggerValue } = component;
  let view = parentElement.__bpeLive;
  if (!view) {
    view = new LiveView(parentElement);
    parentElement.__bpeLive = view;
  }
  view.setTrigger(setTriggerValue);
  view.update(data, base);
  const early = parentElement.querySelector(":scope > .bpe-live-early");
  if (early) view.adopt(early);
  return () => view.destroy();
}
