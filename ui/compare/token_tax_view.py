"""Compare's token-tax section: the same passage in many languages (or one program in many programming languages)
under every chosen tokenizer, and how much of each vocabulary they use.

``pages/compare.py`` calls ``show_token_tax(chosen)``. The passages are ours
(``languages``), our programs (``code``) or the user's own (pasted or uploaded);
computing lives in ``tax`` and ``coverage``, the charts in ``ui.render.charts``
(``token_tax``, ``vocabulary_used``). The ids of an official encoding on our passages
or programs are the same for every session (kept for all, ``cache.for_tokenizer``);
anything with the user's texts or tokenizers stays in this session.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from tokenizer.formats.json_input import decode_text
from ui.common import cache, errors, presenter, state, upload
from ui.render import charts
from ui.render.markdown import md

from . import code, coverage, languages, token_tax

if TYPE_CHECKING:
    from .view import Chosen

OURS, CODE, YOURS = "ours", "code", "yours"
SOURCES = {
    OURS: f"Our passage in {len(languages.PASSAGES)} languages",
    CODE: f"Our program in {len(code.PROGRAMS)} programming languages",
    YOURS: "Your own parallel texts",
}
EXPLANATION = (
    "The same short passage, written for BPE Lab in {n} languages, under each tokenizer chosen above. A tokenizer "
    "learns its merges from its training text, which is mostly English: English words become single tokens while "
    "other scripts stay in small pieces, down to single bytes. The **premium** is how many times more tokens a "
    "language needs than {ref} for the same meaning: a premium of 3 means the same message costs three times as much, "
    "fills the context window three times as fast and takes three times as long to generate."
)
CODE_EXPLANATION = (
    "The same small program (it prints the ten most frequent words of its input), written for BPE Lab in {n} "
    "programming languages, each the way that language is usually written, under each tokenizer chosen above. "
    "Tokenizers that saw much code in training have tokens for its keywords, its idioms and runs of indentation "
    "(GPT-2 spends a token on every space of an indent; GPT-4 and later one on the whole run). The **premium** is a "
    "program's tokens ÷ the {ref} program's under the same tokenizer: it mixes how wordy a language is (Java says "
    "more than Python) with how well the tokenizer knows it, so compare tokenizers along one row, and the "
    "languages' bytes (in the table) with their tokens."
)
VOCAB_EXPLANATION = (
    "How much of each vocabulary these {what} draw on, as tokka-bench reports it: a script or language the tokenizer "
    "knows well is written with many different tokens, one it hardly knows with the same few byte tokens again and "
    "again. **Distinct tokens**: the number of different token ids in the encoding of a text. **Vocabulary used**: "
    "the distinct tokens of all the {what} together ÷ the tokenizer's vocabulary (every token but the special ones; "
    "for the characters baseline, every Unicode character), in per cent."
)

STATE = state.PageState(
    "tax",
    {"source": OURS, "paste": "", "reference": None, "program": code.REFERENCE},
    widgets=("file",),
)


@st.cache_resource(max_entries=16, show_spinner=False)
def _for_everyone(kind: str, key: tuple, _compute):
    """``_compute()`` once per server process (Overlap's idiom, ``ui.overlap.view``): for the built-in passages or
    programs under official encodings only, where ``key`` (the labels and counts) says everything the result holds."""
    return _compute()


def _kept(kind: str, source: str, toks, key: tuple, compute, *, everyone_key: tuple | None = None):
    """``compute()`` for every session when the texts are ours and every tokenizer is an official encoding (a class
    opening Compare builds the tables and charts once per process), else for this session only. ``everyone_key``, when
    given, stands for ``key`` in the shared case (Streamlit hashes it at every call: no long tuples of ids)."""
    if source != YOURS and all(cache.is_shared(tok) for tok in toks):
        return _for_everyone(kind, key if everyone_key is None else everyone_key, compute)
    return cache.for_session(kind, key, compute, maxsize=4)


def _ids(key: str, tok, passages: dict[str, str], source: str) -> dict[str, tuple[int, ...]]:
    """The ids of each language's passage (special-token strings as text): their counts and distinct tokens."""

    def compute() -> dict[str, tuple[int, ...]]:
        return {lang: tuple(tok.encode(text, disallowed_special=())) for lang, text in passages.items()}

    if source != YOURS:  # ours or our programs: built-in texts, kept for everyone with an official encoding
        return cache.for_tokenizer(tok, "tax_ids", source, compute, maxsize=2)
    return cache.for_session("tax.ids", (key, tuple(passages.items())), compute, owner=tok, maxsize=8)


def _their_passages() -> dict[str, str] | None:
    """The user's parallel texts from the paste box or an upload; None (with a message) when there are none or they are bad."""
    c1, c2 = st.columns([3, 2])
    c1.text_area(
        "Parallel texts",
        key=STATE.key("paste"),
        height=160,
        persist_state="session",
        help=token_tax.FORMAT_HELP,
        placeholder="English: The weather is nice today.\nGerman: Heute ist das Wetter schön.\nGreek: Σήμερα ο καιρός είναι ωραίος.",
    )
    f = c2.file_uploader(
        "…or upload them (.txt, .tsv or .json)",
        type=["txt", "tsv", "json"],
        key=STATE.key("file"),
        max_upload_size=upload.MAX_UPLOAD_MB,
        help=token_tax.FORMAT_HELP,
    )
    raw = STATE["paste"]
    if f is not None:
        try:
            upload.check_size(f.size, f.name)
            raw = decode_text(f.getvalue(), f.name)  # UTF-8 (a byte-order mark dropped), or UTF-16/32 with its mark
        except ValueError as e:
            st.error(md(str(e)), icon="⚠️")
            return None
    try:
        passages = token_tax.parse_parallel(raw)
    except ValueError as e:
        st.error(md(str(e)), icon="⚠️")
        return None
    if len(passages) < 2:
        st.info(
            "Give at least two languages, one per line (`English: …`), to compare their token counts. " + token_tax.FORMAT_HELP,
            icon="🌍",
        )
        return None
    return passages


#: Height of the tokens table (px): about ten languages, the rest scroll inside it.
TABLE_HEIGHT = 420


def show_token_tax(chosen: Chosen) -> None:
    """The section: passages (or programs), the reference language, the chart and the table, then the vocabulary used."""
    STATE.init()
    st.subheader("Token tax by language")
    source = st.segmented_control(
        "Passages", list(SOURCES), format_func=SOURCES.get, key=STATE.key("source"), required=True, persist_state="session"
    )
    source = source if source in SOURCES else OURS
    passages = {OURS: languages.texts, CODE: code.texts}.get(source, _their_passages)()
    if passages is None:
        return
    langs = list(passages)
    if STATE.get("reference") not in langs:
        STATE["reference"] = token_tax.default_reference(langs)
    reference = st.selectbox(
        "Relative to",
        langs,
        key=STATE.key("reference"),
        help="The language every premium is measured against (1× = as many tokens as this one).",
    )
    st.markdown((CODE_EXPLANATION if source == CODE else EXPLANATION).format(n=len(passages), ref=md(reference)))
    if not chosen.labels:
        st.info("Choose one or more tokenizers above to see their token tax.", icon="⚖️")
        return
    # a model whose file is missing: the rows above already say so and how to install it
    missing = chosen.not_installed
    if missing:
        st.caption(f"Left out, not installed on this server: {md(', '.join(chosen.labels[k] for k in missing))}.")
    for key, why in chosen.problems.items():
        if key not in missing:
            st.error(f"{md(chosen.labels[key])}: {why}", icon="⚠️")
    encoded: list[tuple[str, object, dict[str, tuple[int, ...]]]] = []
    for c in chosen.records:
        with errors.shown(prefix=f"{c.label}: "):
            with st.spinner(f"Counting the tokens under {md(c.label)}…", show_time=True):
                encoded.append((c.label, c.tok, _ids(c.key, c.tok, passages, source)))
    if not encoded:
        return
    counted = [(label, {lang: len(ids) for lang, ids in by_lang.items()}) for label, _, by_lang in encoded]
    key = (
        source,
        reference,
        tuple((label, tuple(c.items())) for label, c in counted),
        tuple(passages.items()) if source == YOURS else (),
    )
    scripts = {OURS: languages.scripts, CODE: code.files}.get(source, lambda: None)()

    def build():  # pandas work worth keeping for this session's last few choices, not redone at every rerun
        frame = token_tax.tax_frame(
            passages, [label for label, _ in counted], lambda i, lang: counted[i][1][lang], reference=reference, scripts=scripts
        )
        return frame, token_tax.language_order(frame, reference), token_tax.tokens_table(frame)

    toks = [tok for _, tok, _ in encoded]
    frame, order, table = _kept("tax.frame", source, toks, key, build)
    font = charts.PRESENT_FONT if presenter.on() else 12  # the heads wrapped for the size they are drawn at
    spec = _kept("tax.chart", source, toks, (key, font), lambda: charts.token_tax(frame, order, reference, font=font))
    presenter.chart(spec, width="stretch")
    worst = frame.loc[frame["premium"].idxmax()] if frame["premium"].notna().any() else None
    if worst is not None:
        st.caption(
            f"Highest premium here: {md(worst['language'])} under {md(worst['tokenizer'])}, {worst['premium']:.2f}× the tokens "
            f"of {md(reference)}. Languages are sorted by the first tokenizer's premium; blue cells need fewer tokens than "
            f"{md(reference)}, "
            "orange ones more. The table gives each tokenizer's tokens."
        )
    # a static table: its headers wrap, so it fits the page with any number of tokenizers (no sideways scrolling)
    st.table(table.rename(columns={"script": "file"}) if source == CODE else table, hide_index=True, height=TABLE_HEIGHT)
    if source == OURS:
        with st.expander("The passages"):
            st.dataframe(
                {"language": langs, "script": [languages.scripts()[lang] for lang in langs], "passage": list(passages.values())},
                hide_index=True,
                width="stretch",
            )
    elif source == CODE:
        show_programs()
    show_vocabulary_used(encoded, source)


def show_programs() -> None:
    """Our programs, one at a time, highlighted."""
    with st.expander("The programs"):
        lang = st.selectbox("Program", list(code.PROGRAMS), key=STATE.key("program"))
        st.code(code.texts()[lang], language=code.highlight(lang), line_numbers=True)
        st.caption(f"`{code.files()[lang]}` in `ui/compare/programs/`: written for BPE Lab, like the passages.")


def show_vocabulary_used(encoded: list[tuple[str, object, dict[str, tuple[int, ...]]]], source: str) -> None:
    """How much of each vocabulary the passages (or programs) use together, and each one's distinct tokens."""
    what = "programs" if source == CODE else "passages"
    st.markdown("#### Vocabulary used")
    st.caption(VOCAB_EXPLANATION.format(what=what))
    rows = [(label, by_lang, _vocabulary_size(tok)) for label, tok, by_lang in encoded]
    key = (source, tuple((label, tuple(by_lang.items()), size) for label, by_lang, size in rows))
    toks = [tok for _, tok, _ in encoded]
    usage = _kept(
        "tax.usage", source, toks, key, lambda: coverage.usage_frame(rows), everyone_key=(source, *(r[0] for r in rows))
    )
    presenter.chart(charts.vocabulary_used(usage), width="stretch")
    st.dataframe(
        usage,
        hide_index=True,
        width="stretch",
        column_config={
            "vocabulary": st.column_config.NumberColumn("vocabulary", format="localized", help="Token ids but the special ones"),
            "tokens": st.column_config.NumberColumn("tokens", format="localized", help=f"Tokens of all the {what} together"),
            "distinct tokens": st.column_config.NumberColumn(
                "distinct tokens", format="localized", help=f"Different token ids in all the {what} together"
            ),
            "vocabulary used %": st.column_config.NumberColumn("vocabulary used", format="%.3f %%"),
        },
    )
    with st.expander(f"Distinct tokens of each {'program' if source == CODE else 'language'}"):
        table = coverage.distinct_table([(label, by_lang) for label, _, by_lang in encoded])
        st.dataframe(table.rename(columns={"text": "language"}), hide_index=True, width="stretch")


def _vocabulary_size(tok) -> int:
    return cache.for_tokenizer(tok, "vocabulary_size", 0, lambda: coverage.vocabulary_size(tok), maxsize=1)
