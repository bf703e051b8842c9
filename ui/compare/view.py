"""The Compare page's parts: one text under several tokenizers, statistics, boundary
diff, and the built-in sample set's compression leaderboard.

``pages/compare.py`` calls these in order. Computing lives in ``model``; HTML in
``ui.common.draw`` (records drawn in the browser), charts in ``ui.render.charts``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from tokenizer.models.provision import ESSENTIAL
from tokenizer.spm import difference_note
from ui.common import cache, errors, presenter, state, urlstate, user_text
from ui.common import tokenizers as tk
from ui.content import samples
from ui.render import charts, records
from ui.render.markdown import md
from ui.render.records import Row

from . import model
from . import rows as pickable
from .model import BoundaryDiff, Tokenized

STATE = state.PageState(
    "compare",
    {
        "tokenizers": lambda: model.default_keys(
            tk.latest_user_key(), tk.available
        ),  # your latest tokenizer first, if you have one
        "special": False,
        "whitespace": False,
        "diff": True,
        "metric": "bytes/token",
        "board": "chosen",  # the leaderboard's tokenizers: "chosen" above, or "every" model too
        "picked": None,  # the token clicked in the rows, as the page reported it (ui.compare.rows)
        "applied": None,  # the tokenizers the page below the menu was last drawn with (``choose_tokenizers``)
    },
    widgets=("text", "sample", "rows", "apply"),
)
URL = ("tokenizers", "text")


# ---------------------------------------------------------------- input


def restore_link() -> None:
    """Apply a link's tokenizers and text (see ui.common.urlstate); warn about those this server lacks."""
    asked = urlstate.incoming(STATE.page, URL)
    if "text" in asked:
        state.set_text(asked["text"], STATE)
    raw = asked.get("tokenizers")
    if raw is not None:
        choices = tk.options()
        keys = [k for k in dict.fromkeys(raw.split(",")) if k]  # a tokenizer named twice is one column, as in the menu
        known = [k for k in keys if k in choices]
        unknown = [k for k in keys if k not in choices]
        if known:
            STATE["tokenizers"] = known
        if unknown:
            st.warning(f"The link names tokenizers that are not available here: {md(', '.join(unknown))}.", icon="🔗")


def input_panel(*, menu: bool = True) -> tuple[str, int]:
    """The shared text box and (``menu``) a sample menu; returns ``(text to compare, characters cut off)``."""
    text = state.shared_text_area(
        "Text",
        STATE,
        height=100 if presenter.on() else 140,  # three lines on a projector, so the rows start on its first screen
        help="Type or paste; press Ctrl+Enter (or click outside) to compare.",
    )
    if menu:
        sample_menu()
    return user_text.clip(text)


def sample_menu() -> None:
    state.sample_menu(STATE, samples.SAMPLES)


def choose_tokenizers() -> list[str]:
    """The tokenizers menu, in a fragment: picking a tokenizer reruns the menu alone (the whole page took 2 s a pick),
    and "Apply" (or any other change on the page) draws the page for all the picks at once."""
    _drop_gone_choices()
    STATE["applied"] = list(STATE["tokenizers"])  # this run draws them: the menu's own reruns compare with these
    _tokenizer_picker()
    return list(STATE["tokenizers"])


def _drop_gone_choices() -> None:
    """Drop picks that are no longer choices (a deleted tokenizer) before the widget reads them.

    The widget's key is written only when that changes it: a write makes the browser take the server's value, and a
    value computed from a run that started before the user's latest pick would undo that pick.
    """
    choices = tk.options()
    picked = STATE["tokenizers"]
    kept = [k for k in picked if k in choices]
    if kept != picked:
        STATE["tokenizers"] = kept


@st.fragment
def _tokenizer_picker() -> None:
    menu, apply = st.columns([6, 1], vertical_alignment="bottom")
    with menu:
        picked = _tokenizer_menu()
    pending = STATE["applied"] is not None and picked != STATE["applied"]
    clicked = apply.button(
        "Apply",
        key=STATE.key("apply"),
        type="primary" if pending else "secondary",
        disabled=not pending,
        width="stretch",
        help="Draw the comparison for the tokenizers picked: pick several first, then apply them at once.",
    )
    if pending:
        st.caption("Pick as many as you like: the comparison below follows when you press **Apply**.")
    if clicked:
        st.rerun()  # the whole page, drawn from the widget's own value: every pick the browser sent


