// A token's merge tree as nested HTML (the token on top, the two it was merged from below, down to bytes), and the
// panel that says how a token was built (Compare, under a clicked token). The server sends the tree as a record
// (ui/render/records.py tree): {id, data (base64 bytes), rank (its merge's rank, or null), kids: [left, right]}.
// The connecting lines are CSS on nested lists (ui/render/style.css); every label is escaped (spans.js).
import { PALETTE, colorIndex, escapeHtml, fmtInt, hexBytes, tokenHtml, visible } from "./spans.js";

//: Trees with more nodes than this are cut below the depth that fits (a note says so).
export const MAX_NODES = 511;
//: A tree drawn wider than this (px, estimated) may not fit its panel: it says it scrolls sideways.
export const WIDE_PX = 760;

function bytesOf(node) {
  if (!node._bytes) {
    const raw = atob(node.data || "");
    node._bytes = Uint8Array.from(raw, (c) => c.charCodeAt(0));
  }
  return node._bytes;
}

export function countNodes(tree) {
  return 1 + (tree.kids || []).reduce((n, c) => n + countNodes(c), 0);
}

export function depthOf(tree) {
  return 1 + Math.max(0, ...(tree.kids || []).map(depthOf));
}

/** About how wide the tree is drawn (px): each box as wide as its label, a node as wide as its children. */
export function drawnWidth(tree) {
  const own = Math.max([...visible(bytesOf(tree))].length * 10, 52) + 18;
  const kids = tree.kids || [];
  return kids.length ? Math.max(own, kids.reduce((w, c) => w + drawnWidth(c), 0)) : own;
}

function node(tree, root, depthLeft) {
  const data = bytesOf(tree);
  const kids = tree.kids || [];
  const cls = "node" + (root ? " root" : "") + (kids.length ? "" : " leaf");
  let meta;
  if (kids.length) meta = tree.rank != null ? `id ${tree.id} · rank ${fmtInt(tree.rank)}` : `id ${tree.id}`;
  else meta = `byte ${escapeHtml(hexBytes(data).slice(1, -1))}`; // the id is in the hover text
  const title = escapeHtml(`id ${tree.id}, ${data.length} bytes`);
  const label =
    `<div class="${cls}" style="background:${PALETTE[colorIndex(tree.id)]}" title="${title}">` +
    `<span class="tok">${tokenHtml(data, { showWhitespace: true })}</span><span class="meta">${meta}</span></div>`;
  if (!kids.length) return `<li>${label}</li>`;
  if (depthLeft <= 0) return `<li>${label}<div class="bpe-tree-note">…</div></li>`;
  return `<li>${label}<ul>${kids.map((c) => node(c, false, depthLeft - 1)).join("")}</ul></li>`;
}

/** The merge tree as HTML; a tree of more than maxNodes nodes shows its top levels only. */
export function treeHtml(tree, { maxNodes = MAX_NODES } = {}) {
  let depth = depthOf(tree);
  let note = "";
  if (countNodes(tree) > maxNodes) {
    const full = depth;
    depth = Math.max(1, Math.floor(Math.log2(maxNodes + 1))); // a full binary tree of depth d has 2^d - 1 nodes
    note = `<div class="bpe-tree-note">The tree is ${full} levels deep; showing the top ${depth}.</div>`;
  }
  let head = "";
  let attrs = "";
  if (drawnWidth(tree) > WIDE_PX) {
    // a scrollbar that only shows on hover is no hint: say it, and let the keyboard scroll it
    head = '<div class="bpe-tree-note bpe-tree-wide">A wide tree: scroll it sideways to see all of it.</div>';
    attrs = ` tabindex="0" role="group" aria-label="Merge tree of id ${tree.id}, scrolls sideways"`;
  }
  return `${head}<div class="bpe-tree"${attrs}><ul>${node(tree, true, depth - 1)}</ul></div>` + note;
}

function labels(tree, out = new Map()) {
  out.set(tree.id, bytesOf(tree));
  for (const c of tree.kids || []) labels(c, out);
  return out;
}

function chip(id, data) {
  return `<span class="chip" style="background:${PALETTE[colorIndex(id)]}" title="id ${id}">${tokenHtml(data, { showWhitespace: true })}</span>`;
}

/** How one token was built: a heading, a line that says what the tree shows (or why there is none), the tree, and
 *  the merges in the order they were learned. panel: {tree, where, special, line (the rank's sentence), order}. */
export function panelHtml({ tree, where = "", special = false, line = "", order = [] }) {
  const data = bytesOf(tree);
  const n = data.length;
  const kids = tree.kids || [];
  const under = where ? ` under ${escapeHtml(where)}` : "";
  const size = `id ${tree.id} · ${fmtInt(n)} byte${n !== 1 ? "s" : ""}`;
  const head = `<div class="bpe-built-head"><b>How <span class="tok">${tokenHtml(data, { showWhitespace: true })}</span> was built${under}</b><span class="meta">${size}</span></div>`;
  let text;
  if (special) text = "A special token: the tokenizer adds it whole and never builds it from merges, so it has no tree.";
  else if (!kids.length && n === 1) text = "A single byte: every token is built up from bytes like this one, so there is nothing below it.";
  else if (!kids.length) text = "A whole token of the vocabulary: it is not built by any merge, so it has no tree of merges.";
  else {
    const merges = `${order.length} merge${order.length !== 1 ? "s" : ""}`;
    text =
      `Its merge tree, down to its ${fmtInt(n)} bytes: ${merges}, each box a token with its id and its merge's rank. ` +
      "Read it from the bottom up: the tokenizer applied the lower merges first. " +
      escapeHtml(line);
  }
  // a wide tree scrolls sideways in a box the keyboard can focus and scroll (axe: scrollable-region-focusable)
  const box = `<div class="bpe-built-tree" tabindex="0" role="group" aria-label="Merge tree of id ${tree.id}">${treeHtml(tree)}</div>`;
  const out = [`<div class="bpe-built">${head}<div class="bpe-built-line">${text}</div>`, box];
  if (kids.length) {
    const by = labels(tree);
    const steps = order
      .map(
        ([rank, a, b, made]) =>
          `<li class="step"><span class="rank">rank ${fmtInt(rank)}</span>${chip(a, by.get(a))}<span class="op">+</span>` +
          `${chip(b, by.get(b))}<span class="op">→</span>${chip(made, by.get(made))}</li>`,
      )
      .join("");
    out.push(`<details class="bpe-built-order"><summary>The merges in the order they were learned</summary><ol>${steps}</ol></details>`);
  }
  out.push("</div>");
  return out.join("");
}
