"""ui/web/jsregex.py: the split patterns as data for a JavaScript RegExp.

What the RegExp then splits is checked where a JavaScript engine runs: node
(tests/web/bpe.test.mjs) and Chromium (tests/browser/test_live_parity.py). Here: that
the data says exactly what ``regex`` matches, and that what JavaScript would read
differently is refused.
"""

from __future__ import annotations

import json

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.tier import examples
from tokenizer.pretokenize.pattern_syntax import class_ranges, parse
from tokenizer.pretokenize.patterns import BUILTIN_PATTERNS
from ui.web import jsregex
from ui.web.jsregex import _complement, _union, js_source, pattern_spec


@pytest.fixture(autouse=True)
def data(tmp_path, monkeypatch):
    """A data folder of each test's own: the built-in patterns' specs are cached there, never in the project's."""
    monkeypatch.setenv("BPE_LAB_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data" / "cache"


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


# the built-in patterns' specs, kept in the data folder's cache


@pytest.fixture
def fresh():
    """A new process, as far as pattern_spec knows: its memory and the engine's description emptied before and after."""
    pattern_spec.cache_clear()
    jsregex._engine.cache_clear()
    yield
    pattern_spec.cache_clear()
    jsregex._engine.cache_clear()


def no_computing(monkeypatch):
    def refuse(pattern):
        raise AssertionError("the spec was computed again")

    monkeypatch.setattr(jsregex, "_spec", refuse)


def computing(monkeypatch) -> list:
    calls, real = [], jsregex._spec
    monkeypatch.setattr(jsregex, "_spec", lambda pattern: calls.append(pattern) or real(pattern))
    return calls


@pytest.mark.parametrize("name", sorted(BUILTIN_PATTERNS))
def test_a_builtin_patterns_cached_spec_is_exactly_the_computed_one(name, data, fresh, monkeypatch):
    pattern = BUILTIN_PATTERNS[name]
    computed = pattern_spec(pattern)
    assert (data / f"jsregex-{name}.json").is_file()
    assert jsregex._spec(pattern) == computed  # what was written is what is computed
    pattern_spec.cache_clear()
    no_computing(monkeypatch)
    cached = pattern_spec(pattern)
    # equal, with the same types (lists, never tuples) and keys in the same order: the browser's model file is the same
    assert cached == computed and repr(cached) == repr(computed)
    assert json.dumps(cached, ensure_ascii=False) == json.dumps(computed, ensure_ascii=False)
    assert js_source(pattern) == "".join(
        p if isinstance(p, str) else jsregex.js_class(ranges(computed["atoms"][p]["ranges"])) for p in computed["parts"]
    )


@pytest.mark.parametrize("damage", ["truncated", "garbage", "empty", "no-spec"])
def test_a_damaged_cache_is_ignored_and_written_again(damage, data, fresh, monkeypatch):
    pattern = BUILTIN_PATTERNS["gpt4"]
    computed = pattern_spec(pattern)
    path = data / "jsregex-gpt4.json"
    whole = path.read_bytes()
    doc = json.loads(whole)
    path.write_bytes(
        {
            "truncated": whole[: len(whole) // 2],
            "garbage": b"\x00\xff{not json",
            "empty": b"",
            "no-spec": json.dumps({"key": doc["key"], "value": [1, 2]}).encode(),
        }[damage]
    )
    pattern_spec.cache_clear()
    calls = computing(monkeypatch)
    assert pattern_spec(pattern) == computed and calls == [pattern]
    assert path.read_bytes() == whole


@pytest.mark.parametrize("change", ["pattern", "regex", "unicodedata", "code"])
def test_any_change_of_an_input_misses_the_cache(change, data, fresh, monkeypatch):
    pattern = BUILTIN_PATTERNS["gpt4"]
    computed = pattern_spec(pattern)
    pattern_spec.cache_clear()
    if change == "pattern":  # another pattern's document in gpt4's place
        pattern_spec(BUILTIN_PATTERNS["gpt2"])
        pattern_spec.cache_clear()
        (data / "jsregex-gpt4.json").write_bytes((data / "jsregex-gpt2.json").read_bytes())
    elif change == "regex":  # another release of regex: other Unicode tables
        monkeypatch.setattr(regex, "__version__", "0.0.0")
        jsregex._engine.cache_clear()
    elif change == "unicodedata":
        monkeypatch.setattr(jsregex.unicodedata, "unidata_version", "99.0.0")
        jsregex._engine.cache_clear()
    else:
        monkeypatch.setattr(jsregex, "_CODE", ["changed", "changed"])
    calls = computing(monkeypatch)
    assert pattern_spec(pattern) == computed and calls == [pattern]


def test_a_data_folder_that_cannot_be_written_still_gives_the_spec(tmp_path, fresh, monkeypatch):
    pattern = BUILTIN_PATTERNS["o200k"]
    computed = jsregex._spec(pattern)
    (tmp_path / "file").write_text("not a folder")
    monkeypatch.setenv("BPE_LAB_DATA_DIR", str(tmp_path / "file" / "data"))
    assert pattern_spec(pattern) == computed


def test_a_users_pattern_is_never_written(data, fresh):
    assert pattern_spec(r"\w+|\s+") is not None and pattern_spec(r"(?<=a)b") is None
    assert not data.exists()
