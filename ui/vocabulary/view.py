"""The Vocabulary page's sections: browse and filter any tokenizer's vocabulary, draw a
token's merge tree, list the longest tokens and the ones a text never (or rarely)
produces.

``pages/vocabulary.py`` calls ``page``. Computing lives in ``model``; the merge tree
is drawn by ``ui.render.trees``, the length chart by ``ui.render.charts``.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from tokenizer.spm import difference_note
from ui.common import cache, draw, errors, presenter, state, tokenizers, workspace
from ui.common.tokenizers import USER
from ui.content import corpora
from ui.render import charts, trees
from ui.render.markdown import md

from . import model

USAGE_SOURCES = {
    "training": "Its training text",
    "shared": "The text from the other pages",
    "sample": "Python docstrings (≈250 kB)",
}
#: The filters of the table, and what "Reset filters" brings back.
FILTERS = {"id_from": 0, "id_to": None, "lengths": None, "regex": "", "kind": "all"}

STATE = state.PageState(
    "vocab",
    {
        **FILTERS,  # lengths: (min, max) bytes; None: the whole range
        "tree_id": None,
        "tree_text": "",
        "tree_note": None,  # why the typed text became this id (it was not one token)
        "usage_source": "shared",
        "rare_max": 2,
        "picked": None,  # the table row last clicked (its id)
    },
    widgets=("tokenizer", "seed001", "reset", "table"),
)


def _frame(tok) -> pd.DataFrame:
    return cache.for_content(tok, "vocab_frame", 0, lambda: model.vocab_frame(tok), maxsize=1)


def _seed_001() -> None:
    """Seed 001's look at GPT-2: ids 240–270, where the bytes end and the merges start."""
    STATE["tokenizer"] = "r50k_base"
    st.session_state[state.TOKENIZER] = "r50k_base"
    for name, value in {**FILTERS, "id_from": 240, "id_to": 270}.items():
        STATE[name] = value
    STATE["tree_id"] = 256


def _reset() -> None:
    for name, value in FILTERS.items():
        STATE[name] = value


def pick_tokenizer() -> tuple[tokenizers.Choice, pd.DataFrame]:
    """The tokenizer picker and its headline numbers; returns the choice (resolved once per run) and its table."""
    choices = tokenizers.options(baselines=False)
    choices["bytes"] = tokenizers.BASELINES["bytes"]
    c1, c2, c3 = st.columns([4, 2, 1], vertical_alignment="bottom")
    with c1:
        key = tokenizers.select("Tokenizer", STATE.key("tokenizer"), choices=choices)
    c2.button(
        "GPT-2 ids 240–270 (seed 001)",
        key=STATE.key("seed001"),
        on_click=_seed_001,
        icon="🔎",
        width="stretch",
        help="Where GPT-2's single bytes end and its first merges (' t', ' a', 'he', …) begin.",
    )
    c3.button("Reset filters", key=STATE.key("reset"), on_click=_reset, width="stretch")
    with errors.shown(stop=True):
        choice = tokenizers.choose(key, label=choices.get(key))
    tok = choice.tok
    with st.spinner("Building the vocabulary table (once per tokenizer)…"):
        df = _frame(tok)
    m = st.columns(4)
    m[0].metric("Tokens", f"{len(df):,}", border=True)
    m[1].metric("Merges", f"{tok.num_merges:,}", border=True)
    m[2].metric("Special tokens", f"{len(tok.special_tokens):,}", border=True)
    longest = cache.for_content(tok, "longest_bytes", 0, lambda: int(df.loc[df["kind"] != "special", "bytes"].max()), maxsize=1)
    m[3].metric("Longest token", f"{longest} byte{'s' if longest != 1 else ''}", border=True)
    if note := difference_note([tok]):
        st.caption(note)
    if tok.whole_tokens and tok.kind == "sentencepiece":
        st.caption(
            f"{len(tok.whole_tokens):,} pieces are built by no merge (kind *whole*): their own characters, merged by the "
            "better-scored pieces, never end as two pieces that join to them."
        )
    elif tok.whole_tokens:
        st.caption(
            f"{len(tok.whole_tokens):,} tokens are built by no merge of this vocabulary (kind *whole*): like tiktoken, the "
            "encoder gives one only for a regex chunk equal to it, before merging anything."
        )
    return choice, df


