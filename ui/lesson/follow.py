"""The lesson in a class: the teacher leads, the students who choose to follow see the teacher's chapter and step.

The lesson page calls ``class_panel`` once per run, at the top of its main area (the controls, on
the first screen even in presenter mode, whose sidebar starts folded; the teacher's position when
this student follows), ``moved`` when its stepper reports a step between two runs of the page,
``record_answer`` and ``answers_panel`` (the teacher's view of the class's answers, anonymous).
In local mode (``make run``) there is no class: all four do nothing and return None.

The class itself (who leads, the position, the answers) is the server's: the ``Classroom``
protocol (``ui.lesson.seat``, plain Python), one per browser session, installed at start-up by the ``classroom`` package
(``use``), which ``ui`` never imports. Its implementation takes every decision from the
browser key the server verified: nothing here passes an identity, so nothing a page sends
can name another browser.

**Following without reloading.** A following student's page runs a fragment every second
(``st.fragment(run_every=1)``) that reads the teacher's position (one small query, shared by
a process's sessions for a quarter of a second) and reruns the page only when the position
differs from the one on screen (``needs_rerun``).
"""

from __future__ import annotations

import streamlit as st

from ui.common import presenter
from ui.render.markdown import md

from .seat import (
    ANSWERS_EVERY,
    CLAIMED,
    FOLLOW_EVERY,
    FOLLOW_KEY,
    Classroom,
    Position,
    Spread,
    answers_chart,
    answers_summary,
    claim,
    classroom,
    lead,
    needs_rerun,
    use,
)

__all__ = ["Classroom", "Position", "Spread", "answers_panel", "class_panel", "classroom", "moved", "record_answer", "use"]


# ----------------------------------------------------------------------------- on the page


def class_panel(chapter: int, step: int) -> tuple[int, int] | None:
    """Renders the class controls (lead / follow) where the page calls it; returns the teacher's (chapter, step) when
    this student follows, else None."""
    room = classroom()
    if room is None:
        return None
    try:
        claimed = claim(room, st.query_params)
        if claimed is not None:
            st.session_state[CLAIMED] = claimed
        leads = room.leads()
    except ValueError as e:
        st.warning(f"The class cannot be reached right now ({md(str(e))}); the lesson works on its own meanwhile.")
        return None
    if st.session_state.pop(CLAIMED, None) is False and not leads:  # said once, on the run that refused it
        st.error("That teacher link is not this server's (or it is out of date): ask for the one `make serve` printed.")
    if leads:
        return _teacher(room, chapter, step)
    return _student(room)


def moved(chapter: int, step: int) -> None:
    """The page's stepper reported a step (a run of its fragment only): the teacher's page tells the class, so that
    followers step too. Nothing for a student's page or in local mode; a database that cannot be reached is said by
    the next full run."""
    room = classroom()
    if room is None:
        return
    try:
        if room.leads():
            lead(room, chapter, step, st.session_state)
    except ValueError:
        pass


def _teacher(room: Classroom, chapter: int, step: int) -> None:
    try:
        lead(room, chapter, step, st.session_state)
    except ValueError as e:
        st.warning(f"The class cannot be told where you are right now ({md(str(e))}).")
        return None
    st.caption(f"🎓 **You lead the class** in chapter {chapter}: students who follow see the chapter and the step you show.")
    return None


def _student(room: Classroom) -> tuple[int, int] | None:
    toggle, status = st.columns([1, 3], vertical_alignment="center")  # one line: the figure stays on the first screen
    following = toggle.toggle(
        "Follow the teacher",
        key=FOLLOW_KEY,
        persist_state="session",  # kept while the student visits another page of the app
        help="Your page shows the chapter and step the teacher shows, as they move. Turn it off to explore on your own.",
    )
    if not following:
        status.caption("You explore on your own; turn following on to see what the teacher shows.")
        return None
    try:
        pos = room.position()
    except ValueError as e:
        status.warning(f"The teacher's place cannot be read right now ({e}).")
        return None
    shown = None if pos is None else (pos.chapter, pos.step)
    if pos is None:
        status.caption("The teacher has not started yet: your page moves when they do.")
    else:
        status.caption(f"Following the teacher: chapter {pos.chapter}, step {pos.step}.")
    with status:
        _watch(shown)
    return shown


@st.fragment(run_every=FOLLOW_EVERY)
def _watch(shown: tuple[int, int] | None) -> None:
    """Once a second: the page runs again only when the teacher is no longer where it shows."""
    room = classroom()
    if room is None or not st.session_state.get(FOLLOW_KEY):
        return
    try:
        now = room.position()
    except ValueError:
        return  # said on the next full run; a second later it is tried again
    if needs_rerun(shown, now):
        st.rerun()


def record_answer(question_id: str, answer: str, correct: bool) -> None:
    """Records this browser's answer to a question for the teacher's view (anonymous)."""
    room = classroom()
    if room is None:
        return
    try:
        room.answer(question_id, answer, correct)
    except ValueError as e:
        st.caption(f"Your answer could not be sent to the teacher right now ({md(str(e))}).")


def answers_panel(question_id: str) -> None:
    """For the teacher only: how many answered and how the answers spread (a chart, anonymous)."""
    room = classroom()
    if room is None:
        return
    try:
        if not room.leads():
            return
    except ValueError:
        return
    _answers(question_id)


@st.fragment(run_every=ANSWERS_EVERY)
def _answers(question_id: str) -> None:
    """The class's answers as they arrive (every two seconds, this fragment only)."""
    room = classroom()
    if room is None:
        return
    try:
        spread = room.answers(question_id)
    except PermissionError:
        return
    except ValueError as e:
        st.caption(f"The class's answers cannot be read right now ({md(str(e))}).")
        return
    with st.container(border=True):
        st.markdown(f"**The class's answers.** {answers_summary(spread)}")
        if spread:
            presenter.chart(answers_chart(spread), width="stretch")
            if st.button("Clear the answers", key=f"lesson.clear.{question_id}", help="Ask the question again."):
                room.clear(question_id)
                st.rerun(scope="fragment")
