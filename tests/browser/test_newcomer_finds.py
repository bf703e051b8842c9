"""What a newcomer still found (issue 33), each in Chromium at the widths a person uses, with a screenshot of the
fixed view: pages as tall and as wide as what they show, heatmaps that name every row and column, decoding ids on
Tokenize, one numbering of a merge on every page, and Compare's tokenizers picked at once and shared by a link."""

from __future__ import annotations

import contextlib

import pytest
from playwright.sync_api import expect

from ui.content import corpora

from .conftest import SCREENSHOTS, assert_no_exception, paste, tab, wait_idle

pytestmark = pytest.mark.browser

#: (id, width, height): a wide desktop and a phone
WIDE_AND_PHONE = [("1920", 1920, 1080), ("390", 390, 844)]

#: How far the page scrolls past what it shows: its own bottom padding (Streamlit's block container's) plus a little,
#: and how far it may scroll sideways (none); the last visible content is the lowest box of an element with no child
#: elements (or a drawing, a form control), leaving out what is hidden for screen readers.
EXTENT = """() => {
    const main = document.querySelector('[data-testid="stMain"]');
    const block = document.querySelector('[data-testid="stMainBlockContainer"]');
    const top = main.getBoundingClientRect().top - main.scrollTop;
    let bottom = 0;
    for (const e of main.querySelectorAll('*')) {
        if (e.closest('.bpe-sr') || (e.closest('svg') && e.tagName !== 'svg')) continue;
        const whole = ['svg', 'canvas', 'textarea', 'input', 'img', 'button'].includes(e.tagName.toLowerCase());
        if (e.children.length && !whole) continue;
        const r = e.getBoundingClientRect();
        if (r.width === 0 || r.height === 0 || getComputedStyle(e).visibility === 'hidden') continue;
        bottom = Math.max(bottom, r.bottom - top);
    }
    const doc = document.documentElement;
    return {height: main.scrollHeight, bottom, padding: parseFloat(getComputedStyle(block).paddingBottom),
            wide: Math.max(main.scrollWidth - main.clientWidth, doc.scrollWidth - doc.clientWidth)};
}"""


@contextlib.contextmanager
def sized(tabs, server, width: int, height: int):
    with tab(tabs, server, width, height, 120_000) as pg:
        yield pg


def shot(page, name: str, *, bottom: bool = False) -> None:
    """One screen of the page as a person sees it; ``bottom``: scrolled to its end (where a blank would show)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    if bottom:
        page.evaluate("() => { const m = document.querySelector('[data-testid=\"stMain\"]'); m.scrollTop = m.scrollHeight; }")
    page.mouse.move(0, 0)
    page.wait_for_timeout(300)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


def assert_no_blank_below_or_beside(page, label: str) -> None:
    m = page.evaluate(EXTENT)
    print(label, m)
    assert m["bottom"] > 300, m  # the page drew something
    assert m["height"] <= m["bottom"] + m["padding"] + 60, f"{label}: the page scrolls past its content: {m}"
    assert m["wide"] <= 1, f"{label}: the page scrolls sideways: {m}"


@pytest.mark.parametrize("size", WIDE_AND_PHONE, ids=[s[0] for s in WIDE_AND_PHONE])
def test_pages_end_where_their_content_ends(tabs, server, trained, size):
    """The screen readers' tables take no room: Tokenize with a long paste, Step through training, Pre-tokenize."""
    name, width, height = size
    with sized(tabs, server, width, height) as pg:
        pg.goto(server.url + "/")
        wait_idle(pg, timeout=120_000)
        long = corpora.text("about-bpe")
        long = (long * (1 + 6_700 // len(long)))[:6_700]
        paste(pg, long)
        expect(pg.locator(".bpe-live .bpe-spans").first).to_be_visible(timeout=90_000)
        pg.wait_for_timeout(1_500)  # the screen readers' table is filled a block per frame
        wait_idle(pg)
        assert_no_blank_below_or_beside(pg, f"tokenize@{name}")
        shot(pg, f"newcomer33-tokenize-long-{name}", bottom=True)

        pg.goto(server.url + f"/step?mode=training&tokenizer={trained}&step=40")
        pg.locator(".bpe-stepper[data-k]").wait_for(timeout=60_000)
        wait_idle(pg)
        pg.wait_for_timeout(800)  # the screen readers' table follows once stepping rests
        assert pg.locator(".bpe-st-sr .bpe-sr table tr").count() > 100  # the table is there, only out of sight
        assert_no_blank_below_or_beside(pg, f"step@{name}")
        shot(pg, f"newcomer33-step-training-{name}", bottom=True)

        pg.goto(server.url + "/pretokenize")
        wait_idle(pg, timeout=120_000)
        pg.locator(".bpe-row").first.wait_for()
        assert_no_blank_below_or_beside(pg, f"pretokenize@{name}")
        shot(pg, f"newcomer33-pretokenize-{name}", bottom=True)
        assert_no_exception(pg)
