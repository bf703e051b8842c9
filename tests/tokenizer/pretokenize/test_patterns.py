"""pretokenize/patterns.py: each built-in pattern is exactly its model's own, and is trusted as such."""

from __future__ import annotations

import pytest
import regex
import tiktoken
from texts import code_and_prose

from tokenizer import GPT2_PATTERN, GPT4_PATTERN, O200K_PATTERN, Splitter, registry, time_limit
from tokenizer.pretokenize.patterns import BUILTIN_PATTERNS, PATTERNS, pattern_name, resolve_pattern


def test_patterns_are_tiktokens():
    assert GPT2_PATTERN == tiktoken.get_encoding("r50k_base")._pat_str
    assert GPT4_PATTERN == tiktoken.get_encoding("cl100k_base")._pat_str
    assert O200K_PATTERN == tiktoken.get_encoding("o200k_base")._pat_str


def test_every_registered_pattern_is_trusted():
    """An encoding's pattern runs without the time limit of a user's regex (a long text must not fail)
    and gets the fast path; an open model's pattern is as trusted as OpenAI's."""
    patterns = {s.pattern for s in registry.specs() if s.pattern is not None}
    assert patterns <= set(BUILTIN_PATTERNS.values())
    text = code_and_prose(300_000)
    for pattern in patterns:
        splitter = Splitter(pattern)
        assert splitter.builtin and splitter.budget() is None and splitter.cuts is not None and splitter._twin is not None
        with time_limit(1e-6):  # a user's pattern would be stopped at once
            assert splitter.split(text) == regex.findall(pattern, text)
    with pytest.raises(ValueError, match="longer than"), time_limit(1e-6):
        Splitter(BUILTIN_PATTERNS["llama3"] + "|(?:x)").split(text)


def test_names_resolve_and_come_back():
    for name, pattern in PATTERNS.items():
        assert resolve_pattern(name) == pattern
        assert pattern_name(pattern) in BUILTIN_PATTERNS
    assert pattern_name(None) == "none" and pattern_name(r"\w+") == "custom" and resolve_pattern(r"\w+") == r"\w+"
