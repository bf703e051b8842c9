"""Compare's language view in a real browser: our program in many programming languages, and the vocabulary used;
normally and in presenter mode at 1280x720."""

from __future__ import annotations

import re

import pytest
from model_packages import tiktoken_reference
from playwright.sync_api import expect

from tokenizer import registry
from ui.compare import code

from .conftest import assert_no_exception, choose, screenshot, wait_idle

pytestmark = pytest.mark.browser

KEYS = ["r50k_base", "cl100k_base", "o200k_base"]
CODE = f"Our program in {len(code.PROGRAMS)} programming languages"


def highest_premium() -> tuple[str, str]:
    """(language, tokenizer label) of the highest premium over Python, as tiktoken counts the programs."""
    best = (0.0, "", "")
    for name in KEYS:
        enc = tiktoken_reference(name)
        counts = {lang: len(enc.encode_ordinary(text)) for lang, text in code.texts().items()}
        for lang, n in counts.items():
            best = max(best, (round(n / counts["Python"], 3), lang, registry.spec(name).label))
    return best[1], best[2]


def open_code_view(page, server) -> None:
    page.goto(server.url + "/compare?tokenizers=" + ",".join(KEYS))
    wait_idle(page)
    page.get_by_text("Token tax by language").first.scroll_into_view_if_needed()
    page.get_by_text(CODE, exact=True).click()
    wait_idle(page)


def test_the_code_view_and_the_vocabulary_used(page, server):
    open_code_view(page, server)
    lang, label = highest_premium()
    caption = page.get_by_text(re.compile(rf"Highest premium here: {re.escape(lang)} under {re.escape(label)}, .* of Python"))
    caption.scroll_into_view_if_needed()
    expect(caption).to_be_visible()
    expect(page.get_by_text("Token tax: the same passage, relative to Python")).to_be_visible()  # the chart's title
    expect(page.get_by_text("Vocabulary used: distinct tokens ÷ vocabulary")).to_be_visible()
    page.get_by_text("The programs", exact=True).click()
    choose(page, page.get_by_label("Program", exact=True), "Rust")
    wait_idle(page)
    expect(page.locator('[data-testid="stCode"]').filter(has_text="fn top_words")).to_be_visible()
    assert_no_exception(page)
    screenshot(page, "compare-code-tax", height=5200)


def test_presenter_mode(projector, server):
    page = projector
    page.goto(server.url + "/compare?present=1&tokenizers=" + ",".join(KEYS))
    page.locator(".bpe-present").wait_for(state="attached")
    wait_idle(page)
    page.get_by_text("Token tax by language").first.scroll_into_view_if_needed()
    page.get_by_text(CODE, exact=True).click()
    wait_idle(page)
    chart = page.get_by_text("Token tax: the same passage, relative to Python")
    chart.scroll_into_view_if_needed()
    expect(chart).to_be_visible()
    assert_no_exception(page)
    screenshot(page, "present-compare-code")
    used = page.get_by_text("Vocabulary used: distinct tokens ÷ vocabulary")
    used.scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    expect(used).to_be_visible()
    screenshot(page, "present-compare-vocabulary-used")
