// node --test: ui/step/keyboard.js presses the page's own step buttons for → ← Home End and space,
// and leaves keys typed into fields alone. A small fake document stands in for the page.
import assert from "node:assert/strict";
import { test } from "node:test";

function fakePage() {
  const listeners = [];
  const clicks = [];
  const buttons = {};
  for (const which of ["next", "prev", "first", "last", "play"]) {
    buttons[".st-key-step-" + which + " button"] = { disabled: false, click: () => clicks.push(which) };
  }
  globalThis.window = {};
  globalThis.document = {
    addEventListener: (type, fn) => listeners.push(fn),
    removeEventListener: (type, fn) => listeners.splice(listeners.indexOf(fn), 1),
    querySelector: (sel) => buttons[sel] || null,
  };
  const press = (key, target = { closest: () => null }, extra = {}) => {
    const event = { key, target, defaultPrevented: false, preventDefault() { this.defaultPrevented = true; }, stopPropagation() {}, ...extra };
    for (const fn of listeners) fn(event);
    return event;
  };
  return { listeners, clicks, buttons, press };
}

const { default: install } = await import("../../ui/step/keyboard.js");

test("each stepping key presses its button, once", () => {
  const page = fakePage();
  const cleanup = install({});
  for (const key of ["ArrowRight", "ArrowLeft", "Home", "End", " "]) page.press(key);
  assert.deepEqual(page.clicks, ["next", "prev", "first", "last", "play"]);
  cleanup();
  page.press("ArrowRight");
  assert.equal(page.clicks.length, 5, "no listener is left after cleanup");
});

test("keys in a text field, with a modifier, or on a disabled button do nothing", () => {
  const page = fakePage();
  install({});
  page.press("ArrowRight", { closest: (sel) => (sel.includes("textarea") ? {} : null) });
  page.press("ArrowRight", { closest: () => null }, { ctrlKey: true });
  page.buttons[".st-key-step-next button"].disabled = true;
  const event = page.press("ArrowRight");
  assert.deepEqual(page.clicks, []);
  assert.equal(event.defaultPrevented, true, "the key is still taken from the page (no scroll)");
  page.press("a");
  assert.deepEqual(page.clicks, []);
});

test("mounting twice keeps one listener", () => {
  const page = fakePage();
  install({});
  install({});
  assert.equal(page.listeners.length, 1);
});