def _tokenizer_menu() -> list[str]:
    _drop_gone_choices()
    choices = tk.options()
    return st.multiselect(
        "Tokenizers",
        list(choices),
        format_func=lambda k: tk.menu_label(k, choices.get(k, k)),
        key=STATE.key("tokenizers"),
        persist_state="session",
        placeholder="Choose tokenizers to compare",
        help="OpenAI's encodings and open models (Meta, Qwen, Mistral, DeepSeek), your own tokenizers and the two baselines. "
        "Type to search by family or name.",
    )


def options_row() -> tuple[bool, bool, bool]:
    c1, c2, c3 = st.columns(3)
    recognise = c1.toggle(
        "Recognise special tokens",
        key=STATE.key("special"),
        persist_state="session",
        help="Off: `<|endoftext|>` is ordinary text. On: it is one special token.",
    )
    ws = c2.toggle("Show whitespace", key=STATE.key("whitespace"), persist_state="session", help="space ·, newline ↵, tab →")
    diff = c3.toggle(
        "Highlight differences",
        key=STATE.key("diff"),
        persist_state="session",
        help="Fade the tokens that every tokenizer shares; mark cuts that not every tokenizer makes.",
    )
    return recognise, ws, diff


def link_params(keys: Sequence[str], text: str, dropped: int) -> dict[str, str]:
    return urlstate.params("" if dropped else text, tokenizers=",".join(keys))


def publish_link(keys: Sequence[str], text: str, dropped: int) -> None:
    """Keep the address bar a link to this comparison (every run)."""
    urlstate.publish(STATE.page, URL, link_params(keys, text, dropped))


def show_share(keys: Sequence[str], text: str, dropped: int) -> None:
    """The link to this comparison (its tokenizers and text), to copy, as Tokenize's Share tab gives its own."""
    wanted = link_params(keys, text, dropped)
    url = urlstate.link(wanted)
    with st.expander("Share this comparison"):
        if urlstate.TEXT not in wanted and text:
            st.caption(
                f"The link holds the tokenizers only: texts longer than {urlstate.MAX_TEXT:,} characters stay out of links."
            )
        else:
            st.caption("A link to this comparison: its tokenizers and its text (the address bar holds it too).")
        if url:
            st.code(url, language=None, wrap_lines=True)


# ---------------------------------------------------------------- computing


@dataclass
class Chosen:
    """The tokenizers chosen on this run, resolved once (``resolve``): what every section of the page reads."""

    labels: dict[str, str]  # key -> label, numbered when two of yours share a name (model.unique_labels)
    records: list[tk.Choice]  # those that load, in the menu's order
    problems: dict[str, str]  # key -> why it cannot be loaded (gone, or its file not installed), with what to do

    @property
    def not_installed(self) -> list[str]:
        """Keys of the chosen models whose file set-up did not provision."""
        return [k for k in self.problems if k in tk.OFFICIAL and not tk.available(k)]


def resolve(keys: Sequence[str]) -> Chosen:
    """Each chosen tokenizer's record, once per run (a model's first load says so: ``tk.get``'s spinner)."""
    labels = model.unique_labels(keys, tk.options())
    records, problems = [], {}
    for key in keys:
        try:
            records.append(tk.choose(key, label=labels[key]))
        except ValueError as e:
            problems[key] = str(e)
    return Chosen(labels, records, problems)


def kind_note(chosen: Chosen) -> None:
    """How SentencePiece-style BPE differs from byte-level BPE, in one line, when one of the chosen is of that kind."""
    if note := difference_note(c.tok for c in chosen.records):
        st.caption(note)


def tokenize_all(chosen: Chosen, text: str, *, recognise: bool) -> list[Tokenized]:
    """Encode the text with each tokenizer; one that cannot be loaded or fails shows its error and is left out."""
    for key, why in chosen.problems.items():
        st.error(f"{md(chosen.labels[key])}: {why}", icon="⚠️")
    out = []
    for c in chosen.records:
        with errors.shown(prefix=f"{c.label}: "):
            with st.spinner(f"Encoding the text with {md(c.label)}…", show_time=True):  # shown after half a second
                ids, spans = tk.encoded(c.tok, text, recognise=recognise)  # Tokenize's, when it had this text
                out.append(Tokenized(c.key, c.label, ids, spans, c.tok))
    return out


def boundary_diff(results: Sequence[Tokenized]) -> BoundaryDiff | None:
    return model.boundary_diff({r.label: r.spans for r in results}) if len(results) > 1 else None


