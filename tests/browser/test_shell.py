"""The app starts in a real browser and lists its pages in order."""

import pytest

from .conftest import assert_no_exception, screenshot, wait_idle

pytestmark = pytest.mark.browser

PAGES = ["Tokenize", "Compare", "Train", "Step through", "Vocabulary"]


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
