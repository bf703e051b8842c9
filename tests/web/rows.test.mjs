// node --test: Compare's clickable rows (ui/compare/rows.js) over a small stand-in for the page's DOM: which token a
// click lands on, the outline and the panel under the right row, the panel's frame (user text never becomes HTML in
// it), and what the page reports. The component in a real page is tested in Chromium (tests/browser/test_compare.py).
import assert from "node:assert/strict";
import { test } from "node:test";

import mount, { clear, frame, pickAt, place, samePick, spanOf } from "../../ui/compare/rows.js";
import { rowsHtml } from "../../ui/web/draw.js";
import { panelHtml } from "../../ui/web/trees.js";

// a panel record as the server sends it (ui/render/records.py panel): "ab" merged from "a" and "b"
const leaf = (id, ch) => ({ id, data: btoa(ch), rank: null, kids: [] });
const PANEL = { tree: { id: 11, data: btoa("ab"), rank: 0, kids: [leaf(97, "a"), leaf(98, "<")] }, where: "<x>", special: false, line: "", order: [[0, 97, 98, 11]] };
const ROWS = [{ label: "A", tokens: { ids: [10, 11], lens: [1, 1], data: btoa("ab"), special: [], start: 0, total: 2 }, dim: [], cuts: [] }];

// ---- a stand-in DOM: elements with classes, attributes, children; closest/querySelectorAll on the selectors rows.js uses
class El {
  constructor(tag, cls = "", attrs = {}) {
    this.tagName = tag.toUpperCase();
    this.className = cls;
    this.attrs = { ...attrs };
    this.children = [];
    this.parent = null;
    this.listeners = {};
    this.textContent = "";
    this.innerHTML = "";
    this.isConnected = true;
    this.ownerDocument = DOC;
    this.classList = {
      add: (c) => { if (!this.classes().includes(c)) this.className = (this.className + " " + c).trim(); },
      remove: (c) => { this.className = this.classes().filter((x) => x !== c).join(" "); },
    };
  }
  classes() { return this.className.split(/\s+/).filter(Boolean); }
  setAttribute(k, v) { this.attrs[k] = String(v); }
  getAttribute(k) { return k in this.attrs ? this.attrs[k] : null; }
  append(...nodes) { for (const n of nodes) { n.parent = this; this.children.push(n); } }
  after(node) { const sib = this.parent.children; node.parent = this.parent; sib.splice(sib.indexOf(this) + 1, 0, node); }
  remove() { const sib = this.parent.children; sib.splice(sib.indexOf(this), 1); this.parent = null; }
  contains(node) { for (let n = node; n; n = n.parent) if (n === this) return true; return false; }
  addEventListener(type, fn) { (this.listeners[type] ||= []).push(fn); }
  removeEventListener(type, fn) { this.listeners[type] = (this.listeners[type] || []).filter((f) => f !== fn); }
  matches(sel) { return sel.split(",").some((one) => simple(this, one.trim())); }
  closest(sel) { for (let n = this; n; n = n.parent) if (n.matches && n.matches(sel)) return n; return null; }
  descendants() { return this.children.flatMap((c) => [c, ...c.descendants()]); }
  querySelector(sel) { return this.querySelectorAll(sel)[0] || null; }
  querySelectorAll(sel) {
    const scoped = sel.startsWith(":scope > ");
    const pool = scoped ? this.children : this.descendants();
    return pool.filter((n) => n.matches(scoped ? sel.slice(9) : sel));
  }
}
// ".a .b.c" (descendant of .a with classes b and c) or ".a"
function simple(el, sel) {
  const parts = sel.split(/\s+/);
  const own = parts.pop().split(".").filter(Boolean);
  if (!own.every((c) => el.classes().includes(c))) return false;
  if (!parts.length) return true;
  for (let n = el.parent; n; n = n.parent) if (n.matches && simple(n, parts.join(" "))) return true;
  return false;
}
const DOC = { createElement: (tag) => new El(tag) };

/** Rows as draw.js rowsHtml draws them: .bpe-row > .bpe-row-head, .bpe-spans > .t[data-id] (and a cut), the sr table. */
function rows(ids) {
  const root = new El("div", "bpe-pickable");
  for (const rowIds of ids) {
    const row = new El("div", "bpe-row");
    const spans = new El("div", "bpe-spans");
    rowIds.forEach((id, i) => {
      if (i === 1) spans.append(new El("span", "cut"));
      spans.append(new El("span", "t", { "data-id": String(id) }));
    });
    row.append(new El("div", "bpe-row-head"), spans, new El("div", "bpe-sr"));
    root.append(row);
  }
  return root;
}
const tokenAt = (root, r, i) => root.querySelectorAll(".bpe-row")[r].querySelectorAll(".bpe-spans .t")[i];

test("a click names the token's row, its place in the row (cuts are not tokens) and its id", () => {
  const root = rows([[10, 11, 12], [20, 21]]);
  assert.deepEqual(pickAt(root, tokenAt(root, 0, 2)), { row: 0, index: 2, id: 12 });
  assert.deepEqual(pickAt(root, tokenAt(root, 1, 1)), { row: 1, index: 1, id: 21 });
  assert.equal(pickAt(root, root.querySelectorAll(".cut")[0]), null);
  assert.equal(pickAt(root, root.querySelectorAll(".bpe-row-head")[0]), null);
  assert.equal(pickAt(root, null), null);
  assert.equal(pickAt(root, rows([[1]]).querySelectorAll(".t")[0]), null); // another component's token
});

