// Coloured token spans as HTML: the app's one renderer of them. draw.js draws the server's records with it, and the
// live view and Step through draw their own, so every page's spans look alike by construction, styled by
// ui/render/style.css. Its text helpers (visible, decodeParts) give what tokenizer/display.py gives for the Python
// tables (tests/web/spans.test.mjs checks them on generated cases).
//
// Every piece of user text goes through escapeHtml (Python's html.escape), so pasted <script> or
// <img onerror=...> is shown as text and never runs. A token is its bytes (a Uint8Array): a token can hold
// part of a character, which is shown as hex, <F0 9F>, never decoded on its own.
import { isPrintable } from "./unicode.js";

// Paul Tol's "light" scheme, made for colour-blind readers and for labels in black: every colour gives the spans'
// text at least 7:1 contrast (WCAG AAA), and for each palette slot the slots that may
// stand right of it (not confusable under colour-vision deficiencies: ui/render/colours.py computes it;
// the test checks this table against it).
export const PALETTE = ["#77AADD", "#99DDFF", "#44BB99", "#BBCC33", "#AAAA00", "#EEDD88", "#EE8866", "#FFAABB", "#DDDDDD"];
export const CLEAR = [
  [1, 2, 3, 4, 5, 6, 7, 8],
  [0, 2, 3, 4, 5, 6, 7, 8],
  [0, 1, 3, 4, 5, 6, 7, 8],
  [0, 1, 2, 5, 6, 7, 8],
  [0, 1, 2, 5, 6, 7, 8],
  [0, 1, 2, 3, 4, 6, 7, 8],
  [0, 1, 2, 3, 4, 5, 7, 8],
  [0, 1, 2, 3, 4, 5, 6],
  [0, 1, 2, 3, 4, 5, 6],
];
const CLEAR_SETS = CLEAR.map((slots) => new Set(slots));
export const WHITESPACE_GLYPHS = { " ": "·", "\n": "↵", "\t": "→", "\r": "␍" };

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;" };

