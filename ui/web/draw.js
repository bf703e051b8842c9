// What the server sends to be drawn (ui/render/records.py) turned into HTML: the one renderer of token spans, rows
// of them, pre-tokenization chunks, pieces, Step through's word ladder and merge trees, on every page. The server
// sends records (ids, bytes, labels), never HTML, and every piece of user text is escaped here (spans.js escapeHtml).
import { colorsFor, escapeHtml, fmtInt, renderSpans, scrollBox, tokenHtml, visible } from "./spans.js";
import { panelHtml, treeHtml } from "./trees.js";

/** A record's bytes: base64 of every token's bytes one after another, cut by their lengths. */
export function fromBase64(text) {
  const raw = atob(text || "");
  const out = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}

/** The spans of a tokens record: {ids, lens, data (base64), special (positions), start (first index), total}. */
export function spansOf(rec) {
  const data = fromBase64(rec.data);
  const special = new Set(rec.special || []);
  const start = rec.start || 0;
  const out = new Array(rec.ids.length);
  let at = 0;
  for (let k = 0; k < rec.ids.length; k++) {
    const end = at + rec.lens[k];
    out[k] = { index: start + k, id: rec.ids[k], bytes: data.subarray(at, end), special: special.has(k) };
    at = end;
  }
  return out;
}

function plural(n, word) {
  return `${fmtInt(n)} ${word}${n === 1 ? "" : "s"}`;
}

/** Spans as renderSpans draws them, from a record: the server sent at most `limit`, and says how many there are. */
export function spansHtml(rec, { showWhitespace = false, highlight = [], dim = [], cuts = [], limit = null, empty, tooltips = true, caption = "Tokens" } = {}) {
  const spans = spansOf(rec);
  const total = rec.total ?? spans.length;
  let html = renderSpans(spans, {
    showWhitespace,
    highlight: new Set(highlight),
    dim: new Set(dim),
    cuts: new Set(cuts),
    tooltips,
    caption,
    ...(empty === undefined ? {} : { empty }),
  });
  if (limit != null && total > spans.length) {
    html += `<div class="bpe-more">Showing the first ${fmtInt(spans.length)} of ${fmtInt(total)} tokens.</div>`;
  }
  return html;
}

/** Several tokenizations of one text stacked, each under its label and token count. */
export function rowsHtml(rows, { showWhitespace = false, limit = null } = {}) {
  return rows
    .map(
      (r) =>
        '<div class="bpe-row">' +
        `<div class="bpe-row-head"><b>${escapeHtml(r.label)}</b><span class="n">${fmtInt(r.tokens.total ?? r.tokens.ids.length)} tokens</span></div>` +
        spansHtml(r.tokens, { showWhitespace, dim: r.dim, cuts: r.cuts, limit, caption: r.label }) +
        "</div>",
    )
    .join("");
}

/** Pre-tokenization chunks, one row per split pattern: coloured by position, hover text and table about chunks. */
export function chunksHtml(rows, { showWhitespace = true, limit = null } = {}) {
  const parts = [];
  for (const r of rows) {
    const shown = spansOf(r.tokens);
    const total = r.tokens.total ?? shown.length;
    const dim = new Set(r.dim || []);
    const cuts = new Set(r.cuts || []);
    parts.push('<div class="bpe-row">');
    parts.push(`<div class="bpe-row-head"><b>${escapeHtml(r.label)}</b><span class="n">${plural(total, "chunk")}</span></div>`);
    if (!shown.length) {
      parts.push('<div class="bpe-empty">No chunks: the text is empty.</div></div>');
      continue;
    }
    parts.push('<div class="bpe-spans" aria-hidden="true">');
    const colours = colorsFor(shown.map((_, k) => k));
    shown.forEach((s, k) => {
      if (s.index && cuts.has(s.index)) parts.push('<span class="cut"></span>');
      const tip = escapeHtml(`chunk ${s.index + 1} · ${plural(s.bytes.length, "byte")}\ntext: ${visible(s.bytes)}`);
      parts.push(
        `<span class="${dim.has(s.index) ? "t dim" : "t"}" style="background:${colours[k]}" title="${tip}">${tokenHtml(s.bytes, { showWhitespace })}</span>`,
      );
    });
    parts.push("</div>");
    const body = shown
      .map((s) => `<tr><td>${s.index + 1}</td><td>${escapeHtml(visible(s.bytes))}</td><td>${hexList(s.bytes)}</td></tr>`)
      .join("");
    parts.push(
      `<div class="bpe-sr"><table><caption>${escapeHtml(r.label)}: ${plural(total, "chunk")}</caption>` +
        '<tr><th scope="col">chunk</th><th scope="col">text</th><th scope="col">bytes</th></tr>' +
        `${body}</table></div>`,
    );
    if (limit != null && total > shown.length) parts.push(`<div class="bpe-more">Showing the first ${fmtInt(shown.length)} of ${fmtInt(total)} chunks.</div>`);
    parts.push("</div>");
  }
  return parts.join("");
}

