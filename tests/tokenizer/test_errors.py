"""Bad input raises ValueError that says what is wrong, at every public function, never anything else.

Where tiktoken raises TypeError or KeyError for the same mistake, ours is also one of those
(``InvalidType``, ``UnknownToken``), so code written for tiktoken still catches it.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from texts import MULTILINGUAL

import tokenizer
from tests.tier import examples
from tokenizer import Tokenizer, TrainingTrace, formats, load_encoding, registry, train
from tokenizer.display import from_gpt2_form, gpt2_form, hex_bytes, visible
from tokenizer.errors import InvalidType, UnknownToken
from tokenizer.formats.gpt2 import gpt2_files_from_ranks, load_gpt2_files
from tokenizer.models.pretrained import merges_from_ranks


@pytest.fixture(scope="module")
def tok():
    return train(MULTILINGUAL * 2, 256 + 60, special_tokens=["<|endoftext|>", "<|x|>"])


# ----------------------------------------------------------------------------- the examples


def test_decode_of_a_generator_with_an_unknown_id(tok):
    with pytest.raises(ValueError, match="cannot decode token id 999999"):
        tok.decode(i for i in [104, 999999])


def test_train_on_none():
    with pytest.raises(ValueError, match="training text must be a str"):
        train(None, 300)
    with pytest.raises(ValueError, match="decode it first"):
        train(b"bytes", 300)


def test_a_file_whose_metadata_nests_100000_levels(tmp_path, tok):
    doc = formats.to_json(tok)
    text = json.dumps(doc).replace('"metadata": {', '"metadata": {"deep": ' + "[" * 100_000 + "]" * 100_000 + ", ", 1)
    path = tmp_path / "deep.json"
    path.write_text(text)
    with pytest.raises(ValueError, match="nested too deeply"):
        formats.load(path)


def test_missing_files_are_value_errors_everywhere(tmp_path):
    missing = tmp_path / "nope.model"
    for load in (formats.load_minbpe, formats.load):
        with pytest.raises(ValueError, match="does not exist"):
            load(missing)
    with pytest.raises(ValueError, match="is a folder"):
        formats.load_minbpe(tmp_path)
    with pytest.raises(ValueError, match="does not exist"):
        load_gpt2_files(missing, missing)


def test_load_encoding_of_none():
    with pytest.raises(ValueError, match="unknown encoding None"):
        load_encoding(None)


def test_special_tokens_with_lone_surrogates_are_refused_at_load(tok):
    doc = formats.to_json(tok)
    doc["special_tokens"] = {"<|\ud800|>": 500}
    with pytest.raises(ValueError, match="lone surrogate"):
        formats.from_json(doc)
    with pytest.raises(ValueError, match="lone surrogate"):
        formats.loads(json.dumps(doc))


@pytest.mark.parametrize("bad", [[-1] + list(range(1, 256)), [2**40] + list(range(1, 256)), [True] + list(range(1, 256))])
def test_byte_ids_out_of_range_are_refused_at_load(tok, bad):
    doc = formats.to_json(tok)
    doc["byte_ids"] = bad
    with pytest.raises(ValueError, match="byte_ids"):
        formats.from_json(doc)


def test_decode_of_floats_is_refused(tok):
    with pytest.raises(ValueError, match="not a token id"):
        tok.decode([104.0, 105.0])
    with pytest.raises(TypeError):  # as tiktoken raises
        tok.decode([104.0, 105.0])


def test_tiktoken_compatible_exception_types(tok):
    with pytest.raises(KeyError):
        tok.encode_single_token("no such token here")
    with pytest.raises(KeyError):
        tok.decode_single_token_bytes(10**6)
    with pytest.raises(TypeError):
        tok.encode(None)
    for exc in (UnknownToken("x"), InvalidType("x")):
        assert isinstance(exc, ValueError)
    assert str(UnknownToken("plain message")) == "plain message"


# ----------------------------------------------------------------------------- every public function

JUNK = [
    None,
    True,
    0,
    -1,
    1.5,
    float("nan"),
    2**40,
    10**100,
    "",
    "x",
    "\ud800",
    b"x",
    bytearray(b"ab"),
    [],
    [1, "a"],
    [[1]],
    [-5],
    [2.0],
    (1, 2),
    {},
    {"a": "b"},
    {"<|x|>": -1},
    {(1, 2): 3},
    {b"a": "b"},
    object(),
    iter([1, 2]),
    print,
    "(?r)\\w+",
    "[unclosed",
    "all",
    "al",
    {"a"},
    frozenset({1}),
    [None],
    ["ok", 3],
]
junk = st.sampled_from(JUNK)


def arg(*valid):
    """A strategy for one argument: one of the valid values or junk."""
    return st.one_of(st.sampled_from(valid), junk) if valid else junk


def _public_calls(tok, tmp_path):
    trace = tok.training
    enc_trace = tok.encode_trace("hello world")
    calls = {
        "train": (
            train,
            [arg("some text here", ["doc one", "doc two"]), arg(260, 300), arg("gpt4", None, "gpt2")],
            {"special_tokens": arg(["<|e|>"], None), "progress": arg(None, lambda d, t: None), "name": arg("n")},
        ),
        "train_with": (
            tokenizer.train_with,
            [arg("bpe"), arg("some text here", ["doc one", "doc two"]), arg(260, 300)],
            {"pattern": arg("gpt4", None), "seconds": arg(None, 60)},
        ),
        "count_chunks": (tokenizer.count_chunks, [arg("a text", ["x", "y"]), arg("gpt2", None), arg((), ["<|x|>"])], {}),
        "Tokenizer": (
            Tokenizer,
            [arg({(97, 98): 256}, ())],
            {
                "pattern": arg(None, "gpt2"),
                "special_tokens": arg({"<|e|>": 300}, None),
                "byte_ids": arg(None, list(range(256))),
                "name": arg(""),
                "metadata": arg(None, {"k": 1}),
            },
        ),
        "from_ranks": (Tokenizer.from_ranks, [arg({bytes([b]): b for b in range(256)})], {"pattern": arg(None, "gpt4")}),
        "encode": (
            tok.encode,
            [arg("hi <|x|>")],
            {"allowed_special": arg("all", frozenset(), {"<|x|>"}), "disallowed_special": arg("all", (), {"<|x|>"})},
        ),
        "encode_ordinary": (tok.encode_ordinary, [arg("hi")], {}),
        "encode_batch": (tok.encode_batch, [arg(["a", "b"])], {"num_threads": arg(2), "allowed_special": arg("all")}),
        "encode_ordinary_batch": (tok.encode_ordinary_batch, [arg(["a"])], {}),
        "encode_to_numpy": (tok.encode_to_numpy, [arg("hi")], {}),
        "encode_bytes": (tok.encode_bytes, [arg(b"abc")], {"max_rank": arg(None, 3)}),
        "merge_events": (tok.merge_events, [arg(b"abc")], {}),
        "encode_single_token": (tok.encode_single_token, [arg("a", b"a", "<|x|>")], {}),
        "decode": (tok.decode, [arg([104, 105])], {"errors": arg("replace", "strict")}),
        "decode_bytes": (tok.decode_bytes, [arg([104])], {}),
        "decode_tokens_bytes": (tok.decode_tokens_bytes, [arg([104])], {}),
        "decode_single_token_bytes": (tok.decode_single_token_bytes, [arg(104)], {}),
        "decode_with_offsets": (tok.decode_with_offsets, [arg([104, 105])], {}),
        "decode_batch": (tok.decode_batch, [arg([[104], [105]])], {"errors": arg("replace")}),
        "decode_bytes_batch": (tok.decode_bytes_batch, [arg([[104]])], {}),
        "is_special_token": (tok.is_special_token, [arg(104)], {}),
        "spans": (tok.spans, [arg([104, 105])], {}),
        "encode_spans": (tok.encode_spans, [arg("hi")], {}),
        "encode_trace": (tok.encode_trace, [arg("hi")], {"allowed_special": arg("all")}),
        "merge_tree": (tok.merge_tree, [arg(256, 104)], {}),
        "truncated": (tok.truncated, [arg(3)], {}),
        "with_special_tokens": (tok.with_special_tokens, [arg({"<|y|>": 400})], {"name": arg(None, "n")}),
        "split": (tok.split, [arg("hi there")], {}),
        "Splitter": (tokenizer.Splitter, [arg("gpt2", None, r"\w+")], {"timeout": arg(None, 1.0)}),
        "Splitter.split": (tokenizer.Splitter(r"\w+").split, [arg("hi there")], {}),
        "validate_pattern": (tokenizer.validate_pattern, [arg("gpt2", r"\w+")], {}),
        "time_limit": (lambda s: tokenizer.time_limit(s).__enter__(), [arg(1.0)], {}),
        "visible": (visible, [arg(b"a b")], {}),
        "hex_bytes": (hex_bytes, [arg(b"ab")], {}),
        "gpt2_form": (gpt2_form, [arg(b" a")], {}),
        "from_gpt2_form": (from_gpt2_form, [arg("Ġa")], {}),
        "clean_text": (tokenizer.clean_text, [arg("x")], {}),
        "spec": (registry.spec, [arg("gpt2")], {}),
        "load_encoding": (load_encoding, [arg("gpt2")], {}),
        "to_json": (formats.to_json, [arg(tok)], {}),
        "from_json": (formats.from_json, [arg(formats.to_json(tok))], {}),
        "dumps": (formats.dumps, [arg(tok)], {}),
        "loads": (formats.loads, [arg(formats.dumps(tok))], {}),
        "load_bytes": (formats.load_bytes, [arg(formats.dumps(tok).encode())], {"name": arg(""), "pattern": arg("gpt4")}),
        "loads_minbpe": (formats.loads_minbpe, [arg(formats.dumps_minbpe(tok))], {"name": arg("")}),
        "dumps_minbpe": (formats.dumps_minbpe, [arg(tok)], {}),
        "parse_tiktoken_ranks": (formats.parse_tiktoken_ranks, [arg(formats.dumps_tiktoken(tok))], {}),
        "to_tiktoken_ranks": (formats.to_tiktoken_ranks, [arg(tok)], {}),
        "dumps_tiktoken": (formats.dumps_tiktoken, [arg(tok)], {}),
        "to_tiktoken": (formats.to_tiktoken, [arg(tok)], {}),
        "save": (
            formats.save,
            [arg(tok), arg(tmp_path / "t.json", str(tmp_path / "u.json"), tmp_path, tmp_path / "no" / "t.json")],
            {},
        ),
        "load": (formats.load, [arg(tmp_path / "t.json", tmp_path, tmp_path / "missing")], {"pattern": arg("gpt4")}),
        "load_minbpe": (formats.load_minbpe, [arg(tmp_path / "missing.model")], {}),
        "load_gpt2_files": (load_gpt2_files, [arg(tmp_path / "e.json"), arg(tmp_path / "v.bpe")], {"name": arg("gpt2")}),
        "merges_from_ranks": (merges_from_ranks, [arg({bytes([b]): b for b in range(256)})], {}),
        "gpt2_files_from_ranks": (gpt2_files_from_ranks, [arg({bytes([b]): b for b in range(256)})], {}),
        "TrainingTrace.from_text": (TrainingTrace.from_text, [arg(tok), arg(MULTILINGUAL)], {}),
        "length_at": (trace.length_at, [arg(3)], {}),
        "tokens_at": (trace.tokens_at, [arg(tok), arg(3)], {}),
        "pair_counts": (trace.pair_counts, [arg(tok), arg(3)], {"top": arg(None, 5)}),
        "EncodeTrace.tokens_at": (enc_trace.tokens_at, [arg(1)], {}),
        "EncodeTrace.spans_at": (enc_trace.spans_at, [arg(1)], {}),
    }
    return calls


def test_every_public_function_is_in_the_table(tok, tmp_path):
    # a new public name must be added to the table above (or this list of the harmless)
    harmless = {
        "configure",
        "registry",
        "EncodingSpec",
        "FileSource",
        "Merge",
        "TokenizerLike",  # a Protocol: nothing to call
        "Span",
        "EncodeStep",
        "EncodeTrace",
        "PairCount",
        "MergeTree",
        "TimeBudget",
        "GPT2_PATTERN",
        "GPT4_PATTERN",
        "O200K_PATTERN",
        "PATTERNS",
        "to_hf_json",
        "load_gpt2_files",
    }
    table = _public_calls(tok, tmp_path)
    missing = [
        n
        for n in tokenizer.__all__
        if n not in harmless and n not in table and n not in ("Tokenizer", "TrainingTrace", "Splitter")
    ]
    assert missing == []


@settings(max_examples=examples(1500), suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_public_functions_raise_only_value_errors(tok, tmp_path, monkeypatch, data):
    monkeypatch.chdir(tmp_path)  # junk such as "x" or "all" is a valid relative path for save()
    (tmp_path / "e.json").write_text('{"a": 1}')
    (tmp_path / "v.bpe").write_text("#version\nĠ t\n")
    calls = _public_calls(tok, tmp_path)
    name = data.draw(st.sampled_from(sorted(calls)), label="function")
    fn, args, kwargs = calls[name]
    drawn_args = [data.draw(a, label=f"arg {i}") for i, a in enumerate(args)]
    drawn_kwargs = {k: data.draw(v, label=k) for k, v in kwargs.items()}
    try:
        fn(*drawn_args, **drawn_kwargs)
    except ValueError as e:
        assert str(e), f"{name}: a ValueError without a message"
