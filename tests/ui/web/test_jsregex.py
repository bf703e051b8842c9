"""ui/web/jsregex.py: the split patterns as data for a JavaScript RegExp.

What the RegExp then splits is checked where a JavaScript engine runs: node
(tests/web/bpe.test.mjs) and Chromium (tests/browser/test_live_parity.py). Here: that
the data says exactly what ``regex`` matches, and that what JavaScript would read
differently is refused.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.tier import examples
from tokenizer.pretokenize.pattern_syntax import class_ranges, parse
from tokenizer.pretokenize.patterns import BUILTIN_PATTERNS
from ui.web.jsregex import _complement, _union, js_source, pattern_spec


def ranges(spec_ranges):
    return tuple(tuple(r) for r in spec_ranges)


@pytest.mark.parametrize("name", sorted(BUILTIN_PATTERNS))
def test_every_builtin_pattern_goes_to_the_browser_with_regexs_code_points(name):
    pattern = BUILTIN_PATTERNS[name]
    spec = pattern_spec(pattern)
    assert spec is not None
    parsed = parse(pattern)
    assert [ranges(a["ranges"]) for a in spec["atoms"]] == class_ranges(parsed.atoms)
    assert {p for p in spec["parts"] if isinstance(p, int)} == set(range(len(parsed.atoms)))  # every class is used
    # every class of properties is decomposed, and the parts give back its code points
    for (source, _), atom in zip(parsed.atoms, spec["atoms"]):
        if r"\p{" in source and "props" in atom:
            props = [ranges(spec["props"][p]) for p in atom["props"]]
            union = _union(ranges(atom["rest"]), *props)
            assert (_complement(union) if atom["negate"] else union) == ranges(atom["ranges"]), source
    assert any("props" in a for a in spec["atoms"]), "the letter classes can be written natively"
    # every property is regex's own set
    for name_, r in spec["props"].items():
        assert ranges(r) == class_ranges([(f"\\p{{{name_}}}", "")])[0]


def test_possessive_and_atomic_become_lookahead_and_backreference():
    assert js_source("a++b") == r"(?=(a+))\1b"
    assert js_source("(?>ab|a)c") == r"(?=((?:ab|a)))\1c"
    assert js_source("(?:x(?>y)++)+z") == r"(?:(?:x(?=((?:(?=(y))\2)+))\1))+z"  # groups numbered as they open
    assert js_source("a{2,3}+|b{1,}?") == r"(?=(a{2,3}))\1|b+?"


def test_ends_of_text_mean_what_python_means():
    assert js_source(r"\s+$") == js_source(r"\s") + r"+(?=\n?$)"
    assert js_source(r"a\Z") == "a$"
    assert js_source(r"(?m)a$") == r"a(?=\n|$)"


def test_case_insensitive_letters_are_spelled_out():
    # regex folds s with ſ (U+017F) and k with the Kelvin sign (U+212A): so must the browser
    assert js_source(r"(?i:s)k") == "(?:[Ss\u017f])k"
    assert js_source(r"(?i)k") == "[Kk\u212a]"


@pytest.mark.parametrize(
    "pattern",
    [r"(?<=a)b", r"\bword", "^a", r"(a)\1", "(?x) a", "a?", "a*|b", r"(?:a?)+", r"(?:(?=a))*a", "(?V1)a", r"x|(?:)"],
)
def test_what_javascript_reads_differently_is_refused(pattern):
    assert pattern_spec(pattern) is None


ATOMS = ["a", "b", " ", r"\n", r"\s", r"\S", r"\w", r"\d", "[ab]", r"[^a\s]", r"\p{L}", r"[^\p{L}\p{N}]", ".", "(?i:k)"]


@settings(max_examples=examples(200))
@given(st.recursive(st.sampled_from(ATOMS), lambda c: st.tuples(c, c).map("|".join) | st.tuples(c, c).map("".join), max_leaves=6))
def test_generated_patterns_keep_their_atoms_exactly(pattern):
    spec = pattern_spec(pattern)
    assert spec is not None  # none of these can match the empty string
    assert [ranges(a["ranges"]) for a in spec["atoms"]] == class_ranges(parse(pattern).atoms)
