"""The Train page's sections: corpus, settings, training with a progress bar, your
tokenizers (rename, delete, download, upload) and the results of the chosen one.

``pages/train.py`` calls these in order. Computing lives in ``model`` (and
``ui.content.corpora``, ``ui.common.upload``, ``ui.common.workspace``); this module
lays out widgets and draws what they return; charts come from ``ui.render.charts``.
"""

from __future__ import annotations

import time

import streamlit as st

from tokenizer.trace import make_spans
from ui.common import cache, draw, errors, presenter, state, training, upload, workspace
from ui.common.tokenizers import USER
from ui.content import corpora
from ui.render import charts
from ui.render.markdown import md

from . import downloads, model

SOURCES = {"sample": "Built-in sample", "paste": "Paste text", "upload": "Upload a file"}

STATE = state.PageState(
    "train",
    {
        "source": "sample",
        "sample": "stdlib-docstrings",
        "paste": "",
        "replace": False,
        "vocab_size": corpora.CORPORA["stdlib-docstrings"].vocab_size,
        "pattern": "gpt4",
        "custom_pattern": r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+""",
        "specials": "",
        "name": "",
        "upload_pattern": "gpt4",
        "selected": None,  # workspace key whose results are shown
        "last": None,  # {"key", "name", "merges", "asked", "seconds", "wall"} of the last training
        "flash": None,  # ("success" | "error", message) left by a callback
        "confirm_delete": None,  # workspace key waiting for "Yes, delete"
        "rename_for": None,  # workspace key the rename box was filled for
        "interrupted": None,  # what the page says about a training its server process did not live to finish
    },
    widgets=(
        "corpus_file",
        "suggest",
        "go",
        "tokenizer_file",
        "rename",
        "rename_go",
        "delete",
        "delete_yes",
        "drop",
        "dl",
        "dl_all",
        "merge_start",
        "merges_table",
    ),
)


# ----------------------------------------------------------------------------- corpus


@st.cache_resource(show_spinner="Reading the Python standard library…", max_entries=8)
def _sample_text(key: str) -> str:
    """A built-in corpus (the same for every session): a string, which nobody can change, so every session reads
    the one object (``st.cache_data`` unpickled a copy of up to a few hundred kB at every run of the page)."""
    return corpora.text(key)


def _use_suggestion(vocab_size: int, pattern: str) -> None:
    STATE["vocab_size"] = vocab_size
    STATE["pattern"] = pattern


def corpus_section() -> tuple[str | None, str]:
    """The corpus picker; returns ``(text or None, short title for the default name)``."""
    st.subheader("1 · Corpus")
    source = st.segmented_control(
        "Where the training text comes from",
        list(SOURCES),
        format_func=SOURCES.get,
        key=STATE.key("source"),
        required=True,
        persist_state="session",
    )
    if source == "sample":
        key = st.selectbox(
            "Sample",
            list(corpora.CORPORA),
            format_func=corpora.label,
            key=STATE.key("sample"),
            persist_state="session",
            help="Each sample suggests a vocab size and split pattern that suit it: Settings offers them, "
            "and never changes what you chose by itself.",
        )
        c = corpora.CORPORA[key]
        with errors.shown():
            text = _sample_text(key)
            st.caption(f"{c.note} {model.size_label(text)}.")
            with st.expander("Preview"):
                st.text(text[:1500] + ("…" if len(text) > 1500 else ""))
            return text, c.title
        return None, c.title
    if source == "paste":
        text = st.text_area(
            "Training text",
            key=STATE.key("paste"),
            height=220,
            persist_state="session",
            placeholder="Paste the text to train on (up to 10 MB)…",
        )
        if text:
            st.caption(model.size_label(text))
        return text, "pasted text"
    f = st.file_uploader(
        f"A text file, UTF-8, up to {upload.MAX_UPLOAD_MB} MB",
        type=None,  # any name: a file that is not text gets a message saying so, never the uploader's silent red mark
        help=f"Plain text of any kind, such as {', '.join('.' + t for t in upload.CORPUS_TYPES)}.",
        key=STATE.key("corpus_file"),
        max_upload_size=upload.MAX_UPLOAD_MB,
    )
    if f is None:
        st.caption("Any plain-text file: prose, code, logs. Files in other encodings can be decoded with replacement characters.")
        return None, "upload"
    try:
        upload.check_size(f.size, f.name)
    except ValueError as e:
        st.error(md(str(e)), icon="⚠️")
        return None, f.name
    decoded = upload.decode_corpus(f.getvalue(), f.name, replace=STATE["replace"])
    if decoded.problem:
        st.error(md(decoded.problem), icon="⚠️")
    if decoded.can_replace:
        st.checkbox("Decode anyway, replacing undecodable bytes with �", key=STATE.key("replace"))
    if decoded.text is None:
        return None, f.name
    note = f" ({decoded.replaced:,} bytes replaced by �)" if decoded.replaced else ""
    st.caption(f"{md(f.name)}: {model.size_label(decoded.text)}{note}")
    return decoded.text, f.name.rsplit(".", 1)[0]


# ----------------------------------------------------------------------------- settings


def _validate(pattern: str, head: str) -> tuple[list[str] | None, str | None]:
    """``model.validate_custom``, kept for this session (a catastrophic pattern takes 2 s to fail)."""
    with st.spinner("Trying the pattern (a regex is stopped after 2 s)…", show_time=True):
        return cache.for_session("train.validate", (pattern, head), lambda: model.validate_custom(pattern, head), maxsize=16)


def settings_section(text: str | None, title: str) -> dict | None:
    """Vocab size, split pattern, special tokens and name; None (with a message) when not ready."""
    st.subheader("2 · Settings")
    problems: list[str] = []
    vocab = st.number_input(
        "Vocab size",
        key=STATE.key("vocab_size"),
        step=64,
        format="%d",
        persist_state="session",
        help=f"256 byte tokens plus the merges to learn: {model.MIN_VOCAB} to {model.MAX_VOCAB:,} (GPT-2's size). "
        "Training stops early when no pair is left to merge.",
    )
    try:
        vocab = model.check_vocab_size(vocab)
    except ValueError as e:
        st.error(md(str(e)), icon="⚠️")
        problems.append(str(e))
    choice = st.selectbox(
        "Split pattern",
        list(model.PATTERN_CHOICES),
        format_func=model.PATTERN_CHOICES.get,
        key=STATE.key("pattern"),
        persist_state="session",
        help="The text is first cut into chunks with this regex; merges never cross a chunk boundary.",
    )
    with st.container():  # one slot, shown or not: the inputs below keep their place (and focus)
        _suggestion(vocab, choice)
    if choice == "custom":
        pattern = st.text_input(
            "Custom split regex",
            key=STATE.key("custom_pattern"),
            live="600ms",
            persist_state="session",
            help="Python `regex` syntax (\\p{L} is any letter). Checked as you type, with a 2-second timeout.",
        )
        chunks, err = _validate(pattern, (text or "")[:2000])
        if err:
            st.error(md(err), icon="⚠️")
            problems.append(err)
        else:
            st.caption("How it cuts a test sentence:")
            draw.spans(_chunk_spans(chunks), show_whitespace=True)
    st.text_input(
        "Special tokens",
        key=STATE.key("specials"),
        placeholder="<|endoftext|>",
        persist_state="session",
        help="Comma-separated. They are cut out of the training text and get the ids after the merges.",
    )
    st.text_input(
        "Name",
        key=STATE.key("name"),
        persist_state="session",
        placeholder=model.default_name(title, vocab if isinstance(vocab, int) else 0, choice),
    )
    if problems:
        return None
    return {
        "vocab_size": vocab,
        "choice": choice,
        "pattern": model.pattern_for(choice, STATE["custom_pattern"]),
        "specials": model.parse_special_tokens(STATE["specials"]),
        "name": STATE["name"].strip() or model.default_name(title, vocab, choice),
    }


def _suggestion(vocab, choice: str) -> None:
    """What the chosen sample suggests, when the settings differ from it, and a button that takes it."""
    c = corpora.CORPORA.get(STATE["sample"]) if STATE["source"] == "sample" else None
    if c is None:
        return
    want = model.suggestion(c, vocab, choice)
    if want is None:
        return
    st.caption(f"The sample *{c.title}* suggests {want.text}.")
    st.button(
        f"Use the suggested {want.label}",
        key=STATE.key("suggest"),
        on_click=_use_suggestion,
        args=(want.vocab_size, want.pattern),
        icon="💡",
    )


def _chunk_spans(chunks: list[str]):
    return make_spans([(i, c.encode("utf-8")) for i, c in enumerate(chunks)])


# ----------------------------------------------------------------------------- training


def train_section(text: str | None, settings: dict | None) -> None:
    """The Train button, the progress bar while it runs, and the final time: one slot on the page, so the
    sections below keep their place whichever of these show (see ``workspace_section``)."""
    with st.container():
        _train_section(text, settings)


def _train_section(text: str | None, settings: dict | None) -> None:
    clicked = st.button("Train", type="primary", icon="🏋️", key=STATE.key("go"), disabled=settings is None)
    if settings is None:
        st.caption("Fix the settings marked in red to train.")
    if clicked:
        with errors.shown():
            model.check_corpus(text or "")
            _train(text, settings)
    last = STATE["last"]
    if last and not clicked:
        _last_message(last)


#: what a training's draft keeps of the page: its text (a pasted one, or the sample's name) and its settings
DRAFT = ("source", "sample", "paste", "vocab_size", "pattern", "custom_pattern", "specials", "name")
_RECOVERED = "train.recovered"  # the session asked its store for an interrupted training already


def recover_interrupted() -> None:
    """Once a session, before the widgets: a training this browser started in an app process that died is
    said, and its text and settings are put back (an uploaded file's text as pasted text)."""
    if st.session_state.get(_RECOVERED):
        return
    st.session_state[_RECOVERED] = True
    store = workspace.store()
    draft = store.interrupted_training()
    if not draft:
        return
    for k in DRAFT:
        if k in draft:
            STATE[k] = draft[k]
    store.training_ended()
    kept = (
        "pick its texts and settings again to run it again"
        if "method" in draft  # a variant's training keeps no draft of its page
        else "your text and settings are back, press **Train** to run it again"
    )
    STATE["interrupted"] = (
        f"Your training of **{md(str(draft.get('title') or 'your tokenizer'))}** was interrupted (the server restarted); {kept}."
    )


def interrupted_note() -> None:
    """Said until the student trains again (a press of Train in this run already counts: it is read before the button)."""
    if STATE["interrupted"] and not st.session_state.get(STATE.key("go")):
        st.warning(STATE["interrupted"], icon="🔌")


def _draft(text: str, s: dict) -> dict:
    draft = {k: STATE[k] for k in DRAFT}
    if STATE["source"] == "upload":  # the file is gone with the session: its text comes back as pasted text
        draft.update(source="paste", paste=text)
    return {**draft, "title": s["name"]}


def _train(text: str, s: dict) -> None:
    store = workspace.store()
    store.check_room(len(text.encode("utf-8")))  # a full workspace says so before training, not after
    STATE["interrupted"] = None
    store.training_started(_draft(text, s))
    try:
        _trained(store, text, s)
    finally:  # done, refused, or stopped by the page: only a process that dies leaves the draft behind
        store.training_ended()


def _trained(store: workspace.Store, text: str, s: dict) -> None:
    t0 = time.perf_counter()
    bar = st.progress(0.0, text="Counting pairs…")

    def progress(done: int, total: int) -> None:
        bar.progress(min(1.0, done / total) if total else 1.0, text=f"Merging: {done:,} of {total:,} merges")

    def run():
        # in a worker process on a shared server: the other sessions of this process keep running meanwhile
        return training.train(
            text, s["vocab_size"], pattern=s["pattern"], special_tokens=s["specials"] or None, progress=progress, name=s["name"]
        )

    reused = False
    if STATE["source"] == "sample" and s["choice"] != "custom" and not s["specials"]:
        # a built-in corpus with built-in settings (nothing typed): the same training for everyone who picks them
        settings = (STATE["sample"], s["vocab_size"], s["pattern"], tuple(s["specials"] or ()))
        tok, reused = cache.for_builtin("training", settings, run)
        tok.name = s["name"]
    else:
        tok = run()
    key = store.add(tok, corpus=text)
    wall = time.perf_counter() - t0
    bar.progress(1.0, text=f"Done: {tok.num_merges:,} merges in {tok.metadata['seconds']:.2f} s")
    last = {
        "key": key,
        "name": tok.name,
        "merges": tok.num_merges,
        "asked": s["vocab_size"] - 256,
        "seconds": float(tok.metadata["seconds"]),
        "wall": wall,
        "reused": reused,
        "unsaved": store.unsaved(key),
    }
    STATE["last"] = last
    STATE["selected"] = key
    st.session_state[state.TOKENIZER] = USER + key  # the other pages offer it first
    _last_message(last)


def _last_message(last: dict) -> None:
    early = (
        f" It stopped after {last['merges']:,} of {last['asked']:,} merges: no pair was left to merge."
        if last["merges"] < last["asked"]
        else ""
    )
    reused = (
        " This server had already trained this sample with these settings, so it handed you a copy of that "
        "training (the same merges you would get)."
        if last.get("reused")
        else ""
    )
    if last.get("unsaved"):  # kept in the session only: never reported as saved
        st.warning(
            f"Trained **{md(last['name'])}**: {last['merges']:,} merges in {last['seconds']:.2f} s, but it was **not "
            f"saved**. {last['unsaved']}{early}{reused}",
            icon="⚠️",
        )
        return
    st.success(
        f"Trained **{md(last['name'])}**: {last['merges']:,} merges in {last['seconds']:.2f} s "
        f"({last['wall']:.2f} s with saving).{early}{reused}",
        icon="✅",
    )


# ----------------------------------------------------------------------------- your tokenizers


# Messages here quote what the student typed or uploaded (a file's name and content, a name, a pattern):
# each goes through md, so it shows as typed, never as a link or emphasis of its own.


def _flash() -> None:
    msg = STATE.get("flash")
    if msg:
        kind, text = msg
        show, icon = {"success": (st.success, "✅"), "info": (st.info, "🔁")}.get(kind, (st.error, "⚠️"))
        show(text, icon=icon)
        STATE["flash"] = None


def _on_upload_tokenizer() -> None:
    f = STATE.get("tokenizer_file")
    if f is None:
        return
    store = workspace.store()
    before = {e.key: e for e in store.entries()}
    try:
        key = store.import_bytes(f.getvalue(), f.name, pattern=STATE["upload_pattern"])
        tok = store.get(key)
        name = tok.name
        same = _already_kept(store, tok, before)
        if same is not None:
            store.delete(key)  # keep one: the copy already there, with its name and training text
    except ValueError as e:
        STATE["flash"] = ("error", md(str(e)))
        return
    if same is not None:
        STATE["selected"] = same.key
        st.session_state[state.TOKENIZER] = USER + same.key
        STATE["flash"] = (
            "info",
            f"{md(f.name)} is the same tokenizer as **{md(same.name)}** (the same tokens, merges, split pattern and special "
            "tokens), already in your tokenizers: it was not added a second time.",
        )
        return
    STATE["selected"] = key
    st.session_state[state.TOKENIZER] = USER + key
    unsaved = store.unsaved(key)
    STATE["flash"] = (
        ("error", f"Uploaded {md(f.name)} as **{md(name)}**, but it was **not saved**. {unsaved}")
        if unsaved
        else ("success", f"Uploaded {md(f.name)} as **{md(name)}**: it is now in your tokenizers and on every page.")
    )


def _already_kept(store, tok, entries: dict) -> workspace.Entry | None:
    """The tokenizer among ``entries`` that is the same as ``tok`` (``model.same_tokenizer``), if any."""
    for entry in reversed(list(entries.values())):  # the newest first
        if entry.vocab_size == 256 + tok.num_merges and model.same_tokenizer(store.get(entry.key), tok):
            return entry
    return None


def _on_rename(key: str) -> None:
    try:
        workspace.store().rename(key, STATE["rename"])
    except ValueError as e:
        STATE["flash"] = ("error", md(str(e)))
        return
    STATE["flash"] = ("success", f"Renamed to {md(STATE['rename'].strip())}.")


def _on_delete(key: str, name: str) -> None:
    try:
        workspace.store().delete(key)
    except ValueError as e:  # the database is not answering
        STATE["flash"] = ("error", md(str(e)))
        return
    STATE["confirm_delete"] = None
    if STATE.get("selected") == key:
        STATE["selected"] = None
    last = STATE.get("last")
    if last and last["key"] == key:
        STATE["last"] = None
    STATE["flash"] = ("success", f"Deleted {md(name)}.")


def _ask_delete(key: str) -> None:
    STATE["confirm_delete"] = key


def _on_delete_damaged(key: str) -> None:
    try:
        workspace.store().delete(key)
    except ValueError as e:
        STATE["flash"] = ("error", md(str(e)))


def workspace_section() -> str | None:
    """Your tokenizers: pick one, rename, delete, download; upload one. Returns the chosen key."""
    st.subheader("3 · Your tokenizers")
    st.caption(workspace.describe() + " Each one is also offered on the Tokenize, Compare, Step through and Vocabulary pages.")
    store = workspace.store()
    # One slot, however many messages, so the uploader below keeps its place: a message that moved it made the browser
    # draw a new uploader and lose a file dropped on the old one.
    with st.container():
        for bad in store.damaged():
            c1, c2 = st.columns([5, 1], vertical_alignment="center")
            c1.warning(f"A saved tokenizer cannot be read: {bad.message}", icon="🩹")
            c2.button("Delete it", key=STATE.key("drop", bad.key), on_click=_on_delete_damaged, args=(bad.key,))
        _flash()
    entries = {e.key: e for e in store.entries()}
    with st.expander("Upload a tokenizer file", icon="📤", expanded=not entries):
        st.file_uploader(
            f"BPE Lab JSON, Hugging Face tokenizer.json, a tiktoken rank file or a minbpe .model (up to {upload.MAX_UPLOAD_MB} MB)",
            type=None,  # any name: a file we cannot read gets a message, never the uploader's silent red mark
            help=f"Usually {', '.join('.' + t for t in upload.TOKENIZER_TYPES)}.",
            key=STATE.key("tokenizer_file"),
            on_change=_on_upload_tokenizer,
            max_upload_size=upload.MAX_UPLOAD_MB,
        )
        st.selectbox(
            "Split pattern for tiktoken files (they do not store one)",
            ["gpt4", "gpt2", "o200k"],
            format_func=model.PATTERN_CHOICES.get,
            key=STATE.key("upload_pattern"),
            persist_state="session",
        )
    if not entries:
        st.info("Nothing trained yet: pick a corpus and press **Train**.", icon="🏋️")
        return None
    st.download_button(
        "Download everything (.zip)",
        lambda: downloads.export_all(store),
        file_name="bpe-lab-workspace.zip",
        mime="application/zip",
        on_click="ignore",
        key=STATE.key("dl_all"),
        icon="📦",
        help="Every tokenizer here as BPE Lab JSON, with its training text: upload a .json again on any BPE Lab.",
    )
    keys = list(entries)[::-1]  # newest first
    if STATE.get("selected") not in entries:
        STATE["selected"] = model.first_shown(entries.values(), st.session_state.get(state.TOKENIZER, "").removeprefix(USER))
    key = st.selectbox(
        "Results for",
        keys,
        key=STATE.key("selected"),
        persist_state="session",
        format_func=lambda k: (
            f"{entries[k].name} · {entries[k].vocab_size:,} tokens · {entries[k].pattern} · {entries[k].source} {entries[k].created.replace('T', ' ')}"
        ),
    )
    entry = entries[key]
    _actions(key, entry)
    return key


def _actions(key: str, entry: workspace.Entry) -> None:
    with errors.shown():
        tok = workspace.store().get(key)
        if STATE.get("rename_for") != key:
            STATE["rename"] = entry.name
            STATE["rename_for"] = key
        c1, c2, c3 = st.columns([4, 1, 1], vertical_alignment="bottom")
        c1.text_input("Name", key=STATE.key("rename"))
        c2.button("Rename", key=STATE.key("rename_go"), on_click=_on_rename, args=(key,), width="stretch", icon="✏️")
        if STATE.get("confirm_delete") == key:
            c3.button(
                "Yes, delete",
                type="primary",
                key=STATE.key("delete_yes"),
                on_click=_on_delete,
                args=(key, entry.name),
                width="stretch",
            )
        else:
            c3.button("Delete", key=STATE.key("delete"), icon="🗑️", width="stretch", on_click=_ask_delete, args=(key,))
        if STATE.get("confirm_delete") == key:
            st.warning(
                f"Delete **{md(entry.name)}** from the workspace? This cannot be undone: download it first to keep a copy.",
                icon="🗑️",
            )
        with st.spinner("Preparing the downloads (BPE Lab JSON, tiktoken, tokenizer.json)…", show_time=True):
            # keyed by the name (the files' names, and the name inside them) and the moment it was saved (in the JSON)
            files = cache.for_content(
                tok, "exports", (tok.name, tok.metadata.get("saved_at")), lambda: downloads.exports(tok), maxsize=2
            )
        with st.container(horizontal=True, vertical_alignment="center"):
            st.markdown("**Download**")
            for ex in files:
                if ex.data is None:
                    st.button(ex.label, disabled=True, help=ex.problem, key=STATE.key("dl", ex.label), icon="⬇️")
                else:
                    st.download_button(
                        ex.label,
                        ex.data,
                        file_name=ex.file_name,
                        mime=ex.mime,
                        on_click="ignore",
                        key=STATE.key("dl", ex.label),
                        icon="⬇️",
                    )
        problems = [ex for ex in files if ex.problem]
        for ex in problems:
            st.caption(f"No {ex.label} download: {md(ex.problem)}")


# ----------------------------------------------------------------------------- results


def results_section(key: str) -> None:
    """Headline numbers, the merges table and the two charts of one tokenizer."""
    store = workspace.store()
    with errors.shown():
        tok = store.get(key)
        # each card as wide as its number, wrapping onto a second row: fixed columns cut "244.2 kB" to "244.2…" at 1280 px
        with st.container(horizontal=True, wrap=True):
            for label, value in model.summary(tok).items():
                st.metric(label, value, border=True, width="content")
        note = model.vocab_note(tok)
        if note:
            st.caption(note)
        left, right = st.columns([5, 4], gap="large")
        with left:
            _merges_table(tok)
        with right:
            if model.has_counts(tok):
                presenter.chart(
                    cache.for_content(tok, "counts_chart", 0, lambda: charts.merge_counts(model.counts_frame(tok))),
                    width="stretch",
                )
            trace = _trace(store, key)
            if trace is None:
                st.caption(model.missing_note(tok, has_counts=model.has_counts(tok)))
            else:
                frame = cache.for_content(tok, "compression", 0, lambda: model.compression_frame(trace, tok.num_merges))
                vocab = int(tok.metadata.get("vocab_size") or 256 + tok.num_merges)
                presenter.chart(
                    cache.for_content(tok, "compression_chart", vocab, lambda: charts.compression(frame, vocab_size=vocab)),
                    width="stretch",
                )
                st.caption(
                    f"Bytes per token falls from 1.00 (raw bytes) to {frame['bytes per token'].iloc[-1]:.2f} after {tok.num_merges:,} merges. "
                    "The dashed line marks the vocab size you asked for."
                )
                _step_link(key, trace.first_learned)


def _trace(store: workspace.Store, key: str):
    with st.spinner("Rebuilding the training record from the stored corpus…"):
        return store.training_trace(key)


def _step_link(key: str, first: int = 0) -> None:
    """A link to Step through's training mode at the first merge learned on this text (a continued training's base came before)."""
    try:
        st.page_link(
            "pages/step.py",
            label="Step through this training, merge by merge",
            icon="👣",
            query_params={"mode": "training", "tokenizer": USER + key, "step": str(first)},
        )
    except Exception:  # the page runs on its own (AppTest.from_file): there is no navigation to link into
        pass


def _merges_table(tok) -> None:
    n = tok.num_merges
    start = 0
    if n > model.MERGE_ROWS:
        start = (
            st.number_input(
                f"First step shown (of {n:,})",
                min_value=1,
                max_value=n,
                value=1,
                step=model.MERGE_ROWS,
                key=STATE.key("merge_start"),
            )
            - 1
        )
    df = cache.for_content(tok, "merges_frame", start, lambda: model.merges_frame(tok, start))
    counts = model.has_counts(tok)
    st.dataframe(
        df,
        hide_index=True,
        height=420,
        column_config={
            # widths that add up to less than the column at 1280 px: the table never scrolls sideways
            "step": st.column_config.NumberColumn(
                "step", help="Merge number: the new token gets id 255 + step (256 for step 1)", width=48
            ),
            "left": st.column_config.TextColumn(
                "left", help="Left token, as visible text (· is a space, ↵ a newline, <E4> a byte)", width=64
            ),
            "right": st.column_config.TextColumn("right", width=64),
            "new token": st.column_config.TextColumn("new token", width=84),
            "count": st.column_config.NumberColumn(
                "count", help="How often the pair occurred when it was merged", format="localized", width=64
            )
            if counts
            else None,  # the file did not store them: said under the table, never a column of "None"
            "id": st.column_config.NumberColumn("id", width=56),
            "left id": None,
            "right id": None,
            "bytes": st.column_config.NumberColumn("bytes", width=40),
        },
        key=STATE.key("merges_table"),
    )
    shown = len(df)
    note = f"Merges {start + 1:,}–{start + shown:,} of {n:,}." if shown < n else f"All {n:,} merges."
    if not counts:
        note += " " + model.NO_COUNTS
    st.caption(note)
