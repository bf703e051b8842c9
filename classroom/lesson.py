"""The lesson in a class: who leads, where the teacher is, and what the class answered, in the shared database.

Plain Python (no Streamlit) but for ``provider``; tested against SQLite and PostgreSQL.
Everything goes through the database (``classroom.database``'s ``lesson_*`` tables), so a
teacher and the students may be on different app processes or replicas:

* **Leading.** ``make serve`` prints a teacher link with a secret (``BPE_LAB_TEACHER_SECRET``,
  else one generated at start: ``classroom.teacher``). A browser that opens it is marked the
  teacher's in ``lesson_teachers`` (its owner id, the SHA-256 of its key, and which secret it
  proved, so a new secret after a restart leaves old teachers behind); the secret is compared
  with ``hmac.compare_digest``. Every decision (may it lead, may it see answers) is taken here
  from the owner id of the browser key the server read, never from anything the page sends.
* **The position**: one row per lesson, ``(chapter, step, updated_at)``; students read it once a
  second each, so a process keeps the last read for ``POSITION_TTL`` seconds.
* **Answers**: one row per question and browser (the latest answer wins), aggregated for the
  teacher without owners: only the answers and how many gave each.
"""

from __future__ import annotations

import hmac
import threading
import time
from collections.abc import Callable

from ui.lesson.seat import Position, Spread

from . import database, identity
from .teacher import secret_id

LESSON = "bpe"
#: Seconds a process reuses the teacher's position it read (a class polls it once a second per student).
POSITION_TTL = 0.25
#: Seconds a student's seat trusts that it does not lead (every run asks once per question; the link makes a teacher at once).
LEADS_TTL = 2.0
MAX_ANSWER = 200
MAX_QUESTION_ID = 100


class Lessons:
    """The lesson tables of one database, shared by every session of a process."""

    def __init__(
        self,
        db: database.Database,
        secret: str | None,
        *,
        clock: Callable[[], float] = time.time,
        ticks: Callable[[], float] = time.monotonic,
    ):
        self.db = db
        self._ticks = ticks
        self.secret = secret
        self._secret_id = secret_id(secret) if secret else None
        self._clock = clock
        self._lock = threading.Lock()
        self._position: dict[str, tuple[float, Position | None]] = {}

    # -- leading
    def claim(self, owner: str, offered: str) -> bool:
        """Mark ``owner`` as a teacher when ``offered`` is the secret; False (and nothing written) otherwise."""
        if not self.secret or not isinstance(offered, str):
            return False
        if not hmac.compare_digest(offered.encode("utf-8"), self.secret.encode("utf-8")):
            return False
        now = self._clock()
        self.db.execute(
            "INSERT INTO lesson_teachers (owner, secret_id, since) VALUES (:owner, :sid, :now) "
            "ON CONFLICT (owner) DO UPDATE SET secret_id = :sid, since = :now",
            owner=owner,
            sid=self._secret_id,
            now=now,
        )
        return True

    def leads(self, owner: str) -> bool:
        """Whether ``owner`` opened the teacher link of the current secret."""
        if not self._secret_id:
            return False
        rows = self.db.query(
            "SELECT 1 FROM lesson_teachers WHERE owner = :owner AND secret_id = :sid", owner=owner, sid=self._secret_id
        )
        return bool(rows)

    def _require_teacher(self, owner: str, what: str) -> None:
        if not self.leads(owner):
            raise PermissionError(f"only the teacher's browser may {what}")

    # -- the position
    def move(self, owner: str, chapter: int, step: int, lesson: str = LESSON) -> None:
        """The teacher is at ``chapter``, ``step`` (a PermissionError for anyone else)."""
        self._require_teacher(owner, "lead the class")
        chapter, step = _whole(chapter, "chapter"), _whole(step, "step")
        now = self._clock()
        self.db.execute(
            "INSERT INTO lesson_position (lesson, chapter, step, updated_at) VALUES (:lesson, :chapter, :step, :now) "
            "ON CONFLICT (lesson) DO UPDATE SET chapter = :chapter, step = :step, updated_at = :now",
            lesson=lesson,
            chapter=chapter,
            step=step,
            now=now,
        )
        with self._lock:
            self._position[lesson] = (self._ticks(), Position(chapter, step, now))

    def position(self, lesson: str = LESSON, *, fresh: bool = False) -> Position | None:
        """Where the teacher is (None before they start): one small query, or what this process read just before."""
        with self._lock:
            hit = self._position.get(lesson)
        if not fresh and hit is not None and self._ticks() - hit[0] < POSITION_TTL:
            return hit[1]
        rows = self.db.query("SELECT chapter, step, updated_at FROM lesson_position WHERE lesson = :lesson", lesson=lesson)
        pos = Position(int(rows[0][0]), int(rows[0][1]), float(rows[0][2])) if rows else None
        with self._lock:
            self._position[lesson] = (self._ticks(), pos)
        return pos

    # -- answers
    def answer(self, owner: str, question_id: str, answer: str, correct: bool) -> bool:
        """Keep ``owner``'s answer (replacing an earlier one); the teacher's own answers are not counted (False)."""
        question_id, answer = _text(question_id, MAX_QUESTION_ID, "question id"), _text(answer, MAX_ANSWER, "answer")
        if self.leads(owner):
            return False
        self.db.execute(
            "INSERT INTO lesson_answers (question_id, owner, answer, correct, answered_at) "
            "VALUES (:q, :owner, :answer, :correct, :now) "
            "ON CONFLICT (question_id, owner) DO UPDATE SET answer = :answer, correct = :correct, answered_at = :now",
            q=question_id,
            owner=owner,
            answer=answer,
            correct=int(bool(correct)),
            now=self._clock(),
        )
        return True

    def answers(self, owner: str, question_id: str) -> list[Spread]:
        """How the class answered ``question_id``, most given first, without who (a PermissionError for a student)."""
        self._require_teacher(owner, "see the class's answers")
        rows = self.db.query(
            "SELECT answer, correct, COUNT(*) FROM lesson_answers WHERE question_id = :q "
            "GROUP BY answer, correct ORDER BY COUNT(*) DESC, answer",
            q=question_id,
        )
        return [Spread(str(a), bool(c), int(n)) for a, c, n in rows]

    def clear(self, owner: str, question_id: str) -> int:
        """Forget the answers to ``question_id`` (the teacher asks again); returns how many."""
        self._require_teacher(owner, "clear the class's answers")
        return self.db.execute("DELETE FROM lesson_answers WHERE question_id = :q", q=question_id)


