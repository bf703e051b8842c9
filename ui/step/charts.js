// Step through's small charts, drawn in the page so that their cursor follows the step without a server rerun:
// a line over every step (the text's length, bytes per token) with a cursor at k, and the top pairs as bars.
// Built with DOM calls and textContent only: no markup is ever parsed from data.
import { fmtInt } from "../web/spans.js";

const NS = "http://www.w3.org/2000/svg";
const W = 420;
const MAX_POINTS = 480;
// How much larger a chart's text is in presenter mode, where the page's text is 22 px: a chart in a lesson's column
// is drawn about 600 px wide, where 15.5 of 420 units is 22 px on screen (stepper.css reads it as --scale).
export const PRESENT_SCALE = 15.5 / 11;

/** The chart's layout for a text scale: its height, margins and baselines (from the top for the title and the
 * cursor's value, from the bottom for the x ticks and the axis name, which keeps room for its descenders) grow with
 * the text. Larger than normal, the cursor's value takes a line of its own under the title, which then has the
 * width to itself. */
export function layout(scale = 1) {
  const u = (v) => Math.round(v * scale);
  const below = scale > 1 ? u(16) : 0;
  const PAD = { left: u(62), right: 14, top: u(34) + below, bottom: u(30) };
  return { H: 126 + PAD.top + PAD.bottom, PAD, title: u(15), now: u(15) + below, tick: u(16), axis: u(4) };
}

function svg(tag, attrs = {}, parent = null) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (parent) parent.appendChild(el);
  return el;
}

/** The x positions to draw a line of n + 1 values through: every one, or evenly spaced ones with both ends. */
export function thin(count, most = MAX_POINTS) {
  if (count <= most) return Array.from({ length: count }, (_, i) => i);
  const out = [];
  for (let i = 0; i < most; i++) out.push(Math.round((i * (count - 1)) / (most - 1)));
  return out;
}

/** The range a y axis spans: the values' extent, a flat line given some room. */
export function extent(values) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (!(hi > lo)) return [lo - 1, hi + 1];
  return [lo, hi];
}

/** Whether the page is in presenter mode (ui/common/presenter.py puts its marker on the page). */
function presenting() {
  return typeof document !== "undefined" && document.querySelector(".bpe-present") !== null;
}

/** A line chart of values[0..n] against the step, with a cursor: { el, setCursor(k) }. */
export function lineChart({ title, values, format = (v) => fmtInt(v), xLabel = "step", big = presenting() }) {
  const n = values.length - 1;
  const [lo, hi] = extent(values);
  const scale = big ? PRESENT_SCALE : 1;
  const { H, PAD, ...at } = layout(scale);
  const x = (i) => PAD.left + (n > 0 ? (i / n) * (W - PAD.left - PAD.right) : 0);
  const y = (v) => H - PAD.bottom - ((v - lo) / (hi - lo)) * (H - PAD.top - PAD.bottom);
  const el = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "bpe-st-chart", role: "img" });
  el.style.setProperty("--scale", String(scale)); // stepper.css sizes the text by it
  const heading = svg("text", { x: 4, y: at.title, class: "ttl" }, el);
  heading.textContent = title;
  for (const v of [lo, (lo + hi) / 2, hi]) {
    svg("line", { x1: PAD.left, x2: W - PAD.right, y1: y(v), y2: y(v), class: "grid" }, el);
    const t = svg("text", { x: PAD.left - 6, y: y(v) + 4, class: "tick", "text-anchor": "end" }, el);
    t.textContent = format(v);
  }
  for (const i of [0, Math.round(n / 2), n]) {
    const t = svg("text", { x: x(i), y: H - at.tick, class: "tick", "text-anchor": "middle" }, el);
    t.textContent = fmtInt(i);
  }
  const axis = svg("text", { x: W - PAD.right, y: H - at.axis, class: "tick", "text-anchor": "end" }, el);
  axis.textContent = xLabel;
  const d = thin(n + 1)
    .map((i, j) => `${j ? "L" : "M"}${x(i).toFixed(1)},${y(values[i]).toFixed(1)}`)
    .join("");
  svg("path", { d, class: "line" }, el);
  const cursor = svg("line", { y1: PAD.top - 4, y2: H - PAD.bottom, class: "cursor" }, el);
  const dot = svg("circle", { r: 4.5, class: "dot" }, el);
  const label = svg("text", { x: W - PAD.right, y: at.now, class: "now", "text-anchor": "end" }, el);
  function setCursor(k) {
    k = Math.max(0, Math.min(n, k));
    const cx = x(k);
    cursor.setAttribute("x1", cx);
    cursor.setAttribute("x2", cx);
    dot.setAttribute("cx", cx);
    dot.setAttribute("cy", y(values[k]));
    label.textContent = `${xLabel} ${fmtInt(k)}: ${format(values[k])}`;
    el.setAttribute("aria-label", `${title}: ${format(values[k])} at ${xLabel} ${fmtInt(k)} of ${fmtInt(n)}`);
  }
  setCursor(0);
  return { el, setCursor };
}

/** Horizontal bars, one per [label, count] row, row `next` in orange (the pair merged next; -1: none). */
export function bars(rows, { next = 0 } = {}) {
  const el = document.createElement("div");
  el.className = "bpe-st-bars";
  el.setAttribute("aria-hidden", "true"); // the table next to it says the same to a screen reader
  const top = Math.max(1, ...rows.map((r) => r[1]));
  rows.forEach(([label, count], i) => {
    const row = document.createElement("div");
    row.className = i === next ? "row next" : "row";
    const name = document.createElement("span");
    name.className = "lbl";
    name.textContent = label;
    const track = document.createElement("span");
    track.className = "track";
    const bar = document.createElement("span");
    bar.className = "bar";
    bar.style.width = `${((100 * count) / top).toFixed(1)}%`;
    track.appendChild(bar);
    const num = document.createElement("span");
    num.className = "n";
    num.textContent = fmtInt(count);
    row.append(name, track, num);
    el.appendChild(row);
  });
  return el;
}
