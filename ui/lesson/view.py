"""The Lesson page: one chapter at a time, its live figure, what to notice, and questions the app checks.

Every figure is drawn by the components the other pages use (``ui.common.draw``'s rows and chunks,
``ui.render.charts``, Step through's stepper), from the ``tokenizer`` core; ``model`` holds the chapters'
texts and the questions. The chapter and the step live in the address bar (``/lesson?chapter=3&step=5``):
a teacher can link to a step. Back / Next, PageUp / PageDown (and ← → where no stepper takes them) move
between chapters. ``follow`` is where a class joins in (the teacher's position, the answers).
"""

from __future__ import annotations

import functools
import secrets
import threading
from pathlib import Path
from urllib.parse import urlencode

import streamlit as st

from tokenizer import Tokenizer
from tokenizer.trace import make_spans
from ui.common import cache, draw, errors, presenter, state, tokenizers, urlstate, workspace
from ui.common.tokenizers import USER
from ui.compare import languages
from ui.compare import token_tax as tax
from ui.pretokenize import model as pretok
from ui.render import charts
from ui.render.markdown import md
from ui.render.records import Row
from ui.step import model as step_model
from ui.step import payload, stepper
from ui.web import model as web_model

from . import follow, model

HERE = Path(__file__).parent
URL = ("chapter", "step")
UNREACHABLE_VOCAB = "o200k_base"  # chapter 9's question of unreachable tokens
OFFICIAL = {"r50k_base": "GPT-2 (r50k_base)", "cl100k_base": "GPT-4 (cl100k_base)", "o200k_base": "GPT-4o (o200k_base)"}

KEYS_HELP = "Keys: → or PageDown next chapter · ← or PageUp previous (when the cursor is not in a text box)."
KEYS_HELP_STEPPING = "Keys: PageDown next chapter · PageUp previous · → ← step (when the cursor is not in a text box)."

STATE = state.PageState(
    "lesson",
    {
        "chapter": 1,
        "step": 0,  # the stepper's step in a stepping chapter (the page last reported, or a link set)
        "goto": (0, 0),  # (epoch, step): a new epoch makes the stepper open at that step
        "trace_id": None,
        "pairs_from": 0,
        "seed": lambda: secrets.randbelow(2**31),  # this student's questions; shown nowhere
        "feedback": {},  # question id -> (answer, correct, message)
        "vocab": 262,  # chapter 4's vocabulary size
        "merges": 3,  # chapter 5's merges (the seed trains to 258: three merges)
        "special_tok": "r50k_base",
        "kept": {},  # (chapter, text, merges) -> the workspace key of a stepping tokenizer the student kept
    },
    widgets=("text", "example", "back", "next", "pick", "keys", "stepper", "pairs", "answer", "form", "check", "keep"),
)


# ----------------------------------------------------------------------------- moving


def _goto(k: int) -> None:
    epoch, _ = STATE["goto"]
    STATE["step"] = k
    STATE["goto"] = (epoch + 1, k)
    STATE["pairs_from"] = k


def move(n: int, step: int = 0) -> None:
    """Open chapter ``n`` at ``step``."""
    STATE["chapter"] = max(1, min(model.N, n))
    STATE["trace_id"] = None
    _goto(step)


def _back() -> None:
    move(STATE["chapter"] - 1)


def _next() -> None:
    move(STATE["chapter"] + 1)


def _picked() -> None:
    move(int(st.session_state[STATE.key("pick")]))


def _on_key() -> None:
    go = (st.session_state.get(STATE.key("keys")) or {}).get("go")
    if go == "next":
        _next()
    elif go == "prev":
        _back()


def restore_link() -> None:
    """Apply the URL's chapter and step when they are new to this page."""
    asked = urlstate.incoming(STATE.page, URL)
    if not asked:
        return
    step = asked.get("step", "")
    move(model.clamp(asked.get("chapter", STATE["chapter"]), STATE["chapter"]), int(step) if step.isdigit() else 0)


def _publish() -> None:
    ch = model.chapter(STATE["chapter"])
    wanted = {"chapter": str(ch.n)}
    if ch.stepper:
        wanted["step"] = str(STATE["step"])
    urlstate.publish(STATE.page, URL, wanted)


@functools.cache
def _keys():
    return st.components.v2.component(
        "bpe_lab_lesson_keys", js=web_model.component_script(HERE / "keys.js"), isolate_styles=False
    )


FOLLOWING_HELP = "You follow the teacher: turn following off to move on your own."