BOARD_CHOICES = {"chosen": "The tokenizers above", "every": "Every model"}


def board_keys(keys: Sequence[str], every: bool) -> list[str]:
    """The leaderboard's tokenizers: the chosen ones, then (``every``) each model not chosen; models not installed are left out."""
    chosen = list(keys) + ([k for k in tk.OFFICIAL if k not in keys] if every else [])
    return [k for k in chosen if k not in tk.OFFICIAL or tk.available(k)]


def board_records(chosen: Chosen, every: bool) -> list[tk.Choice]:
    """The leaderboard's tokenizers as records: the chosen ones that load, then (``every``) each installed model
    not chosen (loaded the first time it is needed, once per server)."""
    held = {c.key: c for c in chosen.records}
    keys = [k for k in board_keys(list(chosen.labels), every) if k in held or k not in chosen.problems]
    return [held.get(k) or tk.choose(k) for k in keys]


def leaderboard(records: Sequence[tk.Choice]) -> pd.DataFrame:
    """The built-in samples under each tokenizer (``model.leaderboard``).

    An official encoding's counts on the built-in samples are the same for every
    session, so they are kept for all; a tokenizer of yours, for this session.
    """
    with st.spinner(f"Counting the samples' tokens under {len(records)} tokenizers…", show_time=True):
        return model.leaderboard(
            [c.label for c in records], samples.names(), lambda i, sample: _sample_counts(records[i].tok, sample)
        )


def _sample_counts(tok, sample: str):
    return cache.for_tokenizer(
        tok, "sample_counts", sample, lambda: model.sample_counts(tok, samples.SAMPLES[sample]), maxsize=64
    )


def warm_up() -> None:
    """Load the models every student meets (OpenAI's three, which every page starts from, and those Compare opens
    with) and count the built-in samples under them now (kept for every session), so the first student to open
    Compare on a fresh app process does not wait for Llama 3 and the counts. The other open models load on
    first use (docs/models.md), since warming every one would cost each app process far more time and memory."""
    for key in dict.fromkeys((*ESSENTIAL, *model.OFFICIAL_DEFAULT)):
        if not tk.available(key):
            continue
        tok = tk.official(key)  # not tk.get: no page to show a spinner on yet
        for sample in samples.names():
            _sample_counts(tok, sample)


def _chart(kind: str, df: pd.DataFrame, metric: str = "") -> dict:
    """A chart spec: a plain dict, built in well under a millisecond (``ui.render.charts``), so not cached."""
    return charts.compare_stats(df) if kind == "stats" else charts.compare_leaderboard(df, metric)


# ---------------------------------------------------------------- drawing


def show_rows(results: Sequence[Tokenized], *, show_whitespace: bool, diff: BoundaryDiff | None) -> None:
    rows = [
        Row(r.label, r.spans, diff.dim.get(r.label, ()) if diff else (), diff.cuts.get(r.label, ()) if diff else ())
        for r in results
    ]
    # the same rows come back on most reruns (a toggle below, the leaderboard's measure): drawn once per session
    tokens = tuple((r.key, r.label, tuple(r.ids)) for r in results)

    def build() -> tuple[list[dict], str]:  # the records and their signature (a hash of a few hundred kB: once, with it)
        drawn = records.rows(rows, model.SPAN_LIMIT)
        return drawn, pickable.signature((drawn, show_whitespace))

    drawn, sig = cache.for_session("compare.rows", (tokens, show_whitespace, diff is not None), build, maxsize=4)
    _pickable_rows(results, drawn, show_whitespace, sig, pickable.signature(tokens))
    note = (
        "Click a token to see how it was built: its merge tree down to bytes, with each merge's rank, under its row. "
        "Hover a token for its id, bytes and text; a token's colour is the same on every page."
    )
    if diff:
        note += " Faded: tokens every tokenizer shares. Red dashes: a cut that not every tokenizer makes."
    if any(len(r.spans) > model.SPAN_LIMIT for r in results):
        note += f" Each row draws at most {model.SPAN_LIMIT:,} tokens; the statistics count them all."
    st.caption(note)


def _on_pick() -> None:
    STATE["picked"] = pickable.reported(STATE.key("rows"))


