"""Presenter mode in a real browser at 1280×720: every page, from a prepared link, with no serious or critical
accessibility violation (axe-core, as in test_a11y.py)."""

import pytest
from playwright.sync_api import expect

from .conftest import assert_accessible, assert_no_exception, screenshot, wait_idle

pytestmark = pytest.mark.browser

PAGES = [
    ("tokenize", "/"),
    ("lesson", "/lesson?chapter=7"),
    ("lesson-stepping", "/lesson?chapter=3&step=2"),
    ("pretokenize", "/pretokenize"),
    ("compare", "/compare"),
    ("overlap", "/overlap"),
    ("train", "/train"),
    ("step", "/step?mode=encoding&tokenizer=cl100k_base&step=40"),
    ("step-training", "/step?mode=training&tokenizer={trained}&step=5"),
    ("vocabulary", "/vocabulary"),
]


#: the text of every chart on the page drawn smaller than ``least`` px on screen, as [kind, class, px]: Step's SVG
#: charts scale with their width (font size in viewBox units), Vega-Lite's are drawn at their size, the bars are HTML
_SMALL_CHART_TEXT = """least => {
  const out = [];
  for (const s of document.querySelectorAll('svg.bpe-st-chart')) {
    const k = s.getBoundingClientRect().width / s.viewBox.baseVal.width;
    for (const t of s.querySelectorAll('text')) out.push(['step', t.getAttribute('class'), parseFloat(getComputedStyle(t).fontSize) * k]);
  }
  const roles = ['axis-label', 'axis-title', 'legend-label', 'legend-title', 'title-text'].map(r => `g.role-${r} text`).join(',');
  for (const t of document.querySelectorAll(`[data-testid="stVegaLiteChart"] svg :is(${roles})`))
    out.push(['vega', t.closest('g[class*="role-"]').getAttribute('class'), parseFloat(getComputedStyle(t).fontSize)]);
  for (const e of document.querySelectorAll('.bpe-st-bars .lbl')) out.push(['bars', 'lbl', parseFloat(getComputedStyle(e).fontSize)]);
  return out.filter(([, , px]) => px < least - 0.5).map(([k, c, px]) => [k, c, Math.round(px * 10) / 10]);
}"""


def with_present(path: str) -> str:
    return path + ("&" if "?" in path else "?") + "present=1"


@pytest.mark.parametrize("name, path", PAGES, ids=[n for n, _ in PAGES])
def test_every_page_in_presenter_mode_at_1280x720(projector, server, trained, name, path):
    page = projector
    page.goto(server.url + with_present(path.format(trained=trained)))
    page.locator(".bpe-present").wait_for(state="attached")
    if name == "overlap":  # its first open on this server encodes every token both ways
        page.get_by_text("How many pieces each token becomes").wait_for(state="attached", timeout=180_000)
    wait_idle(page)
    assert page.locator(".bpe-present").count() == 1
    assert page.evaluate("() => getComputedStyle(document.documentElement).fontSize") == "22px"
    assert page.locator('[data-testid="stSidebarNav"]').count() == 0
    expect(page.locator('[data-testid="stTopNav"]')).to_contain_text("Pre-tokenize")  # the page list is on top
    assert page.locator('[data-testid="stSidebar"]').get_attribute("data-collapsed") == "true"  # folded away
    assert "present=1" in page.url
    spans = page.locator(".bpe-spans .t")
    if spans.count():
        size = float(spans.first.evaluate("e => getComputedStyle(e).fontSize").removesuffix("px"))
        assert size >= 28  # about twice the normal 15 px
    small = page.evaluate(_SMALL_CHART_TEXT, 22)  # the body text's size there
    assert not small, f"{name}: chart text under 22 px in presenter mode: {small[:5]}"
    assert_no_exception(page)
    screenshot(page, f"present-{name}")
    if name == "step":  # the stepping view itself comes first (tests/browser/test_step.py checks it is on the first screen)
        page.locator(".bpe-stepper").first.scroll_into_view_if_needed()
        page.wait_for_timeout(300)
        screenshot(page, "present-step-stepping")
    assert_accessible(page, f"{name} (presenter)")


def test_the_mode_follows_the_user_to_another_page_and_switches_off(projector, server):
    page = projector
    page.goto(server.url + "/?present=1")
    wait_idle(page)
    page.locator('[data-testid="stTopNavLink"]', has_text="Compare").click()
    wait_idle(page)
    page.get_by_text("Token tax by language").first.wait_for()
    assert "/compare" in page.url and "present=1" in page.url
    assert page.locator(".bpe-present").count() == 1
    folded = page.locator('[data-testid="stExpander"]', has_text="Sample set: compression per tokenizer")
    expect(folded).to_be_visible()  # folded into an expander
    expect(folded.locator('[data-testid="stVegaLiteChart"]')).to_be_hidden()  # closed
    page.locator('[data-testid="stExpandSidebarButton"]').click()
    page.get_by_text("Presenter mode").click()
    wait_idle(page)
    assert page.locator(".bpe-present").count() == 0
    assert "present=1" not in page.url
    expect(page.locator('[data-testid="stSidebarNav"]')).to_be_visible()
    assert_no_exception(page)


#: what each page is about, and where it is: the first screen of a 1280×720 projector ends at 720 px, and the figure
#: starts well above it, with its first lines in view
FIGURES = [
    ("tokenize", "/", ".bpe-live .bpe-spans"),
    ("pretokenize", "/pretokenize", ".bpe-row-head, .bpe-spans"),
    ("compare", "/compare", ".bpe-row-head, .bpe-spans"),
] + [(f"lesson-{c}", f"/lesson?chapter={c}", ".bpe-spans, [data-testid='stVegaLiteChart'], .bpe-stepper") for c in range(1, 10)]


@pytest.mark.parametrize("name, path, figure", FIGURES, ids=[n for n, _, _ in FIGURES])
def test_the_figure_starts_on_the_first_screen(projector, server, name, path, figure):
    page = projector
    page.goto(server.url + with_present(path))
    page.locator(".bpe-present").wait_for(state="attached")
    wait_idle(page)
    found = page.locator(figure).first
    found.wait_for(timeout=60_000)
    top = found.evaluate("e => e.getBoundingClientRect().top + document.querySelector('[data-testid=stMain]').scrollTop")
    assert top < 570, (name, top)
    expect(page.get_by_text("About this page").or_(page.locator("[data-testid='stExpander']")).first).to_be_visible()
    assert_no_exception(page)
