"""The Overlap page in a real browser: its default (GPT-4o and Llama 3), a link with three tokenizers, the pieces
filter, a user's tokenizer, presenter mode at 1280x720."""

from __future__ import annotations

import re

import pytest
from model_packages import tiktoken_reference
from playwright.sync_api import expect

from tokenizer import registry

from .conftest import assert_no_exception, open_list, screenshot, wait_idle

pytestmark = pytest.mark.browser

LABELS = {s.name: s.label for s in registry.specs()}


def metric(page, label: str):
    return page.locator('[data-testid="stMetric"]').filter(has=page.get_by_text(label, exact=True))


def test_gpt4o_and_llama3_by_default(page, server):
    page.goto(server.url + "/overlap")
    a, b = (set(tiktoken_reference(n).token_byte_values()) for n in ("o200k_base", "llama3"))
    expect(metric(page, "Jaccard similarity")).to_contain_text(f"{len(a & b) / len(a | b):.3f}", timeout=120_000)
    expect(page.get_by_text("How many pieces each token becomes")).to_be_visible(timeout=180_000)  # the first time on
    wait_idle(page, timeout=180_000)  # this server, every token is encoded both ways
    expect(metric(page, "Shared tokens")).to_contain_text(f"{len(a & b):,}")
    direction = f"{LABELS['o200k_base']} → {LABELS['llama3']}"
    expect(page.get_by_role("strong").filter(has_text=direction)).to_be_visible()  # the metrics' heading
    expect(page.locator("svg text", has_text=direction)).to_have_count(1)  # and the chart's legend
    expect(page.locator('[data-testid="stVegaLiteChart"]')).to_have_count(2)
    expect(page.get_by_text("How many pieces each token becomes")).to_be_visible()  # the chart's title
    expect(page.get_by_role("tab", name=LABELS["llama3"])).to_be_visible()  # the longest tokens, one tab each
    assert_no_exception(page)
    screenshot(page, "overlap", height=4200)


def choose(page, label: str, option: str) -> None:
    """Pick an option of a menu as a user does: open it and type the start of the name (the menu's list is filtered
    by what its box holds, and the box holds the current choice's name)."""
    open_list(page, page.get_by_label(label))  # with no scroll pending, which would close the list (conftest.choose)
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.type(option.split(" (")[0])
    page.get_by_role("option", name=option).click()


def test_a_link_with_three_tokenizers_and_the_pieces_filter(page, server):
    page.goto(server.url + "/overlap?tokenizers=r50k_base,p50k_base,cl100k_base")
    expect(page.get_by_text("Jaccard similarity: shared tokens ÷ tokens in either")).to_be_visible(timeout=120_000)  # the grid
    expect(page.get_by_text("How many pieces each token becomes")).to_be_visible(timeout=120_000)
    wait_idle(page, timeout=120_000)
    expect(page.locator('[data-testid="stVegaLiteChart"]')).to_have_count(3)
    # GPT-2's tokens all exist in p50k, which keeps them whole: the default filter (2 or more pieces) finds none
    choose(page, "as pieces of", LABELS["p50k_base"])
    wait_idle(page)
    expect(page.get_by_text(f"None: {LABELS['p50k_base']} keeps every token of {LABELS['r50k_base']} whole.")).to_be_visible()
    expect(metric(page, "kept whole").first).to_contain_text("100.0%")
    choose(page, "Tokens of", LABELS["p50k_base"])  # p50k's 24 runs of spaces split under GPT-2
    wait_idle(page)
    expect(page.get_by_text(re.compile(rf"^24 of {re.escape(LABELS['p50k_base'])}'s 50,280 tokens"))).to_be_visible()
    assert_no_exception(page)


def test_presenter_mode(projector, server):
    page = projector
    page.goto(server.url + "/overlap?present=1")
    page.locator(".bpe-present").wait_for(state="attached")
    expect(page.get_by_text("How many pieces each token becomes")).to_be_attached(timeout=180_000)
    wait_idle(page, timeout=180_000)
    assert page.evaluate("() => getComputedStyle(document.documentElement).fontSize") == "22px"
    folded = page.locator('[data-testid="stExpander"]', has_text="Every token, searchable")
    expect(folded).to_be_visible()  # the big table is one click away
    heading = page.get_by_text("One tokenizer's tokens as another's pieces").first
    heading.scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    expect(page.get_by_text("How many pieces each token becomes")).to_be_visible()
    assert_no_exception(page)
    screenshot(page, "present-overlap-pieces")
