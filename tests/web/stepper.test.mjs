// node --test: the stepper's pure parts. The keys (→ ← Home End space, never with a modifier nor typed into a
// field, a menu or a slider), the address bar (only the step parameter changes, the rest stays byte for byte
// as the server wrote it), the component's data in each form Streamlit hands it over, the charts' sampling.
// The stepper in a page is tested in Chromium (tests/browser/test_step.py).
import assert from "node:assert/strict";
import { test } from "node:test";

import { PRESENT_SCALE, extent, layout, thin } from "../../ui/step/charts.js";
import { changedRegions } from "../../ui/step/spansdom.js";
import { keyAction, KEYS, parseData, playStep, SPEEDS, withStep } from "../../ui/step/stepper.js";

const inPage = { closest: () => null };
const inField = (match) => ({ closest: (sel) => (sel.split(",").some((s) => s.trim() === match) ? {} : null) });
const press = (key, target = inPage, extra = {}) => ({ key, target, defaultPrevented: false, ...extra });

test("each stepping key asks for its action", () => {
  assert.deepEqual(
    ["ArrowRight", "ArrowLeft", "Home", "End", " "].map((k) => keyAction(press(k))),
    ["next", "prev", "first", "last", "play"],
  );
  assert.deepEqual(Object.values(KEYS).sort(), ["first", "last", "next", "play", "prev"]);
});

test("keys in a text field, a menu or a slider, with a modifier, composing, or already taken do nothing", () => {
  for (const field of ["input", "textarea", "select", '[role="combobox"]', '[role="slider"]', '[role="menuitem"]', '[contenteditable="true"]']) {
    assert.equal(keyAction(press("ArrowRight", inField(field))), null, field);
  }
  for (const mod of ["altKey", "ctrlKey", "metaKey", "isComposing", "defaultPrevented"]) {
    assert.equal(keyAction(press("ArrowRight", inPage, { [mod]: true })), null, mod);
  }
  assert.equal(keyAction(press("a")), null);
  assert.equal(keyAction(press("ArrowRight", null)), "next"); // a key with no target (the document) still steps
});

test("the address bar: only the step changes, the server's order and encoding stay as they are", () => {
  const server = "?mode=encoding&tokenizer=cl100k_base&step=5&text=a%7Eb+c*d&present=1";
  assert.equal(withStep(server, 12), "?mode=encoding&tokenizer=cl100k_base&step=12&text=a%7Eb+c*d&present=1");
  assert.equal(withStep("?step=3", 0), "?step=0");
  assert.equal(withStep("", 7), "?step=7");
  assert.equal(withStep("?mode=training", 7), "?mode=training&step=7");
  assert.equal(withStep("?text=step%3D1&step=2", 9), "?text=step%3D1&step=9"); // "step=" inside a value is not the parameter
  assert.equal(withStep("?footstep=4&step=2", 9), "?footstep=4&step=9");
});

test("the component's data as bytes, a string or an object", () => {
  const obj = { goto: [1, 4], trace: { id: "x" } };
  const bytes = new TextEncoder().encode(JSON.stringify(obj));
  assert.deepEqual(parseData(bytes), obj);
  assert.deepEqual(parseData(JSON.stringify(obj)), obj);
  assert.equal(parseData(obj), obj);
});

test("play speeds go up to 30 steps a second", () => {
  assert.equal(Math.max(...Object.values(SPEEDS)), 30);
  assert.ok(Object.values(SPEEDS).every((v, i, all) => i === 0 || v > all[i - 1]));
});

/** Play from step 0 to `n` with frames `gaps` ms apart (cycled): the step drawn at each frame, and the time it ends. */
function played(n, rate, gaps) {
  let k = 0;
  let now = 1000;
  let clock = { from: 0, t0: now };
  const drawn = [];
  for (let f = 0; k < n && f < 100_000; f++) {
    now += gaps[f % gaps.length];
    const next = playStep(clock, k, now, rate);
    clock = next.clock;
    if (next.k !== k) drawn.push(next.k);
    k = next.k;
  }
  return { drawn, ms: now - 1000 };
}

