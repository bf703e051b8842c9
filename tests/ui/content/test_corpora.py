"""ui/content/corpora.py: the built-in training corpora, read offline from this machine's Python."""

from __future__ import annotations

import pytest

from ui.content import corpora
from ui.train.model import MAX_VOCAB


def test_corpora():
    assert corpora.text("aaabdaaabac") == "aaabdaaabac"
    assert {corpora.text(k) for k in ("honolulu", "cat-in-hat", "hello-nihao", "emoji-line")} == {
        "Honolulu",
        "the cat in the hat",
        "Hello 你好",
        "Hello tokenizer 😄🤪🧐!",
    }
    for key, c in corpora.CORPORA.items():
        assert corpora.text(key), key
        assert 256 <= c.vocab_size <= MAX_VOCAB
    docs = corpora.text("stdlib-docstrings")
    src = corpora.text("stdlib-source")
    assert 200_000 <= len(docs) <= corpora.STDLIB_DOCSTRING_CHARS and "def " not in docs[:2000]
    assert 200_000 <= len(src) <= corpora.STDLIB_SOURCE_CHARS and "def " in src
    assert corpora.stdlib_text("docstrings") == docs  # same text every time


def test_missing_stdlib_sources_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="no standard-library sources"):
        corpora.stdlib_text("source", None, str(tmp_path))
