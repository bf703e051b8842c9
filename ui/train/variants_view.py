"""The Train page's training variants: the method picker, each variant's texts and settings, and what it changed.

``pages/train.py`` asks ``method_picker`` which method the user chose; plain BPE keeps the
page's own sections (``view``), a variant gets ``section``. After the workspace,
``results`` adds what only a variant has: the token tax of plain and parity-aware BPE side
by side, compression and the same text before and after a second stage, or a base
tokenizer against its continuation. The data comes from ``variants`` (plain Python); the
trainings run where every training runs (``ui.common.training``).
"""

from __future__ import annotations

import time

import streamlit as st

from tokenizer.bpe.methods import training_record
from tokenizer.bpe.parity import join_parallel
from tokenizer.bpe.superwords import SUPERBPE_PATTERN
from ui.common import cache, draw, errors, presenter, state, tokenizers, training, workspace
from ui.common.tokenizers import USER
from ui.compare import languages, token_tax
from ui.render import charts
from ui.render.markdown import md

from . import model, variants, view

SOURCES = {"builtin": "Built-in passages", "paste": "Paste", "upload": "Upload a file"}
SUPERWORD_CHOICES = {
    "superbpe": "SuperBPE's: numbers, runs of punctuation and of spaces apart; words run on",
    "none": "None: each document is one chunk",
    "custom": "Custom regex…",
}
PARITY_PATTERNS = {k: v for k, v in model.PATTERN_CHOICES.items() if k != "custom"}

STATE = state.PageState(
    "variants",
    {
        "method": "bpe",
        "source": "builtin",
        "languages": lambda: list(languages.texts()),
        "paste": "",
        "vocab_size": variants.PARITY_VOCAB,
        "pattern": "gpt4",
        "global_merges": 0,
        "share": 80,
        "superword": "superbpe",
        "superword_custom": r"\p{N}{1,3}| ?[^\s\p{L}\p{N}]{2,}[\r\n/]*|\s*[\r\n]+| +(?!\S)",
        "base": "r50k_base",
        "new_merges": variants.NEW_MERGES,
        "name": "",
        "last": None,  # {"method", "key", "name", "merges", "seconds"} of the last variant trained
    },
    widgets=("file", "go", "plain_table", "new_table", "across_table"),
)


def method_picker() -> str:
    """The training method (plain BPE or a variant), with what it does and where it comes from."""
    STATE.init()
    method = st.segmented_control(
        "Training method",
        list(variants.METHODS),
        format_func=variants.method_label,
        key=STATE.key("method"),
        required=True,
        persist_state="session",
    )
    _, line, reference = variants.METHODS[method]
    # markdown, not a caption: a link in a caption's grey text fails the contrast check (axe-core)
    st.markdown(f"{line} ([{reference}]({variants.LINKS[method]}))")
    return method


def section(method: str) -> None:
    """A variant's texts, settings and Train button."""
    if method == "parity":
        left, right = st.columns([3, 2], gap="large")
        with left:
            texts = _parallel_texts()
        with right:
            settings = _parity_settings()
        _train("parity", texts, settings, corpus=join_parallel(texts) if texts else None)
    elif method == "superwords":
        left, right = st.columns([3, 2], gap="large")
        with left:
            text, title = view.corpus_section()
        with right:
            settings = _superword_settings(text, title)
        _train("superwords", text, settings, corpus=text)
    elif method == "continued":
        left, right = st.columns([3, 2], gap="large")
        with left:
            text, title = view.corpus_section()
        with right:
            settings = _continued_settings(title)
        _train("continued", text, settings, corpus=text)


# ----------------------------------------------------------------------------- parity-aware


def _parallel_texts() -> dict[str, str] | None:
    st.subheader("1 · Parallel texts")
    source = st.segmented_control(
        "Where the parallel texts come from",
        list(SOURCES),
        format_func=SOURCES.get,
        key=STATE.key("source"),
        required=True,
        persist_state="session",
    )
    texts: dict[str, str] = {}
    if source == "builtin":
        st.multiselect(
            "Languages",
            list(languages.texts()),
            key=STATE.key("languages"),
            persist_state="session",
            help="The token tax's passage from Compare: the same everyday text, written for BPE Lab in each language.",
        )
        texts = variants.builtin_parallel(STATE["languages"])
        st.caption(
            "Three everyday sentences in each language, the same in meaning: a small text (about 4 kB for all 22), "
            "so a few hundred merges already show the difference."
        )
    else:
        raw = _pasted() if source == "paste" else _uploaded()
        if raw is None:
            return None
        try:
            texts = variants.parse_parallel(raw)
        except ValueError as e:
            st.error(md(str(e)), icon="⚠️")
            return None
    if len(texts) < 2:
        st.info("Pick at least two languages: parity-aware training balances one against the others.", icon="🌐")
        return None
    try:
        variants.check_parallel_texts(texts)
    except ValueError as e:
        st.error(md(str(e)), icon="⚠️")
        return None
    with st.expander(f"The texts: {len(texts)} languages, {sum(len(t.encode()) for t in texts.values()):,} bytes"):
        st.dataframe(variants.parallel_frame(texts), hide_index=True, width="stretch")
    return texts


