"""The pieces of a tokenizer.json pipeline against ``tokenizers``' own: normalizers, Digits, added-token flags.

Each reproduces a Rust function of ``tokenizers`` with Python's tables; where the tables
could differ (Unicode versions), every code point is compared (``slow``).
"""

from __future__ import annotations

import unicodedata

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import AddedToken, Tokenizer, decoders, models, normalizers, pre_tokenizers

from tests.tier import examples
from tokenizer.display import bytes_to_unicode
from tokenizer.pretokenize import hf_pipeline
from tokenizer.pretokenize.hf_pipeline import OPAQUE, Normalizer, hf_normalize

ALL = [c for c in range(0x110000) if not 0xD800 <= c < 0xE000]
HF_NORMALIZERS = {form: getattr(normalizers, form)() for form in hf_pipeline.NORMAL_FORMS}
OPAQUE_CHARS = [chr(c) for a, b in OPAQUE for c in range(a, b + 1)]

# characters where normalization is interesting: marks of many classes, Hangul jamo,
# compatibility forms, composites, and the characters tokenizers does not know
_MARKS = "\u0300\u0301\u0316\u0323\u0334\u0345\u05b0\u093c\u094d\u0f71\u0f72\u0f74\u302a\u3099\u309a"
_BASES = "aeoiuAEOKΩωαιUnc가각ᄀ\u1161\u11a8\u0b47\u0b3e\u0cc6\u0cc2ﬁﬃ㋿①½²ｶﾞ\u1e9eß\u00c5\u212b"
NORMALIZABLE = st.text(alphabet=st.sampled_from(list(_MARKS + _BASES) + OPAQUE_CHARS[:80]), max_size=12)


@settings(max_examples=examples(500))
@given(st.one_of(NORMALIZABLE, st.text(max_size=12)), st.sampled_from(hf_pipeline.NORMAL_FORMS))
def test_normalization_equals_tokenizers(text, form):
    assert hf_normalize(form, text) == HF_NORMALIZERS[form].normalize_str(text)


@settings(max_examples=examples(200))
@given(NORMALIZABLE)
def test_alignment_covers_the_original_text(text):
    out, align = Normalizer(("NFKC",)).aligned(text)
    assert out == HF_NORMALIZERS["NFKC"].normalize_str(text)
    if align is None:
        assert out == text
        return
    assert len(align) == len(out)
    assert all(0 <= a <= b <= len(text) for a, b in align)
    assert [a for a, _ in align] == sorted(a for a, _ in align)


@pytest.mark.slow
@pytest.mark.parametrize("form", hf_pipeline.NORMAL_FORMS)
def test_every_code_point_normalizes_as_in_tokenizers(form):
    ref = HF_NORMALIZERS[form]
    wrong = [hex(c) for c in ALL if hf_normalize(form, chr(c)) != ref.normalize_str(chr(c))]
    assert not wrong


@pytest.mark.slow
def test_opaque_table_is_what_tokenizers_does_not_know():
    """Recomputes ``OPAQUE`` from tokenizers; on failure, prints the table to paste into hf_pipeline.py."""
    relevant = regex.compile(r"[\p{NFKD_QC=N}\p{NFC_QC=M}\P{ccc=0}]")
    pairs: dict[int, list[int]] = {}
    for c in ALL:
        d = unicodedata.decomposition(chr(c))
        if d and not d.startswith("<") and len(d.split()) == 2 and unicodedata.normalize("NFC", chr(c)) == chr(c):
            first, second = (int(x, 16) for x in d.split())
            pairs.setdefault(second, []).append(c)
            pairs.setdefault(first, []).append(c)
    found = []
    for c in ALL:
        s = chr(c)
        if not relevant.match(s):
            continue
        if unicodedata.category(s) == "Cn":
            found.append(c)  # unknown to Python's tables too: tokenizers' Unicode 9.0 does not have it either
            continue
        known = all(HF_NORMALIZERS[f].normalize_str(s) == unicodedata.normalize(f, s) for f in hf_pipeline.NORMAL_FORMS)
        if unicodedata.combining(s):
            for probe in ("a\u0301" + s, "a" + s + "\u0334"):
                known &= HF_NORMALIZERS["NFD"].normalize_str(probe) == unicodedata.normalize("NFD", probe)
        for comp in pairs.get(c, ()):
            probe = unicodedata.normalize("NFD", chr(comp))
            known &= HF_NORMALIZERS["NFC"].normalize_str(probe) == unicodedata.normalize("NFC", probe)
        if not known:
            found.append(c)
    ranges: list[list[int]] = []
    for c in found:
        if ranges and ranges[-1][1] == c - 1:
            ranges[-1][1] = c
        else:
            ranges.append([c, c])
    table = tuple((a, b) for a, b in ranges)
    assert table == OPAQUE, "new table:\n" + ", ".join(f"(0x{a:X}, 0x{b:X})" for a, b in table)


@pytest.mark.slow
def test_digits_split_on_the_characters_rusts_is_numeric_takes():
    ours = hf_pipeline.OnigRegex(hf_pipeline.DIGITS_REGEX)
    ref = pre_tokenizers.Digits(individual_digits=True)
    for i in range(0, len(ALL), 100_000):
        text = "".join(chr(c) for c in ALL[i : i + 100_000])
        hf = [p for p, _ in ref.pre_tokenize_str(text)]
        mine = [text[a:b] for a, b in hf_pipeline._behave(hf_pipeline._regex_matches(ours, text), "Isolated")]
        assert mine == hf


def _with_added(token: AddedToken) -> Tokenizer:
    vocab = {c: i for i, c in enumerate(bytes_to_unicode().values())}
    tok = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    tok.decoder = decoders.ByteLevel()
    tok.add_tokens([token])
    return tok


# every assigned code point but the long runs of ideographs, syllables and private use, whose
# properties do not vary inside the run (the first 300 of each run are kept)
_RUNS = [
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xAC00, 0xD7A3),
    (0xE000, 0xF8FF),
    (0x17000, 0x18CFF),
    (0x20000, 0x323AF),
    (0xF0000, 0x10FFFF),
]
_UNASSIGNED = regex.compile(r"\p{Cn}")


def character_sample() -> list[int]:
    """Every assigned code point, but only the first 300 of each long uniform run (built when a slow test asks)."""
    return [c for c in ALL if not _UNASSIGNED.match(chr(c)) and not any(a + 300 <= c <= b for a, b in _RUNS)]


@pytest.mark.slow
@pytest.mark.parametrize("flag", ["single_word", "lstrip", "rstrip"])
def test_added_token_flags_see_the_same_word_and_space_characters(flag):
    """single_word looks for a word character beside the match, lstrip/rstrip take whitespace (``character_sample()``)."""
    from tokenizer import formats

    ref = _with_added(AddedToken("x", **{flag: True}))
    ours = formats.load_bytes(ref.to_str().encode())
    sample = character_sample()
    for i in range(0, len(sample), 50_000):
        chars = [chr(c) for c in sample[i : i + 50_000] if c != ord("x")]
        if flag == "single_word":
            text = "".join(c + "x " for c in chars)
        elif flag == "lstrip":
            text = "".join(c + "x" for c in chars)
        else:
            text = "".join("x" + c for c in chars)
        assert ours.encode(text) == ref.encode(text, add_special_tokens=False).ids
