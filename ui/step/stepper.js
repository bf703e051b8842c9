// Step through in the page (mounted by ui/step/stepper.py with Streamlit's public st.components.v2.component).
//
// The server sends the whole trace once (ui/step/payload.py); from then on First, Prev, Next, Last, the slider,
// the keys (→ ← Home End space) and Play run here: the spans of step k, the outlined pair or new tokens, the
// figures, the merge cards and the charts' cursors change with no server rerun. The address bar follows the
// step (history.replaceState, the `step` parameter only, a few times a second at most), so a copied link opens
// this step. The server hears the step only when it needs it: when play stops, when stepping has paused for a
// moment, and in training mode when the top pairs of steps it has not sent yet are wanted (setStateValue).
import { mergeCard, noteCard } from "../web/cards.js";
import { escapeHtml, fmtInt, srTable, visible } from "../web/spans.js";
import { pairsAt, subscribe, windowFor } from "./channel.js";
import { bars, lineChart } from "./charts.js";
import { codePanel } from "./code.js";
import { countedIn, decode, encodeLengths, languageTokens, Replayer, servedAt, spansOf, variantNote, viewAt } from "./replay.js";
import { SpanView } from "./spansdom.js";

/** Play speeds, in steps per second. */
export const SPEEDS = { slow: 1, normal: 3, fast: 10, fastest: 30 };

/** Play's step at time `now` (ms) from step `k`, with `clock` ({from, t0}: the step and time play was timed from):
 *  at most one step a frame, so every step is painted; on time while frames keep up, and at the rate the machine
 *  paints when they do not (the clock then restarts from the step drawn, so a slow spell never ends in a burst). */
export function playStep(clock, k, now, rate) {
  const due = clock.from + Math.floor(((now - clock.t0) / 1000) * rate);
  if (due <= k) return { k, clock };
  const to = k + 1;
  return { k: to, clock: due > to ? { from: to, t0: now } : clock };
}
/** Long texts scroll inside a box this high (px) past this many spans (as the server drew them). */
export const SPANS_HEIGHT = 420;
export const SCROLL_AFTER = 600;
/** Tell the server the step this long after stepping stops (ms); the address bar at most this often while playing
 *  (browsers throttle history.replaceState, and each call costs a few milliseconds). */
export const REPORT_AFTER = 1000;
export const URL_EVERY = 250;
const URL_SETTLE = 120; // after a manual step: a held key writes the address once it rests
const SR_AFTER = 400;

export const KEYS = { ArrowRight: "next", ArrowLeft: "prev", Home: "first", End: "last", " ": "play" };
const FIELDS =
  'input, textarea, select, [contenteditable=""], [contenteditable="true"], [role="textbox"], [role="combobox"], ' +
  '[role="listbox"], [role="option"], [role="slider"], [role="spinbutton"], [role="menu"], [role="menuitem"]';
export const KEY_HELP = "Keys: → next step · ← previous · Home first · End last · space play / pause (when the cursor is not in a text box).";

/** The stepping action a key press asks for, or null: none with a modifier, or typed into a field, a menu or a slider. */
export function keyAction(event) {
  const which = KEYS[event.key];
  if (!which || event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.isComposing) return null;
  const target = event.target;
  if (target && target.closest && target.closest(FIELDS)) return null;
  return which;
}

/** The query string with its `step` parameter set to k, everything else exactly as it was (the server's order and encoding). */
export function withStep(search, k) {
  const q = search.startsWith("?") ? search.slice(1) : search;
  if (/(^|&)step=[^&]*/.test(q)) return "?" + q.replace(/(^|&)step=[^&]*/, `$1step=${k}`);
  return "?" + (q ? q + "&" : "") + `step=${k}`;
}

/** The component's data: JSON, as bytes (the server sends the trace pre-serialised), a string or an object. */
export function parseData(data) {
  if (data instanceof Uint8Array) return JSON.parse(new TextDecoder().decode(data));
  if (typeof data === "string") return JSON.parse(data);
  return data;
}