def nav(following: bool = False) -> None:
    """Back, the chapter menu, Next; the keys. A student who follows the teacher moves with the teacher only."""
    n = STATE["chapter"]
    st.session_state[STATE.key("pick")] = n
    back, pick, nxt = st.columns([2, 7, 2], vertical_alignment="bottom")  # room for "Next chapter ▶" at 1280 px
    back.button(
        "◀ Back",
        key=STATE.key("back"),
        on_click=_back,
        disabled=n == 1 or following,
        width="stretch",
        help=FOLLOWING_HELP if following else "Previous chapter (PageUp)",
    )
    pick.selectbox(
        "Chapter",
        [c.n for c in model.CHAPTERS],
        key=STATE.key("pick"),
        format_func=lambda i: f"Chapter {i} of {model.N} · {model.chapter(i).title}",
        on_change=_picked,
        disabled=following,
        label_visibility="collapsed",
    )
    nxt.button(
        "Next chapter ▶",
        key=STATE.key("next"),
        on_click=_next,
        disabled=n == model.N or following,
        width="stretch",
        help=FOLLOWING_HELP if following else "Next chapter (PageDown)",
    )
    if not following:  # a follower's keys would move them away from the teacher until the next run brings them back
        _keys()(key=STATE.key("keys"), data={"arrows": model.chapter(n).stepper is None}, on_go_change=_on_key, height=0)


# ----------------------------------------------------------------------------- the page


def page() -> None:
    """The whole page: the class, the chapter's navigation, its text, its figure, its questions."""
    here = (STATE["chapter"], STATE["step"])
    if follow.classroom() is not None:
        warm_up()
    led = follow.class_panel(*here)  # first: on the first screen, and it may move a following student
    if led is not None and tuple(led) != here:
        move(model.clamp(led[0]), max(0, int(led[1])))
    ch = model.chapter(STATE["chapter"])
    nav(following=led is not None)
    with st.expander(f"**{ch.n}. {ch.title}**: what this chapter is about", expanded=not presenter.on()):
        st.markdown(ch.text)
    with errors.shown():
        FIGURES[ch.n](ch)
    st.markdown(f"👀 **What to notice:** {ch.notice}")
    st.caption(KEYS_HELP if ch.stepper is None else KEYS_HELP_STEPPING)
    _publish()
    ask(ch)


def _text(ch: model.Chapter, *, limit: int | None = None, height: int = 100) -> str:
    """The chapter's text box, prefilled with the seed's example; the examples one click away."""
    key = STATE.key("text", ch.n)
    if key not in st.session_state:
        st.session_state[key] = ch.examples[0]
    pick_key = STATE.key("example", ch.n)

    def use() -> None:
        chosen = st.session_state.get(pick_key)
        if chosen is not None:
            st.session_state[key] = ch.examples[chosen]
            STATE["trace_id"] = None
            _goto(0)

    # the examples beside the box, on one row: the figure starts higher, on a projector's first screen
    examples, box = st.columns([2, 3], vertical_alignment="bottom") if len(ch.examples) > 1 else (None, st.container())
    if examples is not None:
        examples.segmented_control(
            "The seeds' examples",
            list(range(len(ch.examples))),
            format_func=lambda i: _short(ch.examples[i], 22 if len(ch.examples) > 2 else 28),
            key=pick_key,
            on_change=use,
        )
    label = "Your text (edit it, or pick an example)"
    if ch.multiline:
        return box.text_area(label, key=key, height=height, max_chars=limit, persist_state="session")
    return box.text_input(label, key=key, max_chars=limit, persist_state="session")  # kept from chapter to chapter


def _short(text: str, width: int = 28) -> str:
    """An example as its button says it: newlines and a trailing space made visible.

    >>> _short("Hello world "), _short("a\\nb")
    ('Hello world·', 'a↵ b')
    """
    flat = text.replace("\n", "↵ ")
    flat = flat.rstrip(" ") + "·" * (len(flat) - len(flat.rstrip(" ")))
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _link(path: str, label: str, params: dict[str, str], text: str | None = None) -> None:
    """A link that opens the same state on the full page (the text only when it fits in a link)."""
    query = urlstate.params(text, **params)
    st.markdown(f"🔗 [{label}]({path}{'?' + urlencode(query) if query else ''})")


def _spans(tok, text: str, **special) -> list:
    if "allowed_special" not in special:
        special["disallowed_special"] = ()  # a special token's text typed into an example is text, not an error
    return cache.for_session(
        "lesson.spans", (text, tuple(sorted(special.items()))), lambda: tok.encode_spans(text, **special), owner=tok, maxsize=16
    )


