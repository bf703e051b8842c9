"""The Vocabulary page in a real browser: seed 001's GPT-2 ids and a merge tree."""

import pytest
from playwright.sync_api import expect

from .conftest import assert_no_exception, open_list, screenshot, wait_idle

pytestmark = pytest.mark.browser


def test_gpt2_ids_240_to_270_and_a_merge_tree(page, server):
    page.goto(server.url + "/vocabulary")
    wait_idle(page, timeout=90_000)
    page.get_by_role("button", name="GPT-2 ids 240–270 (seed 001)").click()
    wait_idle(page, timeout=90_000)
    page.get_by_text("31 of 50,257 tokens match").wait_for()
    expect(page.locator(".bpe-tree .node")).to_have_count(3)  # ' t' = ' ' + 't'
    expect(page.locator(".bpe-tree .node.root")).to_contain_text("·t")
    assert_no_exception(page)
    screenshot(page, "vocabulary", height=2400)


def test_type_a_token_to_see_its_tree(page, server):
    page.goto(server.url + "/vocabulary")
    wait_idle(page, timeout=90_000)
    box = page.get_by_role("textbox", name="…or type a token")
    box.fill(" information")
    box.press("Enter")
    wait_idle(page)
    expect(page.locator(".bpe-tree .node.leaf")).to_have_count(len(" information"))
    assert_no_exception(page)
    page.locator(".bpe-tree").scroll_into_view_if_needed()
    screenshot(page, "vocabulary-tree")


def test_llama4_vocabulary_lists_its_special_tokens(page, server):
    page.goto(server.url + "/vocabulary")
    wait_idle(page, timeout=90_000)
    choice = page.get_by_role("combobox", name="Tokenizer")
    open_list(page, choice)
    choice.fill("llama 4")
    page.get_by_role("option", name="Meta · Llama 4").click()
    wait_idle(page, timeout=90_000)
    page.get_by_text("Special tokens (2,048)").click()
    wait_idle(page)
    expect(page.get_by_text("used by Llama 4 header tokens", exact=False)).to_be_visible()
    assert_no_exception(page)
    screenshot(page, "vocabulary-llama4-specials", height=2000)
