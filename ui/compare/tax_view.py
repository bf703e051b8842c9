"""Compare's token-tax section: the same passage in many languages under every chosen tokenizer.

``pages/compare.py`` calls ``show_token_tax(keys)``. The passages are ours
(``languages``) or the user's own (pasted or uploaded); computing lives in ``tax``, the
chart in ``ui.render.charts.token_tax``. Counts of an official encoding on our
passages are the same for every session (kept for all, ``cache.for_tokenizer``);
anything with the user's texts or tokenizers stays in this session.
"""

from __future__ import annotations

import streamlit as st

from tokenizer.formats.json_input import decode_text
from ui.common import cache, errors, state, upload
from ui.common import tokenizers as tk
from ui.render import charts

from . import languages, model, tax

SOURCES = {"ours": f"Our passage in {len(languages.PASSAGES)} languages", "yours": "Your own parallel texts"}
EXPLANATION = (
    "The same short passage, written for BPE Lab in {n} languages, under each tokenizer chosen above. A tokenizer "
    "learns its merges from its training text, which is mostly English: English words become single tokens while "
    "other scripts stay in small pieces, down to single bytes. The **premium** is how many times more tokens a "
    "language needs than {ref} for the same meaning: a premium of 3 means the same message costs three times as much, "
    "fills the context window three times as fast and takes three times as long to generate."
)

STATE = state.PageState(
    "tax",
    {"source": "ours", "paste": "", "reference": None},
    widgets=("file",),
)


def _counts(key: str, tok, passages: dict[str, str], ours: bool) -> dict[str, int]:
    """Tokens per language (special-token strings as text)."""

    def compute() -> dict[str, int]:
        return {lang: len(tok.encode(text, disallowed_special=())) for lang, text in passages.items()}

    if ours:
        return cache.for_tokenizer(tok, "tax_counts", "ours", compute, maxsize=2)
    return cache.for_session("tax.counts", (key, tuple(passages.items())), compute, owner=tok, maxsize=8)


def _their_passages() -> dict[str, str] | None:
    """The user's parallel texts from the paste box or an upload; None (with a message) when there are none or they are bad."""
    c1, c2 = st.columns([3, 2])
    c1.text_area(
        "Parallel texts",
        key=STATE.key("paste"),
        height=160,
        persist_state="session",
        help=tax.FORMAT_HELP,
        placeholder="English: The weather is nice today.\nGerman: Heute ist das Wetter schön.\nGreek: Σήμερα ο καιρός είναι ωραίος.",
    )
    f = c2.file_uploader(
        "…or upload them (.txt, .tsv or .json)",
        type=["txt", "tsv", "json"],
        key=STATE.key("file"),
        max_upload_size=upload.MAX_UPLOAD_MB,
        help=tax.FORMAT_HELP,
    )
    raw = STATE["paste"]
    if f is not None:
        try:
            upload.check_size(f.size, f.name)
            raw = decode_text(f.getvalue(), f.name)  # UTF-8 (a byte-order mark dropped), or UTF-16/32 with its mark
        except ValueError as e:
            st.error(str(e), icon="⚠️")
            return None
    try:
        passages = tax.parse_parallel(raw)
    except ValueError as e:
        st.error(str(e), icon="⚠️")
        return None
    if len(passages) < 2:
        st.info(
            "Give at least two languages, one per line (`English: …`), to compare their token counts. " + tax.FORMAT_HELP,
            icon="🌍",
        )
        return None
    return passages


def show_token_tax(keys: list[str]) -> None:
    """The section: passages, the reference language, the chart and the table."""
    STATE.init()
    st.subheader("Token tax by language")
    source = st.segmented_control(
        "Passages", list(SOURCES), format_func=SOURCES.get, key=STATE.key("source"), required=True, persist_state="session"
    )
    ours = source != "yours"
    passages = languages.texts() if ours else _their_passages()
    if passages is None:
        return
    langs = list(passages)
    if STATE.get("reference") not in langs:
        STATE["reference"] = tax.default_reference(langs)
    reference = st.selectbox(
        "Relative to",
        langs,
        key=STATE.key("reference"),
        help="The language every premium is measured against (1× = as many tokens as this one).",
    )
    st.markdown(EXPLANATION.format(n=len(passages), ref=reference))
    if not keys:
        st.info("Choose one or more tokenizers above to see their token tax.", icon="⚖️")
        return
    labels = model.unique_labels(keys, tk.options())
    # a model whose file is missing: the rows above already say so and how to install it
    missing = [k for k in keys if k in tk.OFFICIAL and not tk.available(k)]
    if missing:
        st.caption(f"Left out, not installed on this server: {', '.join(labels[k] for k in missing)}.")
        keys = [k for k in keys if k not in missing]
    counted: list[tuple[str, dict[str, int]]] = []
    for key in keys:
        with errors.shown(prefix=f"{labels[key]}: "):
            counted.append((labels[key], _counts(key, tk.get(key), passages, ours)))
    if not counted:
        return
    key = (ours, reference, tuple((label, tuple(c.items())) for label, c in counted), tuple(passages.items()) if not ours else ())

    def build():  # about 20 ms of pandas: kept for this session's last few choices, not redone at every rerun
        frame = tax.tax_frame(
            passages,
            [label for label, _ in counted],
            lambda i, lang: counted[i][1][lang],
            reference=reference,
            scripts=languages.scripts() if ours else None,
        )
        return frame, tax.language_order(frame, reference), tax.tax_table(frame)

    frame, order, table = cache.for_session("tax.frame", key, build, maxsize=4)
    spec = cache.for_session("tax.chart", key, lambda: charts.token_tax(frame, order, reference), maxsize=4)
    st.vega_lite_chart(spec, width="stretch")
    st.dataframe(
        table,
        hide_index=True,
        width="stretch",
        column_config={c: st.column_config.NumberColumn(c, format="%.2f×") for c in table.columns if c.endswith(" ×")},
    )
    worst = frame.loc[frame["premium"].idxmax()] if frame["premium"].notna().any() else None
    if worst is not None:
        st.caption(
            f"Highest premium here: {worst['language']} under {worst['tokenizer']}, {worst['premium']:.2f}× the tokens of {reference}. "
            "Bars are sorted by the first tokenizer's premium; the dashed line is 1×."
        )
    if ours:
        with st.expander("The passages"):
            st.dataframe(
                {"language": langs, "script": [languages.scripts()[lang] for lang in langs], "passage": list(passages.values())},
                hide_index=True,
                width="stretch",
            )
