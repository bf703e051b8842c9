"""pretokenize/pretokenizer.py: special tokens cut out, a split pattern, and a normalizer that keeps where text came from."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from texts import MULTILINGUAL

from tests.tier import examples
from tokenizer import Tokenizer, formats, train
from tokenizer.pretokenize.pretokenizer import RegexPreTokenizer, aligned_bytes

# marks that compose with the letters before them (or not), Hangul jamo, compatibility forms
_PARTS = [
    *"aeoucAEOUC !\n",
    "\u0300",
    "\u0301",
    "\u0308",
    "\u0323",
    "\u0327",
    "\u1100\u1161\u11a8",
    "ﬁ",
    "①",
    "\u212b",
    "😄",
    "<|x|>",
]
composable = st.lists(st.sampled_from(_PARTS), max_size=30).map("".join)
FORMS = ("NFC", "NFD", "NFKC", "NFKD")


@settings(max_examples=examples(300))
@given(composable, st.sampled_from(FORMS))
def test_each_normalized_byte_points_at_the_text_it_comes_from(text, form):
    normalized = unicodedata.normalize(form, text)
    align = aligned_bytes(text, normalized, form)
    assert len(align) == len(normalized.encode())
    data = text.encode()
    assert all(0 <= a < b <= len(data) for a, b in align)
    assert [a for a, _ in align] == sorted(a for a, _ in align)  # in order
    covered = {i for a, b in align for i in range(a, b)}
    assert covered == set(range(len(data)))  # every byte of the text is somewhere
    for (a, b), byte in zip(align, normalized.encode()):
        if b - a == 1:
            assert data[a] == byte  # a byte that points at one byte is that byte


@pytest.fixture(scope="module")
def nfc():
    """A trained tokenizer that puts text in NFC first, as Qwen's package does."""
    base = train(unicodedata.normalize("NFC", MULTILINGUAL) * 2, 500)
    return Tokenizer(base.merge_table, pattern=base.pattern, special_tokens={"<|x|>": 600}, normalizer="NFC")


@settings(max_examples=examples(200), deadline=None)
@given(composable)
def test_a_normalizing_tokenizer_encodes_every_form_as_its_normal_form(nfc, text):
    want = nfc.encode(unicodedata.normalize("NFC", text), allowed_special="all")
    for form in FORMS[:2]:
        assert nfc.encode(unicodedata.normalize(form, text), allowed_special="all") == want
    spans = nfc.encode_spans(text, allowed_special="all")
    assert [s.id for s in spans] == nfc.encode(text, allowed_special="all")
    assert spans[0].start == 0 if spans else text == ""
    assert all(a.start <= b.start and a.end <= b.end for a, b in zip(spans, spans[1:]))
    assert {i for s in spans for i in range(s.start, s.end)} == set(range(len(text)))  # every character is in a token
    trace = nfc.encode_trace(text, allowed_special="all")
    assert trace.final == want and trace.source_spans_at(len(trace.steps)) == spans


def test_the_normal_form_is_saved_and_exported(nfc):
    back = formats.loads(formats.dumps(nfc))
    assert back.normalizer == "NFC" and back.encode("e\u0301") == nfc.encode("é")
    assert formats.to_hf_json(nfc)["normalizer"] == {"type": "NFC"}
    with pytest.raises(ValueError, match="NFC form"):
        formats.dumps_minbpe(nfc)


def test_unchanged_text_takes_no_detour(nfc):
    text = "Café " * 3  # already NFC
    assert nfc.encode_spans(text) == nfc.spans(nfc.encode(text))
    assert nfc.encode_trace(text).source is None


def test_an_unknown_normal_form_is_refused():
    with pytest.raises(ValueError, match="NFC, NFKC, NFD, NFKD"):
        RegexPreTokenizer("gpt2", "NFX")
    with pytest.raises(ValueError, match="normalizer"):
        formats.loads(formats.dumps(Tokenizer()).replace('"pattern": null', '"pattern": null, "normalizer": "lower"'))