test("play paints every step in order, however slow the frames; on time when they keep up", () => {
  const every = Array.from({ length: 64 }, (_, i) => i + 1);
  for (const gaps of [[16.7], [100], [250, 16.7, 16.7], [1000], [40, 400]]) {
    assert.deepEqual(played(64, SPEEDS.fastest, gaps).drawn, every, `frames ${gaps} ms apart`);
  }
  // frames that keep up: 64 steps at 30 a second take 64 / 30 s of (simulated) time, give or take a frame
  const fast = played(64, SPEEDS.fastest, [16.7]);
  assert.ok(Math.abs(fast.ms - (64 / 30) * 1000) <= 17, fast.ms);
  // frames 100 ms apart paint 10 steps a second: the rate the machine paints, with no burst after a slow spell
  assert.ok(Math.abs(played(64, SPEEDS.fastest, [100]).ms - 6400) <= 100);
  const spell = played(64, SPEEDS.fastest, [...Array(10).fill(200), ...Array(200).fill(16.7)]);
  assert.ok(spell.ms > 10 * 200 + ((64 - 10) / 30) * 1000 - 34, spell.ms); // the steps after the spell keep 30 a second
  assert.deepEqual(played(3, SPEEDS.slow, [16.7]).drawn, [1, 2, 3]); // slow speeds as before: one step a second
  assert.ok(Math.abs(played(3, SPEEDS.slow, [16.7]).ms - 3000) <= 17);
});

test("a long line is drawn through evenly spaced steps, both ends included; a flat one gets room", () => {
  assert.deepEqual(thin(5), [0, 1, 2, 3, 4]);
  const t = thin(50_001, 480);
  assert.equal(t.length, 480);
  assert.equal(t[0], 0);
  assert.equal(t.at(-1), 50_000);
  assert.ok(t.every((v, i) => i === 0 || v > t[i - 1]));
  assert.deepEqual(extent([3, 9, 1]), [1, 9]);
  assert.deepEqual(extent([4, 4]), [3, 5]);
});

test("a chart's layout grows with its text: the plot keeps its height and the labels keep apart", () => {
  for (const scale of [1, PRESENT_SCALE, 2]) {
    const { H, PAD, title, now, tick, axis } = layout(scale);
    assert.equal(H - PAD.top - PAD.bottom, layout(1).H - layout(1).PAD.top - layout(1).PAD.bottom);
    // the x ticks' baseline leaves a tick's height above the axis name's, which leaves room for a descender (a
    // quarter of the text's size) above the bottom; the plot ends above the ticks' digits (0.75 of the size)
    assert.ok(axis >= 0.25 * 11 * scale, scale);
    assert.ok(tick - axis >= 11 * scale, scale);
    assert.ok(PAD.bottom > tick + 0.75 * 11 * scale, scale);
    assert.ok(title >= 13 * scale && now < PAD.top - 4, scale); // the heading and the value sit above the cursor
    if (scale > 1) assert.ok(now - title >= 12 * scale, scale); // enlarged, the value has a line of its own
  }
  assert.equal(layout(1).H, 190);
});

function randomTokens(n, cutChance, idOf) {
  const starts = [];
  const ends = [];
  const ids = [];
  for (let i = 0; i < n; ) {
    let e = i + 1;
    while (e < n && Math.random() > cutChance) e++;
    starts.push(i);
    ends.push(e);
    ids.push(idOf(i, e));
    i = e;
  }
  return { starts, ends, ids };
}

test("the regions between two steps' tokens: replacing them turns one list into the other", () => {
  assert.deepEqual(
    changedRegions({ starts: [0, 1, 2, 3], ends: [1, 2, 3, 4], ids: [7, 8, 9, 10] }, { starts: [0, 1, 3], ends: [1, 3, 4], ids: [7, 99, 10] }),
    [[1, 3, 1, 2]],
  );
  for (let trial = 0; trial < 300; trial++) {
    const n = 1 + Math.floor(Math.random() * 60);
    const a = randomTokens(n, Math.random(), (s, e) => s * 1000 + e);
    const b = randomTokens(n, Math.random(), (s, e) => (Math.random() < 0.1 ? -1 : s * 1000 + e)); // sometimes a new id, same place
    const regions = changedRegions(a, b);
    const rebuilt = [];
    let i = 0;
    for (const [i0, i1, j0, j1] of regions) {
      assert.ok(i0 < i1 && j0 < j1 && a.starts[i0] === b.starts[j0] && a.ends[i1 - 1] === b.ends[j1 - 1]);
      for (; i < i0; i++) rebuilt.push(a.ids[i]);
      for (let t = j0; t < j1; t++) rebuilt.push(b.ids[t]);
      i = i1;
    }
    for (; i < a.ids.length; i++) rebuilt.push(a.ids[i]);
    assert.deepEqual(rebuilt, b.ids);
  }
});
