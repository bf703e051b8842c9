"""The Step through page: pick a mode, a tokenizer and a text; the stepping itself runs in the browser.

When the text, the tokenizer or the mode changes, the server computes the whole trace
once (``model``), packs it (``payload``) and hands it to the stepper component
(``stepper``): from then on every step, the slider, the keys and Play run in the page,
with no rerun. The page tells the server the step when play stops or stepping pauses
(``_reported``), and in training mode asks it for the top pairs of the steps it shows
(a window of steps at a time: a 50,000-merge training's top pairs at every step would
be too much to send).

The mode, the tokenizer, the step and a short text live in the URL
(``?mode=training&tokenizer=user:...&step=12``, see ``ui.common.urlstate``), so a
teacher can link to a step; the page keeps the ``step`` parameter up to date itself.
"How one word is built" and the steps table stay server-rendered.
"""

from __future__ import annotations

from contextlib import nullcontext

import streamlit as st

from tokenizer.spm import difference_note
from ui.common import cache, draw, errors, presenter, state, tokenizers, training, urlstate, workspace
from ui.common.tokenizers import USER
from ui.content import corpora
from ui.render.markdown import md

from . import model, payload, stepper

MODES = {"training": "Training", "encoding": "Encoding"}
MODE_HELP = (
    "Training: replay how one of your tokenizers was learned, merge by merge. "
    "Encoding: watch any tokenizer (OpenAI's, Llama's, Qwen's, Mistral's or yours) encode a text one merge rank at a time."
)
INTRO = (
    "Every step is one merge. In **training** mode you see how your tokenizer learned its vocabulary; "
    "in **encoding** mode you see how a tokenizer turns a text into tokens, lowest merge rank first. "
    "The address bar keeps the mode, tokenizer and step: copy it to share this exact step."
)
DEMO = "stdlib-docstrings"

STATE = state.PageState(
    "step",
    {
        "mode": "encoding",
        "k": 0,  # the step the page last reported (or the server last set)
        "goto": (0, 0),  # (epoch, step): a new epoch makes the page open at that step; else it keeps its own
        "trace_id": None,  # the trace the page shows (reports about another one are stale)
        "pairs_from": 0,  # training mode: the first step of the window of top pairs sent
        "excerpt": model.EXCERPT_DEFAULT,
        "word": "tokenization",
        "show_chunks": True,
        "url_tokenizer": None,  # a tokenizer named in the URL, until the page has said whether it is here
        "demo_error": None,  # why the demo tokenizer could not be kept (a full workspace)
    },
    widgets=("training.tokenizer", "encoding.tokenizer", "text", "demo", "long", "stepper", "pairs"),
)
URL = ("mode", "tokenizer", "step", "text")


def _goto(k: int) -> None:
    """The server moves the step (a link, a new mode or trace): the page opens there."""
    epoch, _ = STATE["goto"]
    STATE["k"] = k
    STATE["goto"] = (epoch + 1, k)
    STATE["pairs_from"] = k


def restore_link() -> None:
    """Apply the URL's mode, tokenizer, step and text when they are new to this page (ui.common.urlstate)."""
    asked = urlstate.incoming(STATE.page, URL)
    if not asked:
        return
    mode = asked.get("mode")
    if mode in MODES:
        STATE["mode"] = mode
    tok = asked.get("tokenizer")
    if tok:
        STATE[f"{STATE['mode']}.tokenizer"] = tok
        STATE["url_tokenizer"] = tok
    step = asked.get("step", "")
    if step.isdigit():
        _goto(int(step))
    text = asked.get("text")
    if text and STATE["mode"] == "encoding":
        state.set_text(text, STATE)


def intro() -> None:
    """The page's paragraph (left out in presenter mode, where the step itself comes first)."""
    if not presenter.on():
        st.caption(INTRO)


def sync_url(mode: str, tok_key: str, k: int, text: str | None = None) -> None:
    """Write the controls into the URL (only what changed, so no extra reruns)."""
    urlstate.publish(STATE.page, URL, urlstate.params(text, mode=mode, tokenizer=tok_key, step=str(k)))


def _reported() -> None:
    """The page told the step it is on (play stopped, stepping paused, or top pairs wanted)."""
    r = stepper.reported(STATE.key("stepper"))
    if r is None or r.get("id") != STATE["trace_id"] or r.get("epoch") != STATE["goto"][0]:
        return  # about another trace, or from before the server moved the step
    STATE["k"] = r["k"]
    want = r.get("want")
    if isinstance(want, int):
        STATE["pairs_from"] = want
    elif not STATE["pairs_from"] <= r["k"] < STATE["pairs_from"] + payload.WINDOW:
        STATE["pairs_from"] = r["k"]