def _whole(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 10_000:
        raise ValueError(f"the {what} must be a whole number from 0 to 9999, not {value!r}")
    return value


def _text(value, limit: int, what: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"the {what} must be text, not {type(value).__name__}")
    return value[:limit]


class Seat:
    """One browser's place in the class (a ``ui.lesson.seat.Classroom``): the owner is the server's, never the page's."""

    def __init__(self, lessons: Lessons, owner: str | None, *, ticks: Callable[[], float] = time.monotonic):
        self.lessons = lessons
        self.owner = owner
        self._leads = False
        self._ticks = ticks
        self._not_until = float("-inf")  # until when "not the teacher's" holds without asking the database again

    def claim_lead(self, secret: str) -> bool:
        if self.owner is None:  # no cookie: nothing to mark, and a tab of its own cannot lead the class
            return False
        self._leads = self.lessons.claim(self.owner, secret)
        return self._leads

    def leads(self) -> bool:
        # the cookie of a session never changes, nor the secret of a process: once a teacher, for the session; a
        # student's page asks several times a run, so "not the teacher's" is kept a moment (another tab of the same
        # browser that opens the teacher link makes this one lead within LEADS_TTL; this tab's own link at once)
        if not self._leads and self.owner is not None and self._ticks() >= self._not_until:
            self._leads = self.lessons.leads(self.owner)
            if not self._leads:
                self._not_until = self._ticks() + LEADS_TTL
        return self._leads

    def lead(self, chapter: int, step: int) -> None:
        if self.owner is None:
            raise PermissionError("only the teacher's browser may lead the class")
        self.lessons.move(self.owner, chapter, step)

    def position(self) -> Position | None:
        return self.lessons.position()

    def answer(self, question_id: str, answer: str, correct: bool) -> bool:
        if self.owner is None:
            return False
        return self.lessons.answer(self.owner, question_id, answer, correct)

    def answers(self, question_id: str) -> list[Spread]:
        if self.owner is None:
            raise PermissionError("only the teacher's browser may see the class's answers")
        return self.lessons.answers(self.owner, question_id)

    def clear(self, question_id: str) -> int:
        if self.owner is None:
            raise PermissionError("only the teacher's browser may clear the class's answers")
        return self.lessons.clear(self.owner, question_id)


_SESSION_KEY = "classroom.seat"


def provider(open_db: Callable[[], database.Database], secret: str | None) -> Callable[[], Seat]:
    """What ``ui.lesson.seat.use`` gets in shared mode: each session's seat, by the browser key of its cookie."""
    held: list[Lessons] = []  # the process's one Lessons, over the database the store opened
    lock = threading.Lock()

    def lessons() -> Lessons:
        db = open_db()  # a DatabaseUnavailable (a ValueError) when it cannot be opened: the page says so
        with lock:
            if not held or held[0].db is not db:
                held[:] = [Lessons(db, secret)]
            return held[0]

    def seat() -> Seat:
        import streamlit as st

        key = identity.browser_key()
        owner = database.owner_of(key) if key else None
        kept = st.session_state.get(_SESSION_KEY)
        current = lessons()
        if kept is None or kept.owner != owner or kept.lessons is not current:
            kept = Seat(current, owner)
            st.session_state[_SESSION_KEY] = kept
        return kept

    return seat
