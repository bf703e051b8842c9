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

from tokenizer.display import WHITESPACE_GLYPHS, decode_parts, hex_bytes, is_control, visible
from tokenizer.trace import Span

from .colours import confusable

# Paul Tol's "light" scheme, made for colour-blind readers and for labels in black:
# every colour gives the spans' text at least 7:1 contrast (WCAG AAA), and ``colors_for``
# never puts two colours side by side that a reader with a colour-vision deficiency sees
# as alike (``colours.confusable``; tests/ui/render/test_colours.py checks both).
PALETTE = ("#77AADD", "#99DDFF", "#44BB99", "#BBCC33", "#AAAA00", "#EEDD88", "#EE8866", "#FFAABB", "#DDDDDD")
#: The colours of text drawn on a token: the text, whitespace glyphs, hex bytes (``style.css``).
TEXT_COLOURS = ("#111111", "#303036", "#5c1010")
# _CLEAR[k]: the palette slots that may stand right of slot k (clearly different from it)
_CLEAR = tuple(frozenset(j for j in range(len(PALETTE)) if not confusable(PALETTE[k], PALETTE[j])) for k in range(len(PALETTE)))


def color_index(token_id: int) -> int:
    """Stable palette slot for a token id (a multiplicative hash, same on every page).

    >>> color_index(256) == color_index(256), 0 <= color_index(50256) < len(PALETTE)
    (True, True)
    """
    return (token_id * 2654435761 >> 7) % len(PALETTE)


def colors_for(ids: Sequence[int]) -> list[str]:
    """One colour per token: stable per id, and never alike to the left neighbour's.

    When two neighbours would share a colour (the same id twice, or two ids that
    hash alike) or get two colours a colour-blind reader confuses, the right one
    takes the next palette colour that is clearly different.

    >>> c = colors_for([5, 5, 5]); c[0] != c[1] and c[1] != c[2]
    True
    """
    out: list[str] = []
    prev = -1
    for tid in ids:
        k = color_index(tid)
        if prev >= 0 and k not in _CLEAR[prev]:
            n = len(PALETTE)
            k = next((k + d) % n for d in range(1, n) if (k + d) % n in _CLEAR[prev])
        out.append(PALETTE[k])
        prev = k
    return out


def token_html(data: bytes, *, show_whitespace: bool) -> str:
    """The visible, escaped body of one token.

    Whitespace glyphs are shown when asked (a newline glyph is followed by a real
    line break); bytes that are only part of a character appear as ``<F0 9F>``, and
    so does any other character that would draw as nothing (``display.is_control``:
    a carriage return with whitespace hidden, a zero-width space), in the same style.

    >>> token_html(b"<b>", show_whitespace=False)
    '&lt;b&gt;'
    >>> token_html(b" a\\n", show_whitespace=True)
    '<span class="ws">·</span>a<span class="ws">↵</span>\\n'
    >>> token_html("😄".encode()[:2], show_whitespace=False)
    '<span class="hx">&lt;F0 9F&gt;</span>'
    >>> token_html(b"\\r\\n//", show_whitespace=False)
    '<span class="hx">&lt;0D&gt;</span>\\n//'
    """
    out = []
    for text, ok in decode_parts(data):
        if not ok:
            out.append(f'<span class="hx">{html.escape(text)}</span>')
            continue
        for ch in text:
            glyph = WHITESPACE_GLYPHS.get(ch) if show_whitespace else None
            if glyph is not None:
                out.append(f'<span class="ws">{glyph}</span>' + ("\n" if ch == "\n" else ""))
            elif is_control(ch):
                out.append(f'<span class="hx">{html.escape(hex_bytes(ch.encode()))}</span>')
            else:
                out.append(html.escape(ch))
    return "".join(out)


def tooltip(span: Span) -> str:
    """Hover text: id, bytes and text of a token (escaped for an attribute).

    >>> from tokenizer.trace import make_spans
    >>> tooltip(make_spans([(72, b"Hi")])[0]).splitlines()
    ['#0 · id 72 · token', 'bytes: 48 69', 'text: &#x27;Hi&#x27;']
    """
    return f"#{span.index} · {_tooltip_tail(span.id, span.bytes, span.special, span.partial)}"


