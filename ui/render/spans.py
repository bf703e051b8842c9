"""Coloured token spans as HTML. Pure functions: spans in, escaped HTML string out.

Every piece of user text goes through ``html.escape`` here, so pasted
``<script>`` or ``<img onerror=...>`` is shown as text and never runs. The pages
put the string on screen with ``st.html`` (see ``show``).
"""

from __future__ import annotations

import functools
import html
from collections.abc import Collection, Sequence

from tokenizer.display import WHITESPACE_GLYPHS, decode_parts, hex_bytes
from tokenizer.trace import Span

# Light, distinguishable backgrounds (Tiktokenizer-like pastels), dark text on all.
PALETTE = (
    "#fde68a", "#bbf7d0", "#bfdbfe", "#fbcfe8", "#ddd6fe", "#fed7aa", "#a5f3fc", "#d9f99d",
    "#fecaca", "#c7d2fe", "#99f6e4", "#f5d0fe", "#e9d5ff", "#fef08a", "#bae6fd", "#fda4af",
)
HIGHLIGHT = "#f97316"

CSS = """
<style>
.bpe-spans{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:0.95rem;line-height:1.9;
  white-space:pre-wrap;word-break:break-word;padding:0.6rem 0.7rem;border:1px solid rgba(128,128,128,.25);border-radius:0.5rem;}
.bpe-spans .t{border-radius:3px;padding:1px 0;margin:0 1px 0 0;color:#111;box-shadow:inset 0 0 0 1px rgba(0,0,0,.06);}
.bpe-spans .t.sp{outline:2px solid #7c3aed;font-weight:600;}
.bpe-spans .t.hl{outline:2px solid #f97316;outline-offset:0;}
.bpe-spans .t.dim{opacity:.45;}
.bpe-spans .hx{font-size:0.8em;color:#7f1d1d;white-space:nowrap;}
.bpe-spans .ws{color:#6b7280;}
.bpe-spans .cut{display:inline-block;width:0;border-left:2px dashed #ef4444;height:1.2em;vertical-align:middle;margin:0 1px;}
.bpe-spans .chunk{border-bottom:2px solid rgba(99,102,241,.55);padding-bottom:1px;margin-right:3px;}
.bpe-empty{color:#6b7280;font-style:italic;padding:0.6rem 0;}
.bpe-more{color:#6b7280;font-size:0.85rem;}
</style>
"""


def color_index(token_id: int) -> int:
    """Stable palette slot for a token id (a multiplicative hash, same on every page)."""
    return (token_id * 2654435761 >> 7) % len(PALETTE)


def colors_for(ids: Sequence[int]) -> list[str]:
    """One colour per token: stable per id, and never the same as the left neighbour's.

    When two neighbours would share a colour (the same id twice, or two ids that
    hash alike), the right one takes the next palette colour.

    >>> c = colors_for([5, 5, 5]); c[0] != c[1] and c[1] != c[2]
    True
    """
    out: list[str] = []
    prev = -1
    for tid in ids:
        k = color_index(tid)
        if k == prev:
            k = (k + 1) % len(PALETTE)
        out.append(PALETTE[k])
        prev = k
    return out


@functools.lru_cache(maxsize=1 << 16)  # pure, and a page redraws the same tokens thousands of times
def token_html(data: bytes, *, show_whitespace: bool) -> str:
    """The visible, escaped body of one token.

    Whitespace glyphs are shown when asked (a newline glyph is followed by a real
    line break); bytes that are only part of a character appear as ``<F0 9F>``.

    >>> token_html(b"<b>", show_whitespace=False)
    '&lt;b&gt;'
    """
    out = []
    for text, ok in decode_parts(data):
        if not ok:
            out.append(f'<span class="hx">{html.escape(text)}</span>')
            continue
        if show_whitespace:
            buf = []
            for ch in text:
                glyph = WHITESPACE_GLYPHS.get(ch)
                if glyph is None:
                    buf.append(html.escape(ch) if ch.isprintable() else html.escape(hex_bytes(ch.encode())))
                else:
                    buf.append(f'<span class="ws">{glyph}</span>' + ("\n" if ch == "\n" else ""))
            out.append("".join(buf))
        else:
            out.append("".join(html.escape(ch) if (ch.isprintable() or ch in "\n\t\r ") else html.escape(hex_bytes(ch.encode())) for ch in text))
    return "".join(out)


def tooltip(span: Span) -> str:
    """Hover text: id, bytes and text of a token (escaped for an attribute)."""
    byte_list = " ".join(f"{b:02X}" for b in span.bytes[:24]) + (" …" if len(span.bytes) > 24 else "")
    text = "".join(part for part, _ in decode_parts(span.bytes))  # part of a character: its bytes, never U+FFFD
    kind = "special token" if span.special else ("partial character" if span.partial else "token")
    return html.escape(f"#{span.index} · id {span.id} · {kind}\nbytes: {byte_list}\ntext: {text!r}", quote=True)


def render_spans(
    spans: Sequence[Span],
    *,
    show_whitespace: bool = False,
    highlight: Collection[int] = (),
    dim: Collection[int] = (),
    cuts: Collection[int] = (),
    limit: int | None = None,
    empty: str = "Nothing to show yet: type or paste some text.",
    css: bool = True,
    tooltips: bool = True,
) -> str:
    """HTML for coloured spans.

    ``highlight`` and ``dim`` are span indices to outline or fade; ``cuts`` are span
    indices before which a dashed boundary is drawn (regex chunk boundaries, or
    where tokenizers disagree); ``limit`` caps the number of spans drawn (a note
    says how many were left out). ``tooltips=False`` gives each span a short
    hover text (its id) instead of the full one: half the HTML, for pages that
    redraw thousands of spans at every step.
    """
    head = CSS if css else ""
    if not spans:
        return head + f'<div class="bpe-empty">{html.escape(empty)}</div>'
    shown = spans if limit is None else spans[:limit]
    colors = colors_for([s.id for s in shown])
    hl = set(highlight)
    dm = set(dim)
    ct = set(cuts)
    parts = [head, '<div class="bpe-spans">']
    for s, color in zip(shown, colors):
        if s.index in ct and s.index:
            parts.append('<span class="cut"></span>')
        cls = "t"
        if s.special:
            cls += " sp"
        if s.index in hl:
            cls += " hl"
        if s.index in dm:
            cls += " dim"
        parts.append(
            f'<span class="{cls}" style="background:{color}" data-id="{s.id}" title="{tooltip(s) if tooltips else f"id {s.id}"}">'
            f"{token_html(s.bytes, show_whitespace=show_whitespace)}</span>"
        )
    parts.append("</div>")
    if limit is not None and len(spans) > limit:
        parts.append(f'<div class="bpe-more">Showing the first {limit:,} of {len(spans):,} tokens.</div>')
    return "".join(parts)


def show(html_text: str) -> None:
    """Put rendered spans on the page (``st.html``: no iframe, testid ``stHtml``)."""
    import streamlit as st

    st.html(html_text)
