// A split pattern's RegExp, built from the data ui/web/jsregex.py writes: exact to Python's regex.
//
// Every character class comes as its code points (regex's Unicode 16 tables). explicitSource writes
// them all out: exact on any browser, but a pattern such as o200k's is then 20,000+ characters of
// source, which V8 runs unoptimized (three to ten times slower). A class made of Unicode properties
// ([^\r\n\p{L}\p{N}]) may instead be written with the browser's own \p{…}, once checkProperty has
// compared the browser's property with regex's code points over all of Unicode; where they differ
// (a browser on Unicode 17 knows letters regex does not), the class says so explicitly:
//   wanted S, the browser's class C: S = C + add - remove, written [C add] or (?![remove])[C add]
// (and for a negated class (?:[^C add]|[remove])). So the chunks are regex's whatever the browser.

// V8 optimizes a RegExp only below 20 K characters of source: a longer explicit pattern (o200k's,
// Tekken's) is worth switching to the browser's own \p{…}, once checked (the worker does)
export const OPTIMIZED = 19_000;

// Characters written as \u{…}: RegExp syntax, controls, spaces, and surrogates (jsregex._char).
const SYNTAX = new Set("\\^$.*+?()[]{}|/-");
const SPACE = /\s/u;

function char(cp) {
  const c = String.fromCodePoint(cp);
  if (SYNTAX.has(c) || cp < 0x21 || (cp >= 0x7f && cp <= 0xa0) || (cp >= 0xd800 && cp <= 0xdfff) || SPACE.test(c)) {
    return `\\u{${cp.toString(16)}}`;
  }
  return c;
}

/** The inside of a class for sorted, disjoint [lo, hi] ranges. */
export function classBody(ranges) {
  let out = "";
  for (const [lo, hi] of ranges) {
    if (lo === hi) out += char(lo);
    else if (hi === lo + 1) out += char(lo) + char(hi);
    else out += `${char(lo)}-${char(hi)}`;
  }
  return out;
}

/** A class (or one character) for exactly these ranges. */
export function classSource(ranges) {
  if (ranges.length === 1 && ranges[0][0] === ranges[0][1]) return char(ranges[0][0]);
  return `[${classBody(ranges)}]`;
}

/** Sorted, disjoint ranges of the union. */
export function union(...sets) {
  const all = sets.flat().map(([lo, hi]) => [lo, hi]).sort((a, b) => a[0] - b[0]);
  const out = [];
  for (const [lo, hi] of all) {
    const last = out[out.length - 1];
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

/** a minus b (both sorted and disjoint). */
export function subtract(a, b) {
  const out = [];
  let j = 0;
  for (const [start, hi] of a) {
    let lo = start;
    while (j < b.length && b[j][1] < lo) j++;
    let k = j;
    while (lo <= hi && k < b.length && b[k][0] <= hi) {
      if (b[k][0] > lo) out.push([lo, b[k][0] - 1]);
      lo = Math.max(lo, b[k][1] + 1);
      k++;
    }
    if (lo <= hi) out.push([lo, hi]);
  }
  return out;
}

function atomExplicit(atom) {
  return classSource(atom.ranges);
}

/** The RegExp source with every class written out (exact on any browser). */
export function explicitSource(spec) {
  const atoms = spec.atoms.map(atomExplicit);
  return spec.parts.map((p) => (typeof p === "string" ? p : atoms[p])).join("");
}

/**
 * The source with native \p{…} where ``diffs`` says how the browser's properties differ from regex's:
 * diffs[name] = {extra, missing} (ranges), or null when the browser lacks the property.
 */
export function nativeSource(spec, diffs) {
  const atoms = spec.atoms.map((atom) => {
    if (!atom.props || atom.props.some((p) => !diffs[p])) return atomExplicit(atom);
    const wanted = union(atom.rest, ...atom.props.map((p) => spec.props[p])); // before negation
    const browser = union(atom.rest, ...atom.props.map((p) => union(subtract(spec.props[p], diffs[p].missing), diffs[p].extra)));
    const add = subtract(wanted, browser);
    const remove = subtract(browser, wanted);
    const inside = atom.props.map((p) => `\\p{${p}}`).join("") + classBody(atom.rest) + classBody(add);
    if (atom.negate) return remove.length ? `(?:[^${inside}]|${classSource(remove)})` : `[^${inside}]`;
    return remove.length ? `(?:(?!${classSource(remove)})[${inside}])` : `[${inside}]`;
  });
  return spec.parts.map((p) => (typeof p === "string" ? p : atoms[p])).join("");
}

// Unicode without the surrogates, in slices: the code points' UTF-16 positions are easy to map back.
const SLICES = [];
for (let lo = 0; lo < 0x110000; lo += 0x10000) {
  for (let sub = lo; sub < lo + 0x10000; sub += 0x4000) SLICES.push([sub, sub + 0x3fff]);
}
let sliceText = null;

function slice(i) {
  sliceText ??= new Array(SLICES.length);
  if (sliceText[i] === undefined) {
    const [lo, hi] = SLICES[i];
    const cps = [];
    for (let c = lo; c <= hi; c++) if (c < 0xd800 || c > 0xdfff) cps.push(c);
    let s = "";
    for (let k = 0; k < cps.length; k += 4096) s += String.fromCodePoint(...cps.slice(k, k + 4096));
    sliceText[i] = s;
  }
  return sliceText[i];
}

function unitToCp(lo, unit) {
  // within a slice starting at lo: BMP slices are one unit per code point, except that surrogates are missing
  if (lo >= 0x10000) return lo + (unit >> 1);
  const cp = lo + unit;
  return lo <= 0xd800 && cp >= 0xd800 ? cp + 0x800 : cp;
}

/**
 * How the browser's \p{name} differs from ``ranges`` (regex's code points for it), over every code point
 * but the surrogates (text never holds one alone: clean_text replaces them): a generator that yields
 * between slices of Unicode (a worker gives way to its other work there) and returns {extra, missing},
 * or null when this browser does not know the property.
 */
export function* checkProperty(name, ranges) {
  let re;
  try {
    re = new RegExp(`\\p{${name}}+`, "gu");
  } catch {
    return null;
  }
  const found = [];
  for (let i = 0; i < SLICES.length; i++) {
    const text = slice(i);
    const lo = SLICES[i][0];
    re.lastIndex = 0;
    let m;
    while ((m = re.exec(text)) !== null) found.push([unitToCp(lo, m.index), unitToCp(lo, m.index + m[0].length - 1)]);
    yield i;
  }
  const browser = union(found);
  const noSurrogates = subtract(ranges, [[0xd800, 0xdfff]]);
  return { extra: subtract(browser, noSurrogates), missing: subtract(noSurrogates, browser) };
}

/** Run a generator to its end (what a caller does that need not give way). */
export function finish(steps) {
  for (;;) {
    const { value, done } = steps.next();
    if (done) return value;
  }
}