test("the outline and the panel go to the picked token's row, one at a time", () => {
  const root = rows([[10, 11, 12], [20, 21]]);
  const panel = new El("div", "bpe-built-slot");
  assert.equal(place(root, { row: 1, index: 0, id: 20 }, panel), true);
  assert.deepEqual(root.querySelectorAll(".picked").map((n) => n.getAttribute("data-id")), ["20"]);
  const row1 = root.querySelectorAll(".bpe-row")[1];
  assert.deepEqual(row1.children.map((n) => n.className), ["bpe-row-head", "bpe-spans", "bpe-built-slot", "bpe-sr"]);
  place(root, { row: 0, index: 1, id: 11 }, new El("div", "bpe-built-slot"));
  assert.equal(root.querySelectorAll(".bpe-built-slot").length, 1);
  assert.deepEqual(root.querySelectorAll(".picked").map((n) => n.getAttribute("data-id")), ["11"]);
  // a pick the rows no longer hold (another id there, no such row): nothing shown
  assert.equal(place(root, { row: 0, index: 1, id: 99 }, new El("div", "bpe-built-slot")), false);
  assert.equal(root.querySelectorAll(".bpe-built-slot").length + root.querySelectorAll(".picked").length, 0);
  assert.equal(spanOf(root, { row: 5, index: 0, id: 10 }), null);
  place(root, { row: 0, index: 0, id: 10 }, new El("div", "bpe-built-slot"));
  clear(root);
  assert.equal(root.querySelectorAll(".bpe-built-slot").length + root.querySelectorAll(".picked").length, 0);
});

test("samePick: the same token at the same place", () => {
  assert.equal(samePick({ row: 0, index: 1, id: 5 }, { row: 0, index: 1, id: 5 }), true);
  assert.equal(samePick({ row: 0, index: 1, id: 5 }, { row: 1, index: 1, id: 5 }), false);
  assert.equal(samePick({ row: 0, index: 1, id: 5 }, null), false);
});

test("the frame: the server's panel record drawn, or a note as text (never HTML), and a close button", () => {
  let closed = 0;
  const withHtml = frame(DOC, { panel: PANEL }, () => closed++);
  assert.equal(withHtml.innerHTML, panelHtml(PANEL));
  assert.ok(withHtml.innerHTML.includes("under &lt;x&gt;") && withHtml.innerHTML.includes("&lt;"));
  assert.equal(withHtml.getAttribute("role"), "region");
  const note = frame(DOC, { note: "<img src=x onerror=alert(1)>" }, () => closed++);
  const [wait] = note.children;
  assert.equal(wait.textContent, "<img src=x onerror=alert(1)>");
  assert.equal(wait.innerHTML, "");
  const close = note.querySelectorAll(".bpe-built-close")[0];
  assert.equal(close.getAttribute("aria-label"), "Close the merge tree");
  close.listeners.click[0]({ stopPropagation() {} });
  assert.equal(closed, 1);
});

test("mount: the rows once per signature, a click reports the pick with the tokens' signature, a second click closes", () => {
  const parent = new El("div");
  const reports = [];
  const component = (data) => ({ parentElement: parent, data, setStateValue: (k, v) => reports.push([k, v]) });
  const msg = { sig: "h1", tokens: "t1", rows: ROWS, options: { showWhitespace: false }, tree: null };
  let cleanup = mount(component(msg));
  const root = parent.querySelectorAll(".bpe-pickable")[0];
  assert.equal(root.innerHTML, rowsHtml(ROWS));
  // stand in for the browser parsing the rows' HTML
  root.append(...rows([[10, 11]]).children);
  root.listeners.click[0]({ target: tokenAt(root, 0, 1) });
  assert.deepEqual(reports.pop(), ["picked", { row: 0, index: 1, id: 11, sig: "t1" }]);
  assert.equal(root.querySelectorAll(".bpe-built-slot")[0].children[0].textContent, "Building its merge tree…");
  // the server answers: same rows (kept as they are), the panel under the token
  cleanup();
  cleanup = mount(component({ ...msg, tree: { row: 0, index: 1, id: 11, panel: PANEL } }));
  assert.equal(parent.querySelectorAll(".bpe-pickable").length, 1);
  assert.equal(root.querySelectorAll(".bpe-built-slot")[0].innerHTML, panelHtml(PANEL));
  root.listeners.click[0]({ target: tokenAt(root, 0, 1) });
  assert.deepEqual(reports.pop(), ["picked", null]);
  assert.equal(root.querySelectorAll(".bpe-built-slot").length, 0);
  cleanup();
  assert.equal(root.listeners.click.length, 0);
  // new rows replace the old ones
  const other = [{ ...ROWS[0], label: "<B>" }];
  mount(component({ ...msg, sig: "h2", rows: other }));
  assert.equal(root.innerHTML, rowsHtml(other));
  assert.ok(root.innerHTML.includes("<b>&lt;B&gt;</b>"));
});
