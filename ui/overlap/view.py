"""The Overlap page's sections: shared and own tokens, Jaccard similarity, the longest tokens only one has, every
token in a searchable table, and one tokenizer's tokens as another's pieces.

``pages/overlap.py`` calls these in order. Computing lives in ``model``; the charts in
``ui.render.charts``. What may be kept for everyone follows ``ui.common.cache``: a
result about official encodings only (OpenAI's, the open models', the bytes baseline)
is kept once per server process for every session; one that involves a tokenizer of
the user's is kept in that session only (``_kept``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from tokenizer import TokenizerLike
from ui.common import cache, errors, presenter, state, urlstate
from ui.common import tokenizers as tk
from ui.compare.model import unique_labels
from ui.render import charts
from ui.render.markdown import code, md
from ui.vocabulary.model import regex_mask

from . import model

#: The pair the page opens with (the issue's example), then fallbacks when one is not installed.
DEFAULT = ("o200k_base", "llama3", "cl100k_base", "r50k_base")
PIECES_ANY, PIECES_SPLIT = "any", "split"
#: The table's filter by number of pieces: split ones (the default: the examples worth reading), any, or one number.
PIECE_CHOICES = [PIECES_SPLIT, PIECES_ANY, *[str(n) for n in range(1, model.TOP_PIECES)], f"{model.TOP_PIECES}+"]
PIECE_LABELS = {PIECES_SPLIT: "2 or more", PIECES_ANY: "any"}

STATE = state.PageState(
    "overlap",
    {
        "tokenizers": lambda: default_keys(tk.available),
        "where": model.WHERE_ALL,
        "search": "",
        "source": None,
        "target": None,
        "pieces": PIECES_SPLIT,
        "split_search": "",
    },
)
URL = ("tokenizers",)


def default_keys(available: Callable[[str], bool]) -> list[str]:
    """GPT-4o and Llama 3 (the first two of ``DEFAULT`` that are installed).

    >>> default_keys(lambda k: True), default_keys(lambda k: k != "llama3")
    (['o200k_base', 'llama3'], ['o200k_base', 'cl100k_base'])
    """
    return [k for k in DEFAULT if available(k)][:2]


def choices() -> dict[str, str]:
    """Every tokenizer with a list of tokens: the models, the user's own, the bytes baseline (not characters)."""
    out = tk.options(baselines=False)
    out["bytes"] = tk.BASELINES["bytes"]
    return out


# ---------------------------------------------------------------- input


def restore_link() -> None:
    """Apply a link's tokenizers (``?tokenizers=o200k_base,llama3``); warn about those this server lacks."""
    asked = urlstate.incoming(STATE.page, URL)
    raw = asked.get("tokenizers")
    if raw is None:
        return
    known_choices = choices()
    keys = [k for k in dict.fromkeys(raw.split(",")) if k]
    known = [k for k in keys if k in known_choices][: model.MAX_TOKENIZERS]
    unknown = [k for k in keys if k not in known_choices]
    if known:
        STATE["tokenizers"] = known
    if unknown:
        st.warning(f"The link names tokenizers that are not available here: {md(', '.join(unknown))}.", icon="🔗")


def choose_tokenizers() -> list[str]:
    options = choices()
    STATE["tokenizers"] = [k for k in STATE["tokenizers"] if k in options][: model.MAX_TOKENIZERS]
    return st.multiselect(
        "Tokenizers",
        list(options),
        format_func=lambda k: tk.menu_label(k, options.get(k, k)),
        key=STATE.key("tokenizers"),
        persist_state="session",
        max_selections=model.MAX_TOKENIZERS,
        placeholder="Choose two or more tokenizers",
        help="OpenAI's encodings and open models, your own tokenizers and the UTF-8 bytes baseline "
        f"(up to {model.MAX_TOKENIZERS}). The characters baseline has no list of tokens to compare.",
    )


def publish_link(keys: Sequence[str]) -> None:
    urlstate.publish(STATE.page, URL, {"tokenizers": ",".join(keys)} if keys else {})


@dataclass(frozen=True)
class Chosen:
    """One chosen tokenizer: its menu key, the tokenizer, its ordinary tokens."""

    key: str
    tok: TokenizerLike
    vocab: model.Vocab


@st.cache_resource(max_entries=16, show_spinner="Computing this once for every session of this server…")
def _for_everyone(kind: str, keys: tuple[str, ...], key: tuple, _compute: Callable[[], object]) -> object:
    """``_compute()`` once per server process for official encodings: Streamlit's own cache, keyed by their menu keys
    (each is one object per process, ``ui.common.tokenizers``). A class opening the page together on a fresh server
    computes it once while the others wait for it (Streamlit's compute lock), instead of all at once on two cores."""
    return _compute()


