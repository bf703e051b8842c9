"""classroom/lesson.py against SQLite and a real PostgreSQL server (tests/postgres.py): who may lead, the teacher's
position seen from another process, one answer per browser and question, and what a student can never do."""

from __future__ import annotations

import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from postgres import PostgresServer

from classroom import identity, lesson, teacher
from classroom.database import Database, owner_of
from classroom.lesson import Lessons, Seat
from ui.lesson.seat import Position, Spread

SECRET = "the-teachers-secret-0123456789"


@pytest.fixture(scope="module")
def postgres():
    server = PostgresServer().start()
    yield server
    server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request, tmp_path):
    if request.param == "sqlite":
        d = Database(f"sqlite:///{tmp_path / 'ws.sqlite3'}")
    else:
        d = Database(request.getfixturevalue("postgres").url)
        for table in ("lesson_teachers", "lesson_position", "lesson_answers"):  # one cluster per module: start empty
            d.execute(f"DELETE FROM {table}")
    yield d
    d.close()


def owner(n: int) -> str:
    return owner_of(f"browser-key-{n:02d}-" + "x" * 32)


TEACHER = owner(0)


def process(db: Database, secret: str | None = SECRET) -> Lessons:
    """What another app process has: its own connection pool on the same database, and the secret it was given."""
    return Lessons(Database(db.url), secret)


def where(pos: Position | None) -> tuple[int, int] | None:
    return None if pos is None else (pos.chapter, pos.step)


def rows(db: Database, table: str) -> int:
    return db.query(f"SELECT COUNT(*) FROM {table}")[0][0]


# ----------------------------------------------------------------------------- leading


def test_only_the_secret_makes_a_teacher_and_every_process_knows(db):
    here = Lessons(db, SECRET)
    for wrong in ["", "x", SECRET[:-1], SECRET + "0", SECRET.upper(), " " + SECRET, SECRET[1:] + SECRET[0], None, 12, [SECRET]]:
        assert here.claim(owner(1), wrong) is False, wrong
    assert rows(db, "lesson_teachers") == 0  # a refused claim writes nothing
    assert not here.leads(owner(1))
    assert here.claim(TEACHER, SECRET) is True
    assert here.leads(TEACHER) and not here.leads(owner(1))
    assert process(db).leads(TEACHER)  # another app process reads the same table


def test_a_new_secret_leaves_the_old_teacher_behind(db):
    assert Lessons(db, SECRET).claim(TEACHER, SECRET)
    restarted = process(db, "a-secret-after-a-restart-42")
    assert not restarted.leads(TEACHER)  # make serve started again with a new secret: the old link is dead
    assert not restarted.claim(owner(1), SECRET)
    assert process(db, SECRET).leads(TEACHER)


def test_without_a_secret_nobody_leads(db):
    here = Lessons(db, None)
    assert not here.claim(TEACHER, "") and not here.claim(TEACHER, SECRET) and not here.leads(TEACHER)
    with pytest.raises(PermissionError):
        here.move(TEACHER, 1, 0)


def test_a_student_can_neither_move_the_class_nor_see_or_clear_answers(db):
    here = Lessons(db, SECRET)
    assert here.claim(TEACHER, SECRET)
    here.move(TEACHER, 2, 1)
    here.answer(owner(1), "q", "7", True)
    for student in (owner(1), owner(2)):
        with pytest.raises(PermissionError, match="only the teacher's browser may lead"):
            here.move(student, 9, 9)
        with pytest.raises(PermissionError, match="see the class's answers"):
            here.answers(student, "q")
        with pytest.raises(PermissionError, match="clear"):
            here.clear(student, "q")
    assert where(process(db).position(fresh=True)) == (2, 1)
    assert here.answers(TEACHER, "q") == [Spread("7", True, 1)]


def test_a_forged_cookie_is_another_browser_never_the_teachers(db):
    """The server keeps the SHA-256 of a key: a student who sends the teacher's stored owner id (or any string) as
    their cookie is hashed again, so they are somebody else; a value not of the key's form is no browser at all."""
    key = identity.new_key()
    here = Lessons(db, SECRET)
    assert here.claim(owner_of(key), SECRET)
    stored = db.query("SELECT owner FROM lesson_teachers")[0][0]
    assert stored == owner_of(key) and key not in stored
    assert identity.valid(stored)  # 64 hex digits pass as a cookie value...
    forged = Seat(here, owner_of(stored))
    assert not forged.leads()  # ...and name a browser that is not the teacher's
    with pytest.raises(PermissionError):
        forged.lead(5, 5)
    for tampered in [key + ";", key[:31], "", "teacher", key + " " + key]:
        assert not identity.valid(tampered)  # identity.browser_key() gives None: a seat without an owner
    nobody = Seat(here, None)
    assert not nobody.claim_lead(SECRET) and not nobody.leads() and nobody.answer("q", "1", True) is False
    with pytest.raises(PermissionError):
        nobody.lead(1, 1)
    with pytest.raises(PermissionError):
        nobody.answers("q")


