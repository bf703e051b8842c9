"""The Step through page in a real browser: autoplay, the controls, a link to a step."""

import re

import pytest

from .conftest import StreamlitServer, assert_no_exception, screenshot, wait_idle
from .test_shell import assert_inside_the_app

pytestmark = pytest.mark.browser


def step_shown(page) -> int:
    text = page.locator('[data-testid="stMetricValue"]').first.inner_text()
    return int(text.split(" of ")[0].replace(",", ""))


def test_three_steps_of_play_mode(page, server):
    page.goto(server.url + "/step?mode=encoding&tokenizer=r50k_base&step=0")
    wait_idle(page)
    page.get_by_text("0 of").first.wait_for()
    assert step_shown(page) == 0
    page.get_by_role("button", name=re.compile("Play")).click()
    page.wait_for_function(
        """() => { const m = document.querySelector('[data-testid="stMetricValue"]');
                   return m && parseInt(m.innerText.split(' of ')[0].replace(/,/g, '')) >= 3; }""",
        timeout=30_000,
    )
    page.get_by_role("button", name=re.compile("Pause")).click()
    wait_idle(page)
    k = step_shown(page)
    assert k >= 3
    assert f"step={k}" in page.url
    # paused: the step stays where it is
    page.wait_for_timeout(1500)
    assert step_shown(page) == k
    assert_no_exception(page)
    screenshot(page, "step-play", height=2000)


def test_next_and_previous_move_one_step(page, server):
    page.goto(server.url + "/step?mode=encoding&tokenizer=cl100k_base&step=5")
    wait_idle(page)
    page.get_by_text("5 of").first.wait_for()
    page.get_by_role("button", name="Next ▶").click()
    page.get_by_text("6 of").first.wait_for()
    page.get_by_role("button", name="◀ Prev").click()
    page.get_by_text("5 of").first.wait_for()
    page.get_by_role("button", name="Last ⏭").click()
    page.wait_for_function(
        """() => { const m = document.querySelector('[data-testid="stMetricValue"]');
                   if (!m) return false; const [a, b] = m.innerText.split(' of '); return a === b; }"""
    )
    wait_idle(page)
    assert f"step={step_shown(page)}" in page.url
    assert page.get_by_role("button", name="Next ▶").is_disabled()
    assert_no_exception(page)


def test_training_mode_with_a_demo_tokenizer(page, server):
    page.goto(server.url + "/step?mode=training")
    wait_idle(page)
    demo = page.get_by_role("button", name=re.compile("Train a demo tokenizer"))
    demo.or_(page.get_by_text("0 of")).first.wait_for()  # a fresh workspace offers the demo
    if demo.count():
        demo.click()
    page.get_by_text("0 of").first.wait_for()
    for k in (1, 2):
        page.get_by_role("button", name="Next ▶").click()
        page.get_by_text(f"{k} of").first.wait_for()
    wait_idle(page)
    assert page.get_by_text(re.compile("Step 3 merges")).count() == 1
    assert page.locator(".bpe-spans .t.hl").count() > 0
    assert page.locator(".bpe-spans .cut").count() > 0  # the GPT-4 pattern's chunk boundaries
    assert_no_exception(page)
    screenshot(page, "step-training", height=2200)


def test_a_link_to_step_12_on_a_fresh_server(browser, tmp_path):
    """The first visitor of a just-started server opens a teacher's link: it still goes through app.py."""
    srv = StreamlitServer(tmp_path / "ws").start()
    try:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        page.set_default_timeout(60_000)
        page.goto(srv.url + "/step?mode=encoding&tokenizer=r50k_base&step=12&text=tokenization%20and%20Honolulu")
        wait_idle(page)
        page.get_by_text("12 of").first.wait_for()
        wait_idle(page)
        nav = page.locator('[data-testid="stSidebarNav"]').inner_text()
        assert "Step through" in nav and "vocabulary" not in nav  # the app's navigation, not the folder's
        assert_inside_the_app(page)  # sidebar, wide layout, no "Page not found"
        assert "tokenization and Honolulu" in page.get_by_role("textbox", name="Text to encode").input_value()
        assert "step=12" in page.url
        screenshot(page, "step-link-fresh-server")
        context.close()
    finally:
        srv.stop()


def test_play_stops_by_itself_at_the_last_step(page, server):
    page.goto(server.url + "/step?mode=encoding&tokenizer=r50k_base&step=0&text=Honolulu")
    wait_idle(page)
    page.get_by_text("0 of").first.wait_for()
    page.get_by_role("button", name=re.compile("Play")).click()
    page.wait_for_function(
        """() => { const m = document.querySelector('[data-testid="stMetricValue"]');
                   if (!m) return false; const [a, b] = m.innerText.split(' of '); return a === b; }""",
        timeout=30_000,
    )
    page.get_by_role("button", name=re.compile("Play$")).wait_for()  # Pause turned back into Play
    page.wait_for_timeout(2500)  # the timer is gone: nothing moves, nothing reruns
    a, b = page.locator('[data-testid="stMetricValue"]').first.inner_text().split(" of ")
    assert a == b
    assert page.get_by_role("button", name=re.compile("Pause")).count() == 0
    assert_no_exception(page)


def test_a_link_steps_through_qwens_own_merges(page, server):
    page.goto(server.url + "/step?mode=encoding&tokenizer=qwen2.5&step=3&text=tokenization+你好")
    wait_idle(page, timeout=90_000)
    page.get_by_text("3 of").first.wait_for()
    assert step_shown(page) == 3
    expect_choice = page.get_by_role("combobox", name="Tokenizer")
    assert expect_choice.input_value() == "Qwen · Qwen 2.5 (Qwen 1, 2)"
    page.get_by_role("button", name=re.compile("Last")).click()
    wait_idle(page)
    assert page.locator(".bpe-spans .t").count() > 0
    assert_no_exception(page)