def _open_on_step(n: int, tok: Tokenizer, corpus: str, mode: str, text: str | None = None) -> None:
    """Step through shows the same steps: the tokenizer is kept in the workspace first (one click), then linked."""
    which = (n, text or corpus, tok.num_merges)
    kept = STATE["kept"].get(which)
    if kept is None:

        def keep() -> None:
            store = workspace.store()
            try:
                store.check_room(len(corpus.encode("utf-8")))
                STATE["kept"] = {**STATE["kept"], which: store.add(tok, corpus=corpus)}
            except ValueError as e:  # a full workspace, or the database not answering
                STATE["kept"] = {**STATE["kept"], which: ValueError(str(e))}

        label = "Open these steps on Step through (keeps this tokenizer in your workspace)"
        st.button(label, key=STATE.key("keep"), on_click=keep, icon="👣")
        return
    if isinstance(kept, ValueError):
        st.error(md(str(kept)), icon="⚠️")
        return
    params = {"mode": mode, "tokenizer": USER + kept, "step": str(STATE["step"])}
    if text is not None and urlstate.fits(text):
        params["text"] = text
    try:
        st.page_link("pages/step.py", label="Open these steps on Step through", icon="👣", query_params=params)
    except Exception:  # the page runs on its own (AppTest.from_file): there is no navigation to link into
        st.markdown(f"🔗 [Open these steps on Step through](/step?{urlencode(params)})")


# ----------------------------------------------------------------------------- the chapters' figures


def bytes_figure(ch: model.Chapter) -> None:
    text = _text(ch)
    chars = _spans(tokenizers.get("chars"), text)
    data = _spans(tokenizers.get("bytes"), text)
    draw.rows([Row("Characters", chars), Row("UTF-8 bytes", data)])
    with presenter.fold("Each character's code point and bytes"):
        st.dataframe(model.bytes_table(text), hide_index=True, height=min(300, 38 + 35 * len(text)), width="stretch")
    _link("/compare", "Open on Compare (characters against bytes)", {"tokenizers": "chars,bytes"}, text)


def _stepping(trace_id: str, body: bytes, n: int, pairs=None) -> None:
    """Step through's stepper (and its top pairs), in a fragment: a report reruns only this."""
    if STATE["trace_id"] != trace_id:
        STATE["trace_id"] = trace_id
        _goto(min(STATE["step"], n))

    def reported() -> None:
        r = stepper.reported(STATE.key("stepper"))
        if r is None or r.get("id") != STATE["trace_id"] or r.get("epoch") != STATE["goto"][0]:
            return
        STATE["step"] = max(0, min(r["k"], n))  # a report is the browser's word: a step of this trace
        follow.moved(STATE["chapter"], STATE["step"])  # the teacher's step reaches the class without a run of the page
        want = r.get("want")
        if isinstance(want, int):
            STATE["pairs_from"] = want
        elif not STATE["pairs_from"] <= STATE["step"] < STATE["pairs_from"] + payload.WINDOW:
            STATE["pairs_from"] = STATE["step"]

    @st.fragment
    def stepping() -> None:
        STATE["step"] = max(0, min(STATE["step"], n))
        _publish()
        stepper.show(body, key=STATE.key("stepper"), goto=STATE["goto"], chunks=False, on_report=reported)
        if pairs is not None:
            stepper.show_pairs(trace_id, pairs(STATE["pairs_from"]), key=STATE.key("pairs"))

    stepping()


def training_figure(ch: model.Chapter) -> None:
    text = _text(ch, limit=model.MAX_STEP_TEXT)
    if len(text.encode("utf-8")) < 2:
        st.info("Type at least two characters: a pair needs two tokens.", icon="✏️")
        return
    merges = 1 if ch.n == 2 else None
    tok = cache.for_session("lesson.steptok", (text, merges), lambda: model.stepping_tokenizer(text, merges), maxsize=4)
    trace = tok.training
    etrace = cache.for_session("lesson.etrace", text, lambda: step_model.excerpt_trace(tok, text), owner=tok, maxsize=4)
    trace_id, body = cache.for_session(
        "lesson.payload",
        text,
        lambda: payload.dumps(payload.training_payload(tok, trace, etrace, corpus_chars=len(text))),
        owner=tok,
        maxsize=4,
    )
    _stepping(trace_id, body, tok.num_merges, lambda start: payload.top_pairs_window(tok, trace, start))
    if ch.n == 3:
        told = model.ties(text, tok.num_merges) if len(text) <= 80 else []
        if told:
            with presenter.fold("The tie-breaks, in words"):
                for line in told:
                    st.markdown(f"- {md(line)}")
    _open_on_step(ch.n, tok, text, "training")


