"""Tokenize's "Cut into pieces of N tokens" in a real browser: the bands, the broken emoji, the JSON lines download
(checked against tiktoken), a new N, and presenter mode at 1280x720."""

from __future__ import annotations

import json
import math

import pytest
import tiktoken
from playwright.sync_api import expect

from ui.content.samples import DEFAULT_TEXT

from .conftest import assert_no_exception, screenshot, wait_idle

pytestmark = pytest.mark.browser


def test_pieces_the_broken_emoji_and_the_download(page, server):
    page.goto(server.url + "/?tokenizer=cl100k_base")
    wait_idle(page)
    ids = tiktoken.get_encoding("cl100k_base").encode(DEFAULT_TEXT)
    n_pieces = math.ceil(len(ids) / 16)
    bands = page.locator(".bpe-piece")
    expect(bands).to_have_count(n_pieces)
    expect(page.locator(".bpe-piece.alt")).to_have_count(n_pieces // 2)  # every other band
    assert bands.nth(0).locator(".t").count() == 16
    expect(bands.nth(2).locator(".bpe-piece-head")).to_contain_text("the cut before it falls inside 🤚")
    assert bands.nth(1).locator(".t .hx").count() >= 1  # the emoji's first bytes end piece 2, drawn as hex
    band_table = page.get_by_role("table", name="Piece 1: 16 tokens")  # what a screen reader reads for a band
    assert band_table.count() == 1
    with page.expect_download() as info:
        page.get_by_role("button", name=f"Download the {n_pieces} pieces as JSON lines").click()
    download = info.value
    assert download.suggested_filename == "pieces-of-16-tokens.jsonl"
    records = [json.loads(line) for line in open(download.path(), encoding="utf-8").read().splitlines()]
    assert [i for r in records for i in r["ids"]] == ids  # the pieces' ids are the text's, as tiktoken counts them
    assert [r["whole_characters"] for r in records][1:3] == [False, False]
    assert_no_exception(page)
    screenshot(page, "tokenize-pieces", height=3000)
    box = page.get_by_label("Tokens per piece (N)", exact=True)
    box.fill("40")
    box.press("Enter")
    wait_idle(page)
    expect(bands).to_have_count(math.ceil(len(ids) / 40))
    assert_no_exception(page)


def test_presenter_mode(projector, server):
    page = projector
    page.goto(server.url + "/?present=1&tokenizer=cl100k_base")
    page.locator(".bpe-present").wait_for(state="attached")
    wait_idle(page)
    page.get_by_text("Cut into pieces of N tokens").first.scroll_into_view_if_needed()
    band = page.locator(".bpe-piece").nth(1)  # pieces 2 and 3, with the broken emoji between them, at the top
    band.evaluate("e => e.scrollIntoView({block: 'start'})")
    page.wait_for_timeout(400)
    expect(band).to_be_visible()
    size = float(page.locator(".bpe-piece .t").first.evaluate("e => getComputedStyle(e).fontSize").removesuffix("px"))
    assert size >= 28  # the spans' presenter size, as everywhere
    assert_no_exception(page)
    screenshot(page, "present-tokenize-pieces")
