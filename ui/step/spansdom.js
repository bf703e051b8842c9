// The spans of a step on the page, changed in place from one step to the next: only the tokens a step merged
// are replaced, and the text is held in one block per line, so a browser lays out the lines that changed
// instead of the whole text (a 6,000-character text is about 5,000 spans at step 0, and one inline run of
// them costs tens of milliseconds per step to lay out again; a line, well under one). A line ends after a token
// that ends with a newline, where the text breaks anyway: the page looks exactly as spans.js renderSpans draws
// it (the same spans, cuts and outlines in the same order; tests/browser/test_step.py compares them with the
// Python renderer after steps, jumps and going back).
import { PALETTE, colorSlots, spanHtml } from "../web/spans.js";

/** The regions where two token lists over the same bytes differ: [[oldFrom, oldTo, newFrom, newTo], ...],
 *  half-open index ranges, each from one common boundary to the next. */
export function changedRegions(before, after) {
  const out = [];
  let i = 0;
  let j = 0;
  const n = before.ids.length;
  const m = after.ids.length;
  while (i < n && j < m) {
    if (before.ends[i] === after.ends[j] && before.ids[i] === after.ids[j] && before.starts[i] === after.starts[j]) {
      i++;
      j++;
      continue;
    }
    const i0 = i;
    const j0 = j;
    let a = before.ends[i];
    let b = after.ends[j];
    while (a !== b) {
      if (a < b) a = before.ends[++i];
      else b = after.ends[++j];
    }
    out.push([i0, i + 1, j0, j + 1]);
    i++;
    j++;
  }
  return out;
}

function spanClass(special, hl) {
  return "t" + (special ? " sp" : "") + (hl ? " hl" : "");
}

/** A `.bpe-spans` element kept in step with a view's tokens, one `.ln` block per line. */
export class SpanView {
  constructor(host, { specialIds, data, showCuts }) {
    this.host = host;
    this.specialIds = specialIds;
    this.data = data;
    this.showCuts = showCuts;
    this.bodies = new Map(); // token body HTML by id
    this.tokens = null; // the tokens shown: { starts, ends, ids }
    this.slots = null;
    this.nodes = null; // the span element of each token
    this.hl = new Set();
    this.root = null;
    this.template = document.createElement("template");
  }

  _html(i, tokens, slot, hl) {
    const s = { index: i, id: tokens.ids[i], bytes: this.data.subarray(tokens.starts[i], tokens.ends[i]), special: this.specialIds.has(tokens.ids[i]) };
    return spanHtml(s, PALETTE[slot], this.bodies, { showWhitespace: true, tooltips: false, hl });
  }

  /** Draw everything anew (the first view, or after a change too big to patch). */
  rebuild(view) {
    const { tokens, highlight, cuts } = view;
    const slots = colorSlots(tokens.ids);
    const parts = ['<div class="bpe-spans" aria-hidden="true"><div class="ln">'];
    const last = tokens.ids.length - 1;
    for (let i = 0; i <= last; i++) {
      if (i && this.showCuts && cuts.has(i)) parts.push('<span class="cut"></span>');
      parts.push(this._html(i, tokens, slots[i], highlight.has(i)));
      if (i < last && this.data[tokens.ends[i] - 1] === 0x0a) parts.push('</div><div class="ln">');
    }
    parts.push("</div></div>");
    this.host.innerHTML = parts.join("");
    this.root = this.host.firstElementChild;
    this.nodes = Array.from(this.root.querySelectorAll(".t"));
    this.tokens = tokens;
    this.slots = slots;
    this.hl = new Set(highlight);
  }

  /** Show a view: patch the tokens that changed, the colours that moved and the outlines. */
  show(view) {
    const { tokens, highlight } = view;
    if (!this.root || !this.root.isConnected || !tokens.ids.length || !this.tokens.ids.length) {
      this.rebuild(view);
      return;
    }
    const regions = changedRegions(this.tokens, tokens);
    let changed = 0;
    for (const [i0, i1, j0, j1] of regions) changed += i1 - i0 + (j1 - j0);
    if (changed > tokens.ids.length / 2) {
      this.rebuild(view);
      return;
    }
    const slots = colorSlots(tokens.ids);
    const m = tokens.ids.length;
    const nodes = new Array(m);
    const was = new Int16Array(m).fill(-1); // a carried-over element's slot and outline: -1 new, else slot * 2 + outlined
    const old = this.tokens.ids.length;
    let i = 0;
    let j = 0;
    for (const [i0, i1, j0, j1] of [...regions, [old, old, m, m]]) {
      for (; i < i0; i++, j++) {
        nodes[j] = this.nodes[i];
        was[j] = this.slots[i] * 2 + (this.hl.has(i) ? 1 : 0);
      }
      if (i0 === i1) break;
      let html = "";
      for (let t = j0; t < j1; t++) html += this._html(t, tokens, slots[t], highlight.has(t));
      this.template.innerHTML = html;
      const fresh = Array.from(this.template.content.children);
      const line = this.nodes[i0].parentNode;
      const lastLine = this.nodes[i1 - 1].parentNode;
      this.nodes[i0].before(this.template.content);
      for (let t = i0; t < i1; t++) this.nodes[t].remove();
      if (lastLine !== line) {
        // the region ran over a line end that is gone now: the rest of its last line joins the first
        while (line.nextSibling !== lastLine) line.nextSibling.remove();
        line.append(...lastLine.childNodes);
        lastLine.remove();
      }
      for (let t = j0; t < j1; t++) nodes[t] = fresh[t - j0];
      i = i1;
      j = j1;
    }
    // colours ripple right of a change until the neighbour rule settles; outlines move
    for (let t = 0; t < m; t++) {
      if (was[t] < 0) continue;
      const hl = highlight.has(t);
      if (slots[t] !== was[t] >> 1) nodes[t].setAttribute("style", `background:${PALETTE[slots[t]]}`);
      if (hl !== ((was[t] & 1) === 1)) nodes[t].className = spanClass(this.specialIds.has(tokens.ids[t]), hl);
    }
    this.nodes = nodes;
    this.tokens = tokens;
    this.slots = slots;
    this.hl = new Set(highlight);
  }
}
