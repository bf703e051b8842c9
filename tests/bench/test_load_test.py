"""The load generator itself (bench/load_test.py, bench/stclient.py): one simulated student does the whole
scenario against a real server without an error, and a broken step is counted, not hidden.

A single `streamlit run serve.py` in shared mode (what `make run` starts), with a database of its own.
"""

from __future__ import annotations

import random

import load_test  # bench/ is on the tests' path (pyproject.toml)
import pytest
from harness import StreamlitServer
from stclient import ProtocolError, Student

from tests import aio

pytestmark = pytest.mark.slow  # a real server for the module


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with pytest.MonkeyPatch.context() as env:
        env.setenv("BPE_LAB_TEACHER_SECRET", load_test.TEACHER_SECRET)  # the lesson's teacher link
        srv = StreamlitServer(tmp_path_factory.mktemp("load") / "ws", shared=True).start()
    yield srv
    srv.stop()


def test_one_student_completes_the_scenario(server):
    rec = load_test.Recorder()
    aio.run(load_test.scenario(0, server.url, rec, (0.0, 0.05), None, random.Random(0)))
    assert rec.errors == []
    counts = {a: len(t) for a, t in rec.times.items()}
    assert counts == {
        "page open (HTML + assets)": 1,
        "page open (first run)": 1,
        "type (sent when typing pauses)": 3,
        "paste 2,000 chars": 1,
        "switch tokenizer": 3,
        "open Compare": 1,
        "open Train": 1,
        "set vocab size": 1,
        "train (vocab 1000)": 1,
        "open Step through": 1,
        "Step: training mode": 1,
        "Step: report the step": 1,
        "open Vocabulary": 1,
    }
    assert all(t > 0 for times in rec.times.values() for t in times)
    assert rec.bytes_down > 1_000_000  # index.html, the assets it names, and the websocket's messages


def test_what_a_student_sends_reaches_the_page(server):
    async def go():
        s = Student(server.url)
        await s.load_page("/")
        await s.connect()
        await s.open()
        s.choose("tokenize.tokenizer", "r50k_base")
        r = await load_test.send_text(s, "hello world")  # as the page sends it when typing pauses
        assert not r.exceptions and not r.errors
        assert s.query.startswith("tokenizer=r50k_base") and "text=hello+world" in s.query  # the page wrote its link
        with pytest.raises(ProtocolError, match="no widget 'nope'"):
            s.set_text("nope", "x")
        with pytest.raises(ProtocolError, match="no option"):
            s.choose("tokenize.tokenizer", "no such encoding")
        await s.close()

    aio.run(go())


def test_a_failing_student_is_counted(server):
    rec = load_test.Recorder()
    aio.run(load_test.scenario(1, server.url.replace(str(server.port), "1"), rec, (0.0, 0.0), None, random.Random(0)))
    assert len(rec.errors) == 1 and "student 1" in rec.errors[0]


def test_a_teacher_and_two_students_go_through_a_lesson(server):
    """The lesson scenario on the real Lesson page: the teacher's Next and stepper steps reach both followers, their
    answers to every question of a chapter reach the teacher's page."""
    assert load_test.lesson_path()[:4] == [(1, 0), (2, 0), (2, 1), (2, 2)]  # chapter 2 is the first stepping one
    rec, lesson = aio.run(load_test.lesson_class(server.url, 2, (1.2, 1.5), 0.0, 0, load_test.TEACHER_SECRET, 3))
    assert rec.errors == []
    chapter, step = lesson.last
    assert chapter == 2 and step >= 1  # in chapter 2, stepped (as far as its trace goes, at most two steps)
    assert lesson.shown == {0: lesson.last, 1: lesson.last}  # both followed to the teacher's last step
    assert lesson.sent[2] == 2 and lesson.counted[2] == 2  # the teacher's page counted both students' answers
    counts = {a: len(t) for a, t in rec.times.items()}
    assert counts["teacher: Next chapter"] == 1 and counts["teacher: a step (the stepper's report)"] == step
    assert counts["answer"] >= 2 * len(load_test.lesson_model.questions(2, 0))
    assert counts["follow latency (teacher's move to the student's page)"] >= 2  # a move seen by each, at least
    assert counts["follow check (every 1 s)"] >= 2 * 3
