"""The Step through page: one set of controls (first, previous, next, last, a slider,
play with a speed) over two modes.

The mode, the tokenizer and the step live in the URL (``?mode=training&tokenizer=
user:...&step=12``), so a teacher can link to a step. The stepping part is a
fragment: moving a step, or autoplay (``run_every``), reruns only the fragment and
never blocks the rest of the page. Traces are computed once per tokenizer object
and text (``ui.memo``) and replayed to any step.
"""

from __future__ import annotations

import streamlit as st

from tokenizer import train

from ui.common import corpora
from ui.common import errors
from ui.common import cache as memo
from ui.render import spans
from ui.common import state
from ui.step import model as stepper
from ui.common import tokenizers
from ui.train import model as training
from ui.common import workspace
from ui.render import charts
from ui.common.tokenizers import USER

MODES = {"training": "Training", "encoding": "Encoding"}
MODE_HELP = (
    "Training: replay how one of your tokenizers was learned, merge by merge. "
    "Encoding: watch any tokenizer (GPT-2, GPT-4, GPT-4o or yours) encode a text one merge rank at a time."
)
#: Long texts scroll inside a box this high (px), so the charts below stay in view.
SPANS_HEIGHT = 420
SCROLL_AFTER = 600  # spans
#: Text short enough to go into the URL with the other controls (encoding mode).
URL_TEXT_CHARS = 300
DEMO = "stdlib-docstrings"

DEFAULTS = {
    "step.mode": "encoding",
    "step.k": 0,  # the step shown (plain key: survives page switches and fragment reruns)
    "step.playing": False,
    "step.speed": "normal",
    "step.excerpt": stepper.EXCERPT_DEFAULT,
    "step.word": "tokenization",
    "step.show_chunks": True,
    "step.url_tokenizer": None,  # a tokenizer named in the URL that is not here
}


URL_KEYS = ("mode", "tokenizer", "step", "text")


def init_state() -> None:
    """Defaults, then whatever the URL asks for when it is not what this page last wrote there.

    A teacher's link, a link from the Train page or an edited address bar all
    differ from the page's own last URL, so they win; the page's own writes do not
    bounce back.
    """
    ss = st.session_state
    for key, value in DEFAULTS.items():
        ss.setdefault(key, value)
    asked = {k: st.query_params[k] for k in URL_KEYS if k in st.query_params}
    if not asked or asked == ss.get("step._url_last"):
        return
    ss["step._url_last"] = asked
    ss["step.playing"] = False
    mode = asked.get("mode")
    if mode in MODES:
        ss["step.mode"] = mode
    tok = asked.get("tokenizer")
    if tok:
        ss[f"step.{ss['step.mode']}.tokenizer"] = tok
        ss["step.url_tokenizer"] = tok
    step = asked.get("step", "")
    if step.isdigit():
        ss["step.k"] = int(step)
    text = asked.get("text")
    if text and ss["step.mode"] == "encoding":
        state.set_text(text, "step")


def sync_url(mode: str, tok_key: str, k: int, text: str | None = None) -> None:
    """Write the controls into the URL (only what changed, so no extra reruns)."""
    want = {"mode": mode, "tokenizer": tok_key, "step": str(k)}
    if text is not None and len(text) <= URL_TEXT_CHARS:
        want["text"] = text
    qp = st.query_params
    for key, value in want.items():
        if qp.get(key) != value:
            qp[key] = value
    if "text" in qp and "text" not in want:
        del qp["text"]
    st.session_state["step._url_last"] = want


# ----------------------------------------------------------------------------- controls


def _go(delta: int | None = None, to: int | None = None, n: int = 0) -> None:
    k = st.session_state["step.k"]
    k = to if to is not None else k + (delta or 0)
    st.session_state["step.k"] = max(0, min(n, k))


def _slid() -> None:
    st.session_state["step.k"] = st.session_state["step.slider"]


def _toggle_play(n: int) -> None:
    ss = st.session_state
    if not ss["step.playing"] and ss["step.k"] >= n:
        ss["step.k"] = 0  # play from the start again
    ss["step.playing"] = not ss["step.playing"]


def play_controls(n: int) -> None:
    """Play/pause and speed: outside the fragment, since they start and stop its timer."""
    playing = st.session_state["step.playing"]
    c1, c2, _ = st.columns([1, 3, 3], vertical_alignment="bottom")
    c1.button(
        "Pause" if playing else "Play", icon="⏸️" if playing else "▶️", key="step.play", on_click=_toggle_play, args=(n,),
        type="primary" if playing else "secondary", width="stretch", disabled=n == 0,
        help="Step forward automatically; the rest of the page stays usable.",
    )
    c2.select_slider("Speed", list(stepper.SPEEDS), key="step.speed", persist_state="session",
                     format_func=lambda s: f"{s} ({stepper.SPEEDS[s]:g} s per step)")