const TRACES = new Map(); // trace id -> { trace, replayer, lengths }: a remount or a new window does not decode again
const MEMORY = new Map(); // `${trace id}:${epoch}` -> { k, playing, reported }: the step survives a remount in this tab
const SETTINGS = { speed: "normal", code: null }; // code: the code panel open or closed, once the user chose
let activeKeys = null;

function prepared(payload) {
  let got = TRACES.get(payload.id);
  if (!got) {
    const trace = decode(payload);
    const lengths = trace.mode === "training" ? trace.lengthAt : encodeLengths(trace);
    got = { trace, replayer: new Replayer(trace), lengths };
    TRACES.set(payload.id, got);
    if (TRACES.size > 3) TRACES.delete(TRACES.keys().next().value);
  }
  return got;
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") node.textContent = v;
    else node.setAttribute(k, v);
  }
  node.append(...children);
  return node;
}

/** Write text only when it changes: a new text node is a new layout, even with the same words. */
function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

function plural(n, word) {
  return `${fmtInt(n)} ${word}${n === 1 ? "" : "s"}`;
}

export default function mount(component) {
  const { parentElement, setStateValue } = component;
  const msg = parseData(component.data);
  const payload = msg.trace;
  const { trace, replayer, lengths } = prepared(payload);
  const training = trace.mode === "training";
  const n = trace.n;
  const [epoch, openAt] = msg.goto;
  const memKey = `${trace.id}:${epoch}`;
  const mem = MEMORY.get(memKey) || { k: openAt, playing: false, reported: null };
  MEMORY.set(memKey, mem);
  if (MEMORY.size > 16) MEMORY.delete(MEMORY.keys().next().value);
  const showCuts = msg.chunks !== false;
  const tokenBytes = trace.tokenBytes;
  const label = (id) => visible(tokenBytes(id));
  // ids in use after k merges: 256 + k, or up to the last new id (a continued base's special tokens among them)
  const vocabAt = (k) => (k > 0 ? trace.merges.newId[k - 1] + 1 : 256);

  // ---- the DOM, built once per mount
  for (const old of parentElement.querySelectorAll(":scope > .bpe-stepper")) old.remove();
  const root = el("div", { class: "bpe-stepper", "data-trace": trace.id, "data-mode": trace.mode });
  const button = (act, text, keys, title) =>
    el("button", { type: "button", "data-act": act, "aria-keyshortcuts": keys, title, text });
  const first = button("first", "⏮ First", "Home", "First step (Home)");
  const prev = button("prev", "◀ Prev", "ArrowLeft", "Previous step (←)");
  const next = button("next", "Next ▶", "ArrowRight", "Next step (→)");
  const last = button("last", "Last ⏭", "End", "Last step (End)");
  const play = button("play", "▶ Play", "Space", "Play / pause (space)");
  play.classList.add("play");
  const speed = el("select", { "data-act": "speed", "aria-label": "Speed" });
  for (const [name, rate] of Object.entries(SPEEDS)) {
    speed.append(el("option", { value: name, text: `${name} (${rate} step${rate === 1 ? "" : "s"}/s)` }));
  }
  speed.value = SETTINGS.speed;
  const unit = training ? "Merges learned" : "Encode steps";
  const slider = el("input", { type: "range", min: "0", max: String(n), step: "1", "aria-label": `${unit} (0 to ${fmtInt(n)})` });
  const sliderLabel = el("span", { class: "lbl", text: `${unit} (0 to ${fmtInt(n)})`, "aria-hidden": "true" });
  const bar = el(
    "div",
    { class: "bpe-st-bar", role: "toolbar", "aria-label": "Step controls" },
    el("div", { class: "btns" }, first, prev, next, last, play, speed),
    el("label", { class: "slider" }, sliderLabel, slider),
  );
  const figs = el("div", { class: "bpe-st-figs" });
  const fig = (name, labelText, help = "") => {
    const v = el("span", { class: "v" });
    const d = el("span", { class: "d" });
    const box = el("div", { class: "bpe-st-fig", "data-fig": name }, el("span", { class: "l", text: labelText }), v, d);
    if (help) box.title = help;
    figs.append(box);
    return { v, d };
  };
  const fStep = fig("step", "Step");
  const fTokens = training ? fig("vocab", "Vocab size") : fig("tokens", "Tokens");
  const fThird = training
    ? fig("training-tokens", "Training text, tokens", `${fmtInt(trace.lengthAt[0])} bytes at step 0`)
    : fig("rank", "Merge rank", "Lower ranks were learned earlier and are applied first.");
  const fBpt = fig("bpt", "Bytes per token");
  const cards = el("div", { class: "bpe-st-cards", "aria-live": "off" });
  const variant = trace.variant;
  const vnote = el("p", { class: "bpe-st-variant", "data-variant": variant ? variant.kind : "" });
  if (!variant) vnote.hidden = true;
  const note = el("p", { class: "bpe-st-note" });
  const box = el("div", { class: "bpe-st-spans" });
  const sr = el("div", { class: "bpe-st-sr" });
  const below = el("div", { class: training ? "bpe-st-below two" : "bpe-st-below" });
  const keysHelp = el("p", { class: "bpe-st-keys", text: KEY_HELP });
  root.append(bar, figs, vnote, cards, note, box, sr, below, keysHelp);

  const charts = [];
  let pairsPanel = null;
  let langPanel = null;
  if (training) {
    pairsPanel = el("div", { class: "bpe-st-pairs" });
    const bpt = Float64Array.from(lengths, (v) => (v ? lengths[0] / v : 0));
    charts.push(lineChart({ title: "Training text length, merge by merge", values: lengths, xLabel: "merges" }));
    charts.push(lineChart({ title: "Bytes per token so far", values: bpt, format: (v) => v.toFixed(2), xLabel: "merges" }));
    const column = el("div", { class: "bpe-st-charts" });
    if (variant && variant.kind === "parity") {
      langPanel = el("div", { class: "bpe-st-langs" }); // the languages' lengths, the one served next in orange
      column.append(langPanel);
    }
    column.append(...charts.map((c) => c.el));
    below.append(pairsPanel, column);
  } else if (n > 0) {
    charts.push(lineChart({ title: "Tokens after each step", values: lengths, xLabel: "step" }));
    below.append(el("div", { class: "bpe-st-charts" }, ...charts.map((c) => c.el)));
  }
  let code = null;
  if (payload.code) {
    // open unless the user closed it; on a projector closed (the step itself comes first)
    const open = SETTINGS.code ?? !document.querySelector(".bpe-present");
    code = codePanel(payload.code, { tokenBytes, variant: !!variant, open, onToggle: (o) => (SETTINGS.code = o) });
    root.insertBefore(code.el, keysHelp);
  }
  parentElement.append(root);

  // ---- state and drawing
  let k = Math.max(0, Math.min(n, mem.k));
  let playing = false;
  let raf = 0;
  let clock = { from: 0, t0: 0 };
  let reportTimer = 0;
  let srTimer = 0;
  let urlTimer = 0;
  let urlAt = 0;
  let shownView = null;
  let cardsHtml = "";
  let scrolling = null;
  const spanView = new SpanView(box, { specialIds: trace.specialIds, data: trace.data, showCuts });
  let pairsAsked = training ? [k, performance.now()] : null; // [want, time] of the last request for top pairs (the
  // server sends the window from the step it opens at with the trace: no need to ask before it has had time to)

  let shownStage1 = false;
  function drawSpans(view) {
    // tokens across words: at the transition the chunks change (another pattern's), not only the tokens: draw anew
    if (!!view.stage1 !== shownStage1) spanView.root = null;
    shownStage1 = !!view.stage1;
    shownView = view;
    if (!view.tokens.ids.length) {
      box.innerHTML = `<div class="bpe-empty">${escapeHtml(training ? "No training text to show." : "Type a text above to encode it.")}</div>`;
      spanView.root = null;
    } else {
      spanView.show(view);
    }
    const scroll = view.tokens.ids.length > SCROLL_AFTER;
    if (scroll === scrolling) return; // nothing to write: an unchanged attribute still costs a style check
    scrolling = scroll;
    box.classList.toggle("bpe-scroll", scroll);
    if (scroll) {
      box.setAttribute("tabindex", "0");
      box.setAttribute("role", "region");
      box.setAttribute("aria-label", training ? "The training text, token by token" : "The text, token by token");
      box.style.maxHeight = `${SPANS_HEIGHT}px`;
    } else {
      for (const a of ["tabindex", "role", "aria-label"]) box.removeAttribute(a);
      box.style.maxHeight = "";
    }
  }

  function drawSr() {
    const spans = shownView ? spansOf(trace, shownView) : [];
    sr.innerHTML = spans.length ? srTable(spans, { caption: training ? "The training text" : "The text" }) : "";
  }

  function drawFigures(view) {
    setText(fStep.v, `${fmtInt(view.k)} of ${fmtInt(n)}`);
    const bytes = trace.data.length;
    if (training) {
      setText(fTokens.v, fmtInt(vocabAt(view.k)));
      setText(fThird.v, fmtInt(view.trainingTokens));
      setText(fThird.d, view.k ? `↓ ${fmtInt(view.trainingBytes - view.trainingTokens)}` : "");
      setText(fBpt.v, view.trainingTokens ? (view.trainingBytes / view.trainingTokens).toFixed(3) : "–");
    } else {
      setText(fTokens.v, fmtInt(view.count));
      setText(fTokens.d, view.k ? `↓ ${fmtInt(trace.initialCount - view.count)}` : "");
      setText(fThird.v, view.step ? fmtInt(view.step.rank) : "–");
      setText(fBpt.v, view.count ? (bytes / view.count).toFixed(2) : "–");
    }
  }

  function drawCards(view) {
    let html = "";
    let text;
    if (training) {
      if (view.next) {
        const where = view.nextInExcerpt ? `${fmtInt(view.nextInExcerpt)}× in the text below` : "not in the text below";
        html += mergeCard(tokenBytes, view.next.pair, view.next.newId, {
          label: `Step ${fmtInt(view.k + 1)} merges`,
          meta: `rank ${fmtInt(view.k)} · count ${fmtInt(view.next.count)} in ${countedIn(trace, view.k)} · ${where}`,
        });
      } else {
        html += noteCard(`Training ended here: ${fmtInt(n)} merges, a vocabulary of ${fmtInt(vocabAt(n))} tokens.`);
      }
      if (view.last) {
        html += mergeCard(tokenBytes, view.last.pair, view.last.newId, { label: `Step ${fmtInt(view.k)} minted`, meta: `rank ${fmtInt(view.k - 1)} · count ${fmtInt(view.last.count)}` });
      }
      const shown = trace.shownChars;
      const corpus = trace.corpusChars || shown;
      text =
        `The training text after ${fmtInt(view.k)} merges (${plural(view.count, "token")}` +
        (shown < corpus ? ` in the first ${fmtInt(shown)} of ${fmtInt(corpus)} characters` : "") +
        "). Outlined in orange: the pair the next step merges." +
        (view.cuts.size && showCuts ? " Dashed lines are regex chunk boundaries; merges never cross them." : "");
    } else {
      if (view.step) {
        const c = view.step.count;
        html += mergeCard(tokenBytes, view.step.pair, view.step.newId, {
          label: `Step ${fmtInt(view.k)} applies rank ${fmtInt(view.step.rank)}`,
          meta: `${fmtInt(c)} place${c !== 1 ? "s" : ""} at once`,
        });
      } else if (n) {
        html += noteCard("Step 0: every byte is a token. Each step applies the lowest-ranked merge that still fits somewhere.");
      } else if (!trace.data.length) {
        html += noteCard("Type a text above, then step through its encoding.");
      } else {
        html += noteCard("No merge applies to this text: it stays as bytes.");
      }
      const up = view.upcoming;
      text =
        (up ? `Next: rank ${fmtInt(up.rank)}, ${label(up.pair[0])} + ${label(up.pair[1])}, at ${plural(up.count, "place")}. ` : "") +
        "Outlined in orange: the tokens this step created." +
        (view.cuts.size && showCuts ? " Dashed lines: regex chunk boundaries." : "");
    }
    if (html !== cardsHtml) cards.innerHTML = cardsHtml = html;
    setText(note, text);
  }

  function drawPairs(view) {
    if (!pairsPanel) return;
    pairsPanel.replaceChildren();
    if (view.k >= n) {
      pairsPanel.append(el("p", { class: "bpe-st-muted", text: "No pair is merged after the last step." }));
      return;
    }
    const rows = pairsAt(windowFor(trace.id), view.k);
    const lang = servedAt(trace, view.k); // parity-aware: the pairs are counted in the language this step serves
    const heading = `Top pairs${lang === null ? "" : ` in the ${lang} text`} after ${plural(view.k, "merge")}`;
    const title = el("p", { class: "bpe-st-sub", text: heading });
    if (!rows) {
      pairsPanel.append(title, el("p", { class: "bpe-st-muted", text: "Counting the pairs at this step… (they come from the server when stepping pauses)" }));
      askPairs();
      return;
    }
    const labels = [];
    for (const r of rows) {
      let l = `${label(r.pair[0])} + ${label(r.pair[1])}`;
      while (labels.includes(l)) l += " "; // two pairs that look alike keep both bars
      labels.push(l);
    }
    // the pair the next merge takes: the top one, except before a continued training's own merges (the base's need not be)
    const at = view.next ? rows.findIndex((r) => r.pair[0] === view.next.pair[0] && r.pair[1] === view.next.pair[1]) : -1;
    const table = el("table", { class: "bpe-st-table" }, el("caption", { text: heading }));
    table.append(el("tr", {}, el("th", { scope: "col", text: "pair" }), el("th", { scope: "col", text: "count" }), el("th", { scope: "col", text: "merges into" })));
    rows.forEach((r, i) => {
      const joined = new Uint8Array([...tokenBytes(r.pair[0]), ...tokenBytes(r.pair[1])]);
      table.append(el("tr", i === at ? { class: "next" } : {}, el("td", { text: labels[i] }), el("td", { text: fmtInt(r.count) }), el("td", { text: visible(joined) })));
    });
    pairsPanel.append(title, bars(rows.map((r, i) => [labels[i], r.count]), { next: at }), table);
  }

  function drawVariant(view) {
    if (!variant) return;
    setText(vnote, variantNote(trace, view.k) || "");
    vnote.hidden = !vnote.textContent;
    if (!langPanel) return;
    const lang = servedAt(trace, view.k);
    const rows = languageTokens(trace, view.k);
    const heading = `Tokens per language after ${plural(view.k, "merge")}`;
    const summary = rows.map(([l, t]) => `${l} ${fmtInt(t)}`).join(", ");
    const chart = el("div", { role: "img", "aria-label": `${heading}: ${summary}` });
    chart.append(bars(rows, { next: rows.findIndex(([l]) => l === lang) }));
    langPanel.replaceChildren(
      el("p", { class: "bpe-st-sub", text: heading }),
      chart,
      el("p", { class: "bpe-st-muted", text: lang === null ? "No language is served next." : `In orange: ${lang}, the one the next merge serves.` }),
    );
  }

  function drawControls() {
    const atStart = k <= 0;
    const atEnd = k >= n;
    first.disabled = playing || atStart;
    prev.disabled = playing || atStart;
    next.disabled = playing || atEnd;
    last.disabled = playing || atEnd;
    slider.disabled = playing || n === 0;
    play.disabled = n === 0;
    setText(play, playing ? "⏸ Pause" : "▶ Play");
    play.classList.toggle("on", playing);
    slider.value = String(k);
    slider.setAttribute("aria-valuetext", `${fmtInt(k)} of ${fmtInt(n)}`);
    root.dataset.k = String(k);
    root.dataset.playing = playing ? "1" : "0";
  }

  function draw() {
    const view = viewAt(trace, replayer, k);
    drawSpans(view);
    drawFigures(view);
    drawCards(view);
    drawVariant(view);
    drawPairs(view);
    if (code) code.draw(view);
    for (const c of charts) c.setCursor(k);
    drawControls();
    clearTimeout(srTimer);
    if (!playing) srTimer = setTimeout(drawSr, SR_AFTER);
  }

  // ---- telling the address bar and the server
  function writeUrl() {
    urlTimer = 0;
    urlAt = performance.now();
    const search = withStep(window.location.search, k);
    if (search !== window.location.search) {
      window.history.replaceState(window.history.state, "", window.location.pathname + search + window.location.hash);
    }
  }

  function scheduleUrl() {
    if (urlTimer) return; // a write is due: it will take the step as it is then
    const wait = playing ? Math.max(16, URL_EVERY - (performance.now() - urlAt)) : URL_SETTLE;
    urlTimer = setTimeout(writeUrl, wait);
  }

  function report(want = null) {
    clearTimeout(reportTimer);
    reportTimer = 0;
    const value = { k, id: trace.id, epoch, want };
    const key = JSON.stringify(value);
    if (key === mem.reported) return;
    mem.reported = key;
    setStateValue("step", value);
  }

  function scheduleReport() {
    clearTimeout(reportTimer);
    reportTimer = setTimeout(() => report(), REPORT_AFTER);
  }

  function askPairs() {
    const now = performance.now();
    if (pairsAsked && now - pairsAsked[1] < 2000) return; // one request at a time (or a lost one retried)
    const lead = playing ? Math.ceil(SPEEDS[SETTINGS.speed] * 0.3) : 0;
    const want = Math.min(n - 1, k + lead);
    pairsAsked = [want, now];
    if (playing) report(want);
    else {
      clearTimeout(reportTimer);
      reportTimer = setTimeout(() => report(want), 150); // a held key or a dragged slider asks once, where it stops
    }
  }

  function go(to, { user = true } = {}) {
    to = Math.max(0, Math.min(n, to));
    if (to === k) return;
    k = to;
    mem.k = k;
    if (user && !playing) scheduleReport(); // first: drawing may ask for top pairs, which reports the step too
    draw();
    scheduleUrl();
  }

  // ---- play: requestAnimationFrame, one step a frame at most (playStep), so a slow machine plays slower, never skips
  function frame(now) {
    if (!playing) return;
    const next = playStep(clock, k, now, SPEEDS[SETTINGS.speed]);
    clock = next.clock;
    if (next.k >= n) {
      go(n, { user: false });
      stop();
      return;
    }
    if (next.k !== k) go(next.k, { user: false });
    raf = requestAnimationFrame(frame);
  }

  function start() {
    if (n === 0 || playing) return;
    if (k >= n) go(0, { user: false }); // play from the start again
    playing = true;
    mem.playing = true;
    clock = { from: k, t0: performance.now() };
    drawControls();
    raf = requestAnimationFrame(frame);
  }

  function stop() {
    if (!playing) return;
    playing = false;
    mem.playing = false;
    cancelAnimationFrame(raf);
    drawControls();
    clearTimeout(urlTimer);
    writeUrl();
    srTimer = setTimeout(drawSr, SR_AFTER);
    report();
  }

  const act = {
    first: () => go(0),
    prev: () => go(k - 1),
    next: () => go(k + 1),
    last: () => go(n),
    play: () => (playing ? stop() : start()),
  };

  bar.addEventListener("click", (event) => {
    const b = event.target.closest("button[data-act]");
    if (b && !b.disabled) act[b.dataset.act]();
  });
  slider.addEventListener("input", () => go(Number(slider.value)));
  speed.addEventListener("change", () => {
    SETTINGS.speed = speed.value;
    if (playing) clock = { from: k, t0: performance.now() };
  });

  function onKey(event) {
    const which = keyAction(event);
    if (!which || !root.isConnected) return;
    event.preventDefault(); // no page scroll, and space does not also press a focused button
    event.stopPropagation();
    const target = { first, prev, next, last, play }[which];
    if (!target.disabled) act[which]();
  }
  if (activeKeys) document.removeEventListener("keydown", activeKeys, true);
  activeKeys = onKey;
  document.addEventListener("keydown", onKey, true);

  const unsubscribe = subscribe((id) => {
    if (id !== trace.id) return;
    pairsAsked = null;
    drawPairs(viewAt(trace, replayer, k));
  });

  draw();
  if (mem.playing) {
    mem.playing = false;
    start();
  }

  return () => {
    playing = false;
    cancelAnimationFrame(raf);
    for (const t of [reportTimer, srTimer, urlTimer]) clearTimeout(t);
    unsubscribe();
    document.removeEventListener("keydown", onKey, true);
    if (activeKeys === onKey) activeKeys = null;
  };
}