/** Python's html.escape(s, quote=True): the only way user text reaches HTML here. */
export function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** 1234567 -> "1,234,567" (Python's f"{n:,}"). */
export function fmtInt(n) {
  const s = String(Math.abs(Math.trunc(n)));
  const out = s.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return n < 0 ? "-" + out : out;
}

/** Stable palette slot for a token id: (id * 2654435761 >> 7) % 9, exactly as Python computes it. */
export function colorIndex(tokenId) {
  if (tokenId < 3_000_000) return Math.floor((tokenId * 2654435761) / 128) % PALETTE.length; // exact below 2**53
  return Number(((BigInt(tokenId) * 2654435761n) >> 7n) % BigInt(PALETTE.length));
}

/** Palette slots, one per id: stable per id, and never alike to the left neighbour's (one colour per token). */
export function colorSlots(ids) {
  const out = new Array(ids.length);
  const n = PALETTE.length;
  let prev = -1;
  for (let i = 0; i < ids.length; i++) {
    let k = colorIndex(ids[i]);
    if (prev >= 0 && !CLEAR_SETS[prev].has(k)) {
      for (let d = 1; d < n; d++) {
        if (CLEAR_SETS[prev].has((k + d) % n)) {
          k = (k + d) % n;
          break;
        }
      }
    }
    out[i] = k;
    prev = k;
  }
  return out;
}

export function colorsFor(ids) {
  return colorSlots(ids).map((k) => PALETTE[k]);
}

function hex2(b) {
  return b.toString(16).toUpperCase().padStart(2, "0");
}

/** [0xF0, 0x9F] -> "<F0 9F>" (tokenizer/display.py hex_bytes). */
export function hexBytes(bytes) {
  return "<" + Array.from(bytes, hex2).join(" ") + ">";
}

// The length of the valid UTF-8 sequence at bytes[i], or -(length of the invalid part) to skip: Python's decoder
// (and the WHATWG one) reject the maximal prefix of a sequence that cannot be completed.
function sequenceAt(bytes, i) {
  const b = bytes[i];
  if (b < 0x80) return 1;
  let need;
  let lo = 0x80;
  let hi = 0xbf;
  if (b >= 0xc2 && b <= 0xdf) need = 1;
  else if (b >= 0xe0 && b <= 0xef) {
    need = 2;
    if (b === 0xe0) lo = 0xa0;
    if (b === 0xed) hi = 0x9f;
  } else if (b >= 0xf0 && b <= 0xf4) {
    need = 3;
    if (b === 0xf0) lo = 0x90;
    if (b === 0xf4) hi = 0x8f;
  } else return -1;
  for (let j = 1; j <= need; j++) {
    const c = bytes[i + j];
    if (c === undefined || c < lo || c > hi) return -j;
    lo = 0x80;
    hi = 0xbf;
  }
  return need + 1;
}

const DECODER = new TextDecoder("utf-8", { ignoreBOM: true }); // a leading U+FEFF is a character of the token

/** Split token bytes into [text, isText] runs: valid UTF-8, or the bytes around it as one hex group
 *  (tokenizer/display.py decode_parts). */
export function decodeParts(bytes) {
  const parts = [];
  let start = 0; // start of the current valid run
  let i = 0;
  const n = bytes.length;
  let bad = null; // bytes of the current invalid run
  const flushText = (end) => {
    if (end > start) parts.push([DECODER.decode(bytes.subarray(start, end)), true]);
  };
  while (i < n) {
    const len = sequenceAt(bytes, i);
    if (len > 0) {
      if (bad) {
        parts.push([hexBytes(bad), false]);
        bad = null;
        start = i;
      }
      i += len;
    } else {
      if (!bad) {
        flushText(i);
        bad = [];
      }
      for (let j = 0; j < -len; j++) bad.push(bytes[i + j]);
      i += -len;
      start = i;
    }
  }
  if (bad) parts.push([hexBytes(bad), false]);
  else flushText(n);
  return parts;
}

/** True if the bytes are not a whole number of UTF-8 characters. */
export function isPartial(bytes) {
  for (let i = 0; i < bytes.length; ) {
    const len = sequenceAt(bytes, i);
    if (len < 0) return true;
    i += len;
  }
  return false;
}

const ENCODER = new TextEncoder();

function charHex(ch) {
  return hexBytes(ENCODER.encode(ch));
}

/** A character drawn as nothing that is not a space, newline or tab (tokenizer/display.py is_control). */
export function isControl(ch) {
  return !" \n\t".includes(ch) && !isPrintable(ch.codePointAt(0));
}

/** Token bytes as visible text: whitespace glyphs, hex for partial UTF-8 and for what cannot be printed
 *  (tokenizer/display.py visible). */
export function visible(bytes, { whitespace = true } = {}) {
  let out = "";
  for (const [text, ok] of decodeParts(bytes)) {
    if (!ok) {
      out += text;
      continue;
    }
    for (const ch of text) {
      if (whitespace && WHITESPACE_GLYPHS[ch] !== undefined) out += WHITESPACE_GLYPHS[ch];
      else if (isControl(ch)) out += charHex(ch);
      else out += ch;
    }
  }
  return out;
}

/** The visible, escaped body of one token: whitespace glyphs when asked, hex for partial characters and for what
 *  would draw as nothing. */
export function tokenHtml(bytes, { showWhitespace }) {
  let out = "";
  for (const [text, ok] of decodeParts(bytes)) {
    if (!ok) {
      out += '<span class="hx">' + escapeHtml(text) + "</span>";
      continue;
    }
    for (const ch of text) {
      const glyph = WHITESPACE_GLYPHS[ch];
      if (showWhitespace && glyph !== undefined) {
        out += '<span class="ws">' + glyph + "</span>" + (ch === "\n" ? "\n" : "");
      } else if (isControl(ch)) {
        out += '<span class="hx">' + escapeHtml(charHex(ch)) + "</span>";
      } else {
        out += escapeHtml(ch);
      }
    }
  }
  return out;
}

/** Python's repr() of a str: the quotes it picks and the escapes it writes. */
export function pyRepr(text) {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of text) {
    const cp = ch.codePointAt(0);
    if (ch === quote || ch === "\\") out += "\\" + ch;
    else if (ch === "\t") out += "\\t";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (cp < 0x20 || cp === 0x7f) out += "\\x" + cp.toString(16).padStart(2, "0");
    else if (cp < 0x7f || isPrintable(cp)) out += ch;
    else if (cp <= 0xff) out += "\\x" + cp.toString(16).padStart(2, "0");
    else if (cp <= 0xffff) out += "\\u" + cp.toString(16).padStart(4, "0");
    else out += "\\U" + cp.toString(16).padStart(8, "0");
  }
  return out + quote;
}

