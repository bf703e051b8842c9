"""ui/common/urlstate.py: what goes into a link (the parts that need no browser; the pages' AppTests cover the rest)."""

from __future__ import annotations

from urllib.parse import urlencode

from hypothesis import given
from hypothesis import strategies as st

from ui.common import urlstate


def test_link_params():
    assert urlstate.params("hi", tokenizer="o200k_base") == {"tokenizer": "o200k_base", "text": "hi"}
    assert urlstate.params("", tokenizer="bytes") == {"tokenizer": "bytes"}
    assert urlstate.params(None, mode="encoding", step="3") == {"mode": "encoding", "step": "3"}
    assert urlstate.params("x" * urlstate.MAX_TEXT, tokenizers="a") == {"tokenizers": "a", "text": "x" * urlstate.MAX_TEXT}
    assert "text" not in urlstate.params("x" * (urlstate.MAX_TEXT + 1), tokenizers="a")


def test_one_text_limit_for_every_page():
    assert urlstate.MAX_TEXT == 2_000  # docs/pages.md's "2,000 characters of text in a share link"
    assert urlstate.MAX_TEXT_BYTES == 6_000  # and 6,000 bytes of address
    assert urlstate.fits("x" * urlstate.MAX_TEXT) and not urlstate.fits("x" * (urlstate.MAX_TEXT + 1))
    # 1,500 Chinese characters are 13,500 bytes of address: nginx's 8 KB refused it on reload
    assert not urlstate.fits("你" * 1500) and urlstate.fits("你" * 666) and not urlstate.fits("你" * 667)


def _browser_length(text: str) -> int:
    """The bytes of ``text`` as a browser's URLSearchParams writes it (application/x-www-form-urlencoded)."""
    plain = set(b"*-._ ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
    return sum(1 if b in plain else 3 for b in text.encode("utf-8", "surrogatepass"))


@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=300))
def test_the_counted_length_is_at_least_what_python_and_a_browser_write(text):
    counted = urlstate.encoded_length(text)
    assert counted >= len(urlencode({"text": text})) - len("text=") and counted >= _browser_length(text)
    assert counted <= _browser_length(text) + 2 * text.count("*") and counted <= 12 * len(text)
    assert urlstate.fits(text) == (len(text) <= urlstate.MAX_TEXT and counted <= urlstate.MAX_TEXT_BYTES)


@given(st.lists(st.sampled_from(["你", "😀", "a", " ", "%", "é", "\n", "~"]), max_size=2200).map("".join))
def test_a_text_in_a_link_keeps_the_address_within_the_limit(text):
    wanted = urlstate.params(text, tokenizer="cl100k_base")
    assert ("text" in wanted) == (bool(text) and urlstate.fits(text))
    if "text" in wanted:
        assert len(urlencode({"text": text})) <= urlstate.MAX_TEXT_BYTES + len("text=")


def test_join():
    assert urlstate.join("http://h:1", {"text": "a b&c"}) == "http://h:1/?text=a+b%26c"
    assert urlstate.join("http://h:1/step", {"step": "12"}) == "http://h:1/step?step=12"
