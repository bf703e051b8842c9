// node --test: ui/step/replay.js reads ui/step/payload.py's payload and shows, at every step and whatever the
// order of the moves (Next, Prev, jumps across checkpoints), what ui/step/model.py shows: the tokens (ids and
// boundaries), the outlined ones, the chunk cuts, the merge cards' numbers. Cases from tests/web/fixtures.py
// (tokenizers trained on random text with a new seed each run, cl100k and Llama 3 with special tokens and
// whole chunks; the training variants, with what each step does differently and, for tokens across words,
// the text as stage 1 cut it before the transition).
import assert from "node:assert/strict";
import { test } from "node:test";

import { countedIn, decode, encodeLengths, languageTokens, Replayer, spansOf, variantNote, viewAt } from "../../ui/step/replay.js";
import { fillText } from "../../ui/step/code.js";
import { fromHex, pyFixture } from "./pyfixtures.mjs";

const fixture = pyFixture("replay");
const seed = `(fixtures seed ${fixture.seed}: python tests/web/fixtures.py replay ${fixture.seed})`;

function check(trace, replayer, c, k) {
  const v = viewAt(trace, replayer, k);
  const want = c.views[k];
  const where = `${c.name}, step ${k} ${seed}`;
  assert.deepEqual(v.tokens.ids, want.ids, where);
  assert.deepEqual(v.tokens.starts, want.starts, where);
  assert.deepEqual([...v.highlight].sort((a, b) => a - b), want.highlight, where);
  assert.deepEqual([...v.cuts].sort((a, b) => a - b), want.cuts, where);
  if (trace.mode === "training") {
    const merge = (m) => (m ? [...m.pair, m.newId, m.count] : null);
    assert.deepEqual(merge(v.last), want.last, where);
    assert.deepEqual(merge(v.next), want.next, where);
    assert.equal(v.nextInExcerpt, want.nextInExcerpt, where);
    assert.equal(v.trainingTokens, want.tokens, where);
    assert.equal(v.trainingBytes, want.tokensBefore, where);
    if ("note" in want) {  // a training variant: the sentence saying what this step does differently, word for word
      assert.equal(variantNote(trace, k), want.note, where);
      assert.equal(countedIn(trace, k), want.countedIn, where);
      if (want.languages) assert.deepEqual(languageTokens(trace, k), want.languages, where);
    }
  } else {
    const step = (s) => (s ? [s.step, s.rank, s.newId, ...s.pair, s.count, s.nTokens] : null);
    assert.deepEqual(step(v.step), want.step, where);
    assert.deepEqual(step(v.upcoming), want.upcoming, where);
  }
  return v;
}

for (const c of fixture.cases) {
  test(`${c.name}: every step, forward, backward and in random jumps`, () => {
    const trace = decode(c.payload);
    assert.equal(trace.n + 1, c.views.length);
    for (const memory of [24e6, 1]) {  // with a checkpoint every few steps, and with one only (replay from step 0)
      const replayer = new Replayer(trace, { memory });
      for (let k = 0; k <= trace.n; k++) check(trace, replayer, c, k);
      for (let k = trace.n; k >= 0; k--) check(trace, replayer, c, k);
      for (let i = 0; i < 200; i++) check(trace, replayer, c, Math.floor(Math.random() * (trace.n + 1)));
    }
  });
}

test("the spans carry each token's bytes and whether it is special", () => {
  const c = fixture.cases.find((x) => x.name === "llama3");
  const trace = decode(c.payload);
  const spans = spansOf(trace, viewAt(trace, new Replayer(trace), trace.n));
  assert.ok(spans.some((s) => s.special), "the special token is marked");
  const text = new TextDecoder().decode(Uint8Array.from(spans.flatMap((s) => [...s.bytes])));
  assert.ok(text.includes("việc") && text.endsWith("<|begin_of_text|><|endoftext|>"));
});

test("training mode derives every merge's token from its halves", () => {
  for (const c of fixture.cases.filter((x) => x.vocab)) {
    const trace = decode(c.payload);
    for (const [id, hex] of Object.entries(c.vocab)) assert.deepEqual(trace.tokenBytes(Number(id)), fromHex(hex), `${c.name} id ${id}`);
  }
});

test("encoding mode: tokens after each step, for the length chart", () => {
  for (const c of fixture.cases.filter((x) => x.lengths)) assert.deepEqual([...encodeLengths(decode(c.payload))], c.lengths);
});

test("a payload of another version is refused", () => {
  assert.throws(() => decode({ ...fixture.cases[0].payload, v: 2 }), /payload version 2, expected 1/);
});

test("the code behind the step: each filled line names the step's pair, count or rank, and new id, as Python's view has them", () => {
  const fmt = (n) => n.toLocaleString("en-US");
  for (const c of fixture.cases) {
    const trace = decode(c.payload);
    const replayer = new Replayer(trace);
    const kinds = c.payload.code.fills.map((f) => f[1]);
    const lines = c.payload.code.source.split("\n");
    assert.ok(c.payload.code.fills.every(([i]) => i < lines.length), c.name);
    for (let k = 0; k <= trace.n; k++) {
      const v = viewAt(trace, replayer, k);
      const want = c.views[k];
      const fills = Object.fromEntries(kinds.map((f) => [f, fillText(f, v, trace.tokenBytes)]));
      const where = `${c.name}, step ${k} ${seed}`;
      if (trace.mode === "training") {
        assert.deepEqual(kinds, ["new_id", "pair_count", "merged"], where);
        if (want.next) {
          const [a, b, id, count] = want.next;
          assert.ok(fills.new_id.endsWith(`new_id = ${id}`), where);
          assert.ok(fills.pair_count.startsWith(`# → pair = (${a}, ${b}) `) && fills.pair_count.endsWith(`stats[pair] = ${fmt(count)}`), where);
          assert.ok(fills.merged.includes(`(${a}, ${b})`) && fills.merged.includes(`becomes ${id} `), where);
        } else {
          assert.equal(fills.new_id, `# training ended: ${fmt(trace.n)} merges`, where);
        }
      } else {
        assert.deepEqual(kinds, ["pair_rank", "merged"], where);
        if (want.step) {
          const [, rank, id, a, b, count] = want.step;
          assert.ok(fills.pair_rank.includes(`pair = (${a}, ${b}) `) && fills.pair_rank.endsWith(`rank ${fmt(rank)}`), where);
          assert.ok(fills.merged.startsWith(`# → merges[pair] = ${id} `) && fills.merged.includes(`at ${fmt(count)} place`), where);
        } else {
          assert.match(fills.pair_rank, /no merge yet/, where);
        }
      }
    }
  }
});