@st.fragment
def _pickable_rows(results: Sequence[Tokenized], drawn: list[dict], show_whitespace: bool, sig: str, tokens_sig: str) -> None:
    """The rows, and under the clicked token's row how it was built; in a fragment, so a click reruns only this."""
    pick = pickable.check_pick(pickable.parse_pick(STATE["picked"], tokens_sig), [r.spans for r in results], model.SPAN_LIMIT)
    tree = None
    if pick is not None:
        r = results[pick.row]
        with errors.shown(prefix=f"{r.label}: "):
            tree = {"row": pick.row, "index": pick.index, "id": pick.id, "panel": built(r, pick.index)}
    pickable.show(drawn, show_whitespace, sig, tokens_sig, key=STATE.key("rows"), tree=tree, on_pick=_on_pick)


def built(result: Tokenized, index: int) -> dict:
    """How the token at ``index`` in ``result`` was built (``records.panel``), under that row's tokenizer."""
    tok = result.tok
    span = result.spans[index]
    return records.panel(tok.merge_tree(span.id), tok.rank_of, where=result.label, special=span.special)


def show_stats(text: str, results: Sequence[Tokenized]) -> None:
    st.subheader("Statistics")
    df = model.stats_table(text, results)
    st.dataframe(
        df,
        hide_index=True,
        width="stretch",
        column_config={
            "whole words %": st.column_config.NumberColumn(
                "whole words %",
                format="%.1f %%",
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
    presenter.chart(spec=_chart("stats", df), width="content")


def show_diff(diff: BoundaryDiff, results: Sequence[Tokenized]) -> None:
    st.subheader("Where they cut differently")
    st.markdown(
        f"**{diff.n_differing:,} of {diff.n_regions:,}** stretches of the text are cut differently; "
        f"**{diff.shared_share:.0%}** of its bytes sit in tokens that every tokenizer shares. "
        "A stretch runs from one place where every tokenizer cuts to the next."
    )
    if diff.n_differing:
        # a static table: its cells and headers wrap, so a column per tokenizer fits the page (no sideways scrolling)
        st.table(diff.table, hide_index=True, height="content" if len(diff.table) <= 10 else 420)
        if diff.n_differing > len(diff.table):
            st.caption(f"Showing the first {len(diff.table):,} of {diff.n_differing:,} differing stretches.")


def show_leaderboard(chosen: Chosen) -> None:
    st.subheader("Sample set: compression per tokenizer")
    st.caption(
        "Our built-in samples (prose, code, numbers, CJK, Cyrillic and Devanagari, emoji, whitespace) under each chosen "
        "tokenizer, in the spirit of Tokenizer Arena's compression leaderboard. Special tokens are text here."
    )
    every = (
        st.segmented_control(
            "Tokenizers in the leaderboard",
            list(BOARD_CHOICES),
            format_func=BOARD_CHOICES.get,
            key=STATE.key("board"),
            required=True,
            persist_state="session",
            help="Every model: each installed encoding (OpenAI's and the open models'), besides the ones chosen above. "
            "A model is loaded the first time it is needed, once per server.",
        )
        == "every"
    )
    board = None
    missing = [tk.OFFICIAL[k] for k in chosen.not_installed]
    if missing:
        st.caption(f"Left out, not installed on this server: {', '.join(missing)}.")
    with errors.shown():
        board = leaderboard(board_records(chosen, every))
    if board is None or board.empty:
        return
    metric = (
        st.segmented_control(
            "Measure",
            list(model.LEADERBOARD_METRICS),
            key=STATE.key("metric"),
            required=True,
            persist_state="session",
            help="\n\n".join(f"**{k}**: {v}" for k, v in model.LEADERBOARD_METRICS.items()),
        )
        or "bytes/token"
    )
    table = model.leaderboard_table(board, metric, samples.names())
    # a static table: its headers wrap, so it fits the page even with every model (no sideways scrolling)
    st.table(table.style.format(precision=0 if metric == "tokens" else 3, thousands=","))
    chart_data = board[board["sample"] != model.ALL_SAMPLES]
    presenter.chart(spec=_chart("leaderboard", chart_data, metric), width="stretch")


def show_samples_preview() -> None:
    with st.expander("The sample texts"):
        for name, text in samples.SAMPLES.items():
            st.markdown(f"**{name}** · {len(text):,} characters, {len(text.encode()):,} bytes")
            st.code(text, language=None, wrap_lines=True)


def show_too_long(n_chars: int) -> None:
    st.warning(
        f"The text is {n_chars:,} characters long; only the first {user_text.MAX_CHARS:,} are compared "
        "(the page's limit, about 200 kB of English).",
        icon="✂️",
    )