def _tooltip_tail(tid: int, data: bytes, special: bool, partial: bool) -> str:
    """Everything in a tooltip after the span's position: the same for every occurrence of a token (escaped)."""
    byte_list = " ".join(f"{b:02X}" for b in data[:24]) + (" …" if len(data) > 24 else "")
    text = "".join(part for part, _ in decode_parts(data))  # part of a character: its bytes, never U+FFFD
    kind = "special token" if special else ("partial character" if partial else "token")
    return html.escape(f"id {tid} · {kind}\nbytes: {byte_list}\ntext: {text!r}", quote=True)


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
    caption: str = "Tokens",
    memo: dict | None = None,
) -> str:
    """HTML for coloured spans.

    ``highlight`` and ``dim`` are span indices to outline or fade; ``cuts`` are span
    indices before which a dashed boundary is drawn (regex chunk boundaries, or
    where tokenizers disagree); ``limit`` caps the number of spans drawn (a note
    says how many were left out). ``tooltips=False`` gives each span a short
    hover text (its id) instead of the full one: half the HTML, for pages that
    redraw thousands of spans at every step.

    The coloured spans are hidden from screen readers, which read the same tokens
    from a visually hidden table instead (``sr_table``, under ``caption``).

    ``memo``: a dict a caller drawing several lots of spans at once hands to each call
    (``render_pieces``), so a token met again is escaped once for all of them; nothing in
    it outlives that drawing.

    >>> from tokenizer.trace import make_spans
    >>> print(render_spans(make_spans([(72, b"Hi")]), tooltips=False).split('<div class="bpe-sr">')[0])
    <div class="bpe-spans" aria-hidden="true"><span class="t" style="background:#77AADD" data-id="72" title="id 72">Hi</span></div>
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
    memo = {} if memo is None else memo  # one drawing shows the same tokens many times; nothing outlives it
    bodies: dict[bytes, str] = memo.setdefault(("body", show_whitespace), {})
    tails: dict[tuple, str] = memo.setdefault("tail", {})
    parts = ['<div class="bpe-spans" aria-hidden="true">']
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
        if tooltips:
            key = (s.id, s.bytes, s.special)
            tail = tails.get(key)
            if tail is None:
                tail = tails[key] = _tooltip_tail(*key, s.partial)
            title = f"#{s.index} · {tail}"
        else:
            title = f"id {s.id}"
        parts.append(f'<span class="{cls}" style="background:{color}" data-id="{s.id}" title="{title}">{body}</span>')
    parts.append("</div>")
    parts.append(sr_table(shown, caption=caption, memo=memo))
    if limit is not None and len(spans) > limit:
        parts.append(f'<div class="bpe-more">Showing the first {limit:,} of {len(spans):,} tokens.</div>')
    return "".join(parts)


def scroll_box(inner: str, *, height: int | None, label: str) -> str:
    """``inner`` in a box that scrolls past ``height`` pixels (None: no box), which the keyboard can focus and
    scroll and a screen reader names with ``label``.

    >>> scroll_box("<p>x</p>", height=None, label="L")
    '<p>x</p>'
    >>> scroll_box("<p>x</p>", height=420, label="Tokens & more")
    '<div class="bpe-scroll" tabindex="0" role="region" aria-label="Tokens &amp; more" style="max-height:420px"><p>x</p></div>'
    """
    if height is None:
        return inner
    return f'<div class="bpe-scroll" tabindex="0" role="region" aria-label="{html.escape(label, quote=True)}" style="max-height:{int(height)}px">{inner}</div>'


def sr_table(spans: Sequence[Span], *, caption: str = "Tokens", memo: dict | None = None) -> str:
    """The tokens as a table for screen readers (visually hidden, ``.bpe-sr``): position, id, text and bytes.

    Each distinct token's text and bytes cells are made once (``memo``: as in ``render_spans``).

    >>> from tokenizer.trace import make_spans
    >>> sr_table(make_spans([(9906, b"Hi"), (220, b" ")]), caption="<GPT>")
    '<div class="bpe-sr"><table><caption>&lt;GPT&gt;: 2 tokens</caption><tr><th scope="col">token</th><th scope="col">id</th><th scope="col">text</th><th scope="col">bytes</th></tr><tr><td>1</td><td>9906</td><td>Hi</td><td>48 69</td></tr><tr><td>2</td><td>220</td><td>·</td><td>20</td></tr></table></div>'
    """
    head = '<tr><th scope="col">token</th><th scope="col">id</th><th scope="col">text</th><th scope="col">bytes</th></tr>'
    cells: dict[bytes, str] = ({} if memo is None else memo).setdefault("sr", {})
    out = []
    for s in spans:
        cell = cells.get(s.bytes)
        if cell is None:
            cell = cells[s.bytes] = f"<td>{html.escape(visible(s.bytes))}</td><td>{s.bytes.hex(' ').upper()}</td></tr>"
        out.append(f"<tr><td>{s.index + 1}</td><td>{s.id}</td>{cell}")
    rows = "".join(out)
    return f'<div class="bpe-sr"><table><caption>{html.escape(caption)}: {len(spans):,} token{"s" if len(spans) != 1 else ""}</caption>{head}{rows}</table></div>'


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
    memo: dict = {}  # a token in several rows is escaped once
    for r in rows:
        parts.append('<div class="bpe-row">')
        parts.append(
            f'<div class="bpe-row-head"><b>{html.escape(r.label)}</b><span class="n">{len(r.spans):,} tokens</span></div>'
        )
        parts.append(
            render_spans(
                r.spans, show_whitespace=show_whitespace, dim=r.dim, cuts=r.cuts, limit=limit, caption=r.label, memo=memo
            )
        )
        parts.append("</div>")
    return "".join(parts)
