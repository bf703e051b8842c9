// Keyboard stepping for the Step through page (mounted by ui/step/keyboard.py).
// → / ← press "Next" / "Prev", Home / End "First" / "Last", space "Play"/"Pause": the page's own
// buttons, found by the class Streamlit gives a keyed widget (st-key-<key>), so a key does exactly
// what a click does (and nothing while a button is disabled). Keys typed into a text field, a
// select box or the slider are left alone.
const KEYS = { ArrowRight: "next", ArrowLeft: "prev", Home: "first", End: "last", " ": "play" };
const FIELDS = 'input, textarea, select, [contenteditable=""], [contenteditable="true"], ' +
  '[role="textbox"], [role="combobox"], [role="listbox"], [role="option"], [role="slider"], [role="spinbutton"], [role="menu"], [role="menuitem"]';

export default function (_component) {
  const doc = document;
  const previous = window.__bpeStepKeys;
  if (previous) doc.removeEventListener("keydown", previous, true);

  function onKey(event) {
    const which = KEYS[event.key];
    if (!which || event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.isComposing) return;
    const target = event.target;
    if (target && target.closest && target.closest(FIELDS)) return;
    const button = doc.querySelector(".st-key-step-" + which + " button");
    if (!button) return;
    event.preventDefault();  // no page scroll, and space does not also press a focused button
    event.stopPropagation();
    if (!button.disabled) button.click();
  }

  window.__bpeStepKeys = onKey;
  doc.addEventListener("keydown", onKey, true);
  return () => {
    doc.removeEventListener("keydown", onKey, true);
    if (window.__bpeStepKeys === onKey) window.__bpeStepKeys = undefined;
  };
}
