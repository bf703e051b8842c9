"""The Lesson page in AppTest: every chapter with its default, the student's own text, a question answered right
and wrong (the right answer computed here from the core for this session's seed), the URL, the class call sites."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from drawn import page_html
from streamlit.testing.v1 import AppTest

from tests import step_reference as reference
from tokenizer import load_encoding, train
from ui.lesson import model, view
from ui.render import charts

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "lesson.py")
TEXT_KEY = "lesson.text.{}"


def run(**query) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception
    return at


def html(at) -> str:
    return page_html(at)


def stepper_data(at) -> dict | None:
    found = [e for e in at.get("bidi_component") if e.proto.component_name == "bpe_lab_stepper"]
    return json.loads(found[0].proto.bytes) if found else None


def env() -> model.Env:
    return model.Env(encoding=load_encoding)


def right_answer(q: model.Question) -> str:
    """The right answer for a question, computed again from the core (not read from the question)."""
    if q.kind == "numbers":
        a, b = (len(load_encoding(n).encode_ordinary(q.subject)) for n in ("r50k_base", "cl100k_base"))
        return f"{a}, {b}"
    if q.kind == "text":
        return " hello" * int(q.subject)  # " hello" is one o200k token
    if q.id == "1.bytes":
        return str(len(q.subject.encode("utf-8")))
    return str(q.expected) if not isinstance(q.expected, tuple) else str(q.expected[0])


def answer(at: AppTest, q: model.Question, value: str) -> AppTest:
    key = f"lesson.answer.{q.id}"
    if q.kind == "choice":
        at.radio(key=key).set_value(value)
    elif q.kind == "numbers":
        for i, part in enumerate(value.split(", ")):
            at.text_input(key=f"{key}.{i}").input(part)
    elif q.kind == "text":
        at.text_area(key=key).input(value)
    else:
        at.text_input(key=key).input(value)
    forms = [b for b in at.button if b.proto.is_form_submitter and b.proto.form_id == f"lesson.form.{q.id}"]
    assert forms, f"no Check button for {q.id}"
    forms[0].click().run()
    assert not at.exception
    return at


def wrong(q: model.Question, right: str) -> str:
    if q.kind == "choice":
        return next(c for c in q.choices if c != right)
    if q.kind == "numbers":
        a, b = map(int, right.split(", "))
        return f"{a + 1}, {b}"
    if q.kind == "text":
        return right + " hello"
    return str(int(right) + 1)


@pytest.mark.parametrize("n", range(1, model.N + 1))
def test_every_chapter_opens_with_the_seeds_example_and_its_figure(n):
    at = run(chapter=str(n))
    ch = model.chapter(n)
    assert at.session_state["lesson.chapter"] == n
    assert at.query_params["chapter"] == [str(n)] or at.query_params["chapter"] == str(n)
    box = at.text_area(key=TEXT_KEY.format(n)) if ch.multiline else at.text_input(key=TEXT_KEY.format(n))
    assert box.value == ch.examples[0]
    assert any(ch.notice in m.value for m in at.markdown)
    if ch.stepper:  # Step through needs the tokenizer in the workspace: one click keeps it, then links
        assert at.button(key="lesson.keep")
    else:
        assert any("🔗" in m.value for m in at.markdown)  # the full page's link
    if ch.stepper:
        data = stepper_data(at)
        assert data is not None
        replay = reference.Replay(data["trace"])
        assert replay.data == ch.examples[0].encode("utf-8")
    else:
        assert 'class="bpe-row"' in html(at)
    assert not at.error


@pytest.mark.parametrize("n", range(1, model.N + 1))
def test_every_chapters_questions_answered_wrong_then_right(n):
    at = run(chapter=str(n))
    seed = at.session_state["lesson.seed"]
    for q in model.questions(n, seed, env()):
        right = right_answer(q)
        bad = wrong(q, right)
        answer(at, q, bad)
        assert any(q.check(bad).message == e.value for e in at.error), "no feedback on a wrong answer"
        assert at.session_state["lesson.feedback"][q.id][2] is False
        answer(at, q, right)
        assert at.session_state["lesson.feedback"][q.id][2] is True, at.session_state["lesson.feedback"][q.id]
        assert any(q.check(right).message == s.value for s in at.success)


def test_a_students_own_text_changes_the_figure():
    at = run(chapter="1")
    at.text_input(key=TEXT_KEY.format(1)).input("naïve 😄").run()
    assert "11 tokens" in html(at)  # "naïve 😄": 11 UTF-8 bytes
    at = run(chapter="3")
    at.text_input(key=TEXT_KEY.format(3)).input("abababcd").run()
    data = stepper_data(at)
    assert reference.Replay(data["trace"]).data == b"abababcd"
    assert data["trace"]["n"] == model.repeated_merges("abababcd")
    at = run(chapter="7")
    at.text_area(key=TEXT_KEY.format(7)).input("x = 1").run()
    body = html(at)
    assert body.count('class="bpe-row"') == 3
    for name in view.OFFICIAL:
        assert f"{len(load_encoding(name).encode_ordinary('x = 1'))} tokens" in body


def test_an_example_is_one_click_away():
    at = run(chapter="3")
    at.get("button_group")[0].set_value(1).run()
    assert at.text_input(key=TEXT_KEY.format(3)).value == "Honolulu"
    assert reference.Replay(stepper_data(at)["trace"]).data == b"Honolulu"


def test_next_back_and_the_url():
    at = run()
    assert at.session_state["lesson.chapter"] == 1
    at.button(key="lesson.next").click().run()
    assert at.session_state["lesson.chapter"] == 2
    assert at.query_params["chapter"] in ("2", ["2"])
    at.button(key="lesson.next").click().run()
    at.button(key="lesson.back").click().run()
    assert at.session_state["lesson.chapter"] == 2
    at.selectbox(key="lesson.pick").set_value(6).run()
    assert at.session_state["lesson.chapter"] == 6


def test_a_link_to_chapter_3_step_2_opens_the_stepper_there():
    at = run(chapter="3", step="2")
    assert stepper_data(at)["goto"][1] == 2
    assert at.query_params["step"] in ("2", ["2"])


def test_a_bad_link_lands_on_a_chapter():
    at = run(chapter="99", step="x")
    assert at.session_state["lesson.chapter"] == 9
    assert not at.error


def test_the_class_call_sites(monkeypatch):
    """The view asks the class where the teacher is once per run and moves there; it records answers."""
    from ui.lesson import follow

    calls = []
    monkeypatch.setattr(follow, "class_panel", lambda c, s: calls.append((c, s)) or (4, 0))
    monkeypatch.setattr(follow, "record_answer", lambda qid, a, ok: calls.append((qid, a, ok)))
    at = run(chapter="1")
    assert at.session_state["lesson.chapter"] == 4
    assert at.query_params["chapter"] in ("4", ["4"])  # the address bar follows the teacher
    assert calls == [(1, 0)]  # once per run
    assert at.button(key="lesson.next").disabled and at.button(key="lesson.back").disabled  # the teacher moves them
    assert at.selectbox(key="lesson.pick").disabled
    q = model.questions(4, at.session_state["lesson.seed"], env())[0]
    answer(at, q, q.choices[0])
    assert (q.id, q.choices[0], q.check(q.choices[0]).correct) in calls
    monkeypatch.setattr(follow, "class_panel", lambda c, s: None)  # not following: the student moves on their own
    at.run()
    assert not at.button(key="lesson.next").disabled


OWN = {
    1: "Grüße 👋",
    2: "xyxyz",
    3: "banana bandana",
    4: "low lower lowest " * 3,
    5: "Hi you there",
    6: "YOU'LL see",
    7: "x  =  42",
    8: "a<|endoftext|>b",
    9: "99999 + 1",
}


@pytest.mark.parametrize("n", range(1, model.N + 1))
def test_every_chapter_takes_the_students_own_text(n):
    at = run(chapter=str(n))
    ch = model.chapter(n)
    key = TEXT_KEY.format(n)
    (at.text_area(key=key) if ch.multiline else at.text_input(key=key)).input(OWN[n]).run()
    assert not at.exception and not at.error
    if ch.stepper:
        assert reference.Replay(stepper_data(at)["trace"]).data == OWN[n].encode("utf-8")
    else:
        body = html(at)
        shown = {1: "chars", 4: None, 6: None, 7: "r50k_base", 8: None, 9: "r50k_base"}[n]
        if shown in ("chars", "r50k_base"):
            tok = load_encoding(shown) if shown != "chars" else None
            count = len(OWN[n]) if tok is None else len(tok.encode_ordinary(OWN[n]))
            assert f"{count:,} tokens" in body
        elif n == 6:
            assert f"{len(load_encoding('r50k_base').split(OWN[n]))} chunks" in body
        elif n == 8:
            assert "1 tokens" not in body and 'class="t sp"' in body  # the special token, one span of its own
        else:  # chapter 4: the student's paragraph trained to the slider's vocabulary size
            vocab = at.slider(key="lesson.vocab").value
            count = len(train(OWN[n], vocab, pattern=None).encode(OWN[n]))
            assert f'After {vocab - 256} merges</b><span class="n">{count} tokens' in body
    if not ch.stepper:
        assert any("text=" in m.value or "/train" in m.value for m in at.markdown if "🔗" in m.value)


def test_the_students_text_waits_in_its_chapter():
    at = run(chapter="1")
    at.text_input(key=TEXT_KEY.format(1)).input("mine").run()
    at.button(key="lesson.next").click().run()
    at.button(key="lesson.next").click().run()
    at.button(key="lesson.back").click().run()
    at.button(key="lesson.back").click().run()
    assert at.session_state["lesson.chapter"] == 1
    assert at.text_input(key=TEXT_KEY.format(1)).value == "mine"
    assert "4 tokens" in html(at)


@pytest.mark.parametrize("n, mode", [(2, "training"), (3, "training"), (5, "encoding")])
def test_a_stepping_chapter_opens_the_same_steps_on_step_through(workspace, n, mode):
    """The kept tokenizer, opened on Step through by the link's parameters, replays the same steps on the same text."""
    from urllib.parse import parse_qsl, urlsplit

    from classroom.stores import FolderStore

    at = run(chapter=str(n), step="1")
    lesson = reference.Replay(stepper_data(at)["trace"])
    at.button(key="lesson.keep").click().run()
    assert not at.exception
    [entry] = FolderStore(workspace).entries()
    [link] = [m.value for m in at.markdown if "Open these steps on Step through" in m.value]
    params = dict(parse_qsl(urlsplit(link.split("](", 1)[1].rstrip(")")).query))
    assert params["mode"] == mode and params["tokenizer"] == f"user:{entry.key}" and params["step"] == "1"
    step = AppTest.from_file(str(ROOT / "pages" / "step.py"), default_timeout=120)
    for k, v in params.items():
        step.query_params[k] = v
    step.run()
    assert not step.exception
    [el] = [e for e in step.get("bidi_component") if e.proto.component_name == "bpe_lab_stepper"]
    sent = json.loads(el.proto.bytes)
    there = reference.Replay(sent["trace"])
    assert sent["goto"][1] == 1
    assert there.n == lesson.n
    assert [s.id for s in there.spans(1)] == [s.id for s in lesson.spans(1)]
    if mode == "encoding":
        assert there.data == lesson.data


