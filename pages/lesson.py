"""A stand-in for the Lesson page: chapter and step from the address bar, Back/Next, one question per chapter.

Only what the class side (``ui.lesson.follow``) needs to be driven in a browser; the real
lesson page replaces this file and keeps the three calls: ``class_panel`` first (it may
move a following student), ``record_answer`` when a question is answered, ``answers_panel``
under the question.
"""

import streamlit as st

from ui.common import shell, state
from ui.lesson import follow

STATE = state.PageState("lesson", {}, widgets=("answer", "back", "next", "send"))
CHAPTERS, STEPS = 9, 5


def _place(name: str, high: int) -> int:
    raw = st.query_params.get(name, "")
    return min(int(raw), high) if raw.isdigit() else 0


shell.open_page(__file__, STATE)
chapter, step = max(1, _place("chapter", CHAPTERS)), _place("step", STEPS - 1)
teacher = follow.class_panel(chapter, step)
if teacher is not None:
    chapter, step = teacher
st.query_params["chapter"], st.query_params["step"] = str(chapter), str(step)

st.title("Lesson")
st.markdown(f"**Chapter {chapter}, step {step}**")


def _go(to: tuple[int, int]) -> None:
    st.query_params["chapter"], st.query_params["step"] = str(to[0]), str(to[1])


back = (chapter, step - 1) if step else (chapter - 1, STEPS - 1) if chapter > 1 else None
ahead = (chapter, step + 1) if step < STEPS - 1 else (chapter + 1, 0) if chapter < CHAPTERS else None
left, right = st.columns(2)
with left:
    st.button("Back", key="lesson.back", disabled=back is None or teacher is not None, on_click=_go, args=(back,))
with right:
    st.button("Next", key="lesson.next", disabled=ahead is None or teacher is not None, on_click=_go, args=(ahead,))

question = f"chapter-{chapter}"
right_answer = str(255 + chapter)
with st.form(f"lesson.question.{chapter}"):
    given = st.text_input(f"Which id does merge number {chapter} create?", key=STATE.key("answer", chapter))
    if st.form_submit_button("Answer", key=f"lesson.send.{chapter}"):
        correct = given.strip() == right_answer
        follow.record_answer(question, given.strip(), correct)
        (st.success if correct else st.error)("Right." if correct else f"Not quite: it is {right_answer}.")
follow.answers_panel(question)
