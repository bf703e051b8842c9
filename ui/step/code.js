// The code behind the step: tokenizer/bpe/textbook.py's own source (sent once with the trace, ui/step/code.py),
// with the current step's values written after the lines that compute them, at every step, in the page.
// Built with DOM calls and textContent only: the code and the tokens' text are never parsed as markup.
import { fmtInt, visible } from "../web/spans.js";

/** The comment written after fill line `fill` at a view (replay.js viewAt), or "" (nothing to say there). */
export function fillText(fill, view, tokenBytes) {
  const show = (id) => `'${visible(tokenBytes(id))}'`;
  const pair = (p) => `(${p[0]}, ${p[1]}) ${show(p[0])} + ${show(p[1])}`;
  if (view.mode === "training") {
    const m = view.next;
    if (!m) return fill === "new_id" ? `# training ended: ${fmtInt(view.n)} merges` : "";
    if (fill === "new_id") return `# step ${fmtInt(view.k + 1)}: new_id = ${m.newId}`;
    if (fill === "pair_count") return `# → pair = ${pair(m.pair)}, stats[pair] = ${fmtInt(m.count)}`;
    if (fill === "merged") return `# → every ${pair(m.pair)} becomes ${m.newId} ${show(m.newId)}`;
    return "";
  }
  const s = view.step;
  if (!s) return fill === "pair_rank" ? "# step 0: every byte is a token, no merge yet" : "";
  if (fill === "pair_rank") return `# → step ${fmtInt(view.k)}: pair = ${pair(s.pair)}, rank ${fmtInt(s.rank)}`;
  if (fill === "merged") return `# → merges[pair] = ${s.newId} ${show(s.newId)}, at ${fmtInt(s.count)} place${s.count === 1 ? "" : "s"}`;
  return "";
}

/** The panel: { el, draw(view) }. `code` is the payload's { file, source, fills }. */
export function codePanel(code, { tokenBytes, variant = false, open = true, onToggle = () => {} }) {
  const box = document.createElement("details");
  box.className = "bpe-st-code";
  box.open = open;
  box.addEventListener("toggle", () => onToggle(box.open));
  const summary = document.createElement("summary");
  summary.textContent = `The code behind the step (${code.file})`;
  const about = document.createElement("p");
  about.className = "bpe-st-muted";
  about.textContent = variant
    ? "The textbook's plain BPE, the code BPE Lab's fast trainer is tested against. This training chooses its pairs its own way (the sentence above says how); the merge itself is this code's. The values are this step's."
    : "The textbook's BPE, the code BPE Lab's fast core is tested against, with this step's values written in.";
  const pre = document.createElement("pre");
  pre.tabIndex = 0; // a long listing scrolls: the keyboard can reach it
  pre.setAttribute("role", "region");
  pre.setAttribute("aria-label", `The code behind the step, ${code.file}`);
  const fills = new Map(code.fills);
  const slots = [];
  code.source.split("\n").forEach((line, i) => {
    const row = document.createElement("span");
    row.className = "ln";
    row.append(document.createTextNode(line));
    if (fills.has(i)) {
      const fill = document.createElement("span");
      fill.className = "fill";
      fill.dataset.fill = fills.get(i);
      row.append(document.createTextNode("  "), fill);
      slots.push(fill);
    }
    pre.append(row, document.createTextNode("\n"));
  });
  box.append(summary, about, pre);
  // the loop's lines in sight when the panel opens (the helpers above them scroll into view when wanted)
  const focusLine = slots.length ? slots[Math.min(1, slots.length - 1)].parentNode : null;
  const reveal = () => {
    if (box.open && focusLine && pre.scrollHeight > pre.clientHeight) pre.scrollTop = Math.max(0, focusLine.offsetTop - pre.clientHeight / 3);
  };
  box.addEventListener("toggle", reveal);
  requestAnimationFrame(reveal);
  let last = null;
  box.addEventListener("toggle", () => last && draw(last)); // a folded panel is filled when it opens
  function draw(view) {
    last = view;
    if (!box.open) return; // folded (presenter mode): nothing to lay out per step
    for (const slot of slots) {
      const text = fillText(slot.dataset.fill, view, tokenBytes);
      if (slot.textContent !== text) slot.textContent = text;
    }
  }
  return { el: box, draw };
}