def _steps(trace_id: str, body: bytes, n: int, publish, pairs=None) -> None:
    """The stepper (and in training mode the top pairs), in a fragment: a report reruns only this."""
    if STATE["trace_id"] != trace_id:  # a new trace: open it at the step the user was on
        STATE["trace_id"] = trace_id
        _goto(min(STATE["k"], n))

    @st.fragment
    def stepping() -> None:
        STATE["k"] = max(0, min(STATE["k"], n))
        publish(STATE["k"])
        stepper.show(body, key=STATE.key("stepper"), goto=STATE["goto"], chunks=STATE["show_chunks"], on_report=_reported)
        if pairs is not None:
            stepper.show_pairs(trace_id, pairs(STATE["pairs_from"]), key=STATE.key("pairs"))

    stepping()


def _sized(dumped: tuple[str, bytes], *, mode: str, chars: int) -> tuple[str, bytes] | None:
    """The payload, or None after saying it is too big to send."""
    try:
        payload.check_size(len(dumped[1]), mode=mode, chars=chars)
    except payload.TooBig as e:
        st.error(md(str(e)), icon="✂️")
        return None
    return dumped


# ----------------------------------------------------------------------------- training mode


def _train_demo() -> None:
    c = corpora.CORPORA[DEMO]
    text = corpora.text(DEMO)
    store = workspace.store()
    try:
        store.check_room(len(text.encode("utf-8")))
        name = f"demo · {c.title} · {c.vocab_size}"
        tok, _ = cache.for_builtin(
            "training",
            (DEMO, c.vocab_size, c.pattern, ()),
            lambda: training.train(text, c.vocab_size, pattern=c.pattern, name=name),
        )
        tok.name = name
        key = store.add(tok, corpus=text)
    except ValueError as e:  # a full workspace, or the database not answering
        STATE["demo_error"] = str(e)
        return
    STATE["demo_error"] = None
    STATE["training.tokenizer"] = USER + key
    _goto(0)


def training_mode(head) -> None:
    store = workspace.store()
    choices = {USER + e.key: f"{e.name} ({e.vocab_size:,} tokens)" for e in store.entries() if e.has_corpus}
    if not choices:
        st.info(
            "Training mode replays one of **your** tokenizers, so it needs one trained in BPE Lab "
            "(uploaded ones carry no training text). Train one on the Train page, or here in a second:",
            icon="🏋️",
        )
        st.button(
            f"Train a demo tokenizer ({corpora.CORPORA[DEMO].title}, {corpora.CORPORA[DEMO].vocab_size:,} tokens)",
            key=STATE.key("demo"),
            on_click=_train_demo,
            type="primary",
            icon="⚡",
        )
        if STATE["demo_error"]:
            st.error(md(STATE["demo_error"]), icon="⚠️")
        return
    _url_tokenizer_note(choices)
    presenting = presenter.on()
    c1, c2 = (head, None) if presenting else st.columns([3, 1])
    with c1:
        tok_key = tokenizers.select("Tokenizer", STATE.key("training.tokenizer"), choices=choices)
    slot = st.container()
    with presenter.fold("Training text shown") if presenting else c2:
        st.selectbox(
            "Training text shown",
            model.EXCERPT_CHOICES,
            key=STATE.key("excerpt"),
            persist_state="session",
            format_func=lambda n: f"first {n:,} characters",
        )
    with slot, errors.shown(stop=True):
        tok = tokenizers.get(tok_key)
        corpus_key = tok_key[len(USER) :]
        trace = store.training_trace(corpus_key)
        if trace is None:
            raise ValueError("this tokenizer has no stored training text: pick another one, or train it again")
        excerpt = cache.for_tokenizer(
            tok, "excerpt", STATE["excerpt"], lambda: (store.corpus(corpus_key) or "")[: STATE["excerpt"]]
        )
        # a copy of a built-in training (the class's usual case) has the same trace as every other copy: its replay
        # is built once per process (cache.for_content); any other tokenizer's, for its own trace object
        twin = cache.builtin_twin(tok) is not None
        etrace = cache.for_content(tok, "excerpt_trace", excerpt, lambda: model.excerpt_trace(tok, excerpt), maxsize=4)
        corpus_chars = int(tok.metadata.get("corpus_chars") or len(excerpt))
        dumped = cache.for_content(
            tok,
            "step.payload",
            (excerpt, None if twin else id(trace)),
            lambda: payload.dumps(payload.training_payload(tok, trace, etrace, corpus_chars=corpus_chars)),
            maxsize=2,
        )
        sized = _sized(dumped, mode="training", chars=len(excerpt))
        if sized is None:
            return

        def pairs(start: int) -> dict:
            # one merge per step (PairCounter) instead of the whole text encoded again; visited windows are kept.
            # A training variant's counts are its trace's own (the language served, the stage's chunks): no counter.
            def compute() -> dict:
                if not trace.incremental:
                    return payload.top_pairs_window(tok, trace, start)
                counter = cache.for_tokenizer(tok, "pair_counter", id(trace), lambda: model.PairCounter(tok, trace), maxsize=1)
                return payload.top_pairs_window(tok, trace, start, counter if counter.k <= start else None)

            return cache.for_content(tok, "step.pairs", (None if twin else id(trace), start), compute, maxsize=32)

        _steps(sized[0], sized[1], tok.num_merges, lambda k: sync_url("training", tok_key, k), pairs)


