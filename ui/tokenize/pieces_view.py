"""Tokenize's "Cut into pieces of N tokens" section: the text's tokens in pieces of at most N, drawn as bands of
spans, counted per piece, charted, and downloadable as JSON lines.

``pages/tokenize.py`` calls ``section(inp, res)`` below the spans. Computing lives in ``pieces``; the bands are
drawn in the browser (``ui.common.draw``), the chart in ``ui.render.charts.piece_sizes``. Everything here comes from
the user's text, so it is kept in this session only.
"""

from __future__ import annotations

import streamlit as st

from ui.common import cache, draw, errors, presenter, state
from ui.render import charts
from ui.render.records import PieceRow

from . import pieces
from .model import Input, Result

STATE = state.PageState("pieces", {"n": pieces.DEFAULT_N}, widgets=("download",))
#: Tokens drawn in the bands (the spans above draw the text's first 2,500 already; the table and download have all)
SPAN_LIMIT = 1_000
EXPLANATION = (
    "A context window, an embedding model or a search index takes a long text in pieces of at most N tokens. Here the "
    "text's tokens above are cut every N tokens: each band is one piece (bands alternate in colour and border). A "
    "recognised special token counts as one token and is never split; as text, its string is several tokens a cut may "
    "separate. When a token holds only part of a character (an emoji's first bytes), a cut after it breaks that "
    "character between two pieces: the piece's head says so, and its text on its own shows � there."
)


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def section(inp: Input, res: Result) -> None:
    """The section, for the text and tokens the page shows."""
    STATE.init()
    st.subheader("Cut into pieces of N tokens")
    st.caption(EXPLANATION)
    total = len(res.spans)
    c1, c2 = st.columns([1, 3], vertical_alignment="bottom")
    n = c1.number_input(
        "Tokens per piece (N)",
        min_value=1,
        max_value=pieces.MAX_N,
        step=1,
        key=STATE.key("n"),
        persist_state="session",
        help="Typical sizes: 256 to 1,024 for retrieval chunks, a model's context length for whole windows.",
    )
    with errors.shown():
        key = (inp.key, inp.mode, inp.recognise, tuple(res.ids), int(n))
        cut = cache.for_session("pieces.cut", key, lambda: pieces.cut(res.spans, int(n)), maxsize=2)
        broken = dict(pieces.broken_characters(cut))
        with c2:
            m = st.columns(3)
            m[0].metric("Pieces", f"{len(cut):,}", border=True)
            last = len(cut[-1].spans) if cut else 0
            m[1].metric("In the last piece", f"{last:,}", border=True, help=f"The others hold {int(n):,} each")
            m[2].metric(
                "Cuts inside a character",
                f"{len(broken):,}",
                border=True,
                help="Cuts that fall between two bytes of one character, which both pieces then hold part of",
            )
        if n >= total:
            st.info(f"N = {int(n):,} is at least the text's {_plural(total, 'token')}: one piece holds them all.", icon="📏")
        if broken:
            listed = ", ".join(f"before piece {k + 1} ({ch})" for k, ch in list(broken.items())[:6])
            more = f" and {len(broken) - 6:,} more" if len(broken) > 6 else ""
            st.warning(
                f"{_plural(len(broken), 'cut')} fall{'s' if len(broken) == 1 else ''} inside a character: {listed}{more}. "
                "Those pieces' texts show � where the character is broken; their ids are exact, and joined again they "
                "give the character back.",
                icon="✂️",
            )
        table = cache.for_session("pieces.table", key, lambda: pieces.table(cut), maxsize=2)
        if len(cut) > 1:
            presenter.chart(charts.piece_sizes(table, int(n)), width="stretch")
        ws = bool(st.session_state.get("tokenize.whitespace", False))  # the page's own switch, above the spans

        rows = [
            PieceRow(
                f"Piece {p.index + 1}",
                f"{_plural(len(p.spans), 'token')} · {_plural(p.characters, 'character')} · from token {p.first:,}",
                p.spans,
                broken.get(p.index, ""),
            )
            for p in cut
        ]
        draw.pieces(rows, limit=SPAN_LIMIT, show_whitespace=ws)  # up to SPAN_LIMIT tokens: the rest are in the table
        st.dataframe(
            table,
            hide_index=True,
            width="stretch",
            height=min(360, 38 + 35 * len(table)),
            column_config={
                "piece": st.column_config.NumberColumn("piece", width="small"),
                "first token": st.column_config.NumberColumn(
                    "first token", help="Its first token's position in the text (from 0)"
                ),
                "whole characters": st.column_config.CheckboxColumn(
                    "whole characters", help="Unticked: a cut at one of its ends falls inside a character"
                ),
            },
        )
        if len(cut) > len(table):
            st.caption(f"The table shows the first {len(table):,} of {len(cut):,} pieces; the download has them all.")
        st.download_button(
            f"Download the {_plural(len(cut), 'piece')} as JSON lines",
            data=lambda: pieces.jsonl(cut),  # made when clicked, in its own thread: a long text's pieces cost nothing till then
            file_name=f"pieces-of-{int(n)}-tokens.jsonl",
            mime="application/jsonl",
            on_click="ignore",
            key=STATE.key("download"),
            icon=":material/download:",
            help='One line per piece: {"index", "text", "ids", "tokens", "whole_characters"}.',
        )
