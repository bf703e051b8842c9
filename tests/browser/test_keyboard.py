"""Keyboard stepping on Step through with real key presses in Chromium: the keys run in the page, no server rerun."""

import pytest

from .conftest import assert_no_exception, screenshot
from .test_step import open_step, press_keys, shown, url_step, wait_step

pytestmark = pytest.mark.browser


def press(page, key: str, expect_step: int) -> None:
    page.keyboard.press(key)
    wait_step(page, expect_step)
    assert shown(page)[0] == expect_step


def test_arrows_home_end_and_space(page, server):
    open_step(
        page,
        server.url + "/step?mode=encoding&tokenizer=r50k_base&step=5&text=tokenization%20and%20Honolulu%2C%20again%20and%20again",
    )
    n = shown(page)[1]
    page.locator("h1").first.click()  # focus on the page, not in a field
    # all in the page: no message to the server while the keys are pressed
    seen = press_keys(page, ["ArrowRight", "ArrowRight", "ArrowLeft", "End", "ArrowRight", "Home", "ArrowLeft"])
    steps = [6, 7, 6, n, n, 0, 0]  # Next is disabled at the end, Prev at the start: nothing happens
    assert [s["k"] for s in seen] == steps
    assert [int(s["shown"].split(" of ")[0].replace(",", "")) for s in seen] == steps
    page.keyboard.press(" ")  # play
    page.wait_for_function("+document.querySelector('.bpe-stepper').dataset.k >= 2", timeout=30_000)
    page.keyboard.press(" ")  # pause
    page.get_by_role("button", name="▶ Play").wait_for()
    k = shown(page)[0]
    page.wait_for_timeout(1500)
    assert k >= 2 and url_step(page) == k and shown(page)[0] == k  # paused, and the address bar says where
    assert_no_exception(page)
    screenshot(page, "step-keyboard")


def test_keys_typed_in_a_text_field_stay_text(page, server):
    open_step(page, server.url + "/step?mode=encoding&tokenizer=cl100k_base&step=3")
    box = page.get_by_role("textbox", name="Text to encode")
    box.click()
    for key in ("ArrowRight", "ArrowLeft", "End", "Home", " "):
        page.keyboard.press(key)
    page.wait_for_timeout(500)
    assert shown(page)[0] == 3
    assert page.get_by_role("button", name="⏸ Pause").count() == 0
    word = page.get_by_role("textbox", name="Word")
    word.click()
    page.keyboard.press("End")
    page.keyboard.press("ArrowLeft")
    page.wait_for_timeout(300)
    assert shown(page)[0] == 3
    page.get_by_role("slider").focus()  # the slider takes its own arrow keys: one step each, as a slider does
    page.keyboard.press("ArrowRight")
    wait_step(page, 4)


def test_space_after_clicking_next_plays_instead_of_pressing_next_again(page, server):
    open_step(page, server.url + "/step?mode=encoding&tokenizer=r50k_base&step=0")
    page.get_by_role("button", name="Next ▶").click()  # the button keeps the focus
    wait_step(page, 1)
    page.keyboard.press(" ")
    page.get_by_role("button", name="⏸ Pause").wait_for()
    page.keyboard.press(" ")
    page.get_by_role("button", name="▶ Play").wait_for()
    assert_no_exception(page)


def test_training_mode_steps_with_the_keyboard(page, server, trained):
    open_step(page, server.url + f"/step?mode=training&tokenizer={trained}&step=10")
    assert shown(page)[0] == 10
    page.locator("h1").first.click()
    press(page, "ArrowRight", 11)
    press(page, "Home", 0)
    assert_no_exception(page)
