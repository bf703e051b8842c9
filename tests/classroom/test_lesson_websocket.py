"""A student who writes their own websocket messages (bench/stclient.py speaks Streamlit's protocol) still cannot
lead, clear the class's answers or move the teacher: the teacher's own widget ids pressed, the disabled Next pressed
while following, the secret's look-alikes in the query string. Against a real `streamlit run serve.py` in shared mode."""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

import pytest

from classroom.database import Database
from tests import aio
from tests.browser.conftest import StreamlitServer
from ui.lesson import model

ROOT = Path(__file__).resolve().parents[2]
sys.path.append(str(ROOT / "bench"))  # last: tests/ has modules of the same names as bench/

from stclient import Student, Widget  # noqa: E402

pytestmark = pytest.mark.slow  # a real server for the module

SECRET = "a-secret-for-the-websocket-test-42"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with pytest.MonkeyPatch.context() as env:
        env.setenv("BPE_LAB_TEACHER_SECRET", SECRET)
        srv = StreamlitServer(tmp_path_factory.mktemp("lesson") / "ws", shared=True).start()
    yield srv
    srv.stop()


def database(server) -> Database:
    return Database(f"sqlite:///{server.workspace.parent / f'workspaces-{server.port}.sqlite3'}")


async def visitor(server, query: str = "") -> Student:
    s = Student(server.url)
    await s.load_page(f"/lesson{query}")
    await s.connect()
    await s.open("lesson")
    return s


def said(result, pattern: str) -> bool:
    return any(pattern in t for t in result.texts)


def bytes_asked(result) -> str:
    """The right answer to chapter 1's question for this browser's own example, from the prompt its page drew."""
    [subject] = [m.group(1) for t in result.texts if (m := re.search(r"How many UTF-8 bytes is `(.+)`\?", t))]
    return str(len(subject.encode("utf-8")))


def test_forged_messages_change_nothing_for_the_class(server):
    db = database(server)

    async def go():
        teacher = await visitor(server, f"?teacher={SECRET}&chapter=1&step=0")
        student = Student(server.url)
        await student.load_page("/lesson?chapter=1&step=0")
        await student.connect()
        right = bytes_asked(await student.open("lesson"))
        student.set_text("lesson.answer.1.bytes", right)
        await student.rerun(trigger="lesson.check.1.bytes")
        answers = await teacher.rerun(auto_fragment=list(teacher.auto_reruns)[-1])
        assert said(answers, "1 answered: 1 right, 0 wrong.")
        clear = teacher.widget("lesson.clear.1.bytes")  # the strongest forger: one who knows the teacher's ids

        forger = await visitor(server, "?chapter=1&step=0")
        assert not forger.has("lesson.clear.1.bytes")  # a student's page has no such button
        forger.widgets["forged.clear"] = Widget(clear.id, clear.kind, clear.proto, clear.fragment_id)
        await forger.rerun(trigger="forged.clear")  # the teacher's Clear, pressed in a full run
        try:  # and as the teacher's fragment would: a fragment this session never had, which Streamlit skips
            await asyncio.wait_for(forger.rerun(trigger="forged.clear", fragment=True), 10)
        except TimeoutError:
            pass  # nothing ran, so nothing finished
        while not forger._messages.empty():  # what that skipped run sent, out of the way of the next one
            forger._messages.get_nowait()
        forger.set_bool("lesson.follow", True)
        await forger.rerun()
        assert forger.has("lesson.next")
        r = await forger.rerun(trigger="lesson.next")  # the Next a follower's page shows disabled
        assert said(r, "Following the teacher: chapter 1, step 0.")  # a follower stays with the teacher
        assert said(r, model.chapter(1).notice) and not said(r, model.chapter(2).notice)  # chapter 1's page still
        for query in (f"teacher={SECRET[:-1]}&chapter=9&step=4", f"teacher={SECRET}x", "teacher=&chapter=2"):
            forger.query = query
            r = await forger.rerun()
            assert any("That teacher link is not this server's" in e for e in r.errors), query
            assert "teacher" not in forger.query  # taken out of the forger's address too

        again = await teacher.rerun(auto_fragment=list(teacher.auto_reruns)[-1])
        assert said(again, "1 answered: 1 right, 0 wrong.")  # nothing cleared
        for s in (teacher, student, forger):
            await s.close()

    aio.run(go())
    assert db.query("SELECT chapter, step FROM lesson_position") == [(1, 0)]  # nobody moved the class but the teacher
    assert len(db.query("SELECT owner FROM lesson_teachers")) == 1
    [(answer, correct)] = db.query("SELECT answer, correct FROM lesson_answers")
    assert answer.isdigit() and correct == 1
    db.close()