/** Everything in a span's hover text after its position (escaped for an attribute). */
export function tooltipTail(id, bytes, special) {
  let list = Array.from(bytes.subarray(0, 24), hex2).join(" ");
  if (bytes.length > 24) list += " …";
  const text = decodeParts(bytes)
    .map(([part]) => part)
    .join("");
  const kind = special ? "special token" : isPartial(bytes) ? "partial character" : "token";
  return escapeHtml(`id ${id} · ${kind}\nbytes: ${list}\ntext: ${pyRepr(text)}`);
}

/** A span as the renderers take it: its position, id, bytes and whether it is a special token. */
export function makeSpans(tokens, specialIds = new Set()) {
  return tokens.map(([id, bytes], index) => ({ index, id, bytes, special: specialIds.has(id) }));
}

/** The tokens as a table for screen readers, visually hidden: position, id, text and bytes. */
export function srTable(spans, { caption = "Tokens", total = spans.length } = {}) {
  const head = '<tr><th scope="col">token</th><th scope="col">id</th><th scope="col">text</th><th scope="col">bytes</th></tr>';
  const n = total;
  return `<div class="bpe-sr"><table><caption>${escapeHtml(caption)}: ${fmtInt(n)} token${n !== 1 ? "s" : ""}</caption>${head}${srRows(spans)}</table></div>`;
}

/** The screen-reader table's rows for ``spans`` (srTable's body: a long table can be filled a block at a time). */
export function srRows(spans) {
  let rows = "";
  for (const s of spans) {
    rows += `<tr><td>${s.index + 1}</td><td>${s.id}</td><td>${escapeHtml(visible(s.bytes))}</td><td>${Array.from(s.bytes, hex2).join(" ")}</td></tr>`;
  }
  return rows;
}

/** HTML for coloured spans, each with its hover text, and the screen-reader table.
 *  highlight, dim and cuts are Sets of span indices; bodies (optional) caches token bodies by id across calls. */
export function renderSpans(
  spans,
  {
    showWhitespace = false,
    highlight = new Set(),
    dim = new Set(),
    cuts = new Set(),
    limit = null,
    empty = "Nothing to show yet: type or paste some text.",
    tooltips = true,
    caption = "Tokens",
    srTableToo = true,
  } = {},
) {
  if (!spans.length) return `<div class="bpe-empty">${escapeHtml(empty)}</div>`;
  const shown = limit == null ? spans : spans.slice(0, limit);
  const slots = colorSlots(shown.map((s) => s.id));
  const bodies = new Map();
  const parts = ['<div class="bpe-spans" aria-hidden="true">'];
  for (let i = 0; i < shown.length; i++) {
    const s = shown[i];
    if (s.index && cuts.has(s.index)) parts.push('<span class="cut"></span>');
    parts.push(spanHtml(s, PALETTE[slots[i]], bodies, { showWhitespace, tooltips, hl: highlight.has(s.index), dim: dim.has(s.index) }));
  }
  parts.push("</div>");
  if (srTableToo) parts.push(srTable(shown, { caption }));
  if (limit != null && spans.length > limit) {
    parts.push(`<div class="bpe-more">Showing the first ${fmtInt(limit)} of ${fmtInt(spans.length)} tokens.</div>`);
  }
  return parts.join("");
}

/** One span's element, as renderSpans writes it. bodies: a Map id -> body HTML (a token's bytes are fixed per id). */
export function spanHtml(s, color, bodies, { showWhitespace = false, tooltips = true, hl = false, dim = false } = {}) {
  let cls = "t";
  if (s.special) cls += " sp";
  if (hl) cls += " hl";
  if (dim) cls += " dim";
  const key = showWhitespace ? s.id : -1 - s.id;
  let body = bodies.get(key);
  if (body === undefined) {
    body = tokenHtml(s.bytes, { showWhitespace });
    bodies.set(key, body);
  }
  const title = tooltips ? `#${s.index} · ${tooltipTail(s.id, s.bytes, s.special)}` : `id ${s.id}`;
  return `<span class="${cls}" style="background:${color}" data-id="${s.id}" title="${title}">${body}</span>`;
}

/** inner in a box that scrolls past height pixels (null: no box), reachable by the keyboard. */
export function scrollBox(inner, { height, label }) {
  if (height == null) return inner;
  return `<div class="bpe-scroll" tabindex="0" role="region" aria-label="${escapeHtml(label)}" style="max-height:${Math.trunc(height)}px">${inner}</div>`;
}
