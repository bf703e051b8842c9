"""Trained tokenizers survive a server restart in local mode and stay private in shared mode (one process, no proxy:
the browser's key comes from serve.py's middleware; the classroom deployment is tests/browser/test_classroom.py)."""

import re

import pytest

from .conftest import StreamlitServer, assert_no_exception, screenshot, wait_idle

pytestmark = pytest.mark.browser


def new_page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1400})
    page = context.new_page()
    page.set_default_timeout(60_000)
    return context, page


def train_honolulu(page, url, name):
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


def test_survives_a_server_restart(browser, tmp_path):
    ws = tmp_path / "ws"
    first = StreamlitServer(ws).start()
    try:
        context, page = new_page(browser)
        train_honolulu(page, first.url, "aloha")
        context.close()
    finally:
        first.stop()
    assert list(ws.glob("aloha-*.json")) and list(ws.glob("aloha-*.corpus.txt"))
    second = StreamlitServer(ws).start()
    try:
        context, page = new_page(browser)
        page.goto(second.url + "/train")
        wait_idle(page)
        shown = page.get_by_role("combobox", name="Results for")
        assert shown.input_value().startswith("aloha · ")
        page.reload()  # and after a page reload
        wait_idle(page)
        assert page.get_by_role("combobox", name="Results for").input_value().startswith("aloha · ")
        page.goto(second.url + "/vocabulary")
        wait_idle(page)
        menu = page.locator('[data-testid="stSelectbox"]').filter(has_text="Tokenizer").locator("input").first
        menu.click()
        menu.fill("aloha")  # the list draws only the options in view, and the official models come first
        page.get_by_role("option").first.wait_for()
        assert page.get_by_role("option", name=re.compile("aloha \\(yours")).count() == 1
        page.keyboard.press("Escape")
        assert_no_exception(page)
        screenshot(page, "persistence-after-restart")
        context.close()
    finally:
        second.stop()


def test_shared_mode_keeps_sessions_apart(browser, tmp_path):
    srv = StreamlitServer(tmp_path / "ws", shared=True).start()
    try:
        ctx_a, a = new_page(browser)
        train_honolulu(a, srv.url, "alice")
        ctx_b, b = new_page(browser)
        b.goto(srv.url + "/train")
        wait_idle(b)
        b.get_by_text("Nothing trained yet").wait_for()
        assert b.get_by_text("alice").count() == 0
        b.goto(srv.url + "/vocabulary")
        wait_idle(b, timeout=90_000)
        b.locator('[data-testid="stSelectbox"]').filter(has_text="Tokenizer").locator("input").first.click()
        b.get_by_role("option").first.wait_for()
        assert b.get_by_role("option", name=re.compile("alice")).count() == 0
        b.keyboard.press("Escape")
        assert a.get_by_role("combobox", name="Results for").input_value().startswith("alice · ")  # still there for its owner
        assert not list((tmp_path / "ws").glob("*.json"))  # not in the local-mode folder: in the database
        a.reload()  # a new session for the same browser: the cookie serve.py's middleware set finds the work again
        wait_idle(a)
        assert a.get_by_role("combobox", name="Results for").input_value().startswith("alice · ")
        assert_no_exception(b)
        screenshot(b, "persistence-shared-other-session")
        ctx_a.close()
        ctx_b.close()
    finally:
        srv.stop()