def _pasted() -> str | None:
    st.text_area(
        "Parallel texts",
        key=STATE.key("paste"),
        height=200,
        persist_state="session",
        placeholder='English: The weather is nice today.\nGerman: Heute ist das Wetter schön.\n\nor a JSON object: {"English": "…", "German": "…"}',
        help=token_tax.FORMAT_HELP,
    )
    if not STATE["paste"].strip():
        st.caption("One language per line (`Language: passage`), or a JSON object of languages and texts, any length.")
        return None
    return STATE["paste"]


def _uploaded() -> str | None:
    from ui.common import upload

    f = st.file_uploader(
        f"A JSON object of languages and texts, or `Language: passage` lines (UTF-8, up to {upload.MAX_UPLOAD_MB} MB)",
        type=["json", "txt"],
        key=STATE.key("file"),
        max_upload_size=upload.MAX_UPLOAD_MB,
    )
    if f is None:
        st.caption('For long texts: {"English": "…", "German": "…"}, each text as long as you like.')
        return None
    try:
        upload.check_size(f.size, f.name)
        return f.getvalue().decode("utf-8")
    except UnicodeDecodeError as e:
        st.error(
            f"{md(f.name)} is not UTF-8 text (bad byte at offset {e.start}): save it as UTF-8 and upload it again.", icon="⚠️"
        )
    except ValueError as e:
        st.error(md(str(e)), icon="⚠️")
    return None


def _parity_settings() -> dict | None:
    st.subheader("2 · Settings")
    problems = []
    st.number_input(
        "Vocab size",
        key=STATE.key("vocab_size"),
        step=64,
        format="%d",
        persist_state="session",
        help="256 byte tokens plus the merges to learn. The built-in passages are small: 512 shows the effect; "
        "with much more every passage becomes a handful of tokens and training stops early.",
    )
    try:
        vocab = model.check_vocab_size(STATE["vocab_size"])
    except ValueError as e:
        st.error(md(str(e)), icon="⚠️")
        problems.append(e)
        vocab = None
    st.selectbox(
        "Split pattern", list(PARITY_PATTERNS), format_func=PARITY_PATTERNS.get, key=STATE.key("pattern"), persist_state="session"
    )
    st.number_input(
        "Plain merges first",
        min_value=0,
        max_value=model.MAX_VOCAB,
        step=16,
        key=STATE.key("global_merges"),
        persist_state="session",
        help="The paper's hybrid: this many merges are plain BPE over all the texts first (the pieces every language "
        "shares), the rest parity-aware. 0: every merge serves the worst-compressed language.",
    )
    name = _name_input(f"parallel · {vocab or 0} · parity")
    if problems or vocab is None:
        return None
    return {
        "vocab_size": vocab,
        "name": name,
        "pattern": STATE["pattern"],
        "global_merges": int(STATE["global_merges"]),
        "baseline": True,
    }


# ----------------------------------------------------------------------------- tokens across words


