"""The Compare page's parts: one text under several tokenizers, statistics, boundary
diff, and the built-in sample set's compression leaderboard.

``pages/compare.py`` calls these in order. Page state keys are ``"compare.*"``, set in ``init``.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from tokenizer.trace import Span

from ui.compare import model as analysis
from ui.render import compare_charts as charts
from ui.common import errors
from ui.common import urlstate as querystate
from ui.common import samples
from ui.render import spans
from ui.common import state
from ui.common import tokenizers as tk

PAGE = "compare"
K_TOKENIZERS = f"{PAGE}.tokenizers"
K_SPECIAL = f"{PAGE}.special"
K_WS = f"{PAGE}.whitespace"
K_DIFF = f"{PAGE}.diff"
K_METRIC = f"{PAGE}.metric"

OFFICIAL_DEFAULT = ("r50k_base", "cl100k_base", "o200k_base")
LEADERBOARD_METRICS = {
    "bytes/token": "UTF-8 bytes per token (higher: each token carries more text)",
    "chars/token": "characters per token (higher: fewer tokens for the same text)",
    "tokens": "tokens for the sample (lower is better)",
}

ROW_CSS = """
<style>
.bpe-row{margin:0 0 0.9rem 0;}
.bpe-row-head{display:flex;gap:0.75rem;align-items:baseline;margin:0 0 0.2rem 0.1rem;font-size:0.92rem;}
.bpe-row-head b{font-weight:600;}
.bpe-row-head .n{color:#6b7280;font-variant-numeric:tabular-nums;}
</style>
"""


def init() -> None:
    """Every Compare-page key and its default, in one place."""
    state.init()
    st.session_state.setdefault(K_TOKENIZERS, default_keys())
    st.session_state.setdefault(K_SPECIAL, False)
    st.session_state.setdefault(K_WS, False)
    st.session_state.setdefault(K_DIFF, True)
    st.session_state.setdefault(K_METRIC, "bytes/token")


def default_keys() -> list[str]:
    """Your latest trained tokenizer (if any), then GPT-2, cl100k and o200k."""
    latest = tk.latest_user_key()
    return ([latest] if latest else []) + list(OFFICIAL_DEFAULT)


@dataclass
class Tokenized:
    key: str
    label: str
    ids: list[int]
    spans: list[Span]


# ---------------------------------------------------------------- input


def restore_link() -> None:
    for note in querystate.restore(PAGE, tk.options(), multi=True):
        st.warning(note, icon="🔗")



def input_panel() -> tuple[str, int]:
    """The shared text box and a sample menu; returns ``(text to compare, characters cut off)``."""
    text = state.shared_text_area("Text", PAGE, height=140, help="Type or paste; press Ctrl+Enter (or click outside) to compare.")
    state.sample_menu(PAGE, samples.SAMPLES)
    return analysis.clip(text)


def choose_tokenizers() -> list[str]:
    choices = tk.options()
    # drop choices that are gone (a deleted tokenizer) before the widget reads them
    st.session_state[K_TOKENIZERS] = [k for k in st.session_state.get(K_TOKENIZERS, []) if k in choices]
    return st.multiselect(
        "Tokenizers", list(choices), format_func=lambda k: choices.get(k, k), key=K_TOKENIZERS, persist_state="session",
        placeholder="Choose tokenizers to compare", help="Official encodings, your own tokenizers and the two baselines.",
    )


def options_row() -> tuple[bool, bool, bool]:
    c1, c2, c3 = st.columns(3)
    recognise = c1.toggle("Recognise special tokens", key=K_SPECIAL, persist_state="session",
                          help="Off: `<|endoftext|>` is ordinary text. On: it is one special token.")
    ws = c2.toggle("Show whitespace", key=K_WS, persist_state="session", help="space ·, newline ↵, tab →")
    diff = c3.toggle("Highlight differences", key=K_DIFF, persist_state="session",
                     help="Fade the tokens that every tokenizer shares; mark cuts that not every tokenizer makes.")
    return recognise, ws, diff


# ---------------------------------------------------------------- computing


def unique_labels(keys: Sequence[str]) -> dict[str, str]:
    """``{key: label}``; two of your tokenizers with the same name get a number added."""
    choices = tk.options()
    out: dict[str, str] = {}
    for key in keys:
        label = choices.get(key, key)
        n = 2
        while label in out.values():
            label = f"{choices.get(key, key)} ({n})"
            n += 1
        out[key] = label
    return out


def tokenize_all(keys: Sequence[str], text: str, *, recognise: bool) -> list[Tokenized]:
    """Encode the text with each tokenizer; a failing one shows its error and is left out."""
    labels = unique_labels(keys)
    out = []
    for key in keys:
        with errors.shown(prefix=f"{labels.get(key, key)}: "):
            tok = tk.get(key)
            ids = analysis.encode(tok, text, recognise_special=recognise)
            out.append(Tokenized(key, labels.get(key, key), ids, tok.spans(ids)))
    return out


def stats_table(text: str, results: Sequence[Tokenized]) -> pd.DataFrame:
    return pd.DataFrame([analysis.stats_row(r.label, text, r.spans) for r in results])


@st.cache_data(show_spinner=False, max_entries=1024)
def sample_stats(key: str, sample: str, _tok) -> dict:
    """Counts for one built-in sample under one tokenizer (cached: the samples never change)."""
    text = samples.SAMPLES[sample]
    ids = analysis.encode(_tok, text, recognise_special=False)
    c = analysis.counts(text, ids)
    return {"tokens": c.tokens, "chars": c.characters, "bytes": c.bytes}


def leaderboard(keys: Sequence[str]) -> pd.DataFrame:
    """Long form: one row per (sample, tokenizer) plus an "all samples" row per tokenizer."""
    labels = unique_labels(keys)
    rows = []
    for key in keys:
        tok = tk.get(key)
        total = {"tokens": 0, "chars": 0, "bytes": 0}
        for name in samples.names():
            s = sample_stats(key, name, tok)
            total = {k: total[k] + s[k] for k in total}
            rows.append({"sample": name, "tokenizer": labels.get(key, key), **s})
        rows.append({"sample": "all samples", "tokenizer": labels.get(key, key), **total})
    df = pd.DataFrame(rows)
    if not df.empty:
        df["bytes/token"] = (df["bytes"] / df["tokens"]).round(3)
        df["chars/token"] = (df["chars"] / df["tokens"]).round(3)
    return df


# ---------------------------------------------------------------- drawing


@st.cache_data(show_spinner=False, max_entries=64)
def chart_spec(kind: str, df: pd.DataFrame, metric: str = "") -> dict:
    """The Altair chart as a Vega-Lite spec, cached by its data: Altair takes ~0.1 s to
    build and validate a chart, too much to pay on every rerun (a whitespace toggle)."""
    chart = charts.stats_chart(df) if kind == "stats" else charts.leaderboard_chart(df, metric)
    return chart.to_dict()


def rows_html(results: Sequence[Tokenized], *, show_whitespace: bool, diff: analysis.BoundaryDiff | None) -> str:
    """All tokenizations stacked, full width, each under a heading with its token count."""
    parts = [ROW_CSS]
    for i, r in enumerate(results):
        parts.append('<div class="bpe-row">')
        parts.append(
            f'<div class="bpe-row-head"><b>{html.escape(r.label)}</b>'
            f'<span class="n">{len(r.ids):,} tokens</span></div>'
        )
        parts.append(
            spans.render_spans(
                r.spans,
                show_whitespace=show_whitespace,
                dim=diff.dim.get(r.label, ()) if diff else (),
                cuts=diff.cuts.get(r.label, ()) if diff else (),
                limit=analysis.COMPARE_SPAN_LIMIT,
                css=i == 0,
            )
        )
        parts.append("</div>")
    return "".join(parts)


def show_rows(results: Sequence[Tokenized], *, show_whitespace: bool, diff: analysis.BoundaryDiff | None) -> None:
    spans.show(rows_html(results, show_whitespace=show_whitespace, diff=diff))
    note = "Hover a token for its id, bytes and text; a token's colour is the same on every page."
    if diff:
        note += " Faded: tokens every tokenizer shares. Red dashes: a cut that not every tokenizer makes."
    if any(len(r.spans) > analysis.COMPARE_SPAN_LIMIT for r in results):
        note += f" Each row draws at most {analysis.COMPARE_SPAN_LIMIT:,} tokens; the statistics count them all."
    st.caption(note)


def show_stats(text: str, results: Sequence[Tokenized]) -> None:
    st.subheader("Statistics")
    df = stats_table(text, results)
    st.dataframe(
        df, hide_index=True, width="stretch",
        column_config={
            "whole words %": st.column_config.NumberColumn(
                "whole words %", format="%.1f %%",
                help="Tokens that are a whole word of the text: the token, without one leading space, "
                "is exactly a complete run of letters/digits (\\w+), e.g. ' token' in 'a token.' but not 'tok'.",
            ),
            "unique tokens": st.column_config.NumberColumn("unique tokens", help="Different token ids used"),
        },
    )
    st.caption(
        "**Whole words**: tokens that, without one leading space, are exactly one complete run of letters and digits "
        "(`\\w+`) of the text: ` token` in “a token.” counts; `tok`, and ` token` in “tokens”, do not."
    )
    st.vega_lite_chart(spec=chart_spec("stats", df), width="content")


def show_diff(diff: analysis.BoundaryDiff, results: Sequence[Tokenized]) -> None:
    st.subheader("Where they cut differently")
    if len(results) < 2:
        st.info("Choose at least two tokenizers to see where their boundaries differ.")
        return
    st.markdown(
        f"**{diff.n_differing:,} of {diff.n_regions:,}** stretches of the text are cut differently; "
        f"**{diff.shared_share:.0%}** of its bytes sit in tokens that every tokenizer shares. "
        "A stretch runs from one place where every tokenizer cuts to the next."
    )
    if diff.n_differing:
        st.dataframe(diff.table, hide_index=True, width="stretch", height=min(400, 38 + 35 * len(diff.table)))
        if diff.n_differing > len(diff.table):
            st.caption(f"Showing the first {len(diff.table):,} of {diff.n_differing:,} differing stretches.")


def show_leaderboard(keys: Sequence[str]) -> None:
    st.subheader("Sample set: compression per tokenizer")
    st.caption(
        "Our built-in samples (prose, code, numbers, CJK, Cyrillic and Devanagari, emoji, whitespace) under each chosen "
        "tokenizer, in the spirit of Tokenizer Arena's compression leaderboard. Special tokens are text here."
    )
    board = None
    with errors.shown():
        board = leaderboard(keys)
    if board is None or board.empty:
        return
    metric = st.segmented_control(
        "Measure", list(LEADERBOARD_METRICS), key=K_METRIC, required=True, persist_state="session",
        help="\n\n".join(f"**{k}**: {v}" for k, v in LEADERBOARD_METRICS.items()),
    ) or "bytes/token"
    table = board.pivot(index="sample", columns="tokenizer", values=metric)
    order = [*samples.names(), "all samples"]
    table = table.reindex(order)[list(dict.fromkeys(board["tokenizer"]))]
    table["best"] = [best_of(row, lower=metric == "tokens") for _, row in table.iterrows()]
    st.dataframe(table, width="stretch")
    chart_data = board[board["sample"] != "all samples"]
    st.vega_lite_chart(spec=chart_spec("leaderboard", chart_data, metric), width="stretch")


def best_of(row: pd.Series, *, lower: bool) -> str:
    """The best tokenizer(s) in a leaderboard row; ties are all named.

    >>> best_of(pd.Series({"A": 2.0, "B": 3.0, "C": 3.0}), lower=False)
    'B = C'
    """
    target = row.min() if lower else row.max()
    return " = ".join(str(k) for k, v in row.items() if v == target)


def publish_link(keys: Sequence[str], text: str, dropped: int) -> None:
    querystate.publish(querystate.params("" if dropped else text, tokenizers=keys))


def show_samples_preview() -> None:
    with st.expander("The sample texts"):
        for name, text in samples.SAMPLES.items():
            st.markdown(f"**{name}** · {len(text):,} characters, {len(text.encode()):,} bytes")
            st.code(text, language=None, wrap_lines=True)


def boundary_diff(results: Sequence[Tokenized]) -> analysis.BoundaryDiff:
    return analysis.boundary_diff({r.label: r.spans for r in results})


def show_too_long(n_chars: int) -> None:
    st.warning(
        f"The text is {n_chars:,} characters long; only the first {analysis.MAX_CHARS:,} are compared "
        "(the page's limit, about 200 kB of English).",
        icon="✂️",
    )
