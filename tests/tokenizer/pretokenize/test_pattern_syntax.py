"""Safe cuts derived from each pattern: splitting the pieces gives the chunks of the whole text.

Checked for the built-in patterns, for the patterns of open models (Llama 3, Qwen 2,
Mistral Tekken, DeepSeek V3's stages), and for generated patterns, on generated texts
cut into pieces as small as one character.
"""

from __future__ import annotations

import itertools

import regex
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from texts import OPEN_MODEL_PATTERNS

from tests.tier import examples
from tokenizer import GPT2_PATTERN, GPT4_PATTERN, O200K_PATTERN, Splitter, Tokenizer
from tokenizer.bpe import textbook
from tokenizer.pretokenize.pattern_syntax import Unsupported, alphabet, class_ranges, parse, safe_cuts

PATTERNS = {"gpt2": GPT2_PATTERN, "gpt4": GPT4_PATTERN, "o200k": O200K_PATTERN, **OPEN_MODEL_PATTERNS}

# characters from every class these patterns tell apart, and the sequences that matter
PIECES = [
    "a",
    "s",
    "t",
    "S",
    "T",
    "l",
    "ve",
    "re",
    "m",
    "d",
    "A",
    "Ab",
    "aB",
    "é",
    "e\u0301",
    "Ǆ",
    "ʰ",
    "ǅ",
    "1",
    "22",
    "333",
    "4444",
    "١",
    "Ⅻ",
    "'",
    "'s",
    "'T",
    "'re",
    "'ll",
    " ",
    "  ",
    "\t",
    "\n",
    "\r",
    "\r\n",
    "\n\n",
    " \n",
    "\x0b",
    "\x1c",
    "\x85",
    "\xa0",
    "\u2028",
    "/",
    "//",
    "}",
    "*",
    ".",
    ",",
    "!",
    "-",
    "_",
    "`",
    "~",
    "$",
    "你",
    "好",
    "ア",
    "ぁ",
    "한",
    "😄",
    "🤚🏾",
    "\u200d",
    "#",
    "@",
    "[",
    "\\",
    "}\n//",
    " */\n/*",
    "x\n/",
]
texts = st.lists(st.sampled_from(PIECES), max_size=60).map("".join)


def chunks_in_pieces(splitter: Splitter, blocks: list[str], window: int) -> list[str]:
    return [c for chunks in splitter.iter_chunks(blocks, window=window) for c in chunks]


def test_every_pattern_here_has_safe_cuts():
    for name, pattern in PATTERNS.items():
        assert safe_cuts(pattern) is not None, name


@settings(max_examples=examples(150))
@given(st.sampled_from(sorted(PATTERNS)), texts, st.integers(1, 12), st.lists(st.integers(0, 400), max_size=6))
def test_pieces_give_the_chunks_of_the_whole_text(name, text, window, breaks):
    pattern = PATTERNS[name]
    cuts = sorted({b % (len(text) + 1) for b in breaks} | {0, len(text)})
    blocks = [text[a:b] for a, b in itertools.pairwise(cuts)]  # the text arriving in blocks, cut anywhere
    assert chunks_in_pieces(Splitter(pattern), blocks, window) == textbook.split(text, pattern)


def test_o200k_never_cuts_between_a_closing_brace_and_a_comment():
    # the example: `}\n//` is one chunk's worth of text under o200k (` ?[^\s\p{L}\p{N}]+[\r\n/]*`)
    text = "if (x) {\n  y();\n}\n// note é\n/* a */\n/* b */\n" * 3000
    chunks = chunks_in_pieces(Splitter("o200k"), [text], 64)
    assert chunks == regex.findall(O200K_PATTERN, text)
    assert "}\n//" in chunks and " */\n/" in chunks  # both run over the newline
    cuts = safe_cuts(O200K_PATTERN)
    assert not is_cut(cuts, "}\n//", 2) and not is_cut(cuts, "}\n//", 3)


def is_cut(cuts, text: str, i: int) -> bool:
    """Whether cutting ``text`` before index ``i`` is safe: the first safe cut from ``i`` on is ``i``."""
    return cuts.find(text, i) == i


def test_cuts_follow_each_pattern():
    # a cut between a letter and an apostrophe is safe for GPT-2 ("don" + "'t") but not
    # for o200k, which keeps contractions on the word
    assert is_cut(safe_cuts(GPT2_PATTERN), "don't", 3)
    assert not is_cut(safe_cuts(O200K_PATTERN), "don't", 3)
    # digits run in threes under GPT-4: no cut inside a number; GPT-2 keeps numbers whole too
    assert not any(is_cut(safe_cuts(p), "12345", i) for p in (GPT2_PATTERN, GPT4_PATTERN) for i in range(1, 5))
    # a space before a word belongs to the word: never cut after it
    for name, p in PATTERNS.items():
        assert is_cut(safe_cuts(p), "a b", 2) == (name in ("deepseek_v3_digits", "deepseek_v3_cjk")), name


def test_a_long_text_without_any_cut_is_scanned_quickly():
    cuts = safe_cuts(O200K_PATTERN)
    assert cuts.find("1" * 1_000_000, 10) == -1
    assert cuts.find("你" * 500_000 + "。", 10) == 500_000