@st.cache_resource(max_entries=16, show_spinner=False)
def _for_everyone_quietly(kind: str, keys: tuple[str, ...], key: tuple, _compute: Callable[[], object]) -> object:
    """``_for_everyone`` for a computation that shows its own progress: Streamlit draws a cached function's spinner
    where the function's first element goes, so the two would be drawn over each other."""
    return _compute()


def _kept(
    kind: str, chosen: Sequence[Chosen], key: tuple, compute: Callable[[], object], *, maxsize: int = 2, quiet: bool = False
):
    """``compute()`` kept for every session when every tokenizer involved is an official encoding (or a baseline),
    else for this session only (``ui.common.cache``: a user's tokenizers are theirs alone). ``quiet``: ``compute``
    (or its caller) shows its own progress, and the cache adds no spinner."""
    toks = [c.tok for c in chosen]
    keys = tuple(c.key for c in chosen)
    if all(cache.is_shared(t) for t in toks):
        return (_for_everyone_quietly if quiet else _for_everyone)(kind, keys, key, compute)
    # a user's tokenizer object stands for its content: the same key with another object is another tokenizer
    return cache.for_session(kind, (keys, tuple(map(id, toks)), key), compute, owner=toks[0], maxsize=maxsize)


def load(keys: Sequence[str]) -> list[Chosen]:
    """Each chosen tokenizer with its ordinary tokens; one that fails shows why and is left out."""
    labels = unique_labels(keys, choices())
    out = []
    for key in keys:
        with errors.shown(prefix=f"{labels[key]}: "):
            tok = tk.get(key)
            label = labels[key]
            vocab = cache.for_tokenizer(
                tok, "overlap.vocab", label, lambda tok=tok, label=label: model.vocab_of(tok, label), maxsize=1
            )
            out.append(Chosen(key, tok, vocab))
    return out


def empty_state(n: int) -> None:
    if n == 0:
        st.info("Choose two or more tokenizers above to see which tokens they share.", icon="🔀")
    else:
        st.info("Choose at least one more tokenizer: overlap needs two vocabularies.", icon="🔀")


# ---------------------------------------------------------------- shared and own tokens


def compute_overlap(chosen: Sequence[Chosen]) -> model.Overlap:
    with st.spinner("Comparing the vocabularies (once per choice)…"):
        return _kept("overlap.sets", chosen, (), lambda: model.overlap([c.vocab for c in chosen]), quiet=True)


def show_summary(ov: model.Overlap) -> None:
    st.subheader("Shared and own tokens")
    st.caption(
        "Tokens are compared by their bytes, whatever their ids: GPT-4o's `·the` and Llama 3's `·the` are one token. "
        "Special tokens are left apart (below). **Jaccard similarity** = tokens both have ÷ tokens either has "
        "(1 = the same vocabulary, 0 = nothing in common)."
    )
    n = len(ov.labels)
    if n == 2:
        m = st.columns(4)
        m[0].metric("Jaccard similarity", f"{ov.jaccard(0, 1):.3f}", border=True, help="shared ÷ in either")
        m[1].metric("Shared tokens", f"{ov.shared(0, 1):,}", border=True)
        m[2].metric(f"Only in {md(ov.labels[0])}", f"{ov.only(0):,}", border=True)
        m[3].metric(f"Only in {md(ov.labels[1])}", f"{ov.only(1):,}", border=True)
    else:
        m = st.columns(3)
        m[0].metric("Shared by all", f"{ov.shared_by_all:,}", border=True)
        m[1].metric("Tokens in any", f"{len(ov.tokens):,}", border=True, help="The union of the vocabularies")
        pair = max(((i, j) for i in range(n) for j in range(i + 1, n)), key=lambda p: ov.jaccard(*p))
        m[2].metric(
            "Most alike",
            f"{ov.jaccard(*pair):.3f}",
            border=True,
            help=f"{md(ov.labels[pair[0]])} and {md(ov.labels[pair[1]])}: their Jaccard similarity",
        )
    full = model.summary(ov)
    presenter.chart(charts.overlap_summary(model.summary_long(full)), width="stretch")
    if n > 2:
        presenter.chart(charts.jaccard_heatmap(model.pairs(ov)), width="content")
    st.dataframe(
        full.drop(columns=[model.GROUPS[1]]) if n == 2 else full,  # "shared with some" needs a third tokenizer
        hide_index=True,
        width="stretch",
        column_config={
            "tokens": st.column_config.NumberColumn(
                "tokens", format="localized", help="Ordinary tokens (special tokens apart), by their bytes"
            ),
            "shared by all": st.column_config.NumberColumn(
                "shared by all", format="localized", help="Every chosen tokenizer has it"
            ),
            "shared with some": st.column_config.NumberColumn(
                "shared with some", format="localized", help="Some other chosen tokenizer has it, not all"
            ),
            "only here": st.column_config.NumberColumn("only here", format="localized", help="No other chosen tokenizer has it"),
        },
    )