# ----------------------------------------------------------------------------- encoding mode


def _use_long_text() -> None:
    state.set_text(corpora.text(DEMO)[:6000], STATE)
    _goto(0)


def encoding_mode(head) -> None:
    choices = tokenizers.options(baselines=False)
    _url_tokenizer_note(choices)
    presenting = presenter.on()
    with head if presenting else nullcontext():
        tok_key = tokenizers.select("Tokenizer", STATE.key("encoding.tokenizer"), choices=choices)
    slot = st.container() if presenting else None  # the step comes before the text in presenter mode, after it otherwise
    with presenter.fold("Text to encode"):
        text = state.shared_text_area("Text to encode", STATE, height=140)
        c1, c2, _ = st.columns([2, 2, 3])
        c1.button("Use a 6,000-character text", key=STATE.key("long"), on_click=_use_long_text, icon="📜")
        c2.toggle("Show regex chunks", key=STATE.key("show_chunks"), persist_state="session")
    with slot if slot is not None else nullcontext():
        with errors.shown(stop=True):
            tok = tokenizers.get(tok_key)
            if note := difference_note([tok]):  # its steps start from characters and follow each piece's score
                st.caption(note)
            # derived from the user's text: this session only, even with an official encoding
            etrace = cache.for_session("step.encode_trace", text, lambda: tok.encode_trace(text), owner=tok, maxsize=4)
            dumped = cache.for_session(
                "step.payload", text, lambda: payload.dumps(payload.encoding_payload(tok, etrace)), owner=tok, maxsize=4
            )
        sized = _sized(dumped, mode="encoding", chars=len(text))
        if sized is not None:
            _steps(sized[0], sized[1], len(etrace.steps), lambda k: sync_url("encoding", tok_key, k, text))
    if etrace.steps:
        with presenter.fold("Every step, as a table"):
            df = cache.for_session("step.steps_frame", etrace.text, lambda: model.steps_frame(tok, etrace), owner=tok, maxsize=4)
            st.dataframe(
                df,
                hide_index=True,
                height=260,
                width="stretch",
                column_config={"places": st.column_config.NumberColumn(help="Occurrences merged at this step")},
            )
    _word_section(tok)


def _word_section(tok) -> None:
    st.subheader("How one word is built")
    word = st.text_input(
        "Word",
        key=STATE.key("word"),
        persist_state="session",
        help="A word, or a short piece of text (with its leading space, if you like: ' tokenization').",
    )
    if not word:
        return
    if len(word) > 200:
        st.warning("Take a word or a short phrase (at most 200 characters).", icon="✂️")
        return
    with errors.shown():
        ladder = cache.for_session("step.ladder", word, lambda: model.word_ladder(tok, word), owner=tok, maxsize=16)
        draw.ladder(ladder)
        st.caption(
            f"{len(ladder) - 1} merge{'s' if len(ladder) != 2 else ''} turn {len(ladder[0][1])} bytes into {len(ladder[-1][1])} "
            f"token{'s' if len(ladder[-1][1]) != 1 else ''}, lowest rank first."
        )


def _url_tokenizer_note(choices: dict[str, str]) -> None:
    wanted = STATE.get("url_tokenizer")
    if wanted and wanted not in choices:
        st.warning(
            f"The link asks for tokenizer {md(repr(wanted))}, which is not here (tokenizers live in each workspace); showing another one.",
            icon="🔗",
        )
    STATE["url_tokenizer"] = None


def _mode_changed() -> None:
    _goto(0)


def page() -> None:
    presenting = presenter.on()
    left, right = st.columns([2, 3], vertical_alignment="bottom") if presenting else (nullcontext(), None)
    with left:
        mode = st.segmented_control(
            "Mode",
            list(MODES),
            format_func=MODES.get,
            key=STATE.key("mode"),
            required=True,
            persist_state="session",
            help=MODE_HELP,
            on_change=_mode_changed,
        )
    if mode == "training":
        training_mode(right)
    else:
        encoding_mode(right)