def nav_controls(n: int, unit: str) -> int:
    """First / previous / next / last and a slider; returns the step to show."""
    ss = st.session_state
    playing = ss["step.playing"]
    k = max(0, min(ss["step.k"], n))
    ss["step.k"] = k
    cols = st.columns([1, 1, 1, 1, 6], vertical_alignment="bottom")
    cols[0].button("⏮ First", key="step.first", on_click=_go, kwargs={"to": 0, "n": n}, disabled=playing or k == 0, width="stretch")
    cols[1].button("◀ Prev", key="step.prev", on_click=_go, kwargs={"delta": -1, "n": n}, disabled=playing or k == 0, width="stretch")
    cols[2].button("Next ▶", key="step.next", on_click=_go, kwargs={"delta": 1, "n": n}, disabled=playing or k >= n, width="stretch")
    cols[3].button("Last ⏭", key="step.last", on_click=_go, kwargs={"to": n, "n": n}, disabled=playing or k >= n, width="stretch")
    with cols[4]:
        if n > 0:
            ss["step.slider"] = k
            st.slider(f"{unit} (0 to {n:,})", 0, n, key="step.slider", on_change=_slid, disabled=playing)
        else:
            st.caption("Nothing to step through.")
    return k


def stepper_fragment(n: int, unit: str, draw) -> None:
    """Controls and view in one fragment; with autoplay on it reruns every few tenths of a second."""
    ss = st.session_state
    every = stepper.SPEEDS[ss["step.speed"]] if ss["step.playing"] else None

    @st.fragment(run_every=every)
    def stepping() -> None:
        if ss["step.playing"]:
            if ss["step.k"] >= n:
                ss["step.playing"] = False
                st.rerun()  # a full rerun: the fragment is redefined without its timer
            ss["step.k"] = min(n, ss["step.k"] + 1)
        k = nav_controls(n, unit)
        draw(k)

    stepping()


# ----------------------------------------------------------------------------- training mode


def _train_demo() -> None:
    c = corpora.CORPORA[DEMO]
    text = corpora.text(DEMO)
    tok = train(text, c.vocab_size, pattern=c.pattern, name=f"demo · {c.title} · {c.vocab_size}")
    key = workspace.store().add(tok, corpus=text)
    st.session_state["step.training.tokenizer"] = USER + key
    st.session_state["step.k"] = 0


def training_mode() -> None:
    store = workspace.store()
    choices = {USER + e.key: f"{e.name} ({e.vocab_size:,} tokens)" for e in store.entries() if e.has_corpus}
    if not choices:
        st.info(
            "Training mode replays one of **your** tokenizers, so it needs one trained in BPE Lab "
            "(uploaded ones carry no training text). Train one on the Train page, or here in a second:",
            icon="🏋️",
        )
        st.button(f"Train a demo tokenizer ({corpora.CORPORA[DEMO].title}, {corpora.CORPORA[DEMO].vocab_size:,} tokens)",
                  key="step.demo", on_click=_train_demo, type="primary", icon="⚡")
        return
    _url_tokenizer_note(choices)
    c1, c2 = st.columns([3, 1])
    with c1:
        tok_key = tokenizers.select("Tokenizer", "step.training", choices=choices)
    with c2:
        st.selectbox("Training text shown", stepper.EXCERPT_CHOICES, key="step.excerpt", persist_state="session",
                     format_func=lambda n: f"first {n:,} characters")
    with errors.shown(stop=True):
        tok = tokenizers.get(tok_key)
        corpus_key = tok_key[len(USER):]
        trace = store.training_trace(corpus_key)
        if trace is None:
            raise ValueError("this tokenizer has no stored training text: pick another one, or train it again")
        excerpt = memo.memo(tok, "excerpt", st.session_state["step.excerpt"],
                            lambda: (store.corpus(corpus_key) or "")[: st.session_state["step.excerpt"]])
        etrace = memo.memo(tok, "excerpt_trace", excerpt, lambda: stepper.excerpt_trace(tok, excerpt), maxsize=4)
    n = tok.num_merges
    play_controls(n)

    def draw(k: int) -> None:
        sync_url("training", tok_key, k)
        _draw_training(tok, trace, etrace, excerpt, k)

    stepper_fragment(n, "Merges learned", draw)


