"""Split patterns between Oniguruma (HF tokenizers) and Python's regex: the same splits, or a refusal.

The reference is ``tokenizers`` itself: a ``Split`` pre-tokenizer runs a pattern with
Oniguruma, and our translation must cut every text into the same pieces, matched and
unmatched alike. Character classes are checked on every code point (``slow``).
"""

from __future__ import annotations

import pytest
import regex
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from tokenizers import Regex, pre_tokenizers

from tests.tier import examples
from tokenizer import GPT2_PATTERN, GPT4_PATTERN, O200K_PATTERN, Splitter
from tokenizer.pretokenize import onig
from tokenizer.pretokenize.hf_pipeline import OnigRegex, _behave, _regex_matches

ALL_CODE_POINTS = [c for c in range(0x110000) if not 0xD800 <= c < 0xE000]


def hf_split(pattern: str, text: str, behavior: str = "isolated") -> list[str]:
    return [p for p, _ in pre_tokenizers.Split(Regex(pattern), behavior).pre_tokenize_str(text)]


def our_split(pattern: str, text: str, behavior: str = "Isolated") -> list[str]:
    rx = OnigRegex(pattern)
    return [text[a:b] for a, b in _behave(_regex_matches(rx, text), behavior) if a != b]


def hf_matching(pattern: str, cps: list[int]) -> set[int]:
    """The code points a one-character pattern matches under tokenizers (Split, removed)."""
    out: set[int] = set()
    for i in range(0, len(cps), 100_000):
        part = cps[i : i + 100_000]
        kept = set()
        for _, (s, e) in pre_tokenizers.Split(Regex(pattern), "removed").pre_tokenize_str("".join(map(chr, part))):
            kept.update(range(s, e))
        out |= {part[j] for j in range(len(part)) if j not in kept}
    return out


def python_matching(pattern: str, cps: list[int]) -> set[int]:
    """The code points a one-character Python pattern matches (each code point on its own line)."""
    rx = regex.compile(f"(?:{pattern})(?=\x00)")
    text = "".join(chr(c) + "\x00" for c in cps)
    return {ord(text[m.start()]) for m in rx.finditer(text)}


# ----------------------------------------------------------------------------- known translations


def test_the_differences_between_the_engines_are_translated():
    t = onig.from_oniguruma
    assert t(r"\p{N}{1,3}+").pattern == r"(?:\p{N}{1,3})+"  # a repeat of a repeat, not possessive
    assert t(r"x{2}?").pattern == r"(?:x{2})?"  # optional, not lazy
    assert t(r"a(?i)b|c").pattern == "a(?:[Bb]|[Cc])"  # the flag takes the rest of the group
    assert t(r"[a[bc]]").pattern == "[abc]"  # nested class
    assert t(r"\h").pattern == "[0-9A-Fa-f]"
    assert t(r"^").pattern == r"(?:\A|(?<=\n)(?=[\s\S]))"
    assert t(r"$").pattern == r"(?=\n|\Z)"
    assert t(r"\Z").pattern == r"(?=\n?\Z)"
    assert t(r"\z").pattern == r"\Z"
    assert t(r"(?m).").pattern == r"[\x00-\U0010ffff]"
    assert "\\xb2" in t(r"\w").pattern and "200d" not in t(r"\w").pattern


