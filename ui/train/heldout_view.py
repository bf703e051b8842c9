"""Train's "Vocabulary size vs compression" section: one of your tokenizers, every prefix of its merges,
on a held-out text you pick, against GPT-2, GPT-4 and GPT-4o on the same text.

``pages/train.py`` calls ``section(key)`` under the results of the chosen tokenizer.
Computing lives in ``heldout``; the chart is ``ui.render.charts.vocab_vs_compression``.
"""

from __future__ import annotations

import streamlit as st

from ui.common import cache, errors, presenter, state, tokenizers, workspace
from ui.compare import languages
from ui.content import corpora, samples
from ui.render import charts

from . import heldout

SOURCES = {
    "stdlib-docstrings": "Python docstrings",
    "stdlib-source": "Python source code",
    "about-bpe": "An essay about BPE",
    "samples": "Our sample texts",
    "languages": "One passage, 22 languages",
    "shared": "The text from the other pages",
    "paste": "Paste a text",
}
BUILT_IN = ("stdlib-docstrings", "stdlib-source", "about-bpe", "samples", "languages")
REFERENCES = ("r50k_base", "cl100k_base", "o200k_base")
EXPLANATION = (
    "Every prefix of your merge list is a smaller tokenizer: after *k* merges the vocabulary has 256 + *k* tokens. "
    "The curve encodes a **held-out** text (not the one it was trained on) with each of them and shows how many bytes "
    "one token carries on average: the higher, the shorter the sequences. The dashed lines are GPT-2, GPT-4 and "
    "GPT-4o on the same text, so you can read off how many merges yours needs to compress this text as well as they do."
)

STATE = state.PageState("heldout", {"source": None, "paste": ""})


def _builtin_text(source: str) -> str:
    if source == "samples":
        return "\n\n".join(samples.SAMPLES.values())
    if source == "languages":
        return "\n".join(languages.texts().values())
    return corpora.text(source)


def _default_source(training: str | None) -> str:
    for source in ("stdlib-docstrings", "stdlib-source", "about-bpe"):
        if not heldout.overlaps(_builtin_text(source), training):
            return source
    return "samples"


def _text(source: str) -> str:
    if source in BUILT_IN:
        return _builtin_text(source)
    if source == "shared":
        return st.session_state.get(state.TEXT, "")
    return st.text_area(
        "Held-out text",
        key=STATE.key("paste"),
        height=140,
        persist_state="session",
        placeholder="Paste a text the tokenizer was not trained on…",
    )


def _reference_ratios(source: str, text: str) -> dict[str, float]:
    out = {}
    for name in REFERENCES:
        tok = tokenizers.official(name)
        if source in BUILT_IN:  # an official encoding on built-in text: the same for everyone
            ratio = cache.for_tokenizer(
                tok, "heldout_ratio", source, lambda tok=tok: heldout.reference_ratio(tok, text), maxsize=8
            )
        else:
            ratio = cache.for_session(
                "heldout.ratio", (name, text), lambda tok=tok: heldout.reference_ratio(tok, text), maxsize=8
            )
        out[tokenizers.OFFICIAL[name]] = ratio
    return out


def _curve_and_chart(tok, source: str, text: str, title: str):
    """The curve and its chart: for a built-in held-out text, ``cache.for_content`` (once per process for a built-in
    training's copies, the class's usual case); for a typed or pasted one, this session's."""

    def chart(full):
        return charts.vocab_vs_compression(full, _reference_ratios(source, text), title=title)

    if source in BUILT_IN:
        full = cache.for_content(tok, "heldout.curve", source, lambda: heldout.curve(tok, text), maxsize=4)
        return full, cache.for_content(tok, "heldout.chart", (source, title), lambda: chart(full), maxsize=4)
    full = cache.for_session("heldout.curve", (source, text), lambda: heldout.curve(tok, text), owner=tok, maxsize=4)
    return full, cache.for_session("heldout.chart", (source, text, title), lambda: chart(full), owner=tok, maxsize=4)


def section(key: str) -> None:
    """The section for one tokenizer of the workspace (``key`` without the ``user:`` prefix)."""
    STATE.init()
    st.subheader("Vocabulary size vs compression")
    st.markdown(EXPLANATION)
    store = workspace.store()
    with errors.shown():
        tok = store.get(key)
        training = store.corpus(key)
        if STATE.get("source") not in SOURCES:
            STATE["source"] = _default_source(training)
        source = (
            st.segmented_control(
                "Held-out text",
                list(SOURCES),
                format_func=SOURCES.get,
                key=STATE.key("source"),
                required=True,
                persist_state="session",
            )
            or "stdlib-docstrings"
        )
        text = _text(source)
        if not text or not text.strip():
            st.info(
                "The held-out text is empty: paste one, or pick another source above."
                if source == "paste"
                else "The text from the other pages is empty: type one on Tokenize, Compare or Step through.",
                icon="✍️",
            )
            return
        if len(text) > heldout.MAX_CHARS:
            text = text[: heldout.MAX_CHARS]
            st.caption(f"The first {heldout.MAX_CHARS:,} characters are used.")
        if heldout.overlaps(text, training):
            st.warning(
                "This text is part of the tokenizer's training text, so the curve flatters it: pick a text it has not seen.",
                icon="🔁",
            )
        if tok.num_merges == 0:
            st.info("This tokenizer has no merges: its curve is a single point at 1 byte per token.", icon="ℹ️")
        what = SOURCES[source]
        title = f"{tok.name or 'Yours'} on {what[0].lower()}{what[1:]}"
        with st.spinner("Encoding the held-out text with every prefix of the merges…"):
            full, spec = _curve_and_chart(tok, source, text, title)
            refs = _reference_ratios(source, text)
        presenter.chart(spec, width="stretch")
        found = heldout.matches(full, refs)
        st.markdown("\n".join(f"- {heldout.describe(m)}" for m in found))
        st.caption(
            f"{len(text):,} characters, {len(text.encode('utf-8')):,} bytes. Your tokenizer: {tok.num_merges:,} merges, "
            f"{full['bytes per token'].iloc[-1]:.2f} bytes per token at the end."
        )