def special_tokens(choice: tokenizers.Choice) -> None:
    """Every special token of the tokenizer, with the chat format's marked."""
    tok = choice.tok
    if not tok.special_tokens:
        return
    fmt = choice.spec.chat if choice.spec is not None else None
    chat_tokens = set(fmt.tokens()) if fmt is not None else set()
    table = cache.for_content(tok, "special_table", 0, lambda: model.special_table(tok, chat_tokens), maxsize=1)
    n = len(table)
    with st.expander(f"Special tokens ({n:,})", expanded=n <= 12):
        note = "Added whole, never merged; the encoder recognises one only when told to (Tokenize: “Recognise special tokens”)."
        if fmt is not None:
            note += f" *chat format*: used by {fmt.label}."
        st.caption(note)
        st.dataframe(
            table,
            hide_index=True,
            width="stretch",
            height=min(400, 38 + 35 * n),
            column_config={"id": st.column_config.NumberColumn("id", width="small")},
        )


def browse(tok, df: pd.DataFrame) -> None:
    """Filters and the table; picking a row shows its merge tree below."""
    max_len = int(df["bytes"].max())
    lengths = STATE.get("lengths")
    if not lengths or lengths[0] < 1 or lengths[1] > max_len or lengths[0] > lengths[1]:
        STATE["lengths"] = (1, max_len)
    with st.container(border=True):
        c = st.columns([1, 1, 2, 2, 2], vertical_alignment="bottom")
        id_from = c[0].number_input("From id", min_value=0, step=1, key=STATE.key("id_from"), persist_state="session")
        id_to = c[1].number_input(
            "To id", min_value=0, step=1, key=STATE.key("id_to"), placeholder=f"{int(df['id'].max())}", persist_state="session"
        )
        if max_len > 1:
            lo, hi = c[2].slider("Length in bytes", 1, max_len, key=STATE.key("lengths"), persist_state="session")
        else:
            lo, hi = 1, 1
            c[2].caption("Every token is one byte.")
        spm = tok.kind == "sentencepiece"
        kinds = [k for k in model.KINDS if (k != "whole" or tok.whole_tokens) and (k != "character" or spm)]
        if STATE.get("kind") not in kinds:
            STATE["kind"] = "all"
        kind = c[3].selectbox("Show", kinds, format_func=model.KINDS.get, key=STATE.key("kind"), persist_state="session")
        pattern = c[4].text_input(
            "Regex on the token's text",
            key=STATE.key("regex"),
            live="600ms",
            placeholder=r"^\s\w+ing$",
            persist_state="session",
            help=r"Searched in each token's text (a space is a space; ^\s finds tokens that start with whitespace). "
            "Stopped after 2 seconds.",
        )
    with errors.shown(stop=True), st.spinner("Filtering the vocabulary (a regex is stopped after 2 s)…", show_time=True):
        found = cache.for_session(  # the filters are the user's input (a regex among them): this session only
            "vocab.filtered",
            (id_from, id_to, lo, hi, kind, pattern),
            owner=tok,
            maxsize=16,
            compute=lambda: model.filter_vocab(
                df, id_from=id_from, id_to=id_to, min_bytes=lo, max_bytes=hi, pattern=pattern, kind=kind
            ),
        )
    shown = found.head(model.ROWS)
    event = st.dataframe(
        shown.drop(columns=["text"]),
        hide_index=True,
        height=380,
        on_select="rerun",
        selection_mode="single-row",
        key=STATE.key("table"),
        placeholder="",
        column_config={
            "id": st.column_config.NumberColumn("id", width="small"),
            "token": st.column_config.TextColumn(
                "token", help="· is a space, ↵ a newline, → a tab; <E4 BD> are bytes that are only part of a character"
            ),
            "bytes": st.column_config.NumberColumn("bytes", width="small"),
            "merged from": st.column_config.TextColumn("merged from"),
            "left id": st.column_config.NumberColumn("left id", width="small"),
            "right id": st.column_config.NumberColumn("right id", width="small"),
            "rank": st.column_config.NumberColumn("rank", help=trees.RANK_HELP, width="small"),
            "GPT-2 form": st.column_config.TextColumn(
                "GPT-2 form", help="How GPT-2's encoder.json / vocab.bpe spell it (Ġ is a space, Ċ a newline)"
            ),
            "piece": st.column_config.TextColumn(
                "piece", help="How the model's file spells it (▁ is a space, <0x41> the byte 0x41)"
            ),
            "kind": st.column_config.TextColumn("kind", width="small"),
        },
    )
    more = (
        f" Showing the first {model.ROWS:,}: narrow the id range or the filters to see others." if len(found) > model.ROWS else ""
    )
    st.caption(f"{len(found):,} of {len(df):,} tokens match.{more} Click a row to draw its merge tree.")
    rows = event.selection.rows if event is not None and hasattr(event, "selection") else []
    if rows:
        picked = int(shown.iloc[rows[0]]["id"])
        if STATE.get("picked") != picked:
            STATE["picked"] = picked
            STATE["tree_id"] = picked
            STATE["tree_text"] = ""