def paragraph_figure(ch: model.Chapter) -> None:
    box, side = st.columns([3, 2], vertical_alignment="bottom")  # the slider beside the text: the figure starts higher
    with box:
        text = _text(ch, height=90)
    data = text.encode("utf-8")
    if len(data) < 2:
        st.info("Type a paragraph to train on.", icon="✏️")
        return
    repeated = cache.for_session("lesson.repeated", text, lambda: model.repeated_merges(text), maxsize=2)
    top = 256 + max(2, min(len(data) - 1, max(20, 2 * repeated)))
    tok = cache.for_session("lesson.paragraph", text, lambda: model.stepping_tokenizer(text, top - 256), maxsize=2)
    STATE["vocab"] = max(257, min(STATE["vocab"], 256 + tok.num_merges))
    vocab = side.slider(
        "Vocabulary size (256 + merges)", 257, 256 + tok.num_merges, key=STATE.key("vocab"), persist_state="session"
    )
    small = tok.truncated(vocab - 256)
    frame = cache.for_session("lesson.curve", text, lambda: model.compression_frame(tok, text), owner=tok, maxsize=2)
    left, right = st.columns([3, 2])
    with left:
        draw.rows([Row(f"After {vocab - 256} merges", _spans(small, text))])
        st.dataframe(model.merges_frame(small), hide_index=True, height=210, width="stretch")
    with right:
        presenter.chart(
            charts.compression(frame, vocab_size=vocab, height=240, title="Bytes per token against merges"), width="stretch"
        )
    _link("/train", "Train your own tokenizer on the Train page", {})


def encode_figure(ch: model.Chapter) -> None:
    box, side = st.columns([3, 2], vertical_alignment="bottom")
    with box:
        text = _text(ch, limit=model.MAX_STEP_TEXT)
    most = model.paragraph_merges()
    STATE["merges"] = max(1, min(STATE["merges"], most))
    merges = side.slider(
        "Merges learned on the paragraph of chapter 4", 1, most, key=STATE.key("merges"), persist_state="session"
    )
    tok = model.paragraph_tokenizer(256 + merges)
    etrace = cache.for_session("lesson.encode", (merges, text), lambda: tok.encode_trace(text), owner=tok, maxsize=4)
    trace_id, body = cache.for_session(
        "lesson.encpayload", (merges, text), lambda: payload.dumps(payload.encoding_payload(tok, etrace)), owner=tok, maxsize=4
    )
    _stepping(trace_id, body, len(etrace.steps))
    ids = tok.encode(text)
    back = tok.decode(ids)
    c1, c2 = st.columns(2)
    c1.markdown(f"**Encoded:** `{ids}`" if len(ids) <= 60 else f"**Encoded:** {len(ids)} ids")
    c1.markdown(f"**Decoded back:** {'the same text ✓' if back == text else 'a different text ✗'}")
    with c2:
        st.markdown('**`decode([128])`**: byte 0x80 alone is no UTF-8 character, so `errors="replace"` gives `�`:')
        draw.spans(make_spans([(128, bytes([128]))]), caption="Token 128")
        st.code(f"decode([128]) == {Tokenizer().decode([128])!r}", language="python")
    _open_on_step(ch.n, tok, model.PARAGRAPH, "encoding", text)


def split_figure(ch: model.Chapter) -> None:
    text = _text(ch)
    choices = pretok.builtin_choices()
    rows = [Row(f"{choices[k].label} pattern", pretok.chunk_spans(pretok.split(choices[k], text))) for k in ("gpt2", "gpt4")]
    draw.rows(rows, kind="chunks", show_whitespace=True)
    gpt2 = tokenizers.get("r50k_base")
    etrace = cache.for_session("lesson.split", text, lambda: gpt2.encode_trace(text), owner=gpt2, maxsize=4)
    spans = etrace.spans_at(len(etrace.steps))
    draw.rows([Row("GPT-2's tokens, chunk boundaries dashed", spans, cuts=step_model.chunk_cuts(spans, etrace))])
    _link("/", "Open on Tokenize (GPT-2)", {"tokenizer": "r50k_base"}, text)


