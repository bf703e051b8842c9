"""pretokenize/hf.py: a tokenizer.json's text handling, run by ``tokenizers`` itself.

The ids and offsets of every kind of file are checked against ``tokenizers`` in
tests/tokenizer/formats/test_hf.py; here the pre-tokenizer itself: its pieces, special
tokens allowed all, none or some, sharing between threads, pickling, and files nested
too deeply to read.
"""

from __future__ import annotations

import json
import pickle
from concurrent.futures import ThreadPoolExecutor

import pytest
import regex
from hf_files import AddedToken, build, hf_ids, normalizers, pair, pre_tokenizers
from hypothesis import given, settings
from hypothesis import strategies as st
from texts import MULTILINGUAL
from tokenizers import Tokenizer, decoders, models

from tests.tier import examples
from tokenizer import formats
from tokenizer.display import bytes_to_unicode
from tokenizer.pretokenize.hf import HFPreTokenizer, byte_level_stages, types_in

BL = pre_tokenizers.ByteLevel
SPECIALS = [AddedToken("<|a|>", special=True, normalized=False), AddedToken("<|b|>", special=True, normalized=False)]


@pytest.fixture(scope="module")
def nfkc():
    """A file that changes the text: NFKC, a prefix space, added and special tokens."""
    return pair(
        build(
            normalizer=normalizers.NFKC(),
            pre_tokenizer=BL(add_prefix_space=True, use_regex=True),
            added=[AddedToken("<think>", lstrip=True)],
            special=SPECIALS,
        )
    )


@settings(max_examples=examples(100), deadline=None)
@given(
    st.lists(st.sampled_from([*"ab <>|\n", "ﬁ", "①", "é", "e\u0301", "😀", "<think>", "<|a|>", "<|b|>"]), max_size=20).map(
        "".join
    )
)
def test_pieces_cover_the_model_view_and_point_into_the_text(nfkc, text):
    ours, ref = nfkc
    pieces = ours.pipeline.pieces(text, ours.special_tokens)
    data = text.encode()
    for p in pieces:
        assert 0 <= p.start <= p.end <= len(data)
        if p.align is None and p.chunk is not None:
            chunk = p.chunk.encode() if isinstance(p.chunk, str) else p.chunk
            assert data[p.start : p.end] == chunk  # unchanged text points at exactly its bytes
        if p.align is not None:
            assert len(p.align) == len(p.chunk.encode() if isinstance(p.chunk, str) else p.chunk)
    assert ours.encode(text, allowed_special="all") == hf_ids(ref, text)


def test_special_tokens_allowed_all_none_or_some(nfkc):
    ours, ref = nfkc
    text = "x<|a|>y<|b|> <think> <|a|><|b|>"
    a, b = ours.special_tokens["<|a|>"], ours.special_tokens["<|b|>"]
    assert ours.encode(text, allowed_special="all") == hf_ids(ref, text)
    assert ours.encode_ordinary(text) == hf_ids(ref, text, specials=False)
    # some allowed: the others are text, as in the same file without them
    doc = json.loads(ref.to_str())
    doc["added_tokens"] = [t for t in doc["added_tokens"] if t["content"] != "<|b|>"]
    without_b = Tokenizer.from_str(json.dumps(doc))
    some = ours.encode(text, allowed_special={"<|a|>"}, disallowed_special=())
    assert some == without_b.encode(text, add_special_tokens=False).ids
    assert some.count(a) == 2 and b not in some
    with pytest.raises(ValueError, match="disallowed special token '<\\|b\\|>'"):
        ours.encode(text, allowed_special={"<|a|>"})
    think = ref.token_to_id("<think>")
    assert think in ours.encode_ordinary(text)  # a non-special added token is always found, as in tokenizers


def test_threads_share_one_pipeline_and_get_the_same_ids(nfkc):
    ours, ref = nfkc
    texts = [f"{i} <|a|> ﬁx <think> {'é' * (i % 7)}" for i in range(200)]
    want = [hf_ids(ref, t) for t in texts]
    with ThreadPoolExecutor(8) as pool:
        for allowed in ("all", {"<|a|>"}, frozenset()):
            got = list(pool.map(lambda t, a=allowed: ours.encode(t, allowed_special=a, disallowed_special=()), texts))
            if allowed == "all":
                assert got == want


def test_a_tokenizer_with_a_pipeline_pickles(nfkc):
    ours, _ = nfkc
    back = pickle.loads(pickle.dumps(ours))
    text = "Ｈｅｌｌｏ <|a|> e\u0301 <think>"
    assert back.encode(text, allowed_special="all") == ours.encode(text, allowed_special="all")
    assert back.encode_spans(text, allowed_special="all") == ours.encode_spans(text, allowed_special="all")


