"""The Train page in a real browser: train with the progress bar, see the results."""

import re

import pytest

from .conftest import assert_no_exception, open_list, screenshot, wait_idle

pytestmark = pytest.mark.browser


def tall(page, height=2600):
    page.set_viewport_size({"width": 1400, "height": height})


def test_train_with_progress_bar(page, server):
    page.goto(server.url + "/train")
    wait_idle(page)
    page.get_by_role("button", name=re.compile("Train$")).click()
    progress = page.locator('[data-testid="stProgress"]')
    progress.wait_for()
    page.get_by_text(re.compile(r"Done: [\d,]+ merges in [\d.]+ s")).wait_for()
    wait_idle(page)
    assert_no_exception(page)
    assert page.get_by_text(re.compile(r"Trained .*: 744 merges in")).count() == 1
    tall(page)  # everything on screen (tables below the fold are drawn lazily)
    page.locator('[data-testid="stDataFrame"]').first.wait_for()
    page.locator('[data-testid="stVegaLiteChart"]').nth(1).wait_for()
    values = page.locator('[data-testid="stMetricValue"]').all_inner_texts()
    assert values[:2] == ["1,000", "744"]
    page.wait_for_timeout(800)  # let the charts lay out at the new size
    screenshot(page, "train")


def test_bad_custom_regex_is_a_message(page, server):
    page.goto(server.url + "/train")
    wait_idle(page)
    box = page.locator('[data-testid="stSelectbox"]').filter(has_text="Split pattern")
    open_list(page, box.locator("input").first)
    page.get_by_role("option", name="Custom regex…").click()
    wait_idle(page)
    box = page.get_by_role("textbox", name="Custom split regex")
    box.fill("(unclosed")
    box.press("Enter")
    wait_idle(page)
    page.get_by_text("not a valid regex").first.wait_for()
    assert page.get_by_role("button", name=re.compile("Train$")).is_disabled()
    assert_no_exception(page)
    screenshot(page, "train-bad-regex")


def test_link_from_results_to_step_through(page, server):
    page.goto(server.url + "/train")
    wait_idle(page)
    page.get_by_role("button", name=re.compile("Train$")).click()
    page.get_by_text(re.compile(r"Done: [\d,]+ merges")).wait_for()
    wait_idle(page)
    page.get_by_text("Step through this training, merge by merge").click()
    page.get_by_text("0 of 744").first.wait_for()
    wait_idle(page)
    assert "mode=training" in page.url and "tokenizer=user" in page.url
    assert page.locator(".bpe-spans .t.hl").count() > 0
    assert_no_exception(page)
