"""axe-core (4.12, bundled by axe-playwright-python) on every page: no serious or critical violations (conftest's
``assert_accessible``; in presenter mode, test_present.py). Each page is opened by its name (a link to
/compare or /tokenize must land on the page, never "Page not found"), so the same page open checks both.

Moderate and minor findings are printed, not failed. Known ones, all in Streamlit's own
markup: "heading-order" (moderate: st.title is an h1 and st.subheader an h3, with no h2
between) and "presentation-role-conflict" (minor: the file uploader's drop zone).
"""

import pytest
from playwright.sync_api import expect

from .conftest import assert_accessible, wait_idle

pytestmark = pytest.mark.browser

#: each page by its name (/tokenize lands at /, where the app keeps its first page)
PAGES = {
    "tokenize": "/tokenize",
    "lesson": "/lesson?chapter=3&step=2",
    "pretokenize": "/pretokenize",
    "compare": "/compare",
    "overlap": "/overlap",
    "train": "/train",
    "step-encoding": "/step?mode=encoding&tokenizer=cl100k_base&step=20",
    "step-training": "/step?mode=training&step=5",
    "vocabulary": "/vocabulary",
}
#: the page's title (its h1)
TITLES = {
    "tokenize": "Tokenize",
    "lesson": "Lesson",
    "pretokenize": "Pre-tokenize",
    "compare": "Compare",
    "overlap": "Overlap",
    "train": "Train",
    "step-encoding": "Step through",
    "step-training": "Step through",
    "vocabulary": "Vocabulary",
}
#: text that shows once a page that computes at its first open has finished (wait_idle alone may see the gap before its run)
READY = {"overlap": "How many pieces each token becomes"}


@pytest.mark.parametrize("name", list(PAGES))
def test_every_page_opens_at_its_name_with_no_serious_or_critical_accessibility_violations(page, server, trained, name):
    """Each page as it opens by its name; in presenter mode, test_present.py runs the same check on each page at a projector's
    1280x720 (where presenter mode is used), in the tab it already opened there."""
    path = PAGES[name].replace("step=5", f"tokenizer={trained}&step=5") if name == "step-training" else PAGES[name]
    page.goto(server.url + path)
    if name in READY:  # the first open on this server computes for a while (Overlap encodes every token both ways)
        page.get_by_text(READY[name]).first.wait_for(state="attached", timeout=180_000)
    wait_idle(page)
    page.wait_for_timeout(500)  # a "Page not found" dialog comes after the run
    expect(page.locator("h1").first).to_contain_text(TITLES[name])
    assert page.get_by_text("Page not found").count() == 0
    assert_accessible(page, name)


def test_the_token_list_is_hidden_from_screen_readers_and_read_from_a_table(page, server):
    page.goto(server.url + "/?tokenizer=r50k_base&text=Hello%20world")
    wait_idle(page)
    expect(page.locator(".bpe-live .bpe-spans").first).to_be_visible(timeout=90_000)  # drawn in the page (live view)
    spans = page.locator(".bpe-spans")  # the page's spans, and the same tokens again in pieces of N tokens
    assert spans.count() >= 2 and all(spans.nth(i).get_attribute("aria-hidden") == "true" for i in range(spans.count()))
    table = page.get_by_role("table", name="Tokens: 2 tokens")
    assert table.count() == 1
    rows = table.get_by_role("row")
    assert rows.nth(1).inner_text().split("\t") == ["1", "15496", "Hello", "48 65 6C 6C 6F"]
    assert rows.nth(2).inner_text().split("\t") == ["2", "995", "·world", "20 77 6F 72 6C 64"]
    # out of sight in a 1 px box that clips it (a table itself grows to its content), still in the accessibility tree
    style = table.evaluate(
        "t => { const s = getComputedStyle(t.parentElement); return [t.parentElement.className, s.position, s.clipPath, s.overflow, s.width]; }"
    )
    assert style == ["bpe-sr", "absolute", "inset(50%)", "hidden", "1px"]
