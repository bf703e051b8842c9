"""The teaching and research views in a real browser: pre-tokenization, token tax, unreachable tokens,
vocabulary size vs compression."""

import re

import pytest
from playwright.sync_api import expect

from .conftest import assert_no_exception, open_list, screenshot, wait_idle

pytestmark = pytest.mark.browser


def test_pretokenize_rows_a_custom_regex_and_the_seeds(page, server):
    page.goto(server.url + "/pretokenize")
    wait_idle(page)
    rows = page.locator(".bpe-row")
    expect(rows).to_have_count(5)
    assert page.locator(".bpe-row .cut").count() > 0
    box = page.get_by_role("textbox", name="…and your own regex")
    box.fill(r"\w+|\W")
    box.press("Enter")
    wait_idle(page)
    expect(rows).to_have_count(6)
    expect(page.locator(".bpe-row-head", has_text="Your regex")).to_be_visible()
    open_list(page, page.get_by_role("combobox", name="Examples"))
    page.get_by_role("option", name="I'm. I'M").click()
    wait_idle(page)
    expect(page.locator(".bpe-row-head", has_text="GPT-2 (r50k_base)")).to_contain_text("6 chunks")
    expect(page.locator(".bpe-row-head", has_text="GPT-4o (o200k_base)")).to_contain_text("3 chunks")
    assert_no_exception(page)
    screenshot(page, "pretokenize", height=2400)


def test_token_tax_chart_and_table(page, server):
    page.goto(server.url + "/compare?tokenizers=r50k_base,cl100k_base,o200k_base")
    wait_idle(page)
    section = page.get_by_text("Token tax by language").first
    section.scroll_into_view_if_needed()
    caption = page.get_by_text(re.compile(r"Highest premium here: Tamil under GPT-2"))
    caption.scroll_into_view_if_needed()
    expect(caption).to_be_visible()
    expect(page.get_by_text("Token tax: the same passage, relative to English")).to_be_visible()  # the chart's title
    assert_no_exception(page)
    screenshot(page, "compare-token-tax", height=4200)


def test_unreachable_tokens_of_o200k_and_a_click_into_the_tree(page, server):
    page.goto(server.url + "/vocabulary")
    wait_idle(page)
    open_list(page, page.get_by_label("Tokenizer", exact=True))
    page.get_by_role("option", name="OpenAI · GPT-4o (o200k_base)", exact=True).click()  # not gpt-oss's o200k_harmony
    page.get_by_text("Unreachable and odd tokens").first.wait_for()
    wait_idle(page, timeout=120_000)
    metrics = page.locator('[data-testid="stMetric"]', has_text="Unreachable")
    expect(metrics).to_contain_text("12")
    table = page.locator('[data-testid="stDataFrame"]').last
    table.scroll_into_view_if_needed()
    box = table.bounding_box()
    page.mouse.click(box["x"] + 12, box["y"] + 35 + 35 * 2 + 17)  # the row-select cell of the third row
    wait_idle(page)
    expect(page.get_by_text(re.compile(r"Merge tree of id 24,091"))).to_be_visible()
    assert_no_exception(page)
    screenshot(page, "vocabulary-unreachable", height=3600)
    # an open model: Qwen 2.5 cuts full-width digits one by one, and puts text in NFC first, so its "１０" and 1,908
    # others never come back
    open_list(page, page.get_by_label("Tokenizer", exact=True))
    page.keyboard.type("Qwen 2.5")  # the menu is long: search it, as a user would
    page.get_by_role("option", name=re.compile(r"Qwen 2\.5")).click()
    wait_idle(page, timeout=120_000)
    expect(metrics).to_contain_text("1,909")
    expect(page.get_by_text(re.compile(r"Merge tree of id 77,150"))).to_be_visible()  # the first row: "１０"
    assert_no_exception(page)
    screenshot(page, "vocabulary-unreachable-qwen", height=3600)


def test_vocabulary_size_vs_compression(page, server, trained):
    page.goto(server.url + "/train")
    wait_idle(page)
    page.get_by_text("Vocabulary size vs compression").first.scroll_into_view_if_needed()
    expect(page.get_by_text(re.compile(r"GPT-2 \(r50k_base\) \(\d\.\d\d bytes per token\) is"))).to_be_visible(timeout=90_000)
    expect(page.locator('[data-testid="stVegaLiteChart"]')).to_have_count(3, timeout=90_000)  # waits: slow under load
    assert_no_exception(page)
    screenshot(page, "train-vocab-vs-compression", height=3200)
