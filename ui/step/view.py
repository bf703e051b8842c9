"""The Step through page: one set of controls (first, previous, next, last, a slider,
play with a speed) over two modes.

The mode, the tokenizer, the step and a short text live in the URL
(``?mode=training&tokenizer=user:...&step=12``, see ``ui.common.urlstate``), so a
teacher can link to a step. The stepping part is a fragment: moving a step, or
autoplay (``run_every``), reruns only the fragment and never blocks the rest of
the page. Traces are computed once per tokenizer and text (``ui.common.cache``)
and replayed to any step; what a step shows comes from ``model``, drawn by
``ui.render.cards``, ``ui.render.spans`` and ``ui.render.charts``.
"""

from __future__ import annotations

import streamlit as st

from ui.common import cache, errors, state, tokenizers, training, urlstate, workspace
from ui.common.tokenizers import USER
from ui.content import corpora
from ui.render import cards, charts
from ui.render.spans import render_spans, scroll_box
from ui.train.model import compression_frame

from . import keyboard, model

MODES = {"training": "Training", "encoding": "Encoding"}
MODE_HELP = (
    "Training: replay how one of your tokenizers was learned, merge by merge. "
    "Encoding: watch any tokenizer (OpenAI's, Llama's, Qwen's, Mistral's or yours) encode a text one merge rank at a time."
)
#: Long texts scroll inside a box this high (px), so the charts below stay in view.
SPANS_HEIGHT = 420
SCROLL_AFTER = 600  # spans
DEMO = "stdlib-docstrings"

STATE = state.PageState(
    "step",
    {
        "mode": "encoding",
        "k": 0,  # the step shown (a plain key: survives page switches and fragment reruns)
        "playing": False,
        "speed": "normal",
        "excerpt": model.EXCERPT_DEFAULT,
        "word": "tokenization",
        "show_chunks": True,
        "url_tokenizer": None,  # a tokenizer named in the URL, until the page has said whether it is here
        "demo_error": None,  # why the demo tokenizer could not be kept (a full workspace)
    },
    widgets=(
        "training.tokenizer",
        "encoding.tokenizer",
        "text",
        "play",
        "first",
        "prev",
        "next",
        "last",
        "slider",
        "demo",
        "long",
        "keys",
    ),
)
URL = ("mode", "tokenizer", "step", "text")


def restore_link() -> None:
    """Apply the URL's mode, tokenizer, step and text when they are new to this page (ui.common.urlstate)."""
    asked = urlstate.incoming(STATE.page, URL)
    if not asked:
        return
    STATE["playing"] = False
    mode = asked.get("mode")
    if mode in MODES:
        STATE["mode"] = mode
    tok = asked.get("tokenizer")
    if tok:
        STATE[f"{STATE['mode']}.tokenizer"] = tok
        STATE["url_tokenizer"] = tok
    step = asked.get("step", "")
    if step.isdigit():
        STATE["k"] = int(step)
    text = asked.get("text")
    if text and STATE["mode"] == "encoding":
        state.set_text(text, STATE)


def sync_url(mode: str, tok_key: str, k: int, text: str | None = None) -> None:
    """Write the controls into the URL (only what changed, so no extra reruns)."""
    urlstate.publish(STATE.page, URL, urlstate.params(text, mode=mode, tokenizer=tok_key, step=str(k)))


# ----------------------------------------------------------------------------- controls


def _go(delta: int | None = None, to: int | None = None, n: int = 0) -> None:
    k = STATE["k"]
    k = to if to is not None else k + (delta or 0)
    STATE["k"] = max(0, min(n, k))


def _slid() -> None:
    STATE["k"] = STATE["slider"]


def _toggle_play(n: int) -> None:
    if not STATE["playing"] and STATE["k"] >= n:
        STATE["k"] = 0  # play from the start again
    STATE["playing"] = not STATE["playing"]


def play_controls(n: int) -> None:
    """Play/pause and speed: outside the fragment, since they start and stop its timer."""
    playing = STATE["playing"]
    c1, c2, _ = st.columns([1, 3, 3], vertical_alignment="bottom")
    c1.button(
        "Pause" if playing else "Play",
        icon="⏸️" if playing else "▶️",
        key=STATE.key("play"),
        on_click=_toggle_play,
        args=(n,),
        type="primary" if playing else "secondary",
        width="stretch",
        disabled=n == 0,
        help="Step forward automatically; the rest of the page stays usable.",
    )
    c2.select_slider(
        "Speed",
        list(model.SPEEDS),
        key=STATE.key("speed"),
        persist_state="session",
        format_func=lambda s: f"{s} ({model.SPEEDS[s]:g} s per step)",
    )