def _draw_training(tok, trace, etrace, excerpt: str, k: int) -> None:
    view = stepper.training_view(tok, trace, etrace, k)
    total = view.tokens_before
    m = st.columns(4)
    m[0].metric("Step", f"{view.k:,} of {view.n:,}", border=True)
    m[1].metric("Vocab size", f"{256 + view.k:,}", border=True)
    m[2].metric("Training text, tokens", f"{view.tokens:,}", delta=f"{view.tokens - total:,}" if view.k else None,
                delta_color="inverse", border=True, help=f"{total:,} bytes at step 0")
    m[3].metric("Bytes per token", f"{total / view.tokens:.3f}" if view.tokens else "–", border=True)
    if view.next is not None:
        where = f"{view.next_in_excerpt:,}× in the text below" if view.next_in_excerpt else "not in the text below"
        spans.show(stepper.merge_card(tok, view.next.pair, view.next.new_id, label=f"Step {view.k + 1} merges",
                                      meta=f"count {view.next.count or 0:,} in the training text · {where}"))
    else:
        spans.show(stepper.note_card(f"Training ended here: {view.n:,} merges, a vocabulary of {256 + view.n:,} tokens."))
    if view.last is not None:
        spans.show(stepper.merge_card(tok, view.last.pair, view.last.new_id, label=f"Step {view.k} minted",
                                      meta=f"count {view.last.count or 0:,}"))
    shown = len(excerpt)
    corpus_chars = int(tok.metadata.get("corpus_chars") or shown)
    cut_note = "Dashed lines are regex chunk boundaries; merges never cross them. " if view.cuts and st.session_state["step.show_chunks"] else ""
    st.caption(
        f"The training text after {view.k:,} merges ({len(view.spans):,} tokens"
        + (f" in the first {shown:,} of {corpus_chars:,} characters" if shown < corpus_chars else "")
        + "). Outlined in orange: the pair the next step merges. " + cut_note
    )
    with st.container(height=SPANS_HEIGHT if len(view.spans) > SCROLL_AFTER else "content", border=False):
        spans.show(spans.render_spans(view.spans, show_whitespace=True, highlight=view.highlight,
                                      cuts=view.cuts if st.session_state["step.show_chunks"] else (), tooltips=False))
    left, right = st.columns(2, gap="large")
    with left:
        if view.k < view.n:
            pairs = memo.memo(tok, "top_pairs", view.k, lambda: stepper.top_pairs_frame(tok, trace, view.k), maxsize=64)
            st.vega_lite_chart(charts.top_pairs(pairs), width="stretch")
            st.dataframe(pairs.drop(columns=["next"]), hide_index=True, width="stretch",
                         column_config={"count": st.column_config.NumberColumn(format="localized")})
        else:
            st.caption("No pair is merged after the last step.")
    with right:
        frame = memo.memo(tok, "compression", 0, lambda: training.compression_frame(trace, tok.num_merges))
        length = memo.memo(tok, "length_spec", 0, lambda: charts.spec(
            charts.sequence_length(frame, title="Training text length, merge by merge")))
        ratio = memo.memo(tok, "ratio_spec", 0, lambda: charts.spec(
            charts.compression(frame, cursor=True, height=200, title="Bytes per token so far")))
        st.vega_lite_chart(charts.at_cursor(length, frame, view.k), width="stretch")
        st.vega_lite_chart(charts.at_cursor(ratio, frame, view.k), width="stretch")


# ----------------------------------------------------------------------------- encoding mode


def _use_long_text() -> None:
    state.set_text(corpora.text(DEMO)[:6000], "step")
    st.session_state["step.k"] = 0


def encoding_mode() -> None:
    choices = tokenizers.options(baselines=False)
    _url_tokenizer_note(choices)
    tok_key = tokenizers.select("Tokenizer", "step.encoding", choices=choices)
    text = state.shared_text_area("Text to encode", "step", height=140)
    c1, c2, _ = st.columns([2, 2, 3])
    c1.button("Use a 6,000-character text", key="step.long", on_click=_use_long_text, icon="📜")
    c2.toggle("Show regex chunks", key="step.show_chunks", persist_state="session")
    with errors.shown(stop=True):
        tok = tokenizers.get(tok_key)
        etrace = memo.memo(tok, "encode_trace", text, lambda: tok.encode_trace(text), maxsize=4)
    n = len(etrace.steps)
    play_controls(n)

    def draw(j: int) -> None:
        sync_url("encoding", tok_key, j, text)
        _draw_encoding(tok, etrace, j)

    stepper_fragment(n, "Encode steps", draw)
    _word_section(tok)


