"""The app starts in a real browser, lists its pages in order, and any page can be the first one opened."""

import re
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from .conftest import StreamlitServer, assert_no_exception, screenshot, tab, wait_idle

pytestmark = pytest.mark.browser

PAGES = ["Tokenize", "Lesson", "Compare", "Train", "Step through", "Vocabulary"]


def test_navigation_lists_every_page(page, server):
    page.goto(server.url)
    wait_idle(page)
    nav = page.locator('[data-testid="stSidebarNav"]')
    text = nav.inner_text()
    positions = [text.find(p) for p in PAGES]
    assert all(p >= 0 for p in positions), text
    assert positions == sorted(positions)
    assert_no_exception(page)
    screenshot(page, "shell")


def assert_inside_the_app(page) -> None:
    """What only app.py gives a page: our navigation and sidebar, the wide layout; and no "Page not found"."""
    nav = page.locator('[data-testid="stSidebarNav"]').inner_text()
    assert all(p in nav for p in PAGES), nav  # the app's titles, not the pages/ folder's file names
    expect(page.locator('[data-testid="stSidebar"]')).to_contain_text("BPE Lab shows how byte-level BPE tokenizers")
    block = page.locator('[data-testid="stMainBlockContainer"]')
    assert block.evaluate("e => getComputedStyle(e).maxWidth") == "none"  # layout="wide" (centered caps it at 736px)
    assert page.get_by_text("Page not found").count() == 0
    styles = "() => [...document.querySelectorAll('style')].filter(s => s.textContent.includes('.bpe-spans')).length"
    # waited for, since a fresh server's first page, settled by wait_idle, can still be read before its stylesheet;
    # one that never comes, or twice, fails
    page.wait_for_function(f"({styles})() > 0", timeout=20_000)
    assert page.evaluate(styles) == 1  # the stylesheet, once
    assert_no_exception(page)


@pytest.mark.parametrize(
    "path, shows",
    [
        (
            "/compare?tokenizers=o200k_base,bytes&text=" + quote("Hello 你好"),
            lambda page: expect(page.locator(".bpe-row")).to_have_count(2, timeout=90_000),
        ),
        ("/vocabulary", lambda page: page.get_by_text(re.compile(r"100,261 of 100,261 tokens match")).wait_for()),
        ("/", lambda page: expect(page.locator(".bpe-spans .t").first).to_be_visible(timeout=90_000)),
    ],
    ids=["compare", "vocabulary", "root"],
)
def test_the_first_page_opened_on_a_fresh_server_is_inside_the_app(browser, tmp_path, path, shows):
    """Streamlit starts in its "pages folder" mode; the first visitor's link must still go through app.py
    (see ui/common/shell.py). A link to step 12 is tested in test_step.py."""
    srv = StreamlitServer(tmp_path / "ws").start()
    try:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        page.set_default_timeout(90_000)
        page.goto(srv.url + path)
        wait_idle(page, timeout=90_000)
        shows(page)
        wait_idle(page)
        assert page.url.startswith(srv.url + path.split("?")[0])
        assert_inside_the_app(page)
        context.close()
    finally:
        srv.stop()


def test_each_test_starts_as_a_new_visitor(tabs, server):
    """The tests' pages are tabs of one browser context (conftest ``tab``): what one stores in the browser (a cookie,
    local storage, Cache Storage, where the live view keeps model files) is gone for the next."""
    stored = """async () => [document.cookie.includes('left=1'), localStorage.getItem('left'), await caches.has('left')]"""
    with tab(tabs, server, 1400, 1000, 30_000) as first:
        first.goto(server.url + "/")
        wait_idle(first)
        first.evaluate(
            """async () => { document.cookie = 'left=1; path=/'; localStorage.setItem('left', '1');
                             await (await caches.open('left')).put('/left', new Response('1')); }"""
        )
        assert first.evaluate(stored) == [True, "1", True]
    with tab(tabs, server, 1400, 1000, 30_000) as second:
        second.goto(server.url + "/")
        wait_idle(second)
        assert second.evaluate(stored) == [False, None, False]