def nav_controls(n: int, unit: str) -> int:
    """First / previous / next / last and a slider; returns the step to show."""
    playing = STATE["playing"]
    k = max(0, min(STATE["k"], n))
    STATE["k"] = k
    cols = st.columns([1, 1, 1, 1, 6], vertical_alignment="bottom")
    cols[0].button(
        "⏮ First", key=STATE.key("first"), on_click=_go, kwargs={"to": 0, "n": n}, disabled=playing or k == 0, width="stretch"
    )
    cols[1].button(
        "◀ Prev", key=STATE.key("prev"), on_click=_go, kwargs={"delta": -1, "n": n}, disabled=playing or k == 0, width="stretch"
    )
    cols[2].button(
        "Next ▶", key=STATE.key("next"), on_click=_go, kwargs={"delta": 1, "n": n}, disabled=playing or k >= n, width="stretch"
    )
    cols[3].button(
        "Last ⏭", key=STATE.key("last"), on_click=_go, kwargs={"to": n, "n": n}, disabled=playing or k >= n, width="stretch"
    )
    with cols[4]:
        if n > 0:
            STATE["slider"] = k
            st.slider(f"{unit} (0 to {n:,})", 0, n, key=STATE.key("slider"), on_change=_slid, disabled=playing)
        else:
            st.caption("Nothing to step through.")
    return k


def stepper_fragment(n: int, unit: str, draw) -> None:
    """Controls and view in one fragment; with autoplay on it reruns every few tenths of a second."""
    every = model.SPEEDS[STATE["speed"]] if STATE["playing"] else None

    @st.fragment(run_every=every)
    def stepping() -> None:
        if STATE["playing"]:
            if STATE["k"] >= n:
                STATE["playing"] = False
                st.rerun()  # a full rerun: the fragment is redefined without its timer
            STATE["k"] = min(n, STATE["k"] + 1)
        k = nav_controls(n, unit)
        draw(k)

    stepping()


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
    STATE["k"] = 0


def training_mode() -> None:
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
            st.error(STATE["demo_error"], icon="⚠️")
        return
    _url_tokenizer_note(choices)
    c1, c2 = st.columns([3, 1])
    with c1:
        tok_key = tokenizers.select("Tokenizer", STATE.key("training.tokenizer"), choices=choices)
    with c2:
        st.selectbox(
            "Training text shown",
            model.EXCERPT_CHOICES,
            key=STATE.key("excerpt"),
            persist_state="session",
            format_func=lambda n: f"first {n:,} characters",
        )
    with errors.shown(stop=True):
        tok = tokenizers.get(tok_key)
        corpus_key = tok_key[len(USER) :]
        trace = store.training_trace(corpus_key)
        if trace is None:
            raise ValueError("this tokenizer has no stored training text: pick another one, or train it again")
        excerpt = cache.for_tokenizer(
            tok, "excerpt", STATE["excerpt"], lambda: (store.corpus(corpus_key) or "")[: STATE["excerpt"]]
        )
        etrace = cache.for_tokenizer(tok, "excerpt_trace", excerpt, lambda: model.excerpt_trace(tok, excerpt), maxsize=4)
    n = tok.num_merges
    play_controls(n)

    def draw(k: int) -> None:
        sync_url("training", tok_key, k)
        _draw_training(tok, trace, etrace, excerpt, k)

    stepper_fragment(n, "Merges learned", draw)


