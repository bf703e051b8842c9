// Compare's rows of spans in the page (mounted by ui/compare/rows.py with Streamlit's public st.components.v2.component).
//
// The rows are the server's records, drawn by ../web/draw.js (every piece of user text escaped there). A click on
// a token outlines it at once and tells the server which token it was (setStateValue "picked": row, position, id and
// the signature of the tokens); the server answers with how that token was built (a panel record, ../web/trees.js), which this
// puts right under that token's row. Clicking the token again, or the panel's × button, closes it.
import { rowsHtml } from "../web/draw.js";
import { panelHtml } from "../web/trees.js";

/** The token span a click landed on, as {row, index, id}: its row among root's rows and its place in that row. */
export function pickAt(root, target) {
  const span = target && typeof target.closest === "function" ? target.closest(".bpe-spans .t") : null;
  if (!span || !root.contains(span)) return null;
  const rowEl = span.closest(".bpe-row");
  const row = Array.prototype.indexOf.call(root.querySelectorAll(".bpe-row"), rowEl);
  if (row < 0) return null;
  const index = Array.prototype.indexOf.call(rowEl.querySelectorAll(".bpe-spans .t"), span);
  const id = Number(span.getAttribute("data-id"));
  if (index < 0 || !Number.isInteger(id)) return null;
  return { row, index, id };
}

/** The same token at the same place. */
export function samePick(a, b) {
  return Boolean(a && b) && a.row === b.row && a.index === b.index && a.id === b.id;
}

/** The span element of a pick, if the rows still hold that token there. */
export function spanOf(root, pick) {
  const rowEl = root.querySelectorAll(".bpe-row")[pick.row];
  const span = rowEl ? rowEl.querySelectorAll(".bpe-spans .t")[pick.index] : undefined;
  return span && Number(span.getAttribute("data-id")) === pick.id ? span : null;
}

/** Take away the outline and the panel. */
export function clear(root) {
  for (const old of root.querySelectorAll(".bpe-built-slot")) old.remove();
  for (const old of root.querySelectorAll(".bpe-spans .t.picked")) old.classList.remove("picked");
}

/** Outline the picked token and put `panel` (a node) under its row's spans. False when the rows lack that token. */
export function place(root, pick, panel) {
  clear(root);
  const span = pick ? spanOf(root, pick) : null;
  if (!span) return false;
  span.classList.add("picked");
  const spans = span.closest(".bpe-spans");
  spans.after(panel);
  return true;
}

/** The panel's frame: a labelled region with a close button, holding how the token was built (a panel record) or a
 *  note. */
export function frame(doc, { panel = null, note = "" }, onClose) {
  const slot = doc.createElement("div");
  slot.className = "bpe-built-slot";
  slot.setAttribute("role", "region");
  slot.setAttribute("aria-label", "How the token was built");
  if (panel) {
    slot.innerHTML = panelHtml(panel);
  } else {
    const wait = doc.createElement("div");
    wait.className = "bpe-built";
    wait.textContent = note;
    slot.append(wait);
  }
  const close = doc.createElement("button");
  close.type = "button";
  close.className = "bpe-built-close";
  close.title = "Close";
  close.setAttribute("aria-label", "Close the merge tree");
  close.textContent = "×";
  close.addEventListener("click", (event) => {
    event.stopPropagation();
    onClose();
  });
  (slot.querySelector(".bpe-built") || slot).append(close);
  return slot;
}

const ROOTS = new WeakMap(); // parentElement -> { root, sig }: the rows survive a new message with the same rows

export default function mount(component) {
  const { parentElement, setStateValue } = component;
  const msg = component.data || {};
  let held = ROOTS.get(parentElement);
  if (!held || !held.root.isConnected) {
    for (const old of parentElement.querySelectorAll(":scope > .bpe-pickable")) old.remove();
    const root = parentElement.ownerDocument.createElement("div");
    root.className = "bpe-pickable";
    parentElement.append(root);
    held = { root, sig: null };
    ROOTS.set(parentElement, held);
  }
  const { root } = held;
  if (held.sig !== msg.sig) {
    root.innerHTML = rowsHtml(msg.rows || [], msg.options || {});
    held.sig = msg.sig;
  }
  const doc = root.ownerDocument;
  let shown = msg.tree ? { row: msg.tree.row, index: msg.tree.index, id: msg.tree.id } : null;
  const report = (pick) => setStateValue("picked", pick ? { ...pick, sig: msg.tokens } : null);
  const close = () => {
    clear(root);
    shown = null;
    report(null);
  };
  if (shown && !place(root, shown, frame(doc, msg.tree, close))) shown = null;
  if (!shown) clear(root);

  const onClick = (event) => {
    if (event.target.closest && event.target.closest(".bpe-built-slot")) return; // inside the panel: its own
    const pick = pickAt(root, event.target);
    if (!pick) return;
    if (samePick(pick, shown)) {
      close();
      return;
    }
    shown = pick;
    place(root, pick, frame(doc, { note: "Building its merge tree…" }, close)); // at once; the server's panel follows
    report(pick);
  };
  root.addEventListener("click", onClick);
  return () => root.removeEventListener("click", onClick);
}
