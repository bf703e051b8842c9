"""The Pre-tokenize page's sections: a text, the split patterns to compare, their chunks side
by side with the places where they cut differently, each pattern's rule, and a probes table.

``pages/pretokenize.py`` calls ``page``. Computing lives in ``model``; the rows are drawn
by ``ui.common.draw.chunks``; the diff comes from Compare's ``boundary_diff``.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from ui.common import cache, draw, errors, presenter, state, user_text
from ui.compare.model import boundary_diff
from ui.content import samples
from ui.render.markdown import md
from ui.render.records import Row

from . import model

#: Chunks drawn per pattern (the counts cover them all).
CHUNK_LIMIT = 1_500
#: GPT-2, GPT-4 and GPT-4o, one open model that spells numbers digit by digit, and no split
DEFAULT_PATTERNS = ("gpt2", "gpt4", "o200k", "qwen2.5", "none")
EXPLANATION = (
    "Before BPE merges anything, the tokenizer cuts the text into **chunks** with a regular expression (the *split "
    "pattern*), and merges never cross a chunk boundary. That is why GPT-2's tokens usually start with a space and "
    "never end with one, why GPT-4 never has a token of four digits, and why code indentation becomes tokens of "
    "its own. Each row below is one pattern's cut of the same text; **red dashes** mark a cut that not every "
    'pattern makes and grey chunks are cut the same way by all ("no split" is left out of that comparison).'
)

STATE = state.PageState(
    "pretok",
    {
        "text": model.DEFAULT_TEXT,
        "patterns": list(DEFAULT_PATTERNS),
        "custom": "",
        "diff": True,
        "whitespace": True,
        "seen": None,  # the shared text as this page last took it or wrote it (``_follow_shared``)
    },
    widgets=("sample", "shared"),
)


def _load_seed() -> None:
    name = STATE.get("sample")
    if name:
        STATE["text"] = model.SEEDS[name]
        STATE["sample"] = None


def _use_shared() -> None:
    STATE["text"] = st.session_state.get(state.TEXT, "")
    STATE["seen"] = STATE["text"]


def _follow_shared() -> None:
    """Take the text typed on the other pages when it changed since this page last saw it (the text follows the user
    from page to page); a first visit before anything was typed keeps this page's own example, made for patterns.
    The examples of the menu stay on this page: the other pages keep their text."""
    shared = st.session_state.get(state.TEXT, "")
    if shared == STATE["seen"]:
        return
    if STATE["seen"] is not None or shared != samples.DEFAULT_TEXT:
        STATE["text"] = shared
    STATE["seen"] = shared


def _typed() -> None:
    """Text typed here becomes the shared text, as on the other pages."""
    st.session_state[state.TEXT] = STATE["text"]
    STATE["seen"] = STATE["text"]


def _choices() -> dict[str, model.PatternChoice]:
    return model.builtin_choices()


def _examples() -> None:
    """The examples menu and the button that takes the text from the other pages."""
    c0, c00 = st.columns([3, 2], vertical_alignment="bottom")
    c0.selectbox(
        "Examples",
        list(model.SEEDS),
        index=None,
        key=STATE.key("sample"),
        on_change=_load_seed,
        placeholder="Load an example…",
        label_visibility="collapsed",
    )
    c00.button(
        "Use the text from the other pages",
        key=STATE.key("shared"),
        on_click=_use_shared,
        width="stretch",
        help="The text you typed on Tokenize, Compare or Step through.",
    )


def inputs() -> tuple[str, list[model.PatternChoice], Any]:
    """The text, the seed menu, the patterns and a custom regex; returns the text, the chosen patterns and where the
    chunks go (``presenter.slot``)."""
    _follow_shared()
    text = st.text_area(
        "Text to split",
        key=STATE.key("text"),
        height=140,
        on_change=_typed,
        persist_state="session",
        help="Any text; try the examples in the menu below.",
    )
    if not presenter.on():
        _examples()
    choices = _choices()
    STATE["patterns"] = [k for k in STATE["patterns"] if k in choices]
    # every choice in view, full names wrapping onto a second line if need be (a menu's chips were cut: "Qwen…")
    keys = st.pills(
        "Split patterns",
        list(choices),
        selection_mode="multi",
        format_func=lambda k: choices[k].label,
        key=STATE.key("patterns"),
        persist_state="session",
        help="The patterns of the encodings BPE Lab knows, and no split at all: click one to add or remove its row.",
    )
    figure = presenter.slot()
    if presenter.on():  # the examples under the chunks, which come up the screen
        _examples()
    c2, _ = st.columns([3, 2])
    custom = c2.text_input(
        "…and your own regex",
        key=STATE.key("custom"),
        live="600ms",
        persist_state="session",
        placeholder=r" ?\p{L}+| ?\p{N}+|\s+|.",
        help="Python `regex` syntax (\\p{L} is any letter). Stopped after 2 seconds.",
    )
    c3, c4 = st.columns(2)
    c3.toggle("Mark where they cut differently", key=STATE.key("diff"), persist_state="session")
    c4.toggle("Show whitespace", key=STATE.key("whitespace"), persist_state="session", help="space ·, newline ↵, tab →")
    chosen = [choices[k] for k in keys]
    if custom:
        chosen.append(model.custom_choice(custom))
    return user_text.clip(text)[0], chosen, figure


def _split_all(text: str, chosen: list[model.PatternChoice]) -> list[tuple[str, model.PatternChoice, list[str]]]:
    """Each pattern's chunks (this session's input: kept for this session only); a failing regex shows its error."""
    labels = model.unique_labels(chosen)
    out = []
    for label, c in zip(labels, chosen):
        with errors.shown(prefix=f"{label}: "), st.spinner(f"Splitting the text with {md(label)}…", show_time=True):
            # a regex of the user's can take up to its time limit (2 s) before it is stopped: the spinner says so
            chunks = cache.for_session("pretok.split", (c.pattern, text), lambda c=c: model.split(c, text), maxsize=16)
            out.append((label, c, chunks))
    return out


def results(text: str, chosen: list[model.PatternChoice], figure: Any) -> None:
    """The rows (in ``figure``: ``presenter.slot``), the rules, the differing stretches and the probes."""
    if not chosen:
        st.info("Choose one or more split patterns above (or type a regex of your own) to see how they cut the text.", icon="✂️")
        return
    if not text:
        st.info("Nothing to split yet: type a text above, or pick an example from the menu.", icon="✍️")
        return
    split = _split_all(text, chosen)
    if not split:
        return
    spans = {label: model.chunk_spans(chunks) for label, _, chunks in split}
    # "no split" disagrees with every cut, so it would mark them all: the diff is over the patterns that split
    splitting = {label: spans[label] for label, c, _ in split if c.pattern is not None}
    diff = boundary_diff(splitting) if STATE["diff"] and len(splitting) > 1 else None
    rows = [
        Row(label, spans[label], diff.dim.get(label, ()) if diff else (), diff.cuts.get(label, ()) if diff else ())
        for label, _, _ in split
    ]
    with figure:
        draw.rows(rows, kind="chunks", show_whitespace=STATE["whitespace"], limit=CHUNK_LIMIT)
        st.caption(
            "Each box is one chunk; BPE then merges bytes inside each box separately. Hover a chunk for its number and bytes."
        )

    st.subheader("The rules")
    for label, c, chunks in split:
        used = f" (used by {', '.join(c.used_by)})" if len(c.used_by) > 1 else ""
        st.markdown(f"**{md(label)}**{md(used)} · {len(chunks):,} chunk{'' if len(chunks) == 1 else 's'}: {c.rule}")
    with st.expander("The regular expressions"):
        for label, c, _ in split:
            st.markdown(f"**{md(label)}**")
            st.code(c.pattern or "(no pattern: the whole text is one chunk)", language=None, wrap_lines=True)

    if diff is not None:
        st.subheader("Where they cut differently")
        if diff.n_differing:
            st.markdown(f"**{diff.n_differing:,} of {diff.n_regions:,}** stretches of the text are cut differently.")
            # a static table: cells and headers wrap, so a column per pattern fits the page (no sideways scrolling)
            st.table(diff.table, hide_index=True, height="content" if len(diff.table) <= 10 else 420)
        else:
            st.success("Every pattern cuts this text in the same places.", icon="✅")

    st.subheader("Probes")
    st.caption("The same short texts under each pattern: contractions, digits, spaces, newlines, case changes.")
    probes = cache.for_session(
        "pretok.probes",
        tuple((c.label, c.pattern) for _, c, _ in split),
        lambda: model.probes_table([c for _, c, _ in split]),
        maxsize=8,
    )
    st.table(probes.set_axis(["probe", "text", *[label for label, _, _ in split]], axis=1), hide_index=True)


def page() -> None:
    text, chosen, figure = inputs()
    results(text, chosen, figure)
