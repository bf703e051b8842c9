"""pretokenize/splitter.py: tiktoken's exact chunks, safe windowing, the fast re twin, user patterns with time limits."""

from __future__ import annotations

import time

import pytest
import regex
from busy import busy_machine
from hypothesis import given
from hypothesis import strategies as st
from texts import MULTILINGUAL, OPEN_MODEL_PATTERNS, code_and_prose, stdlib_sample

from tokenizer import (
    PATTERNS,
    Splitter,
    Tokenizer,
    train,
    validate_pattern,
)
from tokenizer.pretokenize.pattern_syntax import bmp_twin
from tokenizer.pretokenize.patterns import BUILTIN_PATTERNS, resolve_pattern
from tokenizer.pretokenize.splitter import USER_PATTERN_TIMEOUT, within_wall_time

# every pattern a registered encoding uses: OpenAI's and the open models'
BUILTIN = sorted(BUILTIN_PATTERNS)
pieces = st.sampled_from(["a", "B", "1", " ", "  ", "\n", "\n\n", " \n", "\r\n", "\t", "!", "'s", "😄", "你", "x\ny", "é", ".\n"])


@pytest.mark.parametrize("name", BUILTIN)
def test_split_is_findall_and_lossless(name):
    text = MULTILINGUAL + stdlib_sample(20_000)
    chunks = Splitter(BUILTIN_PATTERNS[name]).split(text)
    assert chunks == regex.findall(BUILTIN_PATTERNS[name], text)
    assert "".join(chunks) == text


@pytest.mark.parametrize("name", BUILTIN)
@given(st.lists(pieces, max_size=200).map("".join), st.integers(1, 40))
def test_safe_windows_give_the_same_chunks(name, text, window):
    whole = regex.findall(BUILTIN_PATTERNS[name], text)
    windowed = [
        c
        for piece in Splitter(BUILTIN_PATTERNS[name]).pieces([text], window=window)
        for c in regex.findall(BUILTIN_PATTERNS[name], piece)
    ]
    assert windowed == whole


@pytest.mark.parametrize("name", BUILTIN)
def test_safe_windows_on_real_text(name):
    text = code_and_prose(400_000)
    blocks = [text[i : i + 7_000] for i in range(0, len(text), 7_000)]
    pieces = list(Splitter(BUILTIN_PATTERNS[name]).pieces(blocks, window=10_000))
    assert len(pieces) > 30
    windowed = [c for piece in pieces for c in regex.findall(BUILTIN_PATTERNS[name], piece)]
    assert windowed == regex.findall(BUILTIN_PATTERNS[name], text)


def test_user_pattern_keeps_unmatched_text():
    assert Splitter(r"\w+").split("hi, you!") == ["hi", ", ", "you", "!"]


def test_no_pattern_is_one_chunk():
    assert Splitter(None).split("a b\nc") == ["a b\nc"]
    assert resolve_pattern("") is None


def test_invalid_pattern_message():
    with pytest.raises(ValueError, match="not a valid regex"):
        validate_pattern("[a-")


def test_catastrophic_pattern_is_stopped():
    with pytest.raises(ValueError, match="backtracks catastrophically"):
        Splitter(r"(a|a)+b", timeout=0.5).split("a" * 50)


def test_validate_returns_sample_chunks():
    assert validate_pattern("gpt2", "Hello world") == ["Hello", " world"]


# characters where Python's own tables, or its idea of whitespace, differ from regex's
# Unicode 16 (the twin must follow regex), letters whose case folding is unusual, marks,
# digits of other scripts, and the ASCII that the patterns single out
TWIN_ALPHABET = [
    "a",
    "Z",
    "s",
    "S",
    "t",
    "'",
    "0",
    "9",
    " ",
    "\t",
    "\n",
    "\r",
    "\x0b",
    "\x0c",
    "\x1c",
    "\x85",
    "\xa0",
    "!",
    "/",
    "_",
    "ſ",
    "\u212a",
    "ǅ",
    "ʰ",
    "é",
    "\u0301",
    "١",
    "Ⅻ",
    "你",
    "\u180e",
    "\u200b",
    "\u2028",
    "\ufeff",
    "\u1c89",
    "\ua7cb",
    "\uffff",
]
TWIN_PATTERNS = {**PATTERNS, **OPEN_MODEL_PATTERNS}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(TWIN_PATTERNS))
def test_the_re_twin_agrees_on_every_short_string(name):
    import itertools
    import re

    pattern = TWIN_PATTERNS[name]
    twin = re.compile(bmp_twin(pattern))
    slow = regex.compile(pattern)
    for n in range(1, 4):
        for chars in itertools.product(TWIN_ALPHABET, repeat=n):
            text = "".join(chars)
            assert twin.findall(text) == slow.findall(text), repr(text)