def show_longest(chosen: Sequence[Chosen], ov: model.Overlap) -> None:
    st.subheader("The longest tokens only one of them has")
    st.caption(
        "What each vocabulary spent its longest tokens on that none of the others did: a glimpse of its training data "
        "(code, markup, a script, runs of symbols). By length in bytes; · is a space."
    )
    tabs = st.tabs([md(label) for label in ov.labels])
    for i, tab in enumerate(tabs):
        with tab:
            # half a second over 200,000 tokens: kept with the overlap it comes from
            df = _kept("overlap.longest", chosen, (i,), lambda i=i: model.longest_only(ov, i), maxsize=2 * model.MAX_TOKENIZERS)
            if df.empty:
                st.caption(f"None: every token of {md(ov.labels[i])} is in another chosen vocabulary.")
                continue
            st.dataframe(df, hide_index=True, width="stretch", height=min(420, 38 + 35 * len(df)))


def _regex_match(pattern: str) -> Callable[[Sequence[str]], Sequence[bool]] | None:
    if not pattern:
        return None
    return lambda texts: regex_mask(pd.Series(texts, dtype=object), pattern).tolist()


def show_table(chosen: Sequence[Chosen], ov: model.Overlap) -> None:
    st.subheader("Every token, searchable")
    st.caption(
        "The tokens of all the chosen vocabularies, shortest first, with each tokenizer's id for it (empty where it "
        "lacks it). Search with a regular expression over the token's text (a space is a space there, shown as ·): "
        "`^ ` starts with a space, `ing$` ends with “ing”, `\\p{Han}` holds a Chinese character."
    )
    where_choices = model.where_choices(ov.labels)
    if STATE.get("where") not in where_choices:
        STATE["where"] = model.WHERE_ALL
    c1, c2 = st.columns([2, 3])
    where = c1.selectbox(
        "Show", list(where_choices), format_func=where_choices.get, key=STATE.key("where"), persist_state="session"
    )
    pattern = c2.text_input(
        "Search (regex)",
        key=STATE.key("search"),
        persist_state="session",
        placeholder="e.g. ^ token",
        help="Python `regex` syntax, at most 2 s over the table",
    )
    with errors.shown():
        key = (tuple(c.key for c in chosen), tuple(map(id, (c.tok for c in chosen))), where, pattern)
        # the search is the user's input: this session only
        rows = cache.for_session("overlap.rows", key, lambda: model.union_rows(ov, where, _regex_match(pattern)), maxsize=4)
        table = cache.for_session("overlap.union_table", key, lambda: model.union_table(ov, rows), maxsize=2)
        if table.empty:
            st.info("No token matches: try a shorter search or another choice under “Show”.", icon="🔍")
            return
        st.dataframe(
            table,
            hide_index=True,
            width="stretch",
            height=360,
            column_config={
                "in": st.column_config.NumberColumn("in", help="How many of the chosen tokenizers have this token"),
                **{f"{label} id": st.column_config.NumberColumn(f"{label} id", format="%d") for label in ov.labels},
            },
        )
        more = f"; showing the first {len(table):,}" if len(rows) > len(table) else ""
        st.caption(f"{len(rows):,} tokens{more}.")


def show_special(chosen: Sequence[Chosen]) -> None:
    counts, common = model.special_overlap([c.vocab for c in chosen])
    parts = ", ".join(f"{md(label)} {n:,}" for label, n in counts.items())
    shown = ", ".join(code(s) for s in common[:12]) + (f" and {len(common) - 12:,} more" if len(common) > 12 else "")
    st.caption(
        f"**Special tokens**, compared by name and left out of everything above: {parts}. "
        + (f"Every one of them has {shown}." if common else "No special token is common to all of them.")
    )


# ---------------------------------------------------------------- one tokenizer's tokens under another


def piece_range(choice: str) -> tuple[int, int | None]:
    """The table's filter as ``(least, most)`` pieces.

    >>> piece_range("split"), piece_range("any"), piece_range("3"), piece_range("8+")
    ((2, None), (1, None), (3, 3), (8, None))
    """
    if choice == PIECES_SPLIT:
        return 2, None
    if choice == PIECES_ANY:
        return 1, None
    n = int(choice.rstrip("+"))
    return (n, None) if choice.endswith("+") else (n, n)


