"""Coloured token spans as HTML. Pure functions: spans in, escaped HTML string out.

Every piece of user text goes through ``html.escape`` here, so pasted
``<script>`` or ``<img onerror=...>`` is shown as text and never runs. The classes
used here are styled by ``style.css``; the pages put the string on screen with
``st.html``.
"""

from __future__ import annotations

import html
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from tokenizer.display import WHITESPACE_GLYPHS, decode_parts, hex_bytes
from tokenizer.trace import Span

# Light, distinguishable backgrounds (Tiktokenizer-like pastels), dark text on all.
PALETTE = (
    "#fde68a", "#bbf7d0", "#bfdbfe", "#fbcfe8", "#ddd6fe", "#fed7aa", "#a5f3fc", "#d9f99d",
    "#fecaca", "#c7d2fe", "#99f6e4", "#f5d0fe", "#e9d5ff", "#fef08a", "#bae6fd", "#fda4af",
)


def color_index(token_id: int) -> int:
    """Stable palette slot for a token id (a multiplicative hash, same on every page).

    >>> color_index(256) == color_index(256), 0 <= color_index(50256) < len(PALETTE)
    (True, True)
    """
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


def token_html(data: bytes, *, show_whitespace: bool) -> str:
    """The visible, escaped body of one token.

    Whitespace glyphs are shown when asked (a newline glyph is followed by a real
    line break); bytes that are only part of a character appear as ``<F0 9F>``.

    >>> token_html(b"<b>", show_whitespace=False)
    '&lt;b&gt;'
    >>> token_html(b" a\\n", show_whitespace=True)
    '<span class="ws">·</span>a<span class="ws">↵</span>\\n'
    >>> token_html("😄".encode()[:2], show_whitespace=False)
    '<span class="hx">&lt;F0 9F&gt;</span>'
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
    tooltips: bool = True,
) -> str:
    """HTML for coloured spans.

    ``highlight`` and ``dim`` are span indices to outline or fade; ``cuts`` are span
    indices before which a dashed boundary is drawn (regex chunk boundaries, or
    where tokenizers disagree); ``limit`` caps the number of spans drawn (a note
    says how many were left out). ``tooltips=False`` gives each span a short
    hover text (its id) instead of the full one: half the HTML, for pages that
    redraw thousands of spans at every step.

    >>> from tokenizer.trace import make_spans
    >>> print(render_spans(make_spans([(72, b"Hi")]), tooltips=False))
    <div class="bpe-spans"><span class="t" style="background:#fbcfe8" data-id="72" title="id 72">Hi</span></div>
    >>> render_spans([], empty="Nothing <here>")
    '<div class="bpe-empty">Nothing &lt;here&gt;</div>'
    """
    if not spans:
        return f'<div class="bpe-empty">{html.escape(empty)}</div>'
    shown = spans if limit is None else spans[:limit]
    colors = colors_for([s.id for s in shown])
    hl = set(highlight)
    dm = set(dim)
    ct = set(cuts)
    bodies: dict[bytes, str] = {}  # one call draws the same tokens many times; nothing outlives the call
    parts = ['<div class="bpe-spans">']
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
        body = bodies.get(s.bytes)
        if body is None:
            body = bodies[s.bytes] = token_html(s.bytes, show_whitespace=show_whitespace)
        parts.append(
            f'<span class="{cls}" style="background:{color}" data-id="{s.id}" title="{tooltip(s) if tooltips else f"id {s.id}"}">'
            f"{body}</span>"
        )
    parts.append("</div>")
    if limit is not None and len(spans) > limit:
        parts.append(f'<div class="bpe-more">Showing the first {limit:,} of {len(spans):,} tokens.</div>')
    return "".join(parts)


@dataclass(frozen=True)
class Row:
    """One tokenization in a stack of rows: a heading (label, token count) over its spans.

    ``dim`` and ``cuts`` are as in ``render_spans``.
    """

    label: str
    spans: Sequence[Span]
    dim: Collection[int] = ()
    cuts: Collection[int] = ()


def render_rows(rows: Sequence[Row], *, show_whitespace: bool = False, limit: int | None = None) -> str:
    """Several tokenizations of one text stacked, full width, each under its label and token count.

    >>> from tokenizer.trace import make_spans
    >>> html_text = render_rows([Row("<A>", make_spans([(1, b"ab")])), Row("B", make_spans([(2, b"a"), (3, b"b")]))])
    >>> html_text.count('class="bpe-row"'), "<b>&lt;A&gt;</b>" in html_text, '<span class="n">2 tokens</span>' in html_text
    (2, True, True)
    """
    parts = []
    for r in rows:
        parts.append('<div class="bpe-row">')
        parts.append(f'<div class="bpe-row-head"><b>{html.escape(r.label)}</b><span class="n">{len(r.spans):,} tokens</span></div>')
        parts.append(render_spans(r.spans, show_whitespace=show_whitespace, dim=r.dim, cuts=r.cuts, limit=limit))
        parts.append("</div>")
    return "".join(parts)