def _draw_training(tok, trace, etrace, excerpt: str, k: int) -> None:
    view = model.training_view(tok, trace, etrace, k)
    total = view.tokens_before
    m = st.columns(4)
    m[0].metric("Step", f"{view.k:,} of {view.n:,}", border=True)
    m[1].metric("Vocab size", f"{256 + view.k:,}", border=True)
    m[2].metric(
        "Training text, tokens",
        f"{view.tokens:,}",
        delta=f"{view.tokens - total:,}" if view.k else None,
        delta_color="inverse",
        border=True,
        help=f"{total:,} bytes at step 0",
    )
    m[3].metric("Bytes per token", f"{total / view.tokens:.3f}" if view.tokens else "–", border=True)
    if view.next is not None:
        where = f"{view.next_in_excerpt:,}× in the text below" if view.next_in_excerpt else "not in the text below"
        st.html(
            cards.merge_card(
                tok.vocab,
                view.next.pair,
                view.next.new_id,
                label=f"Step {view.k + 1} merges",
                meta=f"count {view.next.count or 0:,} in the training text · {where}",
            )
        )
    else:
        st.html(cards.note_card(f"Training ended here: {view.n:,} merges, a vocabulary of {256 + view.n:,} tokens."))
    if view.last is not None:
        st.html(
            cards.merge_card(
                tok.vocab, view.last.pair, view.last.new_id, label=f"Step {view.k} minted", meta=f"count {view.last.count or 0:,}"
            )
        )
    shown = len(excerpt)
    corpus_chars = int(tok.metadata.get("corpus_chars") or shown)
    cut_note = "Dashed lines are regex chunk boundaries; merges never cross them. " if view.cuts and STATE["show_chunks"] else ""
    st.caption(
        f"The training text after {view.k:,} merges ({len(view.spans):,} tokens"
        + (f" in the first {shown:,} of {corpus_chars:,} characters" if shown < corpus_chars else "")
        + "). Outlined in orange: the pair the next step merges. "
        + cut_note
    )
    # a long text scrolls in a box of its own, which the keyboard can reach (axe-core's scrollable-region-focusable)
    st.html(
        scroll_box(
            render_spans(
                view.spans,
                show_whitespace=True,
                highlight=view.highlight,
                cuts=view.cuts if STATE["show_chunks"] else (),
                tooltips=False,
            ),
            height=SPANS_HEIGHT if len(view.spans) > SCROLL_AFTER else None,
            label="The training text, token by token",
        )
    )
    left, right = st.columns(2, gap="large")
    with left:
        if view.k < view.n:
            # one merge per Next (PairCounter) instead of the whole text encoded again; visited steps are kept
            counter = cache.for_tokenizer(tok, "pair_counter", id(trace), lambda: model.PairCounter(tok, trace), maxsize=1)
            pairs = cache.for_tokenizer(
                tok, "top_pairs", view.k, lambda: model.top_pairs_frame(tok, trace, view.k, counter=counter), maxsize=64
            )
            st.vega_lite_chart(charts.top_pairs(pairs), width="stretch")
            st.dataframe(
                pairs.drop(columns=["next"]),
                hide_index=True,
                width="stretch",
                column_config={"count": st.column_config.NumberColumn(format="localized")},
            )
        else:
            st.caption("No pair is merged after the last step.")
    with right:
        frame = cache.for_tokenizer(tok, "compression", 0, lambda: compression_frame(trace, tok.num_merges))
        length = cache.for_tokenizer(
            tok, "length_spec", 0, lambda: charts.sequence_length(frame, title="Training text length, merge by merge")
        )
        ratio = cache.for_tokenizer(
            tok, "ratio_spec", 0, lambda: charts.compression(frame, cursor=True, height=200, title="Bytes per token so far")
        )
        st.vega_lite_chart(charts.at_cursor(length, frame, view.k), width="stretch")
        st.vega_lite_chart(charts.at_cursor(ratio, frame, view.k), width="stretch")


# ----------------------------------------------------------------------------- encoding mode


def _use_long_text() -> None:
    state.set_text(corpora.text(DEMO)[:6000], STATE)
    STATE["k"] = 0


def encoding_mode() -> None:
    choices = tokenizers.options(baselines=False)
    _url_tokenizer_note(choices)
    tok_key = tokenizers.select("Tokenizer", STATE.key("encoding.tokenizer"), choices=choices)
    text = state.shared_text_area("Text to encode", STATE, height=140)
    c1, c2, _ = st.columns([2, 2, 3])
    c1.button("Use a 6,000-character text", key=STATE.key("long"), on_click=_use_long_text, icon="📜")
    c2.toggle("Show regex chunks", key=STATE.key("show_chunks"), persist_state="session")
    with errors.shown(stop=True):
        tok = tokenizers.get(tok_key)
        # derived from the user's text: this session only, even with an official encoding
        etrace = cache.for_session("step.encode_trace", text, lambda: tok.encode_trace(text), owner=tok, maxsize=4)
    n = len(etrace.steps)
    play_controls(n)

    def draw(j: int) -> None:
        sync_url("encoding", tok_key, j, text)
        _draw_encoding(tok, etrace, j)

    stepper_fragment(n, "Encode steps", draw)
    _word_section(tok)