def _font_sizes(node) -> list[float]:
    if isinstance(node, dict):
        own = [v for k, v in node.items() if k in ("labelFontSize", "titleFontSize") and isinstance(v, (int, float))]
        return own + [x for v in node.values() for x in _font_sizes(v)]
    if isinstance(node, list):
        return [x for v in node for x in _font_sizes(v)]
    return []


@pytest.mark.parametrize("present", ["0", "1"])
def test_in_presenter_mode_the_charts_text_is_as_large_as_the_body_text(present):
    at = run(chapter="4", present=present)
    [chart] = at.get("vega_lite_chart")
    spec = json.loads(chart.proto.spec)
    sizes = _font_sizes(spec)
    if present == "1":
        assert sizes and min(sizes) >= charts.PRESENT_FONT
        assert spec["config"]["title"]["fontSize"] >= charts.PRESENT_FONT
    else:
        assert "title" not in spec.get("config", {})  # the chart as every other page draws it


def test_a_class_process_computes_chapter_9s_shared_results_ahead_once(monkeypatch):
    """warm_up (the first Lesson run of a process in a class) fills the process-wide results chapter 9 reads, in a
    thread of its own, once; what it keeps is what the core computes."""
    from ui.common import tokenizers
    from ui.vocabulary import unreachable

    monkeypatch.setattr(view, "_warmed", [])
    view.warm_up()
    view.warm_up()
    [thread] = view._warmed  # one thread however many runs ask
    thread.join(timeout=300)
    assert not thread.is_alive()
    o200k = tokenizers.get("o200k_base")
    expected = tuple(int(i) for i in unreachable.find_odd_tokens(load_encoding("o200k_base")).unreachable["id"])

    def not_again(*args, **kwargs):
        raise AssertionError("computed again: the warm-up kept nothing")

    monkeypatch.setattr(unreachable, "find_odd_tokens", not_again)
    assert view._unreachable_of(o200k) == expected and expected
    assert view._tax_of({n: tokenizers.get(n) for n in view.OFFICIAL}) is view._tax(tuple(view.OFFICIAL))