def _draw_encoding(tok, etrace, j: int) -> None:
    view = stepper.encoding_view(etrace, j)
    m = st.columns(4)
    m[0].metric("Step", f"{view.j:,} of {view.n:,}", border=True)
    start = len(etrace.data) - sum(length - 1 for _, length, _ in etrace.specials)
    m[1].metric("Tokens", f"{len(view.spans):,}", delta=f"{len(view.spans) - start:,}" if view.j else None, delta_color="inverse", border=True)
    m[2].metric("Merge rank", f"{view.step.rank:,}" if view.step else "–", border=True,
                help="Lower ranks were learned earlier and are applied first.")
    m[3].metric("Bytes per token", f"{len(etrace.data) / len(view.spans):.2f}" if view.spans else "–", border=True)
    if view.step is not None:
        spans.show(stepper.merge_card(tok, view.step.pair, view.step.new_id, label=f"Step {view.j} applies rank {view.step.rank:,}",
                                      meta=f"{view.step.count:,} place{'s' if view.step.count != 1 else ''} at once"))
    elif view.n:
        spans.show(stepper.note_card("Step 0: every byte is a token. Each step applies the lowest-ranked merge that still fits somewhere."))
    elif not etrace.text:
        spans.show(stepper.note_card("Type a text above, then step through its encoding."))
    else:
        spans.show(stepper.note_card("No merge applies to this text: it stays as bytes."))
    if view.upcoming is not None:
        up = view.upcoming
        st.caption(f"Next: rank {up.rank:,}, {stepper.pair_label(tok, up.pair)}, at {up.count:,} place{'s' if up.count != 1 else ''}.")
    show_chunks = st.session_state["step.show_chunks"]
    st.caption("Outlined in orange: the tokens this step created." + (" Dashed lines: regex chunk boundaries." if view.cuts and show_chunks else ""))
    with st.container(height=SPANS_HEIGHT if len(view.spans) > SCROLL_AFTER else "content", border=False):
        spans.show(spans.render_spans(view.spans, show_whitespace=True, highlight=view.highlight,
                                      cuts=view.cuts if show_chunks else (), empty="Type a text above to encode it.", tooltips=False))
    if view.n:
        left, right = st.columns([3, 2], gap="large")
        with left:
            df = memo.memo(tok, "steps_frame", etrace.text, lambda: stepper.steps_frame(tok, etrace), maxsize=4)
            st.dataframe(df, hide_index=True, height=260, width="stretch",
                         column_config={"places": st.column_config.NumberColumn(help="Occurrences merged at this step")})
        with right:
            frame = memo.memo(tok, "encode_length", etrace.text, lambda: stepper.encode_length_frame(etrace), maxsize=4)
            length = memo.memo(tok, "encode_length_spec", etrace.text, lambda: charts.spec(
                charts.sequence_length(frame, x="step", title="Tokens after each step", height=240)), maxsize=4)
            st.vega_lite_chart(charts.at_cursor(length, frame, view.j, x="step"), width="stretch")


def _word_section(tok) -> None:
    st.subheader("How one word is built")
    word = st.text_input("Word", key="step.word", persist_state="session",
                         help="A word, or a short piece of text (with its leading space, if you like: ' tokenization').")
    if not word:
        return
    if len(word) > 200:
        st.warning("Take a word or a short phrase (at most 200 characters).", icon="✂️")
        return
    with errors.shown():
        ladder = memo.memo(tok, "ladder", word, lambda: stepper.word_ladder(tok, word), maxsize=16)
        spans.show(memo.memo(tok, "ladder_html", word, lambda: stepper.ladder_html(tok, ladder), maxsize=16))
        st.caption(f"{len(ladder) - 1} merge{'s' if len(ladder) != 2 else ''} turn {len(ladder[0][1])} bytes into {len(ladder[-1][1])} "
                   f"token{'s' if len(ladder[-1][1]) != 1 else ''}, lowest rank first.")


def _url_tokenizer_note(choices: dict[str, str]) -> None:
    wanted = st.session_state.get("step.url_tokenizer")
    if wanted and wanted not in choices:
        st.warning(f"The link asks for tokenizer {wanted!r}, which is not here (tokenizers live in each workspace); showing another one.",
                   icon="🔗")
    st.session_state["step.url_tokenizer"] = None


def _mode_changed() -> None:
    st.session_state["step.k"] = 0
    st.session_state["step.playing"] = False


def page() -> None:
    mode = st.segmented_control("Mode", list(MODES), format_func=MODES.get, key="step.mode", required=True,
                                persist_state="session", help=MODE_HELP, on_change=_mode_changed)
    if mode == "training":
        training_mode()
    else:
        encoding_mode()
