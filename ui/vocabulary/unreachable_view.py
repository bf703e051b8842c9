"""Vocabulary's "Unreachable and odd tokens" section: the tokens encoding never gives back, and
those that are not text on their own, with a click into a token's merge tree.

``pages/vocabulary.py`` calls ``section`` after the page's other sections. The check
(``unreachable.find_odd_tokens``) runs once per tokenizer with a progress bar and is kept as
``ui.common.cache`` says: for every session with an official encoding, in this session
with one of yours.
"""

from __future__ import annotations

import streamlit as st

from ui.common import cache, draw, errors, state, tokenizers
from ui.render import trees

from . import unreachable

KINDS = {"unreachable": "Unreachable from their own text", "partial": "Not valid UTF-8 on their own"}
EXPLANATION = (
    "Some tokens are in the vocabulary but never come out when you encode **their own text**: the split pattern cuts "
    "that text into pieces before BPE runs, or BPE merges the bytes another way (an earlier merge takes a byte the "
    "token needed). A model then meets such a token rarely or never in training, which is how glitch tokens such as "
    "GPT-2's ' SolidGoldMagikarp' come about (that one *is* reachable; it was simply rare in the model's data). "
    "Other tokens are not text at all on their own: bytes that are part of a character (`<E4 BD>`), which only ever "
    "appear inside longer byte sequences. Click a row to see how the token was built."
)

STATE = state.PageState("vocab_odd", {"kind": "unreachable", "picked": None}, widgets=("table",))


def _find(tok) -> unreachable.OddTokens:
    """The check, once per tokenizer, with a progress bar while it runs."""

    def compute() -> unreachable.OddTokens:
        bar = st.progress(0.0, text="Encoding every token's own bytes…")

        def progress(done: int, total: int) -> None:
            bar.progress(done / total if total else 1.0, text=f"Checking tokens: {done:,} of {total:,}")

        found = unreachable.find_odd_tokens(tok, progress)
        bar.empty()
        return found

    return cache.for_content(tok, "odd_tokens", 0, compute, maxsize=1)


def section(choice: tokenizers.Choice) -> None:
    """The section for the tokenizer chosen at the top of the page."""
    STATE.init()
    st.subheader("Unreachable and odd tokens")
    st.markdown(EXPLANATION)
    with errors.shown():
        key, tok = choice.key, choice.tok
        found = _find(tok)
        m = st.columns(4)
        m[0].metric("Tokens checked", f"{found.checked:,}", border=True, help="Every token but the special ones")
        m[1].metric(
            "Unreachable", f"{len(found.unreachable):,}", border=True, help="encode(its own text) is not the token itself"
        )
        m[2].metric("Not valid UTF-8 alone", f"{len(found.partial):,}", border=True)
        m[3].metric("Checked in", f"{found.seconds:.1f} s", border=True, help="Once per tokenizer, then kept")
        kind = (
            st.segmented_control(
                "Show", list(KINDS), format_func=KINDS.get, key=STATE.key("kind"), required=True, persist_state="session"
            )
            or "unreachable"
        )
        table = found.unreachable if kind == "unreachable" else found.partial
        if table.empty:
            st.success(
                "None: every token of this vocabulary encodes back to itself."
                if kind == "unreachable"
                else "None: every token of this vocabulary is valid UTF-8 on its own.",
                icon="✅",
            )
            return
        shown = table.head(1_000)
        event = st.dataframe(
            shown if kind == "unreachable" else shown.drop(columns=["why", "encodes as"]),
            hide_index=True,
            height=min(360, 38 + 35 * len(shown)),
            width="stretch",
            on_select="rerun",
            selection_mode="single-row",
            key=STATE.key("table", key, kind),  # one per tokenizer and list: a row picked in one never picks in another
            column_config={
                "id": st.column_config.NumberColumn("id", width="small"),
                "bytes": st.column_config.NumberColumn("bytes", width="small"),
                "rank": st.column_config.NumberColumn("rank", help=trees.RANK_HELP, width="small"),
                "why": st.column_config.TextColumn("why", help="Where its own text goes instead"),
                "encodes as": st.column_config.TextColumn("encodes as", help="The tokens its own text becomes"),
            },
        )
        more = f" Showing the first {len(shown):,} of {len(table):,}." if len(table) > len(shown) else ""
        st.caption(f"{len(table):,} tokens.{more} Click a row to draw its merge tree.")
        rows = event.selection.rows if event is not None and hasattr(event, "selection") else []
        if rows:
            STATE["picked"] = (key, int(shown.iloc[rows[0]]["id"]))
        mine, picked = STATE.get("picked") or (None, None)  # ids mean different tokens in different tokenizers
        if mine != key or picked not in set(table["id"]):
            picked = int(table["id"].iloc[0])
        st.markdown(f"**Merge tree of id {picked:,}**")
        draw.tree(tok.merge_tree(picked), tok.rank_of)