@pytest.mark.parametrize("name", sorted(TWIN_PATTERNS))
@given(
    st.one_of(
        st.text(alphabet=st.characters(max_codepoint=0xFFFF, exclude_categories=["Cs"]), max_size=60),
        st.lists(st.sampled_from(TWIN_ALPHABET + ["I'M", "don't", "  \n", "12345"]), max_size=25).map("".join),
    )
)
def test_the_re_twin_agrees_on_any_text_without_astral_characters(name, text):
    import re

    assert re.findall(bmp_twin(TWIN_PATTERNS[name]), text) == regex.findall(TWIN_PATTERNS[name], text)


@pytest.mark.parametrize("name", BUILTIN)
@given(
    st.lists(st.sampled_from(["a", " b", "😄", "🤚🏾", "\n", "x" * 300, "é" * 40, "𝔘𝔫𝔦", " ", "1234", "'s"]), max_size=30).map(
        "".join
    )
)
def test_astral_characters_go_to_regex_and_the_rest_to_the_twin(name, text):
    from unittest import mock

    from tokenizer.pretokenize import splitter

    with (
        mock.patch.object(splitter, "TWIN_FROM", 0),
        mock.patch.object(splitter, "ASTRAL_MARGIN", 8),
    ):  # short texts take the twin too
        assert Splitter(BUILTIN_PATTERNS[name]).split(text) == regex.findall(BUILTIN_PATTERNS[name], text)


@pytest.mark.parametrize("name", BUILTIN)
def test_mixed_text_takes_both_paths_and_matches(name):
    text = (stdlib_sample(60_000) + MULTILINGUAL) * 3  # ASCII pieces and non-ASCII pieces
    assert Splitter(BUILTIN_PATTERNS[name]).split(text) == regex.findall(BUILTIN_PATTERNS[name], text)


def test_reverse_patterns_are_refused_with_the_reason():
    # (?r) finds matches right to left: "ab cd" would come back as "ab cdab cd"
    for pattern in (r"(?r)\w+", r"\w+(?r)", r"(?r)\s|\S+"):
        with pytest.raises(ValueError, match=r"reverse \(\(\?r\)\)"):
            Splitter(pattern)
        with pytest.raises(ValueError, match="reverse"):
            Tokenizer(pattern=pattern)
        with pytest.raises(ValueError, match="reverse"):
            train("ab cd", 260, pattern=pattern)


@given(st.lists(st.one_of(st.characters(), st.sampled_from(["\ud800", "\udfff", "\U00010000", "\uffff"]))).map("".join))
def test_has_astral_says_whether_a_character_is_above_u_ffff(text):
    from tokenizer.pretokenize.splitter import has_astral

    assert has_astral(text) == any(ord(c) > 0xFFFF for c in text)


@pytest.mark.parametrize("call", ["encode", "train", "split"])
def test_the_time_limit_is_wall_time_on_a_busy_machine(call):
    # regex's own timeout counts CPU time, which a busy machine hands out several times slower than the clock
    pattern, text = r"(a|aa)+$", "a" * 40 + "!"
    run = {
        "encode": lambda: Tokenizer(pattern=pattern).encode(text),
        "train": lambda: train(text * 3, vocab_size=260, pattern=pattern),
        "split": lambda: Splitter(pattern).split(text),
    }[call]
    with busy_machine():
        t0 = time.monotonic()
        with pytest.raises(ValueError, match=f"took longer than {USER_PATTERN_TIMEOUT:g} s"):
            run()
        waited = time.monotonic() - t0
    assert waited < 2 * USER_PATTERN_TIMEOUT + 1, waited  # the promised limit, with room for a slow wake-up


def test_within_wall_time_returns_the_result_or_stops_on_the_clock():
    assert within_wall_time(5.0, Splitter(r"\w+|\s").split, "hi you") == ["hi", " ", "you"]
    with pytest.raises(TimeoutError):
        within_wall_time(0.2, lambda: regex.search(r"(a|aa)+$", "a" * 40 + "!", timeout=0.5, concurrent=True))
