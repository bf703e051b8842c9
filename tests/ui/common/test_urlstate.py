"""ui/common/urlstate.py: what goes into a link (the parts that need no browser; the pages' AppTests cover the rest)."""

from __future__ import annotations

from ui.common import urlstate


def test_link_params():
    assert urlstate.params("hi", tokenizer="o200k_base") == {"tokenizer": "o200k_base", "text": "hi"}
    assert urlstate.params("", tokenizer="bytes") == {"tokenizer": "bytes"}
    assert urlstate.params(None, mode="encoding", step="3") == {"mode": "encoding", "step": "3"}
    assert urlstate.params("x" * urlstate.MAX_TEXT, tokenizers="a") == {"tokenizers": "a", "text": "x" * urlstate.MAX_TEXT}
    assert "text" not in urlstate.params("x" * (urlstate.MAX_TEXT + 1), tokenizers="a")


def test_one_text_limit_for_every_page():
    assert urlstate.MAX_TEXT == 2_000  # docs/pages.md's "2,000 characters of text in a share link"
    assert urlstate.fits("你" * urlstate.MAX_TEXT) and not urlstate.fits("你" * (urlstate.MAX_TEXT + 1))


def test_join():
    assert urlstate.join("http://h:1", {"text": "a b&c"}) == "http://h:1/?text=a+b%26c"
    assert urlstate.join("http://h:1/step", {"step": "12"}) == "http://h:1/step?step=12"