@given(st.sampled_from(["(?<=a)b", r"\bx", "^a", r"a\1", r"(a)\1", "(?x) a", "(?r)a", r"\Ga", "(?V1)[[a]--[b]]"]))
def test_patterns_that_look_behind_are_never_cut(pattern):
    assert safe_cuts(pattern) is None


def test_unsupported_syntax_is_reported():
    for pattern in ("(?<=a)b", r"(a)\1", "^x"):
        try:
            parse(pattern)
        except Unsupported:
            continue
        raise AssertionError(pattern)


def test_alphabet_groups_code_points_by_their_classes():
    ranges = class_ranges([(r"\p{L}", ""), ("s", "i"), (r"\s", "")])
    symbols = alphabet(ranges)
    by_char = {c: next(s for s in symbols if any(lo <= ord(c) <= hi for lo, hi in s.ranges)) for c in "aSsſ \n1"}
    assert by_char["s"] == by_char["S"] == by_char["ſ"] and by_char["a"] != by_char["s"]
    assert by_char[" "] == by_char["\n"] and by_char["1"].atoms == frozenset()
    # the symbols partition every code point
    assert sum(hi - lo + 1 for s in symbols for lo, hi in s.ranges) == 0x110000


# ----------------------------------------------------------------------------- generated patterns

ATOMS = [
    "a",
    "b",
    " ",
    r"\n",
    r"\s",
    r"\S",
    r"\w",
    r"\d",
    "[ab]",
    r"[^a\s]",
    r"\p{L}",
    r"\p{N}",
    ".",
    "(?i:a)",
    "é",
    r"\.",
    "$",
    r"\Z",
]
QUANTIFIERS = ["*", "+", "?", "{1,3}", "{2}", "*?", "+?", "??", "++", "*+", "?+", "{1,3}+", "{,2}"]


def _extend(children):
    return st.one_of(
        st.tuples(children, children).map("".join),
        st.tuples(children, children).map("|".join),
        children.map(lambda c: f"(?:{c})"),
        children.map(lambda c: f"({c})"),
        st.tuples(children, st.sampled_from(QUANTIFIERS)).map(lambda t: f"(?:{t[0]}){t[1]}"),
        children.map(lambda c: f"(?={c})"),
        children.map(lambda c: f"(?!{c})"),
        children.map(lambda c: f"(?>{c})"),
    )


generated = st.recursive(st.sampled_from(ATOMS), _extend, max_leaves=8)
any_pattern = st.one_of(
    generated,
    generated.map(lambda p: "(?r)" + p),  # reverse searching: refused
    st.tuples(st.sampled_from(["(?<=a)", r"\b", "^", "(?i)", "(?s)", "(?m)"]), generated).map("".join),
)
small_texts = st.lists(st.sampled_from(["a", "b", "ab", " ", "  ", "\n", "1", "é", ".", "-", "A", "\t"]), max_size=30).map(
    "".join
)


@settings(max_examples=examples(1000))
@given(any_pattern, small_texts, st.integers(1, 6))
def test_any_accepted_pattern_keeps_the_text_and_cuts_exactly(pattern, text, window):
    try:
        splitter = Splitter(pattern)
    except ValueError as e:
        assert "(?r)" in pattern and "reverse" in str(e)
        return
    try:
        whole = textbook.split(text, pattern)
        pieces = chunks_in_pieces(splitter, [text], window)
        tok = Tokenizer(pattern=pattern)
        ids = tok.encode_ordinary(text)
    except ValueError as e:  # a catastrophic pattern that ran out of time
        assume("took longer" not in str(e))
        raise
    assert "".join(whole) == text
    assert pieces == whole
    assert tok.decode(ids) == text


# patterns that each rewrite of the re twin applies to, in every mode and position
TWIN_REWRITES = [
    r"[ac]?c|c",
    r"[ac]?[a-c]+|\s",
    r"\d{1,3}|\d{2,4}?|a{1,2}+|.",
    r"\s*[\r\n]+|\s+",
    r"a\s*\n|\s*\n+?|\s",
    r"[ \n]*\n*|x",
    r"(?:ab)?a|(?:ab)??b|(?:a\n)?+\n|.",
    r"\p{L}+(?:'s|'t)?|[^\r\n\p{L}\p{N}]?\p{Lu}*\p{Ll}+|\s*[\r\n]+|\s+(?!\S)|\s+",
]
short_texts = st.lists(
    st.sampled_from(["a", "b", "c", "ab", " ", "\n", "\r\n", "1", "12345", "'s", "É", "é", ".", "\t"]), max_size=10
)


@settings(max_examples=examples(300))
@given(st.one_of(st.sampled_from(TWIN_REWRITES), generated), short_texts.map("".join))
def test_the_re_twin_finds_the_chunks_of_regex(pattern, text):
    import re

    from tokenizer.pretokenize.pattern_syntax import bmp_twin

    twin = bmp_twin(pattern)
    assume(twin is not None)
    assert re.findall(twin, text) == [m.group() for m in regex.finditer(pattern, text)]