def test_a_piece_that_did_not_become_bytes_is_an_error_not_a_silent_loss():
    spec = {"normalizer": None, "pre_tokenizer": {"type": "Whitespace"}, "added_tokens": [], "ignore_merges": False}
    pre = HFPreTokenizer(spec)  # BPE Lab refuses such a file at load; the pre-tokenizer refuses to drop text
    with pytest.raises(ValueError, match="not bytes"):
        pre.pieces("hello 你好", {})


# ----------------------------------------------------------------------------- nested too deeply


def _nested_sequence(depth: int) -> dict:
    node: dict = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    for _ in range(depth):
        node = {"type": "Sequence", "pretokenizers": [node]}
    return node


def _nested_list(depth: int) -> list:
    node: list = []
    for _ in range(depth):
        node = [node]
    return node


def test_the_walkers_read_any_depth_without_recursion():
    deep = _nested_sequence(50_000)
    assert [s["type"] for s in byte_level_stages(deep)] == ["ByteLevel"]
    assert types_in(deep) == {"Sequence", "ByteLevel"}
    assert types_in(_nested_list(50_000)) == set()


def _nested_text(depth: int, shape: str) -> str:
    """JSON text nested ``depth`` levels deep, written out directly (Python's json could not write it that deep)."""
    if shape == "list":
        return "[" * depth + "]" * depth
    inner = '{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true}'
    return '{"type": "Sequence", "pretokenizers": [' * depth + inner + "]}" * depth


@settings(max_examples=examples(40), deadline=None)
@given(
    st.integers(100, 5000),
    st.sampled_from(["pre_tokenizer", "normalizer", "post_processor", "decoder", "added_tokens", "merge", "extra"]),
    st.sampled_from(["sequence", "list"]),
)
def test_a_file_nested_hundreds_of_levels_deep_is_a_value_error(depth, where, shape):
    """A Sequence of Sequences or a list in a list, wherever it sits: a message the page can show, never RecursionError."""
    doc = json.loads(build())
    if where == "merge":
        doc["model"]["merges"].append("NESTED")
    elif where == "added_tokens":
        doc["added_tokens"] = ["NESTED"]
    else:
        doc[where] = "NESTED"
    data = json.dumps(doc).replace('"NESTED"', _nested_text(depth, shape)).encode()
    try:
        tok = formats.load_bytes(data)  # tokenizers itself reads some such files (up to 128 levels)
    except ValueError as e:
        assert str(e) and "Traceback" not in str(e)
    else:
        assert tok.decode(tok.encode("nested")) == "nested"


def test_a_saved_pipeline_nested_deeply_is_a_value_error():
    ours, _ = pair(build(normalizer=normalizers.NFC()))
    doc = json.loads(formats.dumps(ours))
    doc["pipeline"]["pre_tokenizer"] = _nested_sequence(400)
    with pytest.raises(ValueError, match="nested too deeply|tokenizers cannot read"):
        formats.loads(json.dumps(doc))


# ----------------------------------------------------------------------------- added-token flags on every character


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
    return [
        c
        for c in range(0x110000)
        if not 0xD800 <= c < 0xE000 and not _UNASSIGNED.match(chr(c)) and not any(a + 300 <= c <= b for a, b in _RUNS)
    ]


@pytest.mark.slow
@pytest.mark.parametrize("flag", ["single_word", "lstrip", "rstrip"])
def test_added_token_flags_see_the_same_word_and_space_characters(flag):
    """single_word looks for a word character beside the match, lstrip/rstrip take whitespace (``character_sample()``)."""
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


@pytest.mark.slow
@pytest.mark.parametrize("form", ["NFC", "NFKC", "NFD", "NFKD"])
def test_every_code_point_normalizes_as_in_tokenizers(form):
    """A normalizer is tokenizers' own (its Unicode tables): each code point encodes as tokenizers encodes it."""
    ours, ref = pair(build(normalizer=getattr(normalizers, form)(), pre_tokenizer=BL(add_prefix_space=False, use_regex=False)))
    sample = character_sample()
    for i in range(0, len(sample), 20_000):
        text = " ".join(chr(c) for c in sample[i : i + 20_000])
        assert ours.encode_ordinary(text) == hf_ids(ref, text, specials=False)
    assert ours.encode_ordinary(MULTILINGUAL) == hf_ids(ref, MULTILINGUAL, specials=False)
