"""tokenizer/formats/bpe_lab.schema.json: BPE Lab JSON stated once as a JSON Schema, used by the loader.

Everything BPE Lab writes is valid under it; a file it refuses names the path of what is wrong and what it
should be; the loader's fast loops accept exactly what the schema accepts."""

from __future__ import annotations

import base64
import json

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.tier import examples
from tokenizer import Tokenizer, formats, load_encoding, train
from tokenizer.formats import bpe_lab
from tokenizer.pretokenize.pretokenizer import NORMAL_FORMS


@pytest.fixture(scope="module")
def tok():
    return train("the cat sat on the mat, the cat in the hat " * 30, 256 + 40, special_tokens=["<|endoftext|>"])


def test_the_schema_is_a_valid_draft_2020_12_schema():
    jsonschema.Draft202012Validator.check_schema(bpe_lab.schema())
    assert bpe_lab.schema()["properties"]["format"]["const"] == bpe_lab.FORMAT
    assert bpe_lab.schema()["properties"]["normalizer"]["enum"] == sorted(NORMAL_FORMS)


def _from_ranks():
    ranks = {bytes([b]): b for b in range(256)}
    ranks.update({t: 256 + i for i, t in enumerate([b"aba", b"ab", b"abc", b"bc"])})
    return Tokenizer.from_ranks(ranks, pattern="gpt4", special_tokens={"<|endoftext|>": 300})


#: Tokenizers of every kind BPE Lab writes: trained, official, with whole tokens, normalizing, with a tokenizer.json
#: pipeline. Built when their test runs, not when the module is collected (every pytest process collects it).
WRITTEN = {
    "trained": lambda: train("hello world " * 50, 256 + 20, pattern=None),
    "gpt2": lambda: load_encoding("gpt2").truncated(300),
    "whole tokens": _from_ranks,
    "qwen NFC": lambda: load_encoding("qwen3.6").truncated(100),
    "tokenizer.json": lambda: formats.load_bytes(json.dumps(formats.to_hf_json(train("a pipeline " * 30, 256 + 10))).encode()),
    "pipeline": lambda: load_encoding("deepseek_v4").truncated(300),  # a tokenizer.json whose text handling is a pipeline
}


@pytest.mark.parametrize("kind", list(WRITTEN))
def test_everything_bpe_lab_writes_is_valid(kind):
    made = WRITTEN[kind]()
    doc = json.loads(formats.dumps(made))
    assert not list(bpe_lab._validator().iter_errors(doc))
    assert ("pipeline" in doc) == (made.pipeline is not None) and ("normalizer" in doc) == (made.normalizer is not None)
    assert set(doc) <= set(bpe_lab.schema()["properties"])
    assert formats.loads(formats.dumps(made)).merges == made.merges


def test_the_loader_uses_the_schema_it_publishes(tok, monkeypatch):
    """A rule changed in the schema file changes what the loader accepts: the schema is not a copy."""
    doc = formats.to_json(tok)
    stricter = json.loads(bpe_lab.SCHEMA_PATH.read_text())
    stricter["properties"]["name"]["maxLength"] = 3
    monkeypatch.setattr(bpe_lab, "schema", lambda: stricter)
    bpe_lab._validator.cache_clear()
    try:
        with pytest.raises(ValueError, match="field 'name'"):
            formats.from_json({**doc, "name": "longer"})
    finally:
        monkeypatch.undo()
        bpe_lab._validator.cache_clear()
    assert formats.from_json({**doc, "name": "longer"}).name == "longer"


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: d["merges"][3].__setitem__(2, "x"), r"field 'merges\[3\]\[2\]' should be a token id, a whole number from 0 to 2147483647, got \"x\""),
        (lambda d: d["merges"][3].__setitem__(0, -1), r"field 'merges\[3\]\[0\]' should be a token id.*got -1"),
        (lambda d: d["merges"][3].__setitem__(1, 2.0), r"field 'merges\[3\]\[1\]' should be a token id.*got 2.0"),
        (lambda d: d["merges"][3].__setitem__(3, -5), r"field 'merges\[3\]\[3\]' should be a count"),
        (lambda d: d["merges"].__setitem__(5, [1, 2]), r"field 'merges\[5\]' should be \[left, right, new_id, count or null\]"),
        (lambda d: d.__setitem__("merges", {"a": 1}), "field 'merges' should be a list of merges"),
        (lambda d: d.pop("special_tokens"), "field 'special_tokens' is missing"),
        (lambda d: d.__setitem__("special_tokens", {"<|x|>": True}), r"field 'special_tokens.<\|x\|>' should be a token id"),
        (lambda d: d.__setitem__("byte_ids", list(range(255))), "field 'byte_ids' should be null .* or a list of the 256 ids"),
        (lambda d: d.__setitem__("byte_ids", [*range(7), "7", *range(8, 256)]), r"field 'byte_ids\[7\]' should be a token id"),
        (lambda d: d.__setitem__("whole_tokens", [[300, "not base64!"]]), r"field 'whole_tokens\[0\]\[1\]' should be the token's bytes in base64"),
        (lambda d: d.__setitem__("whole_tokens", [[300, "QUI=\n"]]), r"field 'whole_tokens\[0\]\[1\]' should be the token's bytes in base64"),
        (lambda d: d.__setitem__("normalizer", "nfc"), "field 'normalizer' should be the Unicode normal form"),
        (lambda d: d.__setitem__("metadata", []), "field 'metadata' should be an object"),
        (lambda d: d.__setitem__("version", 0), "field 'version' should be the format's version, 1, got 0"),
        (lambda d: d.__setitem__("version", "1"), "field 'version' should be the format's version"),
        (lambda d: d.__setitem__("pipeline", {"added_tokens": [{"id": 1}], "ignore_merges": False}), r"field 'pipeline.added_tokens\[0\].content' is missing"),
        (lambda d: d.__setitem__("pipeline", {"added_tokens": [], "ignore_merges": 1}), "field 'pipeline.ignore_merges' should be true or false: whether .*, got 1"),
        (lambda d: d.__setitem__(" merges", d.pop("merges")), "field ' merges' is not part of BPE Lab JSON: did you mean 'merges'"),
        (lambda d: d.__setitem__("Special_Tokens", {}), "field 'Special_Tokens' is not part of BPE Lab JSON: did you mean 'special_tokens'"),
        (lambda d: d.__setitem__("notes", "mine"), "field 'notes' is not part of BPE Lab JSON; remove it, or keep free-form facts in 'metadata'"),
    ],
)  # fmt: skip
def test_a_refused_file_names_the_path_and_what_it_should_be(tok, mutate, message):
    doc = json.loads(formats.dumps(tok))
    mutate(doc)
    with pytest.raises(ValueError, match=message):
        formats.loads(json.dumps(doc))


