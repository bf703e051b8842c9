"""The lesson in a class: the call sites the Lesson page makes (local mode: nothing to lead or follow).

On a shared server these lead and follow through the database; here, with no class, each is a no-op.
"""

from __future__ import annotations


def class_panel(chapter: int, step: int) -> tuple[int, int] | None:
    """Renders the class controls (lead / follow) in the sidebar; returns the teacher's (chapter, step) when this student follows, else None."""
    return None


def record_answer(question_id: str, answer: str, correct: bool) -> None:
    """Records this browser's answer to a question for the teacher's view (anonymous)."""


def answers_panel(question_id: str) -> None:
    """For the teacher only: how many answered and how the answers spread."""