def _default_tree_id(tok, df: pd.DataFrame) -> int:
    """A token worth drawing: ' tokenization' or a piece of it when the vocabulary has one, else the longest."""
    for text in (" tokenization", "tokenization", " token", "ization"):
        try:
            return tok.encode_single_token(text)
        except KeyError:
            pass
    merged = df[df["kind"] == "merged"]
    if merged.empty:
        return int(df["id"].iloc[0])
    return int(model.longest(merged, 1)["id"].iloc[0])


def _on_tree_text() -> None:
    """A typed token moves the id box to it (or to its first token, with a note)."""
    typed = STATE["tree_text"]
    STATE["tree_note"] = None
    if not typed:
        return
    try:
        tok = tokenizers.get(STATE["tokenizer"])
    except ValueError:
        return
    try:
        STATE["tree_id"] = tok.encode_single_token(typed)
    except KeyError:
        ids = tok.encode(typed, disallowed_special=())
        if ids:
            STATE["tree_id"] = ids[0]
        STATE["tree_note"] = f"{typed!r} is not one token: it is encoded as {len(ids)} tokens {ids[:12]}. Showing the first one."


def _on_tree_id() -> None:
    STATE["tree_text"] = ""
    STATE["tree_note"] = None


def merge_tree(tok, df: pd.DataFrame) -> None:
    """A token's merge tree: by id, by typed text, or from the row picked above."""
    st.subheader("Merge tree")
    if STATE.get("tree_id") is None or int(STATE["tree_id"]) not in tok.vocab:
        STATE["tree_id"] = _default_tree_id(tok, df)
    c1, c2, _ = st.columns([1, 2, 2], vertical_alignment="bottom")
    tid = c1.number_input(
        "Token id", min_value=0, step=1, key=STATE.key("tree_id"), on_change=_on_tree_id, persist_state="session"
    )
    c2.text_input(
        "…or type a token",
        key=STATE.key("tree_text"),
        placeholder=" tokenization",
        on_change=_on_tree_text,
        persist_state="session",
        help="Its exact text, with a leading space if it has one. Enter finds it.",
    )
    if STATE.get("tree_note"):
        st.warning(md(STATE["tree_note"]), icon="🧩")
    with errors.shown():
        tree = tok.merge_tree(int(tid))
        draw.tree(tree, tok.rank_of)
        st.caption(trees.explain(tok, int(tid)))  # how it was built, and what its rank says of its id


def longest_tokens(tok, df: pd.DataFrame) -> None:
    st.subheader("Longest tokens")
    left, right = st.columns([3, 2], gap="large")
    with left:
        top = cache.for_content(tok, "longest", 15, lambda: model.longest(df, 15), maxsize=1)
        st.dataframe(
            top[["id", "bytes", "rank", "token"]],
            hide_index=True,
            width="stretch",
            column_config={
                "rank": st.column_config.NumberColumn("rank", help=trees.RANK_HELP),
                "bytes": st.column_config.NumberColumn(width="small"),
                "id": st.column_config.NumberColumn(width="small"),
            },
        )
    with right:
        spec = cache.for_content(tok, "length_hist", 0, lambda: charts.length_histogram(model.length_counts(df)), maxsize=1)
        presenter.chart(spec, width="stretch")


