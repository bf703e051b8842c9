// The lesson's chapter keys: PageDown / PageUp (and → / ← where no stepper takes them) ask the server for the
// next or previous chapter (a trigger value). Draws nothing.

const FIELDS =
  'input, textarea, select, [contenteditable=""], [contenteditable="true"], [role="textbox"], [role="combobox"], ' +
  '[role="listbox"], [role="option"], [role="slider"], [role="spinbutton"], [role="menu"], [role="menuitem"], [role="radio"]';
const PAGING = { PageDown: "next", PageUp: "prev" };
const ARROWS = { ArrowRight: "next", ArrowLeft: "prev" };

/** The move a key press asks for ("next", "prev") or null: none with a modifier, typed into a field, or already taken
 *  (the stepper takes ← → in its chapters, in the capture phase). */
export function chapterKey(event, arrows) {
  const which = PAGING[event.key] || (arrows ? ARROWS[event.key] : undefined);
  if (!which || event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.isComposing) return null;
  const target = event.target;
  if (target && target.closest && target.closest(FIELDS)) return null;
  return which;
}

let active = null; // one listener per page, whichever run mounted it last

export default function mount(component) {
  const { data, setTriggerValue } = component;
  const arrows = Boolean(data && data.arrows);
  const onKey = (event) => {
    const go = chapterKey(event, arrows);
    if (!go) return;
    event.preventDefault();
    setTriggerValue("go", go);
  };
  if (active) document.removeEventListener("keydown", active);
  active = onKey;
  document.addEventListener("keydown", onKey);
  return () => {
    document.removeEventListener("keydown", onKey);
    if (active === onKey) active = null;
  };
}