# finite floats: json.dumps writes infinity as Infinity, which the loader refuses before any path (not standard JSON,
# tests/tokenizer/formats/test_json_input.py)
bad_values = st.one_of(
    st.none(), st.booleans(), st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=3), st.integers(-5, -1), st.just(2**31), st.lists(st.integers(0, 9), max_size=2)
)  # fmt: skip


@settings(max_examples=examples(100), deadline=None)
@given(data=st.data())
def test_any_damaged_merge_is_named_by_its_path(tok, data):
    doc = json.loads(formats.dumps(tok))
    i = data.draw(st.integers(0, len(doc["merges"]) - 1))
    j = data.draw(st.integers(0, 3))
    value = data.draw(bad_values.filter(lambda v: not (j == 3 and (v is None or (type(v) is int and v >= 0)))))
    doc["merges"][i][j] = value
    with pytest.raises(ValueError, match=rf"field 'merges\[{i}\]\[{j}\]' should be"):
        formats.loads(json.dumps(doc))


merge_items = st.one_of(
    st.lists(st.one_of(st.integers(-2, 2**31 + 1), st.none(), st.booleans(), st.floats(0, 9), st.text(max_size=2)), min_size=2, max_size=5),
    st.tuples(st.integers(0, 9), st.integers(0, 9), st.integers(0, 9), st.none() | st.integers(-1, 9)).map(list),
    st.text(max_size=3),
    st.none(),
)  # fmt: skip
whole_items = st.one_of(
    st.tuples(st.integers(-1, 9), st.binary(max_size=6).map(lambda b: base64.b64encode(b).decode())).map(list),
    st.lists(st.one_of(st.integers(0, 9), st.text("QUJD=\n!", max_size=6)), min_size=1, max_size=3),
)


@settings(max_examples=examples(300))
@given(st.lists(merge_items, max_size=4), st.lists(whole_items, max_size=3))
def test_the_fast_loops_accept_exactly_what_the_schema_accepts(merges, whole):
    """They exist for speed only: the schema decides. (For base64 the loop is stricter; the loader decodes anyway.)"""
    base = {"format": bpe_lab.FORMAT, "version": 1, "special_tokens": {}, "merges": []}

    def valid(**fields):
        return not list(bpe_lab._validator().iter_errors({**base, **fields}))

    for item in merges:
        assert bpe_lab._ok_merges([item]) == valid(merges=[item]), item
    for item in whole:
        if bpe_lab._ok_whole_tokens([item]):
            assert valid(whole_tokens=[item]), item
        elif valid(whole_tokens=[item]):  # the schema's pattern lets a final newline through; decoding refuses it
            assert item[1].endswith("\n"), item


def test_a_file_with_only_a_mistyped_field_says_so_before_saying_one_is_missing(tok):
    doc = json.loads(formats.dumps(tok))
    doc["merges "] = doc.pop("merges")
    with pytest.raises(ValueError, match="did you mean 'merges'") as e:
        formats.loads(json.dumps(doc))
    assert "missing" not in str(e.value)


def test_what_a_schema_cannot_say_is_still_checked(tok):
    doc = json.loads(formats.dumps(tok))
    doc["merges"][0][0] = 9999  # a valid id, but no byte or merge defines it
    with pytest.raises(ValueError, match="inconsistent"):
        formats.loads(json.dumps(doc))
    doc = json.loads(formats.dumps(tok))
    doc["whole_tokens"] = [[400, "QQ=="], [400, "Qg=="]]
    with pytest.raises(ValueError, match=r"whole_tokens\[1\]' repeats id 400"):
        formats.loads(json.dumps(doc))
