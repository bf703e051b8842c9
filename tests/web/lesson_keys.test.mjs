// node --test: the lesson's chapter keys (ui/lesson/keys.js). PageDown / PageUp always, → / ← only where no stepper
// takes them; never with a modifier, typed into a field, or a key something else already took. The keys in a page
// are tested in Chromium (tests/browser/test_lesson.py).
import assert from "node:assert/strict";
import { test } from "node:test";

import { chapterKey } from "../../ui/lesson/keys.js";

const inPage = { closest: () => null };
const inField = { closest: () => ({}) };
const press = (key, extra = {}) => ({ key, target: inPage, defaultPrevented: false, ...extra });

test("PageDown and PageUp move between chapters, with or without the arrows", () => {
  for (const arrows of [true, false]) {
    assert.equal(chapterKey(press("PageDown"), arrows), "next");
    assert.equal(chapterKey(press("PageUp"), arrows), "prev");
  }
});

test("the arrows move between chapters only where no stepper takes them", () => {
  assert.equal(chapterKey(press("ArrowRight"), true), "next");
  assert.equal(chapterKey(press("ArrowLeft"), true), "prev");
  assert.equal(chapterKey(press("ArrowRight"), false), null);
  assert.equal(chapterKey(press("ArrowLeft"), false), null);
});

test("no move with a modifier, in a text box, for a key already taken, or for another key", () => {
  for (const mod of ["altKey", "ctrlKey", "metaKey", "isComposing"]) assert.equal(chapterKey(press("PageDown", { [mod]: true }), true), null);
  assert.equal(chapterKey(press("PageDown", { target: inField }), true), null);
  assert.equal(chapterKey(press("ArrowRight", { defaultPrevented: true }), true), null);
  assert.equal(chapterKey(press("Home"), true), null);
  assert.equal(chapterKey(press("n"), true), null);
});