@pytest.mark.parametrize(
    "pattern",
    [
        r"\p{N}{1,3}+", r"x{2}?y", r"a(?i)b|c", r"[a-z&&[^aeiou]]+", r"[\w&&\D]+", r"\b\w+\b", r"\Bx", r"^a|b$", r"\Z|x",
        r"(?m).+", r"[]a]+", r"[^]a]+", r"\h+", r"(?i:'s|'t|'re|'ve|'m|'ll|'d)", r"(?i)[a-z]+", r"(?i)k", r"a{,2}",
        r"\x41\u0042\x{43}", r"(?<=a)b", r"(?<!a)b", r"(?>a+)b", r"a*?b", r"a++", r"\p{^L}+", r"\P{L}+", r"[\p{L}\p{M}]+",
        r"(?<name>a)b", r"(?#comment)a", r"\s+(?!\S)|\s+", r"[^\r\n\p{L}\p{N}]?\p{L}+",
    ],
)  # fmt: skip
def test_translated_patterns_split_as_tokenizers(pattern):
    texts = ["", "abc xyz", "aaa bbb\n\nccc", "Kelvin K ſ ſt ß SS", "x\nx\n", "12345 678", "]a]ab", "0aFg",
             "it's WE'LL don't", "\u200dx²y", "ABC\u00e9\u0301 ÀÉ", "a\r\nb\n", "xxyy"]  # fmt: skip
    for text in texts:
        for behavior, hf_behavior in (("Isolated", "isolated"), ("Removed", "removed")):
            assert our_split(pattern, text, behavior) == hf_split(pattern, text, hf_behavior), (pattern, text)


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        (r"(\w)\1", "backreference"),
        (r"\k<x>", "escape"),
        (r"(?x) a", "extended mode"),
        (r"[[:alpha:]]", "POSIX"),
        (r"(?i)ss", "ss"),
        (r"(?i)s(?:s)", "ss"),
        (r"(?i)é", "non-ASCII"),
        (r"(?i)\p{Lu}", "case-insensitive"),
        (r"(?:a*)*", "empty text"),
        (r"a**", "repeat of a repeat"),
        (r"*a", "nothing to repeat"),
        (r"\p{Word}x\p{Foo}", "property"),
        (r"(?~abc)", "absent"),
        (r"\K", "escape"),
        (r"(a", "unterminated"),
        (r"a)", "unmatched"),
        (r"[\d-z]", "ambiguous"),
        (r"\x{110000}", "not a character"),
        (r"(?<=\n\n*+)", "look-behind"),  # found by hypothesis: the engines split '\n1' differently
        (r"(?<=a+)b", "look-behind"),
        (r"(?<=\b)a", "look-behind"),
        (r"(?<=(?=a)a)", "look-behind"),
    ],
)
def test_untranslatable_patterns_are_refused_with_the_reason(pattern, reason):
    with pytest.raises(ValueError, match=reason):
        onig.from_oniguruma(pattern)


@pytest.mark.parametrize("pattern", [r"(?<=ab|c)x", r"(?<![a-z]{2})\d", r"(?<=\p{L}\s)\w+"])
def test_fixed_length_look_behinds_split_alike(pattern):
    text = "ab x cx 12 a1 é xy"
    assert hf_split(onig.to_oniguruma(pattern), text) == Splitter(onig.from_oniguruma(pattern).pattern).split(text)


def test_builtin_patterns_survive_the_round_trip():
    for p in (GPT2_PATTERN, GPT4_PATTERN, O200K_PATTERN):
        exported = onig.to_oniguruma(p)
        assert onig.same_meaning(exported, p)
        text = "Hello world, it's 2024! 1234567 你好\n\n  x  \n camelCase HTTPServer 'S 'll\r\n/* c */\n//"
        assert hf_split(exported, text) == Splitter(p).split(text)


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [(r"a*", "empty text"), (r"(?r)\w+", r"\(\?r"), (r"(\w)\1|.", "backreference"), (r"x(?i)y", "very start"),
     (r"[[:alpha:]]+", "POSIX"), (r"\h+", "escape"), (r"(?x)a b", "extended"),
     (r"a(?<=\b)", "look-behind"), (r"(?<=ab|c*)x", "look-behind")],
)  # fmt: skip
def test_python_patterns_oniguruma_cannot_run_alike_are_refused(pattern, reason):
    with pytest.raises(ValueError, match=reason):
        onig.to_oniguruma(pattern)


# ----------------------------------------------------------------------------- generated patterns

_ATOMS_ONIG = [
    "a", "b", "x", " ", "'", "1", "\\n", "\\.", "-", "[ab]", "[^a ]", "[a-c]", "\\s", "\\S", "\\d", "\\D", "\\w", "\\W",
    "\\p{L}", "\\P{N}", "\\p{Lu}", "[\\p{L}\\d]", "[a[xy]]", "[\\w&&\\D]", "[^\\s\\p{L}]", ".", "\\b", "\\B", "^", "$",
    "\\A", "\\z", "\\Z", "\\h", "(?i:a)", "(?i:[xb])",
]  # fmt: skip
_QUANTIFIERS = ["", "", "", "*", "+", "?", "{1,2}", "{2}", "{,2}", "*?", "+?", "??", "*+", "++", "?+", "{1,2}+", "{2}?", "{1,3}?"]
_ALPHABET = "ab xy1'\n\t-AB.ß²\u200dé\u0301K\u212a\u017f"


def _pattern(atoms: list[str]):
    atom = st.sampled_from(atoms)
    piece = st.builds(lambda a, q: a + q, atom, st.sampled_from(_QUANTIFIERS))
    seq = st.lists(piece, min_size=1, max_size=4).map("".join)
    group = st.builds(lambda kind, s: f"({kind}{s})", st.sampled_from(["?:", "", "?=", "?!", "?>", "?<=", "?<!"]), seq)
    unit = st.one_of(piece, st.builds(lambda g, q: g + q, group, st.sampled_from(_QUANTIFIERS)))
    branch = st.lists(unit, min_size=1, max_size=4).map("".join)
    return st.lists(branch, min_size=1, max_size=3).map("|".join)


