"""Keyboard stepping on Step through with real key presses in Chromium."""

import pytest

from .conftest import assert_no_exception, screenshot, wait_idle

pytestmark = pytest.mark.browser


def shown(page) -> tuple[int, int]:
    a, b = page.locator('[data-testid="stMetricValue"]').first.inner_text().split(" of ")
    return int(a.replace(",", "")), int(b.replace(",", ""))


def url_step(page) -> int:
    return int(page.url.split("step=")[1].split("&")[0])


def press(page, key: str, expect_step: int) -> None:
    page.keyboard.press(key)
    page.get_by_text(f"{expect_step:,} of").first.wait_for()
    wait_idle(page)
    assert shown(page)[0] == expect_step
    assert url_step(page) == expect_step  # the step in the URL follows


def test_arrows_home_end_and_space(page, server):
    page.goto(
        server.url + "/step?mode=encoding&tokenizer=r50k_base&step=5&text=tokenization%20and%20Honolulu%2C%20again%20and%20again"
    )
    wait_idle(page)
    page.get_by_text("5 of").first.wait_for()
    wait_idle(page)
    n = shown(page)[1]
    page.locator("h1").first.click()  # focus on the page, not in a field
    press(page, "ArrowRight", 6)
    press(page, "ArrowRight", 7)
    press(page, "ArrowLeft", 6)
    press(page, "End", n)
    press(page, "ArrowRight", n)  # Next is disabled at the end: nothing happens
    press(page, "Home", 0)
    press(page, "ArrowLeft", 0)
    page.keyboard.press(" ")  # play
    page.wait_for_function(
        """() => { const m = document.querySelector('[data-testid="stMetricValue"]');
                   return m && parseInt(m.innerText.split(' of ')[0]) >= 2; }""",
        timeout=30_000,
    )
    page.keyboard.press(" ")  # pause
    page.get_by_role("button", name="Play").wait_for()
    wait_idle(page)
    k = shown(page)[0]
    assert k >= 2 and url_step(page) == k
    page.wait_for_timeout(1500)
    assert shown(page)[0] == k  # paused
    assert_no_exception(page)
    screenshot(page, "step-keyboard")


def test_keys_typed_in_a_text_field_stay_text(page, server):
    page.goto(server.url + "/step?mode=encoding&tokenizer=cl100k_base&step=3")
    wait_idle(page)
    page.get_by_text("3 of").first.wait_for()
    box = page.get_by_role("textbox", name="Text to encode")
    box.click()
    for key in ("ArrowRight", "ArrowLeft", "End", "Home", " "):
        page.keyboard.press(key)
    page.wait_for_timeout(1000)
    assert shown(page)[0] == 3
    assert page.get_by_role("button", name="Pause").count() == 0
    word = page.get_by_role("textbox", name="Word")
    word.click()
    page.keyboard.press("End")
    page.keyboard.press("ArrowLeft")
    page.wait_for_timeout(500)
    assert shown(page)[0] == 3


def test_space_after_clicking_next_plays_instead_of_pressing_next_again(page, server):
    page.goto(server.url + "/step?mode=encoding&tokenizer=r50k_base&step=0")
    wait_idle(page)
    page.get_by_text("0 of").first.wait_for()
    page.get_by_role("button", name="Next ▶").click()  # the button keeps the focus
    page.get_by_text("1 of").first.wait_for()
    wait_idle(page)
    page.keyboard.press(" ")
    page.get_by_role("button", name="Pause").wait_for()
    page.keyboard.press(" ")
    page.get_by_role("button", name="Play").wait_for()
    wait_idle(page)
    assert_no_exception(page)


def test_training_mode_steps_with_the_keyboard(page, server, trained):
    page.goto(server.url + f"/step?mode=training&tokenizer={trained}&step=10")
    wait_idle(page)
    page.get_by_text("10 of").first.wait_for()
    wait_idle(page)
    page.locator("h1").first.click()
    press(page, "ArrowRight", 11)
    press(page, "Home", 0)
    assert_no_exception(page)
