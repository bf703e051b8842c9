"""tokenizer/formats/json_input.py, and every reader that goes through it: a generated bad document (nested
thousands of levels deep, huge, with a byte-order mark, with a duplicated key, NaN, cut off) is a ValueError that
says what is wrong, or read as meant; never a RecursionError, never a silent misparse."""

from __future__ import annotations

import base64
import json
import sys

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.tier import examples
from tokenizer import formats, registry, train
from tokenizer.formats import json_input
from tokenizer.formats.gpt2 import load_gpt2_files
from tokenizer.formats.json_input import nesting, read_json
from tokenizer.formats.tekken import parse_tekken
from tokenizer.models import pretrained

# ----------------------------------------------------------------------------- the function


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)


def depth_of(value) -> int:
    if isinstance(value, list):
        return 1 + max(map(depth_of, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(depth_of, value.values()), default=0)
    return 0


@settings(max_examples=examples(300))
@given(json_values, st.sampled_from([None, 1, 2]), st.booleans())
@example(["]]]", {"[[{": '\\\\"[', 'a\\"[': [[]]}], None, False)
def test_any_document_reads_as_json_does_and_its_nesting_is_counted_outside_strings(value, indent, ascii_only):
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    assert read_json(text) == json.loads(text)
    assert read_json(text.encode()) == json.loads(text)
    assert nesting(text.encode())[0] == depth_of(value)


@settings(max_examples=examples(100))
@given(json_values, st.sampled_from(["utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32"]))
def test_a_byte_order_mark_is_read_as_meant(value, codec):
    text = json.dumps(value, ensure_ascii=False)
    data = text.encode(codec)
    if codec in ("utf-16-le", "utf-16-be"):
        data = "\ufeff".encode(codec) + data
    assert read_json(data) == json.loads(text)
    assert read_json("\ufeff" + text) == json.loads(text)


@settings(max_examples=examples(100))
@given(st.integers(json_input.MAX_DEPTH + 1, 20_000), st.sampled_from(["[", '{"k": ', '[{"a": [']), st.text(max_size=5))
def test_deep_nesting_is_refused_before_parsing(depth, opener, inside):
    closer = {"[": "]", '{"k": ': "}", '[{"a": [': "]}]"}[opener]
    text = opener * depth + json.dumps(inside) + closer * depth
    with pytest.raises(ValueError, match=r"nested too deeply: .* levels deep \(line 1 passes 128\)"):
        read_json(text)
    assert len(text) > 128 and sys.getrecursionlimit() <= 10_000


def test_brackets_in_strings_and_escaped_quotes_do_not_count():
    deep_looking = json.dumps({"a": "[" * 10_000, "b": '\\"' + "{" * 500, "c": ["\\\\", "]]"]})
    assert read_json(deep_looking)["a"] == "[" * 10_000
    assert nesting(deep_looking.encode()) == (2, None)


@settings(max_examples=examples(100))
@given(st.dictionaries(st.text(max_size=6), json_values, min_size=1, max_size=5), st.data())
def test_a_duplicated_key_is_refused_naming_it(obj, data):
    key = data.draw(st.sampled_from(sorted(obj)))
    body = [f"{json.dumps(k)}: {json.dumps(v)}" for k, v in obj.items()]
    body.insert(data.draw(st.integers(0, len(body))), f"{json.dumps(key)}: 0")
    text = data.draw(st.sampled_from(["{%s}", '{"outer": [1, {%s}]}'])) % ", ".join(body)
    with pytest.raises(ValueError, match=r"twice in one object") as e:
        read_json(text)
    assert json.dumps(key, ensure_ascii=False)[1:-1] in str(e.value) or key in str(e.value)


@pytest.mark.parametrize(
    "text, what",
    [
        ('{"a": NaN}', "not standard JSON"),
        ("[Infinity]", "not standard JSON"),
        ("[" + "9" * 5000 + "]", "not standard JSON"),
        ('{"a": [1, 2', r"not valid JSON \(line 1, column 12"),
        ("", "not valid JSON"),
        (b"\xff\x00{}", "not UTF-8 text"),
        (b'{"a": "\xe9"}', "bad byte at offset 7"),
    ],
)
def test_damaged_and_non_standard_json_names_the_problem(text, what):
    with pytest.raises(ValueError, match=what):
        read_json(text)


def test_a_huge_document_is_refused_before_it_is_decoded():
    with pytest.raises(ValueError, match=r"1\.0 MB of JSON, more than the 1 MB"):
        read_json(b"[" + b"0," * 524_288 + b"0]", max_bytes=1024 * 1024)


# ----------------------------------------------------------------------------- every reader


@pytest.fixture(scope="module")
def documents():
    """One valid document per reader, with the function that reads it."""
    tok = train("hello world, hello tokens " * 20, 256 + 12, special_tokens=["<|endoftext|>"])
    vocab = [{"rank": i, "token_bytes": base64.b64encode(bytes([i])).decode(), "token_str": None} for i in range(256)]
    tekken = {"config": {"pattern": "[a-z]+", "default_vocab_size": 258, "default_num_special_tokens": 2}, "vocab": vocab}
    encoder = {formats.gpt2.gpt2_form(bytes([b])): b for b in range(256)}

    def gpt2(data, tmp_path):
        (tmp_path / "encoder.json").write_bytes(data)
        (tmp_path / "vocab.bpe").write_text("#version: 0.2\n")
        return load_gpt2_files(tmp_path / "encoder.json", tmp_path / "vocab.bpe")

    def registry_file(data, tmp_path):
        return pretrained.PARSERS["hf-json"](registry.spec("deepseek_v4"), data, {})

    return {
        "BPE Lab JSON (loads)": (formats.dumps(tok), lambda d, _: formats.loads(d)),
        "BPE Lab JSON (load_bytes)": (formats.dumps(tok), lambda d, _: formats.load_bytes(d)),
        "tokenizer.json (load_bytes)": (json.dumps(formats.to_hf_json(tok)), lambda d, _: formats.load_bytes(d)),
        "Tekken": (json.dumps(tekken), lambda d, _: parse_tekken(d)),
        "GPT-2 encoder.json": (json.dumps(encoder), gpt2),
        "a registry model's tokenizer.json": (json.dumps(formats.to_hf_json(tok)), registry_file),
    }


READERS = [
    "BPE Lab JSON (loads)",
    "BPE Lab JSON (load_bytes)",
    "tokenizer.json (load_bytes)",
    "Tekken",
    "GPT-2 encoder.json",
    "a registry model's tokenizer.json",
]


def _read(documents, reader, text, tmp_path):
    _, read = documents[reader]
    return read(text.encode() if reader != "BPE Lab JSON (loads)" else text, tmp_path)


@pytest.mark.parametrize("reader", READERS)
@settings(max_examples=examples(30), deadline=None)
@given(depth=st.integers(json_input.MAX_DEPTH + 1, 5000), nest=st.sampled_from(["[", '{"x": ']))
def test_every_reader_refuses_a_document_nested_too_deeply(documents, reader, depth, nest, tmp_path_factory):
    valid, _ = documents[reader]
    close = "]" if nest == "[" else "}"
    text = '{"zz": ' + nest * depth + "0" + close * depth + ", " + valid.lstrip()[1:]
    with pytest.raises(ValueError, match="nested too deeply"):
        _read(documents, reader, text, tmp_path_factory.mktemp("deep"))


@pytest.mark.parametrize("reader", READERS)
@settings(max_examples=examples(30), deadline=None)
@given(data=st.data())
def test_every_reader_refuses_a_duplicated_key(documents, reader, data, tmp_path_factory):
    valid, _ = documents[reader]
    key = data.draw(st.sampled_from(sorted(json.loads(valid))))
    text = "{" + json.dumps(key) + ": 0, " + valid.lstrip()[1:]
    with pytest.raises(ValueError, match="twice in one object"):
        _read(documents, reader, text, tmp_path_factory.mktemp("dup"))


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize(
    "damage, what",
    [
        (lambda v: '{"zz": NaN, ' + v.lstrip()[1:], "not standard JSON"),
        (lambda v: v[: len(v) // 2], "not valid JSON"),
        (lambda v: '{"zz": "' + "\\u00e9" * 10 + '", ' + v.lstrip()[1:] + " x", "not valid JSON"),
    ],
)
def test_every_reader_names_non_standard_and_damaged_json(documents, reader, damage, what, tmp_path):
    valid, _ = documents[reader]
    with pytest.raises(ValueError, match=what):
        _read(documents, reader, damage(valid), tmp_path)


@pytest.mark.parametrize("reader", READERS)
def test_every_reader_refuses_a_huge_document(documents, reader, tmp_path, monkeypatch):
    valid, _ = documents[reader]
    monkeypatch.setattr(json_input, "MAX_BYTES", len(valid.encode()) - 1)
    with pytest.raises(ValueError, match="MB of JSON, more than"):
        _read(documents, reader, valid, tmp_path)


@pytest.mark.parametrize("reader", [r for r in READERS if r != "a registry model's tokenizer.json"])
@pytest.mark.parametrize("codec", ["utf-8-sig", "utf-16"])
def test_every_reader_reads_a_document_with_a_byte_order_mark_as_meant(documents, reader, codec, tmp_path):
    valid, read = documents[reader]
    if reader == "BPE Lab JSON (loads)":  # text: its mark is the character U+FEFF
        plain, marked = read(valid, tmp_path), read("\ufeff" + valid, tmp_path)
    else:
        plain, marked = read(valid.encode(), tmp_path), read(valid.encode(codec), tmp_path)
    if hasattr(plain, "merges"):
        assert (marked.merges, marked.special_tokens, marked.byte_ids) == (plain.merges, plain.special_tokens, plain.byte_ids)
    else:
        assert marked == plain


def test_other_tokenizer_files_lose_a_byte_order_mark_too():
    tok = train("hello world, hello tokens " * 20, 256 + 12)
    for data in (formats.dumps_minbpe(tok).encode(), formats.dumps_tiktoken(tok)):
        back = formats.load_bytes(b"\xef\xbb\xbf" + data)
        assert back.merges == tok.merges