def _draw_encoding(tok, etrace, j: int) -> None:
    view = model.encoding_view(etrace, j)
    m = st.columns(4)
    m[0].metric("Step", f"{view.j:,} of {view.n:,}", border=True)
    start = etrace.initial_count
    m[1].metric(
        "Tokens",
        f"{len(view.spans):,}",
        delta=f"{len(view.spans) - start:,}" if view.j else None,
        delta_color="inverse",
        border=True,
    )
    m[2].metric(
        "Merge rank",
        f"{view.step.rank:,}" if view.step else "–",
        border=True,
        help="Lower ranks were learned earlier and are applied first.",
    )
    m[3].metric("Bytes per token", f"{len(etrace.data) / len(view.spans):.2f}" if view.spans else "–", border=True)
    if view.step is not None:
        st.html(
            cards.merge_card(
                tok.vocab,
                view.step.pair,
                view.step.new_id,
                label=f"Step {view.j} applies rank {view.step.rank:,}",
                meta=f"{view.step.count:,} place{'s' if view.step.count != 1 else ''} at once",
            )
        )
    elif view.n:
        st.html(
            cards.note_card("Step 0: every byte is a token. Each step applies the lowest-ranked merge that still fits somewhere.")
        )
    elif not etrace.text:
        st.html(cards.note_card("Type a text above, then step through its encoding."))
    else:
        st.html(cards.note_card("No merge applies to this text: it stays as bytes."))
    if view.upcoming is not None:
        up = view.upcoming
        st.caption(
            f"Next: rank {up.rank:,}, {model.pair_label(tok, up.pair)}, at {up.count:,} place{'s' if up.count != 1 else ''}."
        )
    show_chunks = STATE["show_chunks"]
    st.caption(
        "Outlined in orange: the tokens this step created."
        + (" Dashed lines: regex chunk boundaries." if view.cuts and show_chunks else "")
    )
    st.html(
        scroll_box(
            render_spans(
                view.spans,
                show_whitespace=True,
                highlight=view.highlight,
                cuts=view.cuts if show_chunks else (),
                empty="Type a text above to encode it.",
                tooltips=False,
            ),
            height=SPANS_HEIGHT if len(view.spans) > SCROLL_AFTER else None,
            label="The text, token by token",
        )
    )
    if view.n:
        left, right = st.columns([3, 2], gap="large")
        with left:
            df = cache.for_session("step.steps_frame", etrace.text, lambda: model.steps_frame(tok, etrace), owner=tok, maxsize=4)
            st.dataframe(
                df,
                hide_index=True,
                height=260,
                width="stretch",
                column_config={"places": st.column_config.NumberColumn(help="Occurrences merged at this step")},
            )
        with right:
            frame = cache.for_session(
                "step.encode_length", etrace.text, lambda: model.encode_length_frame(etrace), owner=tok, maxsize=4
            )
            length = cache.for_session(
                "step.encode_length_spec",
                etrace.text,
                lambda: charts.sequence_length(frame, x="step", title="Tokens after each step", height=240),
                owner=tok,
                maxsize=4,
            )
            st.vega_lite_chart(charts.at_cursor(length, frame, view.j, x="step"), width="stretch")


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
        st.html(cache.for_session("step.ladder_html", word, lambda: cards.ladder_html(ladder), owner=tok, maxsize=16))
        st.caption(
            f"{len(ladder) - 1} merge{'s' if len(ladder) != 2 else ''} turn {len(ladder[0][1])} bytes into {len(ladder[-1][1])} "
            f"token{'s' if len(ladder[-1][1]) != 1 else ''}, lowest rank first."
        )


def _url_tokenizer_note(choices: dict[str, str]) -> None:
    wanted = STATE.get("url_tokenizer")
    if wanted and wanted not in choices:
        st.warning(
            f"The link asks for tokenizer {wanted!r}, which is not here (tokenizers live in each workspace); showing another one.",
            icon="🔗",
        )
    STATE["url_tokenizer"] = None


def _mode_changed() -> None:
    STATE["k"] = 0
    STATE["playing"] = False


def page() -> None:
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
    keyboard.install(STATE.key("keys"))  # → ← Home End space press the step buttons
    if mode == "training":
        training_mode()
    else:
        encoding_mode()