def _superword_settings(text: str | None, title: str) -> dict | None:
    s = view.settings_section(text, title)
    st.slider(
        "Stage 2 starts after",
        min_value=0,
        max_value=100,
        step=5,
        format="%d%%",
        key=STATE.key("share"),
        persist_state="session",
        help="The transition point: this share of the merges is learned within words (plain BPE), the rest across them. "
        "SuperBPE's best 200k-token tokenizer switched at 90%.",
    )
    st.selectbox(
        "Stage 2 split pattern",
        list(SUPERWORD_CHOICES),
        format_func=SUPERWORD_CHOICES.get,
        key=STATE.key("superword"),
        persist_state="session",
        help="How the text is cut in stage 2. Merges never cross these chunks, but they do cross words inside one.",
    )
    superword = {"superbpe": SUPERBPE_PATTERN, "none": None}.get(STATE["superword"], STATE["superword_custom"])
    if STATE["superword"] == "custom":
        st.text_input("Stage 2 regex", key=STATE.key("superword_custom"), persist_state="session")
        pattern, head = STATE["superword_custom"], (text or "")[:2000]
        with st.spinner("Trying the pattern…"):
            _, problem = cache.for_session(
                "train.validate", (pattern, head), lambda: model.validate_custom(pattern, head), maxsize=16
            )
        if problem:
            st.error(md(problem), icon="⚠️")
            return None
    if s is None:
        return None
    transition = variants.transition_for(s["vocab_size"], STATE["share"])
    st.caption(
        f"Merges 1 to {transition - 256:,} within words (vocab size {transition:,}), "
        f"{transition - 255:,} to {s['vocab_size'] - 256:,} across them."
    )
    name = s["name"] if view.STATE["name"].strip() else f"{s['name']} · across words"
    return {
        "vocab_size": s["vocab_size"],
        "name": name,
        "pattern": s["pattern"],
        "special_tokens": s["specials"] or None,
        "transition": transition,
        "superword_pattern": superword,
        "baseline": True,
    }


# ----------------------------------------------------------------------------- continued training


def _continued_settings(title: str) -> dict | None:
    st.subheader("2 · Settings")
    store = workspace.store()
    choices = dict(variants.BASES)
    choices.update({USER + e.key: f"{e.name} (yours, {e.vocab_size:,} tokens)" for e in store.entries()})
    if STATE["base"] not in choices:
        STATE["base"] = next(iter(choices))
    st.selectbox("Start from", list(choices), format_func=choices.get, key=STATE.key("base"))
    with errors.shown():
        base = tokenizers.get(STATE["base"])
        if base.pipeline is not None:
            raise ValueError(
                f"{md(base.name)} splits text with its own tokenizer.json pipeline, so training cannot go on from it here: "
                "pick GPT-2, GPT-4 or a tokenizer trained in BPE Lab."
            )
        st.number_input(
            "New tokens to learn",
            min_value=1,
            max_value=variants.MAX_NEW_MERGES,
            step=100,
            key=STATE.key("new_merges"),
            persist_state="session",
            help="Merges learned on your text on top of the base's; each mints a new id after the largest the base uses.",
        )
        specials = md(", ".join(base.special_tokens)) or "none"
        st.caption(
            f"The base's split pattern (**{md(base.pattern_name)}**) is kept: its merges were learned on the chunks it makes, "
            "and another pattern would change how text it already handles is tokenized. Its special tokens "
            f"({specials}) keep their ids; new tokens get ids from {base.n_vocab:,} on."
        )
        new = int(STATE["new_merges"])
        name = _name_input(f"{base.name} · +{new:,} · {title[:40].strip()}")
        # a registered encoding travels to a training process by name (cheaper than the pickled tokenizer)
        return {
            "vocab_size": base.n_vocab + new,
            "name": name,
            "base": STATE["base"] if STATE["base"] in variants.BASES else base,
        }
    return None


# ----------------------------------------------------------------------------- training


def _name_input(default: str) -> str:
    st.text_input("Name", key=STATE.key("name"), persist_state="session", placeholder=default)
    return STATE["name"].strip() or default


def _train(method: str, text, settings: dict | None, *, corpus: str | None) -> None:
    ready = settings is not None and text is not None
    clicked = st.button("Train", type="primary", icon="🏋️", key=STATE.key("go"), disabled=not ready)
    if not ready:
        st.caption("Give the texts and fix the settings marked in red to train.")
    if clicked and ready:
        with errors.shown():
            if method != "parity":
                model.check_corpus(text)
            _run(method, text, dict(settings), corpus or "")
    last = STATE["last"]
    if last and last["method"] == method and not clicked:
        _last_message(last)


