"""A text's tokens in pieces of N tokens as escaped HTML (Tokenize's "Cut into pieces"): each piece's tokens drawn by
``spans.render_spans`` in a band of its own, the bands alternating in colour, each under a head that says which piece
it is, how many tokens and characters it holds, and whether the cut before it broke a character.

Pure functions (no Streamlit); every piece of text is escaped.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

from tokenizer.trace import Span

from .spans import render_spans


@dataclass(frozen=True)
class PieceRow:
    """One piece to draw: its label, a line about it, its tokens, and the character a cut before it broke (or "")."""

    label: str
    detail: str
    spans: Sequence[Span]
    broken: str = ""


def render_pieces(
    rows: Sequence[PieceRow], *, show_whitespace: bool = False, limit: int | None = None, tooltips: bool = True
) -> str:
    """The pieces one under another; at most ``limit`` tokens drawn in all (a note says how many pieces were left out).
    ``tooltips=False``: each token's hover text is its id only (``render_spans``), half the HTML.

    >>> from tokenizer.trace import make_spans
    >>> h = render_pieces([PieceRow("Piece 1", "2 tokens", make_spans([(1, b"a"), (2, b"<b>")])), PieceRow("Piece 2", "1 token", make_spans([(3, b"c")]), "😄")])
    >>> h.count('class="bpe-piece"'), h.count('class="bpe-piece alt"'), "&lt;b&gt;" in h, "falls inside 😄" in h
    (1, 1, True, True)
    >>> "1 more piece" in render_pieces([PieceRow("P1", "", make_spans([(1, b"a")])), PieceRow("P2", "", make_spans([(2, b"b")]))], limit=1)
    True
    """
    parts = []
    memo: dict = {}  # a token in several pieces is escaped once
    drawn = 0
    shown = 0
    for k, row in enumerate(rows):
        if limit is not None and drawn >= limit:
            break
        room = None if limit is None else limit - drawn
        head = f"<b>{html.escape(row.label)}</b>"
        if row.detail:
            head += f'<span class="n">{html.escape(row.detail)}</span>'
        if row.broken:
            head += f'<span class="split">✂ the cut before it falls inside {html.escape(row.broken)}</span>'
        parts.append(f'<div class="bpe-piece{" alt" if k % 2 else ""}"><div class="bpe-piece-head">{head}</div>')
        parts.append(
            render_spans(row.spans, show_whitespace=show_whitespace, limit=room, caption=row.label, tooltips=tooltips, memo=memo)
        )
        parts.append("</div>")
        drawn += len(row.spans) if room is None else min(len(row.spans), room)
        shown += 1
    left = len(rows) - shown
    if left:
        parts.append(f'<div class="bpe-more">{left:,} more piece{"s" if left != 1 else ""} not drawn; the table has them.</div>')
    return "".join(parts)
