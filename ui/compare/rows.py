"""Compare's rows of spans as a component you can click (``rows.js``, Streamlit's public ``st.components.v2.component``):
a click on a token reports it, and the server answers with how that token was built, drawn under its row.

The server sends the rows and the panel as records (``ui.render.records``), drawn by ``ui/web/draw.js``. The
browser keeps the rows while their signature is the same, so a
click costs one small message each way. A pick carries the signature of the tokens it was made on (the
tokenizers and their ids: showing whitespace keeps it, another text does not), so a click on rows that have
since changed is ignored.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import streamlit as st

from ui.web import model as web_model

HERE = Path(__file__).parent


@functools.cache
def _component():
    """Registered once per process, on first use (never at import)."""
    return st.components.v2.component(
        "bpe_lab_compare_rows",
        js=web_model.component_script(HERE / "rows.js"),
        isolate_styles=False,  # the spans and the tree take the page's stylesheet, presenter mode included
    )


def signature(value: object) -> str:
    """A short name for one drawing of the rows (their records) or for the tokens in them (a tuple of keys and ids).

    >>> signature(("a", 1)) == signature(("a", 1)) != signature(("b", 1))
    True
    """
    return hashlib.blake2b(repr(value).encode("utf-8"), digest_size=8).hexdigest()


@dataclass(frozen=True)
class Pick:
    """A clicked token: its row (tokenizer), its place in that row, its id."""

    row: int
    index: int
    id: int


def parse_pick(value: Any, sig: str) -> Pick | None:
    """The pick the page reported, if it is well formed and about these tokens (``sig``), else None.

    >>> parse_pick({"row": 1, "index": 4, "id": 262, "sig": "ab"}, "ab")
    Pick(row=1, index=4, id=262)
    >>> parse_pick({"row": 1, "index": 4, "id": 262, "sig": "old"}, "ab") is None, parse_pick(None, "ab") is None
    (True, True)
    >>> parse_pick({"row": "1", "index": 4, "id": 262, "sig": "ab"}, "ab") is None
    True
    """
    if not isinstance(value, Mapping) or value.get("sig") != sig:
        return None
    fields = [value.get(k) for k in ("row", "index", "id")]
    if not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in fields):
        return None
    return Pick(*fields)


def check_pick(pick: Pick | None, rows: Sequence[Sequence[Any]], limit: int) -> Pick | None:
    """The pick if row ``pick.row`` of ``rows`` (each a row's spans) draws id ``pick.id`` at ``pick.index``.

    >>> from tokenizer.trace import make_spans
    >>> rows = [make_spans([(72, b"H"), (105, b"i")])]
    >>> check_pick(Pick(0, 1, 105), rows, 10), check_pick(Pick(0, 1, 72), rows, 10), check_pick(Pick(0, 1, 105), rows, 1)
    (Pick(row=0, index=1, id=105), None, None)
    """
    if pick is None or pick.row >= len(rows) or pick.index >= min(len(rows[pick.row]), limit):
        return None
    return pick if rows[pick.row][pick.index].id == pick.id else None


def reported(key: str) -> Any:
    """What the page last reported (``{"row", "index", "id", "sig"}`` or None), from the component's state."""
    value = st.session_state.get(key)
    return value.get("picked") if hasattr(value, "get") else None


def show(
    rows: list[dict],
    show_whitespace: bool,
    sig: str,
    tokens_sig: str,
    *,
    key: str,
    tree: dict | None,
    on_pick: Callable[[], None],
) -> None:
    """Mount the rows (``ui.render.records.rows``). ``sig`` is their signature, kept by the caller with them;
    ``tokens_sig`` goes back with every pick; ``tree`` is ``{"row", "index", "id", "panel"}`` for the panel under the
    picked token (``records.panel``), or None."""
    data = {"sig": sig, "tokens": tokens_sig, "rows": rows, "options": {"showWhitespace": show_whitespace}, "tree": tree}
    _component()(key=key, data=data, on_picked_change=on_pick, height="content")