def models_figure(ch: model.Chapter) -> None:
    text = _text(ch, height=130)
    rows = [Row(label, _spans(tokenizers.get(name), text)) for name, label in OFFICIAL.items()]
    draw.rows(rows, show_whitespace=True)
    with presenter.fold("GPT-2's ids 240-270: the last bytes, the first merges"):
        st.dataframe(model.gpt2_ids(tokenizers.get("r50k_base")), hide_index=True, height=240, width="stretch")
    _link("/compare", "Open on Compare (GPT-2, GPT-4, GPT-4o)", {"tokenizers": ",".join(OFFICIAL)}, text)


def special_figure(ch: model.Chapter) -> None:
    box, side = st.columns([3, 2], vertical_alignment="bottom")
    name = side.segmented_control(
        "Tokenizer",
        list(OFFICIAL),
        format_func=lambda k: OFFICIAL[k].split(" (")[0],
        key=STATE.key("special_tok"),
        required=True,
        persist_state="session",
    )
    with box:
        text = _text(ch)
    tok = tokenizers.get(name)
    rows = [
        Row("Read as text", _spans(tok, text, disallowed_special=())),
        Row("Allowed as a special token", _spans(tok, text, allowed_special="all")),
    ]
    draw.rows(rows)
    _link("/", "Open on Tokenize", {"tokenizer": name}, text)


def _tax_of(toks: dict[str, Tokenizer]):
    """The token tax of the built-in passages under official encodings: the same for everyone, kept for the process."""

    def compute():
        passages = languages.texts()
        names = list(toks)
        frame = tax.tax_frame(
            passages,
            [OFFICIAL[n] for n in names],
            lambda i, lang: len(toks[names[i]].encode_ordinary(passages[lang])),
            reference=languages.REFERENCE,
            scripts=languages.scripts(),
        )
        order = tax.language_order(frame, languages.REFERENCE)
        return charts.token_tax(frame, order, languages.REFERENCE)

    first = next(iter(toks.values()))
    return cache.for_tokenizer(first, "lesson.tax", tuple(toks), compute, maxsize=1)


def _tax(names: tuple[str, ...]):
    return _tax_of({n: tokenizers.get(n) for n in names})


def cost_figure(ch: model.Chapter) -> None:
    text = _text(ch)
    left, right = st.columns([3, 2])
    with left:
        draw.rows([Row(label, _spans(tokenizers.get(name), text)) for name, label in OFFICIAL.items()], show_whitespace=True)
    with right, presenter.fold("The token tax of 22 languages"):
        presenter.chart(_tax(tuple(OFFICIAL)), width="stretch")
    _link("/compare", "Open on Compare (the token tax is there too)", {"tokenizers": ",".join(OFFICIAL)}, text)


FIGURES = {
    1: bytes_figure,
    2: training_figure,
    3: training_figure,
    4: paragraph_figure,
    5: encode_figure,
    6: split_figure,
    7: models_figure,
    8: special_figure,
    9: cost_figure,
}


# ----------------------------------------------------------------------------- the questions


def _unreachable_of(tok: Tokenizer) -> tuple[int, ...]:
    """An official encoding's unreachable tokens (chapter 9's question): the same for everyone, kept for the process."""
    from ui.vocabulary.unreachable import find_odd_tokens

    def compute() -> tuple[int, ...]:
        return tuple(int(i) for i in find_odd_tokens(tok).unreachable["id"])

    return cache.for_tokenizer(tok, "lesson.unreachable", (), compute, maxsize=1)


def _unreachable(name: str) -> tuple[int, ...]:
    tok = tokenizers.get(name)
    with st.spinner("Finding the tokens no text produces (once per server)…"):
        return _unreachable_of(tok)


#: Whether this process started computing the lesson's shared results (``warm_up``); set once, under the lock.
_warming = threading.Lock()
_warmed: list[threading.Thread | None] = []


def warm_up() -> None:
    """In a class, the first run of the Lesson page in a process computes chapter 9's shared results (seconds of CPU)
    in a background thread, so that the teacher's Next into that chapter does not make the whole class wait for them.
    Plain Python on objects this run hands over: the thread calls no Streamlit API."""
    with _warming:
        if _warmed:
            return
        try:
            toks = {n: tokenizers.get(n) for n in OFFICIAL}
        except Exception:  # an encoding that cannot load: chapter 9 says so when it is opened
            _warmed.append(None)
            return

        def work() -> None:
            try:
                _tax_of(toks)
                _unreachable_of(toks[UNREACHABLE_VOCAB])
            except Exception:  # the page computes it again when asked, and says what went wrong
                pass

        thread = threading.Thread(target=work, name="lesson-warm-up", daemon=True)
        _warmed.append(thread)
        thread.start()


