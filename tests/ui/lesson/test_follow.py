"""ui/lesson/seat.py and ui/lesson/follow.py without a Streamlit session: the teacher link taken out of the address, a
move told to the class once, when a follower reruns, the answers' chart, local mode, and the hook the server installs."""

from __future__ import annotations

import itertools

import pytest

from classroom import workspaces
from classroom.database import Database, owner_of
from classroom.lesson import Lessons, Seat
from ui.lesson import follow, seat
from ui.lesson.seat import TEACHER_PARAM, Position, Spread

SECRET = "a-secret-for-these-tests-0123"


class Recorder:
    """A seat that writes down what the page asked of it."""

    def __init__(self, leads: bool = False):
        self.calls: list[tuple] = []
        self._leads = leads

    def claim_lead(self, secret):
        self.calls.append(("claim", secret))
        return secret == SECRET

    def leads(self):
        return self._leads

    def lead(self, chapter, step):
        self.calls.append(("lead", chapter, step))

    def position(self):
        return None

    def answer(self, question_id, answer, correct):
        self.calls.append(("answer", question_id, answer, correct))
        return True

    def answers(self, question_id):
        return []

    def clear(self, question_id):
        return 0


@pytest.mark.parametrize("offered", [SECRET, "wrong", "", SECRET + "x"])
def test_the_teacher_link_is_offered_once_and_leaves_the_address(offered):
    room = Recorder()
    params = {TEACHER_PARAM: offered, "chapter": "3", "step": "5", "present": "1"}
    assert seat.claim(room, params) is (offered == SECRET)
    assert params == {"chapter": "3", "step": "5", "present": "1"}  # the secret is gone, the rest stays
    assert room.calls == [("claim", offered)]
    assert seat.claim(room, params) is None and room.calls == [("claim", offered)]  # nothing to offer any more


def test_a_parameter_that_is_not_text_is_offered_as_nothing():
    room = Recorder()
    assert seat.claim(room, {TEACHER_PARAM: ["a", "b"]}) is False and room.calls == [("claim", "")]


def test_the_teacher_tells_the_class_each_move_once():
    room, session = Recorder(leads=True), {}
    path = [(1, 0), (1, 0), (1, 1), (1, 1), (1, 1), (2, 0), (1, 1), (1, 1)]
    told = [seat.lead(room, c, s, session) for c, s in path]
    assert told == [True, False, True, False, False, True, True, False]
    assert room.calls == [("lead", 1, 0), ("lead", 1, 1), ("lead", 2, 0), ("lead", 1, 1)]


def test_a_follower_reruns_exactly_when_the_teacher_is_elsewhere():
    places = [None, *itertools.product(range(3), range(3))]
    for shown, now in itertools.product(places, places):
        position = None if now is None else Position(*now, 1.0)
        assert seat.needs_rerun(shown, position) is (shown != now), (shown, now)


def test_the_answers_chart_is_valid_vega_lite_and_shows_every_answer():
    import jsonschema
    from altair.vegalite.v6.schema import load_schema

    spread = [Spread("256", True, 12), Spread("257", False, 3), Spread("<script>alert(1)</script>", False, 1)]
    spec = seat.answers_chart(spread)
    jsonschema.Draft7Validator(load_schema()).validate(spec)
    assert [(v["answer"], v["students"], v["result"]) for v in spec["data"]["values"]] == [
        ("256", 12, "right"),
        ("257", 3, "wrong"),
        ("<script>alert(1)</script>", 1, "wrong"),
    ]
    assert all(set(v) == {"answer", "students", "result"} for v in spec["data"]["values"])  # nobody's name or key
    assert seat.answers_summary(spread) == "16 answered: 12 right, 4 wrong."


def test_local_mode_has_no_class_and_the_page_calls_cost_nothing():
    seat.use(None)
    assert follow.classroom() is None
    assert follow.class_panel(3, 5) is None
    assert follow.record_answer("q", "1", True) is None
    assert follow.answers_panel("q") is None
    assert follow.moved(3, 5) is None


def test_a_student_never_reaches_the_teachers_answers_through_the_panel(monkeypatch):
    room = Recorder(leads=False)
    room.answers = lambda q: pytest.fail("a student's panel asked for the answers")
    seat.use(lambda: room)
    try:
        follow.answers_panel("q")  # returns before drawing anything: no Streamlit session is needed
        follow.record_answer("q", "42", False)
        assert room.calls == [("answer", "q", "42", False)]
    finally:
        seat.use(None)


def test_a_stepper_report_moves_the_class_when_the_teacher_steps_and_never_when_a_student_does(monkeypatch):
    session: dict = {}
    monkeypatch.setattr(follow.st, "session_state", session)
    teacher, student = Recorder(leads=True), Recorder(leads=False)
    try:
        for room in (teacher, student):
            seat.use(lambda room=room: room)
            for step in (3, 3, 4):  # a report of the step already told is not a move
                follow.moved(3, step)
        assert teacher.calls == [("lead", 3, 3), ("lead", 3, 4)]
        assert student.calls == []
        seat.use(None)
        follow.moved(3, 5)  # local mode: nothing to tell
        assert session == {seat.LED: (3, 4)}
    finally:
        seat.use(None)


def test_the_server_installs_the_class_in_shared_mode_only(monkeypatch, tmp_path):
    monkeypatch.setenv("BPE_LAB_DATABASE_URL", f"sqlite:///{tmp_path / 'ws.sqlite3'}")
    monkeypatch.setenv("BPE_LAB_TRAIN_WORKERS", "0")
    monkeypatch.setenv("BPE_LAB_WORKSPACE", str(tmp_path / "here"))
    monkeypatch.setenv("BPE_LAB_TEACHER_SECRET", SECRET)
    try:
        workspaces.configure(shared=False)
        assert seat._provider is None
        workspaces.configure(shared=True)
        assert callable(seat._provider)
    finally:
        workspaces.unconfigure()
    assert seat._provider is None


def test_the_protocol_over_the_real_store_a_teacher_and_a_student(tmp_path):
    lessons = Lessons(Database(f"sqlite:///{tmp_path / 'ws.sqlite3'}"), SECRET)
    teacher, student = Seat(lessons, owner_of("t" * 32)), Seat(lessons, owner_of("s" * 32))
    assert seat.claim(student, {TEACHER_PARAM: "not-the-secret-at-all"}) is False and not student.leads()
    assert seat.claim(teacher, {TEACHER_PARAM: SECRET}) is True and teacher.leads()
    session: dict = {}
    seat.lead(teacher, 3, 5, session)
    assert not seat.needs_rerun((3, 5), lessons.position(fresh=True))
    seat.lead(teacher, 3, 6, session)
    assert seat.needs_rerun((3, 5), lessons.position(fresh=True))
    with pytest.raises(PermissionError):
        student.lead(1, 1)
    assert student.answer("chapter-3", "258", True) and not teacher.answer("chapter-3", "0", False)
    assert teacher.answers("chapter-3") == [Spread("258", True, 1)]
    with pytest.raises(PermissionError):
        student.answers("chapter-3")