def _run(method: str, text, settings: dict, corpus: str) -> None:
    store = workspace.store()
    store.check_room(len(corpus.encode("utf-8")))  # a full workspace says so before training, not after
    vocab_size = settings.pop("vocab_size")
    t0 = time.perf_counter()
    bar = st.progress(0.0, text="Counting pairs…")
    stage1 = settings["transition"] - 256 if method == "superwords" else None
    merges = vocab_size - 256

    def progress(done: int, total: int) -> None:
        what = f"Merging: {done:,} of {total:,} merges"
        if stage1 is not None:  # plain BPE to the full size (stage 1 is its start), then stage 2
            what = (
                f"Stage 1 and plain BPE for comparison: {done:,} of {merges:,} merges"
                if done < merges
                else f"Stage 2, across words: {done - merges:,} of {total - merges:,} merges"
            )
        elif method == "parity":
            what = (
                f"Parity-aware merges: {done:,} of {total // 2:,}"
                if done < total // 2
                else f"Plain BPE for comparison: {done - total // 2:,} of {total // 2:,}"
            )
        bar.progress(min(1.0, done / total) if total else 1.0, text=what)

    view.STATE["interrupted"] = None
    # a variant's texts and settings are not kept: its page is told the training was cut off, nothing more
    store.training_started({"title": str(settings.get("name") or variants.method_label(method)), "method": method})
    try:
        tok = training.train_variant(method, text, vocab_size, progress=progress, **settings)
        key = store.add(tok, corpus=corpus)
    finally:
        store.training_ended()
    bar.progress(1.0, text=f"Done: {tok.num_merges:,} merges in {tok.metadata['seconds']:.2f} s")
    last = {
        "method": method,
        "key": key,
        "name": tok.name,
        "merges": tok.num_merges,
        "early": bool(tok.metadata.get("stopped_early")),
        "seconds": float(tok.metadata["seconds"]),
        "wall": time.perf_counter() - t0,
        "unsaved": store.unsaved(key),
    }
    STATE["last"] = last
    view.STATE["selected"] = key
    st.session_state[state.TOKENIZER] = USER + key  # the other pages offer it first
    _last_message(last)


def _last_message(last: dict) -> None:
    head = f"Trained **{md(last['name'])}** ({variants.method_label(last['method']).lower()}): {last['merges']:,} merges in "
    early = " It stopped early: no pair was left to merge." if last.get("early") else ""
    if last.get("unsaved"):  # kept in the session only: never reported as saved
        st.warning(
            head + f"{last['seconds']:.2f} s, but it was **not saved**. {last['unsaved']}{early} What changed is under "
            "Results below.",
            icon="⚠️",
        )
        return
    st.success(
        head + f"{last['seconds']:.2f} s ({last['wall']:.2f} s with saving).{early} What changed is under Results below.",
        icon="✅",
    )


# ----------------------------------------------------------------------------- results


def results(key: str) -> None:
    """What a variant changed, under the page's usual results (nothing for plain BPE)."""
    store = workspace.store()
    with errors.shown():
        tok = store.get(key)
        method = variants.method_of(tok)
        if method == "bpe":
            return
        label, _, reference = variants.METHODS[method]
        st.subheader(f"{label}: what changed")
        st.markdown(f"Trained as in {reference} ([paper]({variants.LINKS[method]})).")
        if method == "parity":
            _parity_results(tok)
        elif method == "superwords":
            _superword_results(tok, store, key)
        elif method == "continued":
            _continued_results(tok, store, key)


def _metrics(values: dict[str, str]) -> None:
    cols = st.columns(len(values))
    for col, (label, value) in zip(cols, values.items()):
        col.metric(label, value, border=True)


def _parity_results(tok) -> None:
    record = training_record(tok)
    _metrics(variants.parity_summary(tok))
    frame = cache.for_tokenizer(tok, "parity_frame", 0, lambda: variants.parity_frame(tok))
    reference = token_tax.default_reference(list(record.get("languages") or [])) or ""
    order = token_tax.language_order(frame, reference)
    presenter.chart(charts.token_tax(frame, order, reference), width="stretch")
    st.caption(
        f"Tokens each language's text costs, relative to {md(reference)}, under plain BPE and parity-aware BPE of the "
        "same size trained on the same texts (measured on those texts). The dashed line is parity with "
        f"{md(reference)}; the spread is the costliest language's tokens over the cheapest's."
    )
    with presenter.fold("The numbers, language by language"):
        st.dataframe(token_tax.tokens_table(frame), hide_index=True, width="stretch", key=STATE.key("plain_table"))
        st.caption(
            "Merges each language was served: "
            + ", ".join(f"{md(lang)} {n}" for lang, n in zip(record.get("languages", []), record.get("merges_per_language", [])))
            + (f" (the first {record['global_merges']} were plain)." if record.get("global_merges") else ".")
        )


