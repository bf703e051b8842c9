"""The SentencePiece-style models ordered by scores (Llama 2 / CodeLlama, Phi-3 from GGUFs; Mistral v1 and v3 from
their .model files; Gemma 4's merge list: test_gemma.py): the registry's Tokenizers give exactly the ids of the
``sentencepiece`` package run on the same pieces (bench/model_packages.py ``sentencepiece_reference``), and answer
what pages ask of any Tokenizer (spans, token bytes, merge trees) consistently. llama.cpp's own vectors for the GGUFs:
tests/tokenizer/models/test_llama_cpp.py; Mistral's files against mistral-common too: test_mistral_spm.py."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from model_packages import sentencepiece_reference
from texts import MULTILINGUAL, stdlib_sample

from tests.tier import examples
from tokenizer import load_encoding, registry
from tokenizer.spm import SentencePieceTokenizer

SPM = [s.name for s in registry.specs() if s.kind == "sentencepiece" and s.name != "gemma4"]
pieces = st.sampled_from(
    [" ", "  ", "the", " the", "Hello", "\n", "\n\n", "\t", "你好", "加拿大", "😄", "🦙", "é", "e\u0301", "\u2581", "▁▁x",
     "123", "don't", "<s>", "<unk>", "[INST]", "x=1;", "\u0000", "\x7f", "ﬁ"]
)  # fmt: skip
text = st.one_of(st.text(max_size=60), st.lists(pieces, max_size=15).map("".join))


@pytest.fixture(scope="module", params=SPM)
def model(request):
    return load_encoding(request.param), sentencepiece_reference(request.param)


def test_they_are_sentencepiece_models():
    assert SPM == ["llama2", "mistral_v1", "mistral_v3", "phi3"]
    for name in SPM:
        assert isinstance(load_encoding(name), SentencePieceTokenizer) and load_encoding(name).model.merge_rank is None


@settings(max_examples=examples(200), deadline=None)
@given(text)
def test_ids_and_text_equal_sentencepieces_on_any_text(model, text):
    ours, ref = model
    clean = text.encode("utf-8", "replace").decode("utf-8")
    ids = ref.encode(clean)
    assert ours.encode(text, disallowed_special=()) == ids
    assert ours.encode_ordinary(text) == ids
    assert ours.decode(ids) == ref.decode(ids)


def test_ids_equal_sentencepieces_on_multilingual_and_code(model):
    ours, ref = model
    corpus = MULTILINGUAL + stdlib_sample(100_000)
    assert ours.encode_ordinary(corpus) == ref.encode(corpus)
    lines = corpus.splitlines()
    assert [ours.encode_ordinary(line) for line in lines] == ref.encode(lines)


def test_every_token_decodes_as_in_sentencepiece(model):
    ours, ref = model
    byte_ids = [ours.model.byte_ids[b] for b in range(256)]
    ordinary = [i for i in range(ref.get_piece_size()) if not ref.is_unknown(i)]
    ids = sorted(set(random.Random(0).sample(ordinary, 3000)) | set(byte_ids))
    assert [ours.decode([i]) for i in ids] == [ref.decode([i]) for i in ids]
    assert byte_ids == list(range(byte_ids[0], byte_ids[0] + 256))  # after the control pieces: 3 for Llama 2, 771 for v3
    for b, i in enumerate(byte_ids):  # the byte-fallback tokens <0x00>..<0xFF> are their bytes
        assert ours.is_byte_token(i) and ours.vocab[i] == bytes([b]) and ours.piece(i) == f"<0x{b:02X}>"


def test_special_tokens_are_found_only_when_allowed(model):
    ours, ref = model
    text = "<s>Hi there</s>"
    assert ours.encode(text, allowed_special="all") == [1, *ours.encode_ordinary("Hi there"), 2]
    with pytest.raises(ValueError, match="disallowed special token"):
        ours.encode(text)


def test_spans_point_at_the_text_as_typed(model):
    ours, _ = model
    text = "Hello  world\t▁x 你好🦙!"
    spans = ours.encode_spans(text)
    assert [s.id for s in spans] == ours.encode(text)
    assert spans[0].start == 0 and spans[-1].end == len(text)
    covered = sorted({i for s in spans for i in range(s.start, s.end)})
    assert covered == list(range(len(text)))  # every typed character belongs to a token, the emoji to its four bytes
    assert [s.bytes for s in spans if s.bytes != b" "][0] == b" Hello"  # the dummy prefix's space is the first token's
    by_text = {text[s.start : s.end] for s in spans}
    assert "▁x" in by_text  # a typed ▁ is the space it stands for, and points at itself


def test_merge_trees_end_at_characters(model):
    ours, _ = model
    for tid in random.Random(2).sample(sorted(ours.parents), 300):
        tree = ours.merge_tree(tid)
        leaves = tree.leaves()
        assert b"".join(leaf.bytes for leaf in leaves) == ours.vocab[tid]
        assert all(len(leaf.bytes.decode("utf-8")) == 1 for leaf in leaves)
        a, b = ours.parents[tid]
        assert ours.vocab[a] + ours.vocab[b] == ours.vocab[tid]
        assert ours.encode_bytes(ours.vocab[tid]) == [tid] or tid in ours.whole_tokens


def test_fewer_merges_give_more_tokens(model):
    ours, _ = model
    text = "The quick brown fox jumps over the lazy dog"
    lengths = [len(ours.truncated(k).encode_ordinary(text)) for k in (0, 100, 1000, ours.num_merges)]
    assert lengths == sorted(lengths, reverse=True) and lengths[0] == len(" " + text) and lengths[-1] < lengths[1]
    assert ours.truncated(ours.num_merges).encode_ordinary(text) == ours.encode_ordinary(text)


def test_stepping_through_replays_to_the_encoding(model):
    """Each step makes one merged piece everywhere, best score first, from the characters (a character with no piece:
    its bytes); the last step's tokens are the encoding, on every line of our texts."""
    ours, _ = model
    for line in (MULTILINGUAL + stdlib_sample(20_000)).splitlines() + [" " * 40, "<s>hi</s> x"]:
        trace = ours.encode_trace(line, allowed_special="all")
        assert trace.final == ours.encode(line, allowed_special="all"), line
        assert [s.rank for s in trace.steps] == sorted(s.rank for s in trace.steps)