ENV = model.Env(encoding=tokenizers.get, unreachable=_unreachable)


def ask(ch: model.Chapter) -> None:
    """The chapter's questions, each checked at once against what the core computes."""
    st.subheader("Check yourself")
    with errors.shown():
        # a pure function of the chapter and the seed, drawn once per session: a follower's page runs again at every move
        qs = cache.for_session("lesson.questions", (ch.n, STATE["seed"]), lambda: model.questions(ch.n, STATE["seed"], ENV))
        for q in qs:
            _question(q)


def _answer_widget(q: model.Question) -> str:
    key = STATE.key("answer", q.id)
    if q.kind == "choice":
        return st.radio("Your answer", list(q.choices), key=key, index=None, horizontal=True) or ""
    if q.kind == "numbers":
        cols = st.columns(len(q.choices))
        return ", ".join(c.text_input(label, key=f"{key}.{i}") for i, (c, label) in enumerate(zip(cols, q.choices)))
    if q.kind == "text":
        return st.text_area("Your text", key=key, height=80)
    return st.text_input("Your answer (a number)", key=key)


def _question(q: model.Question) -> None:
    with st.form(STATE.key("form", q.id), border=False):
        st.markdown(q.prompt)
        if "\n" in q.subject:
            st.code(q.subject, language="python")
        answer = _answer_widget(q)
        sent = st.form_submit_button("Check", type="primary", key=STATE.key("check", q.id))
    if sent:
        fb = q.check(answer)
        follow.record_answer(q.id, answer, fb.correct)
        STATE["feedback"] = {**STATE["feedback"], q.id: (q.subject, answer, fb.correct, fb.message)}
    got = STATE["feedback"].get(q.id)
    if got is not None and got[0] == q.subject:
        _, answer, correct, message = got
        (st.success if correct else st.error)(message, icon="✅" if correct else "❌")
        why_figure(q, answer)
    follow.answers_panel(q.id)


def why_figure(q: model.Question, answer: str) -> None:
    """The figure that shows why: the question's own example, drawn as the chapter draws it."""
    n = int(q.id.split(".")[0])
    s = q.subject
    if n == 1:
        draw.rows([Row("Characters", _spans(tokenizers.get("chars"), s)), Row("UTF-8 bytes", _spans(tokenizers.get("bytes"), s))])
    elif n in (2, 3):
        presenter.chart(charts.top_pairs(model.pair_frame(s, top=6)), width="stretch")
    elif n == 5:
        tok = model.paragraph_tokenizer(256 + dict(q.detail)["merges"])
        draw.rows([Row(f"{len(tok.encode(s))} tokens", _spans(tok, s))])
    elif n == 6:
        choice = pretok.builtin_choices()["gpt2"]
        draw.rows([Row("GPT-2 pattern", pretok.chunk_spans(pretok.split(choice, s)))], kind="chunks", show_whitespace=True)
    elif n == 7:
        draw.rows([Row(OFFICIAL[k], _spans(tokenizers.get(k), s)) for k in ("r50k_base", "cl100k_base")], show_whitespace=True)
    elif n == 8:
        tok = tokenizers.get(dict(q.detail)["encoding"])
        draw.rows(
            [
                Row("Read as text", _spans(tok, s, disallowed_special=())),
                Row("Allowed as a special token", _spans(tok, s, allowed_special="all")),
            ]
        )
    elif n == 4:
        tok = model.paragraph_tokenizer()
        frame = model.merges_frame(tok)
        st.dataframe(frame[frame["token"].isin(q.choices)], hide_index=True, width="stretch")
    elif q.id == "9.unreachable" and answer in q.choices:
        tok = tokenizers.get("o200k_base")
        tid = int(answer.split(":")[0])
        text = tok.vocab[tid].decode("utf-8", "replace")
        rows = [Row(f"Token {tid} itself", make_spans([(tid, tok.vocab[tid])])), Row("Its text, encoded", _spans(tok, text))]
        draw.rows(rows, show_whitespace=True)
    elif q.id == "9.exact" and answer:
        draw.rows([Row("GPT-4o (o200k_base)", _spans(tokenizers.get("o200k_base"), answer))], show_whitespace=True)