function hexList(bytes) {
  return Array.from(bytes, (b) => b.toString(16).toUpperCase().padStart(2, "0")).join(" ");
}

/** A text's tokens in pieces of N (Tokenize's "Cut into pieces"): bands alternating in colour, each under a head. */
export function piecesHtml(rows, { showWhitespace = false, tooltips = true, left = 0 } = {}) {
  const parts = rows.map((row, k) => {
    let head = `<b>${escapeHtml(row.label)}</b>`;
    if (row.detail) head += `<span class="n">${escapeHtml(row.detail)}</span>`;
    if (row.broken) head += `<span class="split">✂ the cut before it falls inside ${escapeHtml(row.broken)}</span>`;
    return (
      `<div class="bpe-piece${k % 2 ? " alt" : ""}"><div class="bpe-piece-head">${head}</div>` +
      spansHtml(row.tokens, { showWhitespace, tooltips, caption: row.label, limit: 0 }) +
      "</div>"
    );
  });
  if (left) parts.push(`<div class="bpe-more">${plural(left, "more piece")}: see the table.</div>`);
  return parts.join("");
}

/** Step through's word ladder: one row per rung (what happened, the spans after it, the positions that are new). */
export function ladderHtml(rungs) {
  const rows = rungs.map(({ what, tokens, fresh = [] }) => {
    const spans = spansOf(tokens);
    const isNew = new Set(fresh);
    const colours = colorsFor(spans.map((s) => s.id));
    const cells = spans
      .map(
        (s, k) =>
          `<span class="t${isNew.has(s.index) ? " hl" : ""}" style="background:${colours[k]}" title="id ${s.id}">${tokenHtml(s.bytes, { showWhitespace: true })}</span>`,
      )
      .join("");
    return `<tr><td class="m">${escapeHtml(what)}</td><td>${cells}</td><td class="m">${spans.length} tokens</td></tr>`;
  });
  // a long word's rows are wider than a phone: they scroll sideways in their own box, not the page
  return (
    '<div class="bpe-sideways" tabindex="0" role="region" aria-label="The word, merge by merge">' +
    '<table class="bpe-ladder">' +
    rows.join("") +
    "</table></div>"
  );
}

const DRAW = {
  spans: (m) => spansHtml(m.tokens, m.options),
  rows: (m) => rowsHtml(m.rows, m.options),
  chunks: (m) => chunksHtml(m.rows, m.options),
  pieces: (m) => piecesHtml(m.rows, m.options),
  ladder: (m) => ladderHtml(m.rungs),
  tree: (m) => treeHtml(m.tree),
  panel: (m) => panelHtml(m.panel),
};

/** The HTML for one message from the server ({kind, ..., scroll?: {height, label}}). */
export function draw(msg) {
  const make = DRAW[msg && msg.kind];
  if (!make) return "";
  const html = make(msg);
  return msg.scroll ? scrollBox(html, msg.scroll) : html;
}

export default function mount(component) {
  const { parentElement } = component;
  let root = parentElement.querySelector(":scope > .bpe-drawn");
  if (!root) {
    root = parentElement.ownerDocument.createElement("div");
    root.className = "bpe-drawn";
    parentElement.append(root);
  }
  root.innerHTML = draw(component.data);
}