def _usage_text(key: str) -> tuple[str | None, str]:
    src = STATE["usage_source"]
    if src == "training":
        if not key.startswith(USER):
            return None, "Only your own tokenizers have a training text here."
        text = workspace.store().corpus(key[len(USER) :])
        return (text, "its training text") if text else (None, "No training text is stored with this tokenizer.")
    if src == "sample":
        return corpora.text("stdlib-docstrings"), "the Python docstrings sample"
    return st.session_state.get(state.TEXT, ""), "the text from the Tokenize / Step pages"


def never_produced(key: str, tok, df: pd.DataFrame) -> None:
    """Tokens in the vocabulary that a text never or rarely produces ("SolidGoldMagikarp")."""
    st.subheader("Never or rarely produced")
    st.caption(
        "A token can be in the vocabulary and yet almost never come out of the encoder: it was frequent in the tokenizer's "
        "training text but not in yours, or it was only a stepping stone to longer tokens. GPT-2's ' SolidGoldMagikarp' "
        "was such a token: learned from the tokenizer's data, nearly absent from the model's, so the model never learned it "
        "(on GPT-2, type ' SolidGoldMagikarp' in the merge-tree box above: one token, id 43453; GPT-4's vocabulary splits it in five)."
    )
    options = dict(USAGE_SOURCES)
    if not key.startswith(USER):
        options.pop("training")
    if STATE["usage_source"] not in options:
        STATE["usage_source"] = "shared"
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    c1.segmented_control(
        "Text", list(options), format_func=options.get, key=STATE.key("usage_source"), required=True, persist_state="session"
    )
    rare_max = c2.number_input(
        "Rare means at most … times", min_value=1, max_value=1000, step=1, key=STATE.key("rare_max"), persist_state="session"
    )
    text, what = _usage_text(key)
    if not text:
        st.info(what if text is None else "The text is empty: type something on the Tokenize or Step through page.", icon="ℹ️")
        return
    with errors.shown():
        with st.spinner(f"Encoding {what} to count the tokens it produces…", show_time=True):
            counts = cache.for_session("vocab.usage", text, lambda: model.usage_counts(tok, text), owner=tok, maxsize=4)
        u = cache.for_session(
            "vocab.unused", (text, int(rare_max)), lambda: model.usage(df, counts, rare_max=int(rare_max)), owner=tok, maxsize=4
        )
        m = st.columns(3)
        m[0].metric("Tokens in the text", f"{u['tokens']:,}", border=True)
        m[1].metric("Merged tokens produced", f"{u['used']:,} of {u['merged']:,}", border=True)
        m[2].metric("Never produced", f"{len(u['never']):,}", border=True)
        left, right = st.columns(2, gap="large")
        cols = ["id", "token", "bytes", "rank", "merged from"]
        with left:
            st.markdown(f"**Never produced** on {what}, earliest-learned first")
            st.dataframe(
                u["never"][cols].head(model.ROWS),
                hide_index=True,
                height=300,
                width="stretch",
                column_config={"rank": st.column_config.NumberColumn("rank", help=trees.RANK_HELP)},
            )
        with right:
            st.markdown(f"**Rarely produced** (1 to {int(rare_max)} times)")
            st.dataframe(
                u["rare"][cols + ["produced"]].head(model.ROWS),
                hide_index=True,
                height=300,
                width="stretch",
                column_config={"rank": st.column_config.NumberColumn("rank", help=trees.RANK_HELP)},
            )


def page() -> tokenizers.Choice:
    """The page above the unreachable tokens' section; returns the choice, for that section."""
    choice, df = pick_tokenizer()
    tok = choice.tok
    browse(tok, df)
    special_tokens(choice)
    merge_tree(tok, df)
    st.divider()
    longest_tokens(tok, df)
    st.divider()
    never_produced(choice.key, tok, df)
    return choice
