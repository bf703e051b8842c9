"""Presenter mode in AppTest: the switch, the ?present=1 link, the marker the stylesheet needs, folded panels."""

from __future__ import annotations

from pathlib import Path

import pytest
from live_view import payload
from streamlit.testing.v1 import AppTest

from tests.app.test_step import opened_at
from ui.common.presenter import MARKER

ROOT = Path(__file__).resolve().parents[2]


def app(query: dict | None = None, page: str | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    if query:
        at.query_params.update(query)
    at.run()
    if page:
        at.switch_page(page)
        at.run()
    assert not at.exception
    return at


def markers(at: AppTest) -> int:
    return sum(h.proto.body == MARKER for h in at.get("html"))


def expanders(at: AppTest) -> list[str]:
    return [e.label for e in at.expander]


def test_off_by_default_no_marker_nothing_folded():
    at = app(page="pages/compare.py")
    assert at.session_state["present.on"] is False
    assert at.toggle(key="present.on").value is False
    assert markers(at) == 0
    assert "Sample set: compression per tokenizer" not in expanders(at)
    assert "present" not in at.query_params


@pytest.mark.parametrize("value, on", [("1", True), ("true", True), ("0", False), ("off", False)])
def test_a_link_with_present_opens_in_presenter_mode(value, on):
    at = app({"present": value})
    assert at.session_state["present.on"] is on
    assert markers(at) == (1 if on else 0)
    assert at.toggle(key="present.on").value is on


def test_the_switch_turns_it_on_and_the_address_bar_follows_from_page_to_page():
    at = app()
    at.toggle(key="present.on").set_value(True).run()
    assert markers(at) == 1
    assert at.query_params["present"] == "1"
    at.switch_page("pages/compare.py")
    at.run()
    assert markers(at) == 1 and at.query_params["present"] == "1"
    assert "Sample set: compression per tokenizer" in expanders(at)  # folded away, one click from view
    at.toggle(key="present.on").set_value(False).run()
    assert markers(at) == 0
    assert "present" not in at.query_params
    assert "Sample set: compression per tokenizer" not in expanders(at)


def test_tokenize_folds_its_details():
    at = app({"present": "1"})
    assert "Token table, bytes and link" in expanders(at)
    assert payload(at)["present"] is True  # the live view (counts, spans, ids) stays in view, drawn large


def test_a_page_run_on_its_own_honours_the_link_too():
    at = AppTest.from_file(str(ROOT / "pages" / "step.py"), default_timeout=120)
    at.query_params.update({"present": "1", "mode": "encoding", "tokenizer": "r50k_base", "step": "3"})
    at.run()
    assert not at.exception
    assert markers(at) == 1
    assert opened_at(at) == 3
    assert "Text to encode" in expanders(at)  # below the step, folded: the step comes first on a projector