# ----------------------------------------------------------------------------- the position


def test_the_teachers_position_reaches_another_process(db):
    teacher_side, student_side = Lessons(db, SECRET), process(db)
    assert student_side.position() is None  # before the teacher starts
    assert teacher_side.claim(TEACHER, SECRET)
    seen = []
    for chapter, step in [(1, 0), (1, 1), (3, 5), (2, 0), (9, 12)]:
        teacher_side.move(TEACHER, chapter, step)
        pos = student_side.position(fresh=True)
        seen.append((pos.chapter, pos.step))
        assert isinstance(pos, Position) and pos.updated_at > 0
    assert seen == [(1, 0), (1, 1), (3, 5), (2, 0), (9, 12)]
    assert rows(db, "lesson_position") == 1  # one row per lesson, whatever the moves


def test_a_process_reads_the_position_at_most_every_quarter_second(db):
    clock = [0.0]
    teacher_side, student_side = Lessons(db, SECRET), Lessons(Database(db.url), SECRET, ticks=lambda: clock[0])
    assert teacher_side.claim(TEACHER, SECRET)
    teacher_side.move(TEACHER, 1, 0)
    assert where(student_side.position()) == (1, 0)
    teacher_side.move(TEACHER, 2, 0)
    assert where(student_side.position()) == (1, 0)  # what this process read a moment ago
    assert where(student_side.position(fresh=True)) == (2, 0)
    teacher_side.move(TEACHER, 3, 0)
    clock[0] += lesson.POSITION_TTL / 2
    assert where(student_side.position()) == (2, 0)
    clock[0] += lesson.POSITION_TTL
    assert where(student_side.position()) == (3, 0)


@pytest.mark.parametrize("chapter, step", [(-1, 0), (0, -1), (1.5, 0), ("3", 0), (True, 0), (10_000, 0), (None, 1)])
def test_a_position_that_is_no_place_is_refused(db, chapter, step):
    here = Lessons(db, SECRET)
    assert here.claim(TEACHER, SECRET)
    with pytest.raises(ValueError, match="whole number"):
        here.move(TEACHER, chapter, step)
    assert here.position(fresh=True) is None


# ----------------------------------------------------------------------------- answers


def test_one_answer_per_browser_and_question_the_latest_wins(db):
    here = Lessons(db, SECRET)
    assert here.claim(TEACHER, SECRET)
    here.answer(owner(1), "ch2.q1", "12", False)
    here.answer(owner(1), "ch2.q1", "13", True)  # changed their mind
    here.answer(owner(2), "ch2.q1", "13", True)
    here.answer(owner(3), "ch2.q1", "12", False)
    here.answer(owner(3), "ch3.q1", "256", True)
    assert here.answer(TEACHER, "ch2.q1", "99", False) is False  # the teacher trying it out does not count
    assert here.answers(TEACHER, "ch2.q1") == [Spread("13", True, 2), Spread("12", False, 1)]
    assert here.answers(TEACHER, "ch3.q1") == [Spread("256", True, 1)]
    assert here.answers(TEACHER, "nobody-asked") == []
    assert here.clear(TEACHER, "ch2.q1") == 3
    assert here.answers(TEACHER, "ch2.q1") == [] and here.answers(TEACHER, "ch3.q1") == [Spread("256", True, 1)]


def test_answers_are_kept_short_and_must_be_text(db):
    here = Lessons(db, SECRET)
    assert here.claim(TEACHER, SECRET)
    here.answer(owner(1), "q" * 500, "<b>x</b>" * 1000, False)
    [(qid, answer)] = db.query("SELECT question_id, answer FROM lesson_answers")
    assert len(qid) == lesson.MAX_QUESTION_ID and len(answer) == lesson.MAX_ANSWER
    for bad in [None, 3, b"3"]:
        with pytest.raises(ValueError, match="must be text"):
            here.answer(owner(2), "q", bad, True)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.tuples(st.integers(1, 6), st.sampled_from(["a", "b"]), st.sampled_from(["1", "2", "3", "héllo 😄"])),
        max_size=25,
    )
)
def test_the_spread_is_each_browsers_latest_answer_counted(db, answers):
    """Against a naive reference: the last answer of each browser per question, counted by (answer, correct)."""
    here = Lessons(db, SECRET)
    db.execute("DELETE FROM lesson_answers")
    assert here.claim(TEACHER, SECRET)
    latest = {}
    for who, question, answer in answers:
        here.answer(owner(who), question, answer, answer == "2")
        latest[(question, who)] = answer
    for question in ("a", "b"):
        expected: dict[str, int] = {}
        for (q, _), answer in latest.items():
            if q == question:
                expected[answer] = expected.get(answer, 0) + 1
        got = here.answers(TEACHER, question)
        assert {s.answer: s.count for s in got} == expected
        assert all(s.correct == (s.answer == "2") for s in got)
        assert [s.count for s in got] == sorted((s.count for s in got), reverse=True)


