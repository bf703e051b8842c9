// How the top pairs reach the stepper. The server sends them, a window of steps at a time, through a second,
// small component (ui/step/pairs.js), so that the stepper's own data, the whole trace, is never sent again
// for them. Both components import this module from the same address (the static folder's copy, see
// ui/web/model.py component_script), so they share this one instance of it.
const windows = new Map(); // trace id -> { from, pairs }
const listeners = new Set();

/** A window of top pairs for a trace arrived. */
export function publish(id, window) {
  windows.set(id, window);
  if (windows.size > 8) windows.delete(windows.keys().next().value); // the oldest trace's
  for (const fn of listeners) fn(id, window);
}

/** The latest window for a trace, or undefined. */
export function windowFor(id) {
  return windows.get(id);
}

/** Call fn(id, window) for every window from now on; returns the function that stops it. */
export function subscribe(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** The top pairs after k merges from a window ([left, right, count, ...]), or null when the window does not hold k. */
export function pairsAt(window, k) {
  if (!window || k < window.from || k >= window.from + window.pairs.length) return null;
  const flat = window.pairs[k - window.from];
  const out = [];
  for (let i = 0; i < flat.length; i += 3) out.push({ pair: [flat[i], flat[i + 1]], count: flat[i + 2] });
  return out;
}
