"""ui/common/user_text.py: the limit, the two special-token modes and the counts every page shows."""

from __future__ import annotations

import pytest
import tiktoken

import tokenizer
from ui.common import user_text as text


def test_counts_of_hello_nihao():
    c = text.counts("Hello 你好", [1, 2, 3, 4])
    assert (c.tokens, c.characters, c.bytes) == (4, 8, 12)
    assert c.chars_per_token == 2.0 and c.bytes_per_token == 3.0
    assert text.counts("", []).chars_per_token == 0.0


def test_clip():
    assert text.clip("abc", 5) == ("abc", 0)
    assert text.clip("a" * 10, 4) == ("aaaa", 6)
    assert text.clip("a" * (text.MAX_CHARS + 3)) == ("a" * text.MAX_CHARS, 3)


@pytest.mark.parametrize("name", ["r50k_base", "cl100k_base", "o200k_base"])
def test_encode_modes_match_tiktoken(name):
    tok = tokenizer.load_encoding(name)
    s = "x<|endoftext|>y"
    ref = tiktoken.get_encoding(name)
    assert text.encode(tok, s, recognise_special=False) == ref.encode(s, disallowed_special=())
    assert text.encode(tok, s, recognise_special=True) == ref.encode(s, allowed_special="all")
