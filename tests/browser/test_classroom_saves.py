"""`make serve` with its database file removed while a class works (``rm data/workspaces.sqlite3*``), in a real
browser behind nginx with two app processes: the next training says it was not saved and stays on the page,
nothing is written into the removed file, and a copy of what it held is next to the path for the teacher."""

from __future__ import annotations

import re
import sqlite3

import pytest

from .conftest import ClassroomServer, assert_no_exception, wait_idle

pytestmark = pytest.mark.browser


def train(page, url: str, name: str) -> None:
    page.goto(url + "/train")
    wait_idle(page)
    page.get_by_role("radio", name="Paste text").click()
    wait_idle(page)
    page.get_by_role("textbox", name="Training text").fill("Honolulu honolulu " * 20)
    page.get_by_role("textbox", name="Name", exact=True).first.fill(name)
    page.get_by_role("textbox", name="Name", exact=True).first.press("Enter")
    wait_idle(page)
    page.get_by_role("button", name=re.compile("Train$")).click()
    page.get_by_text(re.compile(f"Trained {name}")).wait_for()
    wait_idle(page)


def test_a_database_file_removed_under_a_class(browser, tmp_path):
    srv = ClassroomServer(tmp_path / "data").start()
    try:
        context = browser.new_context(viewport={"width": 1400, "height": 1400})
        page = context.new_page()
        page.set_default_timeout(60_000)
        train(page, srv.url, "before")
        assert "with saving" in page.get_by_text(re.compile("Trained before")).inner_text()
        for p in srv.data.glob("workspaces.sqlite3*"):
            p.unlink()
        train(page, srv.url, "after")
        said = page.get_by_text(re.compile("Trained after")).inner_text()
        assert "not saved" in said and "cannot be saved right now" in said and "with saving" not in said, said
        assert_no_exception(page)
        shown = page.get_by_role("combobox", name="Results for").input_value()
        assert shown.startswith("after ·"), shown  # kept in the session, and shown
        [rescued] = srv.data.glob("workspaces.sqlite3.rescued-*")
        with sqlite3.connect(rescued) as db:
            assert [r[0] for r in db.execute("SELECT name FROM tokenizers")] == ["before"]
        context.close()
    finally:
        srv.stop()