def test_a_class_answering_at_once_from_two_processes_loses_nothing(db):
    processes = [Lessons(db, SECRET), process(db)]
    assert processes[0].claim(TEACHER, SECRET)
    errors = []

    def student(n: int) -> None:
        try:
            for answer in ("1", "2", str(n % 3)):  # each changes their mind twice; the last one counts
                processes[n % 2].answer(owner(n), "q", answer, answer == "0")
        except Exception as e:  # reported below, on the test's thread
            errors.append(e)

    threads = [threading.Thread(target=student, args=(n,)) for n in range(1, 21)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    spread = {s.answer: s.count for s in processes[1].answers(TEACHER, "q")}
    assert spread == {"0": 6, "1": 7, "2": 7}


def test_the_teacher_secret_setting():
    assert teacher.teacher_secret({teacher.SECRET_ENV: SECRET}) == SECRET
    for bad in ["", "   ", "short", "has spaces in it here", "x" * 129, "semi;colon-0123456789", "ünïcode-0123456789"]:
        with pytest.raises(ValueError, match="BPE_LAB_TEACHER_SECRET must be 16 to 128"):
            teacher.teacher_secret({teacher.SECRET_ENV: bad})
    made = {teacher.new_secret() for _ in range(50)}
    assert len(made) == 50 and all(teacher.teacher_secret({teacher.SECRET_ENV: s}) == s for s in made)
    assert teacher.secret_id(SECRET) != teacher.secret_id(SECRET + "x") and SECRET not in teacher.secret_id(SECRET)


def test_a_single_shared_process_makes_a_secret_and_says_its_link(monkeypatch, capsys):
    """`BPE_LAB_SHARED=1 make run` has no make serve to make the secret: the process makes its own and prints the link;
    one set in the environment is kept, and not printed."""
    from classroom import asgi

    monkeypatch.delenv(teacher.SECRET_ENV, raising=False)
    asgi.announce_teacher_link()
    made = teacher.teacher_secret()
    assert made is not None
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("BPE Lab: the teacher leads the lesson from http://localhost:") and line.endswith(f"?teacher={made}")
    monkeypatch.setenv(teacher.SECRET_ENV, SECRET)
    asgi.announce_teacher_link()
    assert teacher.teacher_secret() == SECRET and capsys.readouterr().err == ""


def test_make_serve_refuses_a_bad_secret_in_one_line(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = dict(os.environ, BPE_LAB_TEACHER_SECRET="has spaces, not a secret", BPE_LAB_DATA_DIR=str(tmp_path))
    out = subprocess.run(
        [sys.executable, "-m", "classroom", "--port", "18599", "--workers", "1"],
        env=env,
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2
    [line] = out.stderr.strip().splitlines()
    assert line.startswith("BPE Lab: BPE_LAB_TEACHER_SECRET must be 16 to 128 letters, digits, - or _")
    assert "has spaces" not in line  # a secret, even a bad one, is not printed


def test_answers_and_teachers_are_forgotten_with_idle_workspaces(db):
    clock = [1_000_000.0]
    here = Lessons(db, SECRET, clock=lambda: clock[0])
    assert here.claim(TEACHER, SECRET)
    here.answer(owner(1), "old", "1", True)
    clock[0] += 20 * 86400
    here.answer(owner(2), "recent", "2", True)
    db.purge_expired(ttl_days=10, now=clock[0] + 86400)
    assert db.query("SELECT question_id FROM lesson_answers") == [("recent",)]
    assert not here.leads(TEACHER)  # the teacher of a month ago opens the link again


def test_a_students_seat_asks_the_database_once_a_moment_and_learns_a_lead_after_it(db):
    """A student's page asks "do I lead?" several times a run (once per question): a seat keeps "no" for
    ``LEADS_TTL`` seconds, then asks again, so a teacher link opened in another tab of that browser still counts."""
    clock = [100.0]
    here = Lessons(db, SECRET)
    asked = []
    real = here.leads
    here.leads = lambda who: asked.append(who) or real(who)
    tab = Seat(here, owner(5), ticks=lambda: clock[0])
    assert [tab.leads() for _ in range(5)] == [False] * 5 and asked == [owner(5)]  # one query for five questions
    assert Seat(here, owner(5)).claim_lead(SECRET)  # the same browser's other tab opens the teacher link
    clock[0] += lesson.LEADS_TTL / 2
    assert not tab.leads() and len(asked) == 1  # still within the moment
    clock[0] += lesson.LEADS_TTL
    assert tab.leads() and len(asked) == 2  # asked again: now it leads, and keeps leading without asking
    assert tab.leads() and len(asked) == 2
