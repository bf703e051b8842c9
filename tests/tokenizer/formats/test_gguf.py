"""tokenizer/formats/gguf.py: GGUF metadata read with struct, and a byte-level vocabulary in it as a tokenizer.json.

The real files (llama.cpp's vocabularies) are tests/tokenizer/models/test_llama_cpp.py's; here, files written by the
test itself, every value type, and every way a file can be refused."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tokenizer.display import bytes_to_unicode
from tokenizer.formats import gguf
from tokenizer.formats.hf import from_hf_json


def _string(s: str) -> bytes:
    raw = s.encode("utf-8")
    return struct.pack("<Q", len(raw)) + raw


def _value(v) -> bytes:
    if isinstance(v, bool):
        return struct.pack("<I?", 7, v)
    if isinstance(v, int):
        return struct.pack("<Iq", 11, v)
    if isinstance(v, float):
        return struct.pack("<Id", 12, v)
    if isinstance(v, str):
        return struct.pack("<I", 8) + _string(v)
    if isinstance(v, list) and all(isinstance(x, str) for x in v):
        return struct.pack("<IIQ", 9, 8, len(v)) + b"".join(_string(x) for x in v)
    if isinstance(v, list):
        return struct.pack("<IIQ", 9, 5, len(v)) + struct.pack(f"<{len(v)}i", *v)
    raise TypeError(v)


def write_gguf(meta: dict, version: int = 3) -> bytes:
    return b"GGUF" + struct.pack("<IQQ", version, 0, len(meta)) + b"".join(_string(k) + _value(v) for k, v in meta.items())


def toy_vocab(pre: str = "gpt-2", model: str = "gpt2") -> dict:
    chars = list(bytes_to_unicode().values())
    tokens = [*chars, "Ġt", "he", "Ġthe", "<|endoftext|>"]
    types = [gguf.NORMAL] * (len(tokens) - 1) + [gguf.CONTROL]
    return {
        "general.architecture": "toy",
        "tokenizer.ggml.model": model,
        "tokenizer.ggml.pre": pre,
        "tokenizer.ggml.tokens": tokens,
        "tokenizer.ggml.token_type": types,
        "tokenizer.ggml.merges": ["Ġ t", "h e", "Ġt he"],
    }


scalars = st.one_of(st.booleans(), st.integers(-(2**63), 2**63 - 1), st.floats(allow_nan=False), st.text(max_size=20))
values = st.one_of(scalars, st.lists(st.text(max_size=8), max_size=5), st.lists(st.integers(-(2**31), 2**31 - 1), max_size=5))


@given(st.dictionaries(st.text(min_size=1, max_size=12), values, max_size=6))
def test_metadata_reads_back_what_was_written(meta):
    assert gguf.read_metadata(write_gguf(meta)) == meta


@pytest.mark.parametrize("version", [2, 3])
def test_versions_two_and_three(version):
    assert gguf.read_metadata(write_gguf({"a": 1}, version)) == {"a": 1}


@pytest.mark.parametrize(
    "blob, says",
    [
        (b"PK\x03\x04" + b"\0" * 30, "not a GGUF file"),
        (b"GGUF" + struct.pack("<IQQ", 1, 0, 0), "GGUF version 1"),
        (write_gguf({"key": "value"})[:-3], "string of 5 bytes .* runs past the end"),
        (write_gguf({"key": 7})[:-3], "ends inside its metadata"),
        (write_gguf({"key": [1, 2, 3]})[:-2], "runs past the end"),
        (b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + _string("k") + struct.pack("<I", 99), "unknown value type 99"),
    ],
)
def test_a_damaged_file_is_a_clear_error(blob, says):
    with pytest.raises(gguf.GGUFError, match=says):
        gguf.read_metadata(blob, "toy.gguf")


def test_a_byte_level_vocabulary_becomes_a_tokenizer():
    tok = from_hf_json(gguf.to_hf_json(toy_vocab()), name="toy")
    n = list(bytes_to_unicode().values()).index("n")  # each byte's id is its place in the file's token list
    assert tok.encode_ordinary(" the then") == [258, 258, n]
    assert tok.decode([258, 258, n]) == " the then"
    assert tok.special_tokens == {"<|endoftext|>": 259}
    assert tok.encode("x<|endoftext|>", allowed_special="all")[-1] == 259


def test_missing_bytes_get_ids_after_the_last_token():
    meta = toy_vocab()
    missing = bytes_to_unicode()[0xFF]
    i = meta["tokenizer.ggml.tokens"].index(missing)
    meta["tokenizer.ggml.tokens"][i] = "xx"  # the byte 0xFF has no token now
    doc = gguf.to_hf_json(meta)
    assert doc["model"]["vocab"][missing] == len(meta["tokenizer.ggml.tokens"])


@pytest.mark.parametrize(
    "change, says",
    [
        ({"tokenizer.ggml.model": "llama"}, "SentencePiece-style"),
        ({"tokenizer.ggml.model": "bert"}, "tokenizer model 'bert'"),
        ({"tokenizer.ggml.pre": "no-such-rule"}, "pre-tokenizer 'no-such-rule'"),
        ({"tokenizer.ggml.token_type": [1]}, "do not agree"),
    ],
)
def test_what_cannot_be_read_is_refused_with_its_reason(change, says):
    with pytest.raises(gguf.GGUFError, match=says):
        gguf.to_hf_json({**toy_vocab(), **change}, "toy.gguf")


def test_test_vectors_are_read_as_llama_cpp_reads_them():
    inp = b"a\n__ggml_vocab_test__\n\n__ggml_vocab_test__\n b\n__ggml_vocab_test__\n"
    assert gguf.read_vocab_tests(inp, b" 1 2\n\n 3\n") == [("a", [1, 2]), ("", []), (" b", [3])]
    with pytest.raises(gguf.GGUFError, match="3 test inputs but 2"):
        gguf.read_vocab_tests(inp, b" 1\n 2\n")