def _split(source: Chosen, target: Chosen, labels: dict[str, str]) -> model.SplitUnder:
    def compute() -> model.SplitUnder:
        bar = st.progress(0.0, text=f"Encoding every token of {md(labels[source.key])} with {md(labels[target.key])}…")

        def progress(done: int, total: int) -> None:
            bar.progress(
                done / total if total else 1.0,
                text=f"{md(labels[source.key])} under {md(labels[target.key])}: {done:,} of {total:,} tokens",
            )

        found = model.split_under(source.vocab, target.tok, labels[target.key], progress)
        bar.empty()
        return found

    return _kept("overlap.split", [source, target], (), compute, maxsize=4, quiet=True)


def show_split_under(chosen: Sequence[Chosen]) -> None:
    st.subheader("One tokenizer's tokens as another's pieces")
    st.caption(
        "Each token of one vocabulary, encoded on its own by the other tokenizer: how many of its tokens does it take? "
        "1 means the other has the same token (and its split pattern keeps it whole); a token that is part of a "
        "character is split by BPE on its bytes alone. Both directions are drawn; the table shows the first."
    )
    keys = [c.key for c in chosen]
    labels = {c.key: c.vocab.label for c in chosen}
    if STATE.get("source") not in keys:
        STATE["source"] = keys[0]
    if STATE.get("target") not in keys or STATE.get("target") == STATE.get("source"):
        STATE["target"] = next(k for k in keys if k != STATE["source"])
    c1, c2 = st.columns(2)
    src = c1.selectbox("Tokens of", keys, format_func=labels.get, key=STATE.key("source"))
    tgt = c2.selectbox("as pieces of", keys, format_func=labels.get, key=STATE.key("target"))
    if src == tgt:
        st.info(
            "Pick two different tokenizers: a vocabulary under itself is on the Vocabulary page (unreachable tokens).", icon="🔀"
        )
        return
    by_key = {c.key: c for c in chosen}
    with errors.shown():
        there = _split(by_key[src], by_key[tgt], labels)
        back = _split(by_key[tgt], by_key[src], labels)
        cols = st.columns(2)
        for col, s in zip(cols, (there, back)):
            with col:
                st.markdown(f"**{md(s.direction)}**")
                a, b = st.columns(2)
                a.metric(
                    "kept whole",
                    f"{s.whole:.1%}",
                    border=True,
                    help=f"Share of {md(s.source)}'s {len(s.pieces):,} tokens that {md(s.target)} encodes as one token",
                )
                b.metric("pieces per token", f"{s.mean:.2f}", border=True, help=f"The mean number of {md(s.target)} tokens")
        presenter.chart(charts.split_histogram(model.histogram([there, back])), width="stretch")
        c1, c2 = st.columns([3, 2])
        pieces = (
            c1.segmented_control(
                "Pieces",
                PIECE_CHOICES,
                format_func=lambda p: PIECE_LABELS.get(p, p),
                key=STATE.key("pieces"),
                persist_state="session",
                required=True,
                help="Show the tokens that become this many pieces",
            )
            or PIECES_SPLIT
        )
        pattern = c2.text_input("Search (regex)", key=STATE.key("split_search"), persist_state="session", placeholder="e.g. ing$")
        least, most = piece_range(pieces)
        key = (src, tgt, id(there), least, most, pattern)
        rows = cache.for_session(
            "overlap.split_rows",
            key,
            lambda: model.split_rows(there, least=least, most=most, match=_regex_match(pattern)),
            maxsize=4,
        )
        # the target's pieces of the rows shown, encoded again: a tenth of a second, kept for this session's last few
        table = cache.for_session("overlap.split_table", key, lambda: model.split_table(there, rows, by_key[tgt].tok), maxsize=4)
        if table.empty:
            if (least, most, pattern) == (2, None, ""):
                st.success(f"None: {md(there.target)} keeps every token of {md(there.source)} whole.", icon="✅")
            else:
                st.info("No token matches: pick another number of pieces or change the search.", icon="🔍")
            return
        st.dataframe(
            table,
            hide_index=True,
            width="stretch",
            height=360,
            column_config={
                "id": st.column_config.NumberColumn(f"{there.source} id", format="%d", width="small"),
                "pieces": st.column_config.NumberColumn("pieces", width="small"),
            },
        )
        more = f"; showing the first {len(table):,}, in {md(there.source)}'s id order" if len(rows) > len(table) else ""
        st.caption(
            f"{len(rows):,} of {md(there.source)}'s {len(there.pieces):,} tokens{more}. Computed in {there.seconds + back.seconds:.1f} s (once)."
        )
