"""What the browser draws, as plain data: token spans, rows of them, pre-tokenization chunks, pieces, Step through's
word ladder and merge trees, turned into JSON-able records that ``ui/web/draw.js`` (and ``trees.js``) draw.

The server never writes this HTML: the browser is the one renderer, so a page the server fills and the live view
the browser fills look the same by construction, and every piece of user text is escaped in one place
(``ui/web/spans.js`` ``escapeHtml``). A token's bytes travel as base64, all of a record's tokens in one string.

Pure functions (no Streamlit); ``ui.common.draw`` puts a record on the page.
"""

from __future__ import annotations

import base64
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from tokenizer.trace import MergeTree, Span

from .trees import build_order, rank_line


def tokens(spans: Sequence[Span], limit: int | None = None) -> dict:
    """The first ``limit`` spans (all when None) as one record, with how many there are in all.

    >>> from tokenizer.trace import make_spans
    >>> tokens(make_spans([(72, b"Hi"), (5, b"<|x|>")], {5}))
    {'ids': [72, 5], 'lens': [2, 5], 'data': 'SGk8fHh8Pg==', 'special': [1], 'start': 0, 'total': 2}
    >>> tokens(make_spans([(72, b"Hi"), (5, b"!")]), limit=1)["ids"]
    [72]
    """
    shown = spans if limit is None else spans[:limit]
    return {
        "ids": [s.id for s in shown],
        "lens": [len(s.bytes) for s in shown],
        "data": base64.b64encode(b"".join(s.bytes for s in shown)).decode("ascii"),
        "special": [k for k, s in enumerate(shown) if s.special],
        "start": shown[0].index if shown else 0,
        "total": len(spans),
    }


@dataclass(frozen=True)
class Row:
    """One tokenization (or one pattern's chunks) in a stack of rows: a heading over its spans; ``dim`` and ``cuts``
    are span indices to fade, and to mark with a dashed boundary before."""

    label: str
    spans: Sequence[Span]
    dim: Collection[int] = ()
    cuts: Collection[int] = ()


def rows(stack: Iterable[Row], limit: int | None = None) -> list[dict]:
    """The rows, each drawing at most ``limit`` spans.

    >>> from tokenizer.trace import make_spans
    >>> [r["label"] for r in rows([Row("A", make_spans([(1, b"a")]), cuts={0})])], rows([Row("A", [])])[0]["cuts"]
    (['A'], [])
    """
    return [{"label": r.label, "tokens": tokens(r.spans, limit), "dim": sorted(r.dim), "cuts": sorted(r.cuts)} for r in stack]


@dataclass(frozen=True)
class PieceRow:
    """One piece of a cut text: its label, a line about it, its tokens, and the character a cut before it broke."""

    label: str
    detail: str
    spans: Sequence[Span]
    broken: str = ""


def pieces(stack: Sequence[PieceRow], limit: int) -> tuple[list[dict], int]:
    """The pieces up to ``limit`` tokens in all (the last one cut short), and how many pieces were left out.

    >>> from tokenizer.trace import make_spans
    >>> drawn, left = pieces([PieceRow("P1", "", make_spans([(1, b"a"), (2, b"b")])), PieceRow("P2", "", make_spans([(3, b"c")]))], 1)
    >>> [d["tokens"]["ids"] for d in drawn], drawn[0]["tokens"]["total"], left
    ([[1]], 2, 1)
    """
    out, drawn = [], 0
    for row in stack:
        if drawn >= limit:
            break
        room = limit - drawn
        out.append({"label": row.label, "detail": row.detail, "broken": row.broken, "tokens": tokens(row.spans, room)})
        drawn += min(len(row.spans), room)
    return out, len(stack) - len(out)


def ladder(rungs: Iterable[tuple[str, Sequence[Span], Collection[int]]]) -> list[dict]:
    """Step through's word ladder: per rung, what happened, the spans after it and the indices of the new ones."""
    return [{"what": what, "tokens": tokens(spans), "fresh": sorted(new)} for what, spans, new in rungs]


def tree(t: MergeTree, rank_of: Mapping[int, int]) -> dict:
    """A merge tree, each merged node with its merge's rank (None where the tokenizer has none for it).

    >>> tree(MergeTree(256, b"ab", (MergeTree(97, b"a"), MergeTree(98, b"b"))), {256: 0})["kids"][1]
    {'id': 98, 'data': 'Yg==', 'rank': None, 'kids': []}
    """
    return {
        "id": t.id,
        "data": base64.b64encode(t.bytes).decode("ascii"),
        "rank": rank_of.get(t.id) if t.children else None,
        "kids": [tree(c, rank_of) for c in t.children],
    }


def panel(t: MergeTree, rank_of: Mapping[int, int], *, where: str = "", special: bool = False) -> dict:
    """How one token was built (Compare, under a clicked token): its tree, the merges in the order they were learned,
    the sentence about its rank, the tokenizer's name (``where``) and whether it is a special token."""
    order = build_order(t, rank_of) if t.children and not special else []
    line = rank_line(t.id, rank_of[t.id]) if order and t.id in rank_of else ""
    return {"tree": tree(t, rank_of), "where": where, "special": special, "line": line, "order": [list(o) for o in order]}