def _superword_results(tok, store, key: str) -> None:
    record = training_record(tok)
    meta = tok.metadata
    corpus = store.corpus(key)
    trace = store.training_trace(key)
    plain = trace.baseline if trace is not None and trace.baseline is not None else None
    if plain is None and corpus is not None:
        with st.spinner("Training plain BPE of the same size on the same text, for comparison…"):
            plain = cache.for_tokenizer(
                tok,
                "superwords_plain",
                0,
                lambda: training.train(
                    corpus,
                    int(meta["vocab_size"]),
                    pattern=record.get("pattern"),
                    special_tokens=list(tok.special_tokens) or None,
                ),
                maxsize=1,
            )
    across = variants.superword_table(tok, rows=10_000)
    values = {
        "Tokens, across words": f"{meta['tokens_after']:,}",
        "Tokens, plain BPE": f"{plain.training.length_at(plain.num_merges):,}" if plain is not None else "–",
        "Stage 2 from": f"{record['transition']:,}",
        "Tokens that cross words": f"{len(across):,}",
    }
    _metrics(values)
    if trace is not None:
        curves = cache.for_tokenizer(
            tok, "superword_curves", 0, lambda: variants.superword_curves(tok, plain, trace, plain.training if plain else None)
        )
        presenter.chart(charts.compression_compare(curves, transition=int(record["transition"])), width="stretch")
        st.caption(
            "Bytes per token on the training text at each vocabulary size: plain BPE all the way, and the two stages. "
            "Up to the transition they are the same training; after it, merges across words compress further."
        )
    if corpus:
        excerpt = cache.for_tokenizer(
            tok, "across_excerpt", 0, lambda: variants.busiest_excerpt(tok, corpus, variants.across_spans), maxsize=1
        )
        st.caption("The same lines under both, where this text has the most tokens that cross words:")
        _side_by_side(
            excerpt,
            (plain, "Plain BPE, the same size", "The text under plain BPE"),
            (tok, "Tokens across words", "The text with tokens across words"),
            variants.across_spans,
            "tokens that hold more than one word",
        )
    with presenter.fold("The tokens that cross words"):
        if across.empty:
            st.info("No token crosses words yet: give stage 2 more merges, or a longer text.", icon="ℹ️")
        else:
            st.dataframe(across.head(50), hide_index=True, width="stretch", key=STATE.key("across_table"))


def _continued_results(tok, store, key: str) -> None:
    record = training_record(tok)
    meta = tok.metadata
    before, after = int(record["base_tokens"]), int(meta["tokens_after"])
    first_new = int(record["base_vocab"])
    base_name = md(str(record["base"]))
    _metrics(
        {
            f"Tokens, {base_name}": f"{before:,}",
            "Tokens, continued": f"{after:,}",
            "Fewer tokens": f"{(before - after) / before:.1%}" if before else "–",
            "New tokens": f"{record['new_merges']:,}",
        }
    )
    st.caption(
        f"On the training text. The new tokens have ids {first_new:,} to {first_new + record['new_merges'] - 1:,}; "
        f"every id of {base_name} means what it meant."
    )
    corpus = store.corpus(key)
    if corpus:
        base = cache.for_tokenizer(tok, "continued_base", 0, lambda: tok.truncated(int(record["base_merges"])), maxsize=1)
        excerpt = cache.for_tokenizer(
            tok,
            "new_excerpt",
            0,
            lambda: variants.busiest_excerpt(tok, corpus, lambda spans: variants.new_spans(spans, first_new)),
            maxsize=1,
        )
        st.caption("The same lines under both, where this text has the most new tokens:")
        _side_by_side(
            excerpt,
            (base, base_name, f"The text under {record['base']}"),
            (tok, "Continued on your text", "The text with the new tokens"),
            lambda spans: variants.new_spans(spans, first_new),
            f"new tokens (ids from {first_new:,})",
        )
    with presenter.fold("The new tokens, in the order learned"):
        st.dataframe(variants.new_tokens_table(tok, rows=200), hide_index=True, width="stretch", key=STATE.key("new_table"))


def _side_by_side(excerpt: str, before: tuple, after: tuple, outlined, what: str) -> None:
    """The same lines under two tokenizers, ``(tokenizer or None, title, screen-reader caption)`` each; the second's
    spans that ``outlined(spans)`` picks are outlined, and the caption under it says they are ``what``."""
    for column, (tok, title, caption), last in zip(st.columns(2, gap="large"), (before, after), (False, True)):
        with column:
            st.markdown(f"**{title}**")
            if tok is None:
                continue
            spans = tok.encode_spans(excerpt, disallowed_special=())
            highlight = outlined(spans) if last else ()
            draw.spans(spans, show_whitespace=True, highlight=highlight, caption=caption)
            st.caption(f"{len(spans):,} tokens; outlined: {what}." if last else f"{len(spans):,} tokens.")
