"""The Tokenize page in a real browser: what a person pastes, sees and hovers."""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest
import tiktoken
from model_packages import tiktoken_reference
from playwright.sync_api import expect

import tokenizer  # noqa: F401  (points tiktoken at the bundled rank files)

from .conftest import assert_no_exception, paste, screenshot, wait_idle

pytestmark = pytest.mark.browser

XSS = "<img src=x onerror=\"document.title='pwned'\"><script>document.title='pwned'</script>"


def open_tokenize(page, server, **query) -> None:
    """The Tokenize page is the app's default page: its address is the root (plus a link's query)."""
    page.goto(server.url + "/" + (("?" + urlencode(query)) if query else ""))
    wait_idle(page)
    expect(page.locator(".bpe-spans").first).to_be_visible(timeout=60_000)


def metric(page, label: str):
    return page.locator('[data-testid="stMetric"]').filter(has_text=label).locator('[data-testid="stMetricValue"]')


#: the page's own spans (the same tokens are drawn again below, cut into pieces of N tokens)
OWN = ".bpe-spans:not(.bpe-piece .bpe-spans)"


def spans(page):
    return page.locator(f'[data-testid="stHtml"] {OWN} .t')


def test_pasted_text_shows_tiktokens_count_and_spans(page, server):
    open_tokenize(page, server)
    text = "Hello 你好! Tokenizers split 🤚🏾 into bytes."
    paste(page, text)
    ids = tiktoken.get_encoding("cl100k_base").encode(text)
    expect(metric(page, "Tokens")).to_have_text(str(len(ids)))
    expect(metric(page, "Characters")).to_have_text(str(len(text)))
    expect(metric(page, "UTF-8 bytes")).to_have_text(str(len(text.encode())))
    expect(spans(page)).to_have_count(len(ids))
    # what the reader sees: the text, with the bytes of the split emoji shown as hex
    shown = page.locator('[data-testid="stHtml"] .bpe-spans').first.inner_text()
    assert shown.startswith("Hello 你好! Tokenizers split ")
    assert "<F0 9F>" in shown and "\ufffd" not in shown
    # hovering a token tells its id, bytes and text
    first = spans(page).first
    assert first.get_attribute("data-id") == str(ids[0])
    assert f"id {ids[0]}" in first.get_attribute("title") and "bytes: 48 65 6C 6C 6F" in first.get_attribute("title")
    # the ids can be copied
    assert f"[{', '.join(map(str, ids[:4]))}" in page.locator('[data-testid="stCode"]').first.inner_text()
    assert_no_exception(page)
    screenshot(page, "tokenize", height=1400)


def test_pasted_html_runs_nothing(page, server):
    open_tokenize(page, server)
    title = page.title()
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    paste(page, XSS)
    n = len(tiktoken.get_encoding("cl100k_base").encode(XSS))
    expect(metric(page, "Tokens")).to_have_text(str(n))
    page.wait_for_timeout(500)
    assert page.title() == title != "pwned"
    assert dialogs == []
    html_box = page.locator('[data-testid="stHtml"]').first
    assert html_box.locator("img").count() == 0 and html_box.locator("script").count() == 0
    assert "<img src=x onerror=" in html_box.inner_text()
    assert_no_exception(page)


def test_a_link_opens_the_tokenizer_and_text(page, server):
    open_tokenize(page, server, tokenizer="r50k_base", text="Hello world")
    expect(metric(page, "Tokens")).to_have_text("2")
    expect(page.get_by_label("Text", exact=True)).to_have_value("Hello world")
    choice = page.get_by_role("combobox", name="Tokenizer")
    expect(choice).to_have_value("OpenAI · GPT-2 (r50k_base)")
    # choosing another tokenizer updates the address bar: it is always a link to what is shown
    choice.click()
    page.get_by_role("option", name=re.compile("GPT-4o")).click()
    wait_idle(page)
    expect(metric(page, "Tokens")).to_have_text("2")
    expect(page).to_have_url(re.compile(r"tokenizer=o200k_base"))
    assert "text=Hello" in page.url
    page.get_by_role("tab", name="Share").click()
    link = page.locator('[data-testid="stCode"]').filter(has_text="tokenizer=").first.inner_text().strip()
    assert link == f"{server.url}/?tokenizer=o200k_base&text=Hello+world"
    assert_no_exception(page)


def test_whitespace_special_tokens_and_chat(page, server):
    open_tokenize(page, server)
    paste(page, "a  b\n<|endoftext|>")
    enc = tiktoken.get_encoding("cl100k_base")
    expect(metric(page, "Tokens")).to_have_text(str(len(enc.encode("a  b\n<|endoftext|>", disallowed_special=()))))
    page.get_by_text("Show whitespace").click()
    wait_idle(page)
    expect(page.locator(".bpe-spans .ws").first).to_be_visible()
    page.get_by_role("radio", name="Recognise special tokens").click()
    wait_idle(page)
    expect(metric(page, "Tokens")).to_have_text(str(len(enc.encode("a  b\n<|endoftext|>", allowed_special="all"))))
    expect(page.locator(f"{OWN} .t.sp")).to_have_count(1)

    page.get_by_role("radio", name="Chat", exact=True).click()
    wait_idle(page)
    expect(page.locator(f"{OWN} .t.sp")).to_have_count(8)  # 3 per message, 2 to open the assistant's turn
    assert_no_exception(page)
    screenshot(page, "tokenize-chat", height=1400)


def test_search_the_menu_for_an_open_model_and_chat_in_its_format(page, server):
    """Type "llama" in the menu, pick Meta's Llama 3: its tokens, then its chat format's header tokens."""
    open_tokenize(page, server)
    paste(page, "Xin chào, tôi làm việc ở Hà Nội. .:.: 加拿大")
    choice = page.get_by_role("combobox", name="Tokenizer")
    choice.click()
    choice.fill("llama")
    options = page.get_by_role("option")
    expect(options).to_have_count(2)  # Meta · Llama 3, Meta · Llama 4
    options.filter(has_text=re.compile(r"^Meta · Llama 3")).click()
    wait_idle(page)
    text = "Xin chào, tôi làm việc ở Hà Nội. .:.: 加拿大"
    expect(metric(page, "Tokens")).to_have_text(str(len(tiktoken_reference("llama3").encode(text))))
    page.get_by_role("radio", name="Chat", exact=True).click()
    wait_idle(page)
    # begin_of_text; start_header, end_header, eot per message (2); start_header, end_header to open the reply
    expect(page.locator(f"{OWN} .t.sp")).to_have_count(1 + 3 * 2 + 2)
    expect(page.locator(f"{OWN} .t.sp").first).to_have_text("<|begin_of_text|>")
    expect(page.get_by_text("Llama 3 header tokens", exact=False).first).to_be_visible()
    assert_no_exception(page)
    screenshot(page, "tokenize-llama3-chat", height=1400)
