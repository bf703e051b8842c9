"""One ``st.components.v2`` component puts ``ui.render.records`` on the page; ``ui/web/draw.js`` draws them all."""

from __future__ import annotations

import functools
from collections.abc import Collection, Iterable, Mapping, Sequence

import streamlit as st

from tokenizer.trace import MergeTree, Span
from ui.render import records
from ui.web import model as web_model


@functools.cache
def _component():
    """Registered once per process, on first use (never at import); not isolated: the app's stylesheet styles it."""
    js = web_model.component_script(web_model.UI / "web" / "draw.js")
    return st.components.v2.component("bpe_lab_draw", js=js, isolate_styles=False)


def _show(message: dict, key: str | None) -> None:
    _component()(key=key, data=message, height="content")


def spans(spans: Sequence[Span], *, show_whitespace=False, highlight: Collection[int] = (), limit=None,
          caption="Tokens", scroll: tuple[int, str] | None = None, key=None) -> None:  # fmt: skip
    """Coloured spans (at most ``limit``), outlining ``highlight``; ``scroll=(height px, label)`` boxes them."""
    options = {"showWhitespace": show_whitespace, "highlight": sorted(highlight), "limit": limit, "caption": caption}
    box = {"scroll": {"height": scroll[0], "label": scroll[1]}} if scroll else {}
    _show({"kind": "spans", "tokens": records.tokens(spans, limit), "options": options, **box}, key)


def rows(stack: Iterable[records.Row], *, show_whitespace=False, limit=None, kind="rows", key=None) -> None:
    """Tokenizations of one text stacked under their labels; ``kind="chunks"`` for pre-tokenization chunks."""
    options = {"showWhitespace": show_whitespace, "limit": limit}
    _show({"kind": kind, "rows": records.rows(stack, limit), "options": options}, key)


def pieces(stack: Sequence[records.PieceRow], *, limit: int, show_whitespace=False, key=None) -> None:
    """A text's tokens in pieces, up to ``limit`` tokens in all; each token's hover text is its id only."""
    drawn, left = records.pieces(stack, limit)
    options = {"showWhitespace": show_whitespace, "tooltips": False, "left": left}
    _show({"kind": "pieces", "rows": drawn, "options": options}, key)


def ladder(rungs: Iterable[tuple[str, Sequence[Span], Collection[int]]], *, key=None) -> None:
    """Step through's word ladder: the word, merge by merge."""
    _show({"kind": "ladder", "rungs": records.ladder(rungs)}, key)


def tree(t: MergeTree, rank_of: Mapping[int, int], *, key=None) -> None:
    """A token's merge tree, down to bytes."""
    _show({"kind": "tree", "tree": records.tree(t, rank_of)}, key)
