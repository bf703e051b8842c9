"""The Lesson page in Chromium: every chapter, at a projector's 1280x720 in presenter mode and at 1400x900, moved
through with Next and with the keys; the chapter and the step in the address bar; the figure on the first screen;
a question answered wrong, then right."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from ui.lesson import model

from .conftest import assert_no_exception, screenshot, tab, wait_idle

pytestmark = pytest.mark.browser

#: what a chapter's figure is drawn as: token or chunk rows, the stepper, a chart
FIGURE = ".bpe-stepper[data-k], .bpe-row, [data-testid='stVegaLiteChart']"


def url_chapter(page) -> int:
    return int(re.search(r"[?&]chapter=(\d+)", page.url).group(1))


def figure_top(page) -> float:
    fig = page.locator(FIGURE).first
    fig.wait_for(timeout=60_000)
    box = fig.bounding_box()
    assert box is not None
    return box["y"]


def at_chapter(page, n: int) -> None:
    page.wait_for_url(re.compile(rf"[?&]chapter={n}(&|$)"), timeout=30_000)
    wait_idle(page)
    expect(page.get_by_text(f"{n}. {model.chapter(n).title}", exact=False).first).to_be_visible()


@pytest.fixture
def wide(tabs, server):
    with tab(tabs, server, 1400, 900, 60_000) as pg:
        yield pg


def test_presenter_mode_puts_every_chapters_figure_on_the_first_screen(projector, server):
    projector.goto(server.url + "/lesson?chapter=1&present=1")
    wait_idle(projector)
    for n in range(1, model.N + 1):
        at_chapter(projector, n)
        assert "present=1" in projector.url
        top = figure_top(projector)
        assert top < 720, f"chapter {n}: the figure starts at {top:.0f} px, below a 720 px projector's first screen"
        # the explanation is folded away, one click from the screen
        about = projector.get_by_text(f"{n}. {model.chapter(n).title}", exact=False).first
        assert projector.locator('[data-testid="stExpander"] details').first.evaluate("d => d.open") is False
        if n in (1, 3, 7, 9):
            screenshot(projector, f"lesson-present-{n}")
        if n == 1:
            about.click()
            expect(projector.get_by_text("code points", exact=False).first).to_be_visible()
        assert_no_exception(projector)
        if n < model.N:
            projector.get_by_role("button", name="Next chapter ▶").click()


def test_a_student_goes_through_every_chapter_with_next_and_the_keys(wide, server):
    wide.goto(server.url + "/lesson")
    wait_idle(wide)
    for n in range(1, model.N + 1):
        at_chapter(wide, n)
        assert url_chapter(wide) == n
        top = figure_top(wide)
        assert top < 720, f"chapter {n}: the figure starts at {top:.0f} px"
        if model.chapter(n).stepper:
            wide.wait_for_url(re.compile(r"[?&]step=\d+"), timeout=30_000)
        if n in (2, 5):
            screenshot(wide, f"lesson-{n}")
        assert_no_exception(wide)
        if n == model.N:
            break
        wide.locator("h1").first.click()  # the keys act when no text box has the cursor
        if n % 3 == 1:
            wide.get_by_role("button", name="Next chapter ▶").click()
        elif n % 3 == 2 or model.chapter(n).stepper:
            wide.keyboard.press("PageDown")
        else:
            wide.keyboard.press("ArrowRight")
    # and back: PageUp, ← where no stepper takes it, and the Back button
    wide.locator("h1").first.click()
    wide.keyboard.press("PageUp")
    at_chapter(wide, 8)
    wide.locator("h1").first.click()
    wide.keyboard.press("ArrowLeft")
    at_chapter(wide, 7)
    wide.get_by_role("button", name="◀ Back").click()
    at_chapter(wide, 6)


def test_a_link_opens_chapter_3_at_step_2_and_the_address_follows_the_stepper(wide, server):
    wide.goto(server.url + "/lesson?chapter=3&step=2")
    wide.locator(".bpe-stepper[data-k]").wait_for(timeout=60_000)
    wait_idle(wide)
    assert wide.locator(".bpe-stepper").get_attribute("data-k") == "2"
    expect(wide.get_by_text("Repeat: merge after merge").first).to_be_visible()
    wide.locator("h1").first.click()
    wide.keyboard.press("ArrowRight")  # the stepper's key in a stepping chapter: one step, the chapter stays
    wide.wait_for_function("document.querySelector('.bpe-stepper')?.dataset.k === '3'", timeout=10_000)
    wide.wait_for_url(re.compile(r"[?&]step=3(&|$)"), timeout=10_000)
    assert url_chapter(wide) == 3
    screenshot(wide, "lesson-3-step-3")


def test_own_text_and_a_question_answered_wrong_then_right(wide, server):
    wide.goto(server.url + "/lesson?chapter=1")
    wait_idle(wide)
    box = wide.get_by_label("Your text (edit it, or pick an example)")
    box.fill("naïve 😄")
    box.press("Enter")
    wait_idle(wide)
    expect(wide.locator(".bpe-row").nth(1)).to_contain_text("11 tokens")
    prompt = wide.get_by_text(re.compile(r"How many UTF-8 bytes is")).first.inner_text()
    subject = re.search(r"is (.+)\?$", prompt.strip()).group(1).strip("`")
    right = len(subject.encode("utf-8"))
    answer = wide.get_by_label("Your answer (a number)")
    answer.fill(str(right + 1))
    wide.get_by_role("button", name="Check").click()
    wait_idle(wide)
    expect(wide.get_by_text(re.compile(rf"Not {right + 1}: it is {right}\."))).to_be_visible()
    answer.fill(str(right))
    wide.get_by_role("button", name="Check").click()
    wait_idle(wide)
    expect(wide.get_by_text(re.compile(rf"Right: {right}\."))).to_be_visible()
    screenshot(wide, "lesson-1-answered")