# Many generated patterns are refused (by tokenizers or by our translation, each tested above): filtering is the point.
@settings(max_examples=examples(400), suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(_pattern(_ATOMS_ONIG), st.lists(st.text(_ALPHABET, max_size=12), min_size=1, max_size=4))
def test_generated_oniguruma_patterns_split_as_tokenizers(pattern, texts):
    try:
        pre_tokenizers.Split(Regex(pattern), "isolated")
    except Exception:
        assume(False)  # tokenizers itself refuses it: nothing to compare
    try:
        OnigRegex(pattern)
    except ValueError:
        assume(False)  # refused, with a reason (tested above)
    for text in texts:
        for behavior in ("Isolated", "Removed", "Contiguous", "MergedWithPrevious", "MergedWithNext"):
            hf = [p for p, _ in pre_tokenizers.Split(Regex(pattern), _snake(behavior)).pre_tokenize_str(text)]
            assert our_split(pattern, text, behavior) == hf, (pattern, text, behavior)


def _snake(behavior: str) -> str:
    return regex.sub(r"(?<!^)([A-Z])", r"_\1", behavior).lower()


_ATOMS_PY = [
    "a", "b", "x", " ", "'", "1", "\\n", "\\.", "-", "[ab]", "[^a ]", "[a-c]", "\\s", "\\S", "\\d", "\\D", "\\w", "\\W",
    "\\p{L}", "\\P{N}", "[\\p{L}\\d]", "[^\\s\\p{L}]", ".", "\\b", "\\B", "\\A", "\\Z", "$", "(?i:a)", "(?i:[xb])",
]  # fmt: skip


@settings(
    max_examples=examples(300), suppress_health_check=[HealthCheck.filter_too_much]
)  # look-behinds that are not fixed-length are refused
@given(_pattern(_ATOMS_PY), st.lists(st.text(_ALPHABET, max_size=12), min_size=1, max_size=4))
def test_exported_python_patterns_split_alike_under_tokenizers(pattern, texts):
    try:
        regex.compile(pattern)
        exported = onig.to_oniguruma(pattern)
    except (ValueError, regex.error):
        assume(False)
    for text in texts:
        assert hf_split(exported, text) == Splitter(pattern).split(text), (pattern, exported, text)


# ----------------------------------------------------------------------------- every code point


@pytest.mark.slow
@pytest.mark.parametrize("name", [*onig.GENERAL_CATEGORIES, *onig.BINARY_PROPERTIES])
def test_every_property_matches_the_same_code_points(name):
    assert hf_matching(rf"\p{{{name}}}", ALL_CODE_POINTS) == python_matching(
        onig.from_oniguruma(rf"\p{{{name}}}").pattern, ALL_CODE_POINTS
    )


BMP = [c for c in ALL_CODE_POINTS if c < 0x10000]


@pytest.mark.slow
@pytest.mark.parametrize("name", onig.SCRIPTS)
def test_every_script_matches_the_same_code_points_of_the_bmp(name):
    """Scripts on the BMP here (a second each); all 1.1 M code points were compared when the list was made."""
    assert hf_matching(rf"\p{{{name}}}", BMP) == python_matching(onig.from_oniguruma(rf"\p{{{name}}}").pattern, BMP)


@pytest.mark.slow
@pytest.mark.parametrize("cls", [r"\w", r"\W", r"\s", r"\S", r"\d", r"\D", r"\h", r"\H", r".", r"(?m).", r"[\w&&\D]", r"[^\w\s]"])
def test_every_class_matches_the_same_code_points(cls):
    assert hf_matching(cls, ALL_CODE_POINTS) == python_matching(onig.from_oniguruma(cls).pattern, ALL_CODE_POINTS)


@pytest.mark.slow
def test_case_insensitive_letters_match_the_same_code_points():
    for letter in "abcdefghijklmnopqrstuvwxyzAZ":
        pattern = f"(?i){letter}"
        assert hf_matching(pattern, ALL_CODE_POINTS) == python_matching(onig.from_oniguruma(pattern).pattern, ALL_CODE_POINTS), (
            letter
        )


@pytest.mark.slow
def test_python_case_folds_and_word_class_are_what_the_export_assumes():
    cps = ALL_CODE_POINTS
    for letter in "abcdefghijklmnopqrstuvwxyz":
        expected = {ord(letter), ord(letter.upper()), *onig.PY_FOLDS.get(letter, ())}
        assert python_matching(f"(?i){letter}", cps) == expected, letter
    exported = onig.to_oniguruma(r"\w")
    assert hf_matching(exported, cps) == python_matching(r"\w", cps)
