// Step through's merge cards (left + right → new) and notes, drawn in the page by the stepper (tests/web/spans.test.mjs).
import { colorsFor, escapeHtml, hexBytes, tokenHtml } from "./spans.js";

function chip(id, bytes, color, isNew = false) {
  const cls = isNew ? "chip new" : "chip";
  return `<span class="${cls}" style="background:${color}" title="id ${id}">${tokenHtml(bytes, { showWhitespace: true })}</span>`;
}

/** "label: [left] + [right] → [new]  id · bytes · meta" as escaped HTML. tokenBytes(id) gives a token's bytes. */
export function mergeCard(tokenBytes, [a, b], newId, { label, meta = "" }) {
  const [ca, cb, cn] = colorsFor([a, b, newId]);
  const data = tokenBytes(newId);
  return (
    '<div class="bpe-card">' +
    `<span class="lbl">${escapeHtml(label)}</span>` +
    chip(a, tokenBytes(a), ca) +
    '<span class="op">+</span>' +
    chip(b, tokenBytes(b), cb) +
    '<span class="op">→</span>' +
    chip(newId, data, cn, true) +
    `<span class="meta">id ${newId} · ${data.length} byte${data.length !== 1 ? "s" : ""} ${escapeHtml(hexBytes(data))}` +
    (meta ? ` · ${escapeHtml(meta)}` : "") +
    "</span></div>"
  );
}

/** A card with one line of text in it. */
export function noteCard(text) {
  return `<div class="bpe-card"><span class="meta">${escapeHtml(text)}</span></div>`;
}
