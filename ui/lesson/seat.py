"""The lesson's class as the pages see it, in plain Python: the ``Classroom`` protocol, the hook, the logic.

``ui.lesson.follow`` draws it; the ``classroom`` package implements the protocol (one seat per
browser session, bound to the browser key the server verified) and installs it at start-up
(``use``). ``ui`` never imports ``classroom``, and this module never imports Streamlit (the
server's start-up imports it before any page runs).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

#: The address bar's parameter of the teacher link (``/lesson?teacher=<secret>``).
TEACHER_PARAM = "teacher"
FOLLOW_KEY = "lesson.follow"
LED = "lesson.led"  # the (chapter, step) this session last told the class
CLAIMED = "lesson.claimed"  # what the last teacher link opened in this session gave (True / False)
#: Seconds between two reads of the teacher's position by a following student, and of the answers by the teacher.
FOLLOW_EVERY = 1
ANSWERS_EVERY = 2


@dataclass(frozen=True)
class Position:
    """Where the teacher is: ``chapter``, ``step``, and when they moved there (seconds since the epoch)."""

    chapter: int
    step: int
    updated_at: float


@dataclass(frozen=True)
class Spread:
    """How many of the class gave one ``answer`` (and whether it is right)."""

    answer: str
    correct: bool
    count: int


class Classroom(Protocol):
    """One browser's seat in the class. Raises a ValueError when the class's database cannot be reached, and a
    PermissionError when this browser asks for what only the teacher's may do."""

    def claim_lead(self, secret: str) -> bool:
        """Become the teacher when ``secret`` is the server's; whether it was."""

    def leads(self) -> bool:
        """Whether this browser is the teacher's."""

    def lead(self, chapter: int, step: int) -> None:
        """Move the class to ``chapter``, ``step`` (the teacher only)."""

    def position(self) -> Position | None:
        """Where the teacher is, or None before they start."""

    def answer(self, question_id: str, answer: str, correct: bool) -> bool:
        """Keep this browser's answer (the latest wins); whether it counts (a teacher's does not)."""

    def answers(self, question_id: str) -> list[Spread]:
        """How the class answered, most given first (the teacher only)."""

    def clear(self, question_id: str) -> int:
        """Forget the answers to a question (the teacher only); how many there were."""


# Set once at start-up (``use``), before any session runs, and only read afterwards: safe to share.
_provider: Callable[[], Classroom] | None = None


def use(provider: Callable[[], Classroom] | None) -> None:
    """Install the function that gives each session its seat (the server does this once, in shared mode)."""
    global _provider
    _provider = provider


def classroom() -> Classroom | None:
    """This session's seat in the class, or None when there is no class (local mode)."""
    return _provider() if _provider is not None else None


# ----------------------------------------------------------------------------- plain logic


def needs_rerun(shown: tuple[int, int] | None, now: Position | None) -> bool:
    """Whether a following student's page must run again: the teacher is somewhere else than what it shows.

    >>> needs_rerun((3, 5), Position(3, 5, 1.0)), needs_rerun((3, 5), Position(3, 6, 2.0)), needs_rerun(None, None)
    (False, True, False)
    >>> needs_rerun(None, Position(1, 0, 1.0)), needs_rerun((1, 0), None)
    (True, True)
    """
    return shown != (None if now is None else (now.chapter, now.step))


def answers_summary(spread: list[Spread]) -> str:
    """One line for the teacher: how many answered, how many right.

    >>> answers_summary([Spread("7", True, 3), Spread("8", False, 1)])
    '4 answered: 3 right, 1 wrong.'
    >>> answers_summary([])
    'Nobody has answered yet.'
    """
    total = sum(s.count for s in spread)
    if not total:
        return "Nobody has answered yet."
    right = sum(s.count for s in spread if s.correct)
    return f"{total} answered: {right} right, {total - right} wrong."


def answers_chart(spread: list[Spread]) -> dict:
    """A bar per answer given (how many gave it), blue when right and orange when wrong (apart for every kind of colour
    vision, and named in the legend), its text as large as a projector needs: a Vega-Lite spec for ``st.vega_lite_chart``.

    >>> spec = answers_chart([Spread("7", True, 3), Spread("8", False, 1)])
    >>> [row["answer"] for row in spec["data"]["values"]], spec["encoding"]["x"]["field"]
    (['7', '8'], 'students')
    """
    values = [{"answer": s.answer, "students": s.count, "result": "right" if s.correct else "wrong"} for s in spread]
    return {
        "$schema": "https://vega.github.io/schema/vega-lite/v6.json",
        "data": {"values": values},
        "mark": {"type": "bar", "tooltip": True},
        "height": {"step": 32},
        "encoding": {
            "y": {"field": "answer", "type": "nominal", "sort": "-x", "title": "Answer", "axis": {"labelLimit": 320}},
            "x": {"field": "students", "type": "quantitative", "title": "Students", "axis": {"tickMinStep": 1}},
            "color": {
                "field": "result",
                "type": "nominal",
                "scale": {"domain": ["right", "wrong"], "range": ["#2563eb", "#f97316"]},
                "title": None,
            },
        },
        "config": {"axis": {"labelFontSize": 16, "titleFontSize": 16}, "legend": {"labelFontSize": 16}},
    }


def claim(room: Classroom, params: dict) -> bool | None:
    """The teacher link's secret, if the address has one: offered to the server, then taken out of ``params`` (the
    address bar). Returns whether it made this browser the teacher's, or None when there was none to offer."""
    if TEACHER_PARAM not in params:
        return None
    offered = params.get(TEACHER_PARAM)
    del params[TEACHER_PARAM]  # out of the address before anything else: no screenshot or shared link carries it
    return room.claim_lead(offered if isinstance(offered, str) else "")


def lead(room: Classroom, chapter: int, step: int, session: dict) -> bool:
    """The teacher's page is at ``chapter``, ``step``: tell the class when that is a move. Returns whether it was one."""
    here = (chapter, step)
    if session.get(LED) == here:
        return False
    room.lead(chapter, step)
    session[LED] = here
    return True
