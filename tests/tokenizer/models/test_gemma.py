"""Gemma 4 (tokenizer/bpe/sentencepiece.py with a merge list, tokenizer/spm.py): the registry's Tokenizer gives exactly
the ids of Hugging Face tokenizers running the same vocabulary and merges as a SentencePiece-style BPE with byte fallback
(bench/model_packages.py ``merge_list_reference``), on any text; llama.cpp's own vectors: test_llama_cpp.py. Pages ask
of it what they ask of any Tokenizer (spans, token bytes, merge trees, traces): those answers hold together."""

from __future__ import annotations

import random

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from model_packages import merge_list_reference
from texts import MULTILINGUAL, stdlib_sample

from tests.tier import examples
from tokenizer import load_encoding
from tokenizer.bpe.sentencepiece import SentencePieceBPE
from tokenizer.spm import SentencePieceTokenizer

pieces = st.sampled_from(
    [" ", "  ", "the", " the", "Hello", "\n", "\n\n", "\n\n\n\n", "\t", "你好", "加拿大", "😄", "🦙", "é", "e\u0301",
     "\u2581", "▁▁x", "123", "don't", "<bos>", "<|turn>", '<|"|>', "<|channel>", "x=1;", "\u0000", "\x7f", "ﬁ", "\r\n",
     "    def f():\n", "ㅤ", "\U0010ffff"]
)  # fmt: skip
text = st.one_of(st.text(max_size=60), st.lists(pieces, max_size=15).map("".join))


@pytest.fixture(scope="module")
def gemma():
    return load_encoding("gemma4")


@pytest.fixture(scope="module")
def ref():
    return merge_list_reference("gemma4")


def _ref_ids(ref, text: str) -> list[int]:
    return ref.encode(text.encode("utf-8", "replace").decode("utf-8"), add_special_tokens=False).ids


def test_it_is_a_sentencepiece_model_ordered_by_its_merges(gemma):
    assert isinstance(gemma, SentencePieceTokenizer) and gemma.kind == "sentencepiece"
    assert gemma.model.merge_rank is not None and not gemma.model.add_space_prefix
    assert gemma.n_vocab == 262_144 and gemma.num_merges == len(gemma.model.merged_ids)
    assert gemma.special_tokens["<bos>"] == 2 and gemma.special_tokens["<|turn>"] == 105


@settings(max_examples=examples(300), deadline=None)
@given(text)
@example("Hello world\n\n\nThe  cat")
@example("\n" * 40)
@example(" " * 33 + "x")
def test_ids_and_text_equal_tokenizers_on_any_text(gemma, ref, text):
    ids = _ref_ids(ref, text)
    assert gemma.encode(text, disallowed_special=()) == ids
    assert gemma.encode_ordinary(text) == ids
    assert gemma.decode(ids) == text.encode("utf-8", "replace").decode("utf-8").replace("\u2581", " ")  # ▁ is a space


def test_ids_equal_tokenizers_on_multilingual_and_code(gemma, ref):
    corpus = MULTILINGUAL + stdlib_sample(100_000)
    assert gemma.encode_ordinary(corpus) == _ref_ids(ref, corpus)
    lines = corpus.splitlines()[:400]
    assert [gemma.encode_ordinary(line) for line in lines] == [_ref_ids(ref, line) for line in lines]


def test_a_character_with_no_piece_falls_back_to_its_bytes(gemma):
    rare = next(ch for ch in map(chr, range(0x10000, 0x10FFFF)) if ch not in gemma.model.piece_to_id)
    ids = gemma.encode_ordinary(rare)
    assert all(gemma.is_byte_token(i) for i in ids) and b"".join(gemma.vocab[i] for i in ids) == rare.encode("utf-8")
    assert gemma.decode(ids) == rare


def test_special_tokens_are_found_only_when_allowed_and_user_defined_ones_always(gemma):
    text = "<bos>Hi<|turn>user\nthere<turn|>"
    assert gemma.encode(text, allowed_special="all")[:1] == [2]
    with pytest.raises(ValueError, match="disallowed special token"):
        gemma.encode(text)
    assert gemma.encode_ordinary('say <|"|>')[-1] == gemma.model.piece_to_id['<|"|>']


def test_a_run_of_newlines_that_is_a_piece_is_that_piece(gemma):
    for n in (2, 3, 10, 31):
        ids = gemma.encode_ordinary("a" + "\n" * n + "b")
        assert gemma.vocab[ids[1]] == b"\n" * n


def test_spans_point_at_the_text_as_typed(gemma):
    text = "Hello  world\t▁x\n\n你好🦙!"
    spans = gemma.encode_spans(text)
    assert [s.id for s in spans] == gemma.encode(text)
    assert spans[0].start == 0 and spans[-1].end == len(text)
    assert sorted({i for s in spans for i in range(s.start, s.end)}) == list(range(len(text)))
    assert spans[0].bytes == b"Hello"  # no dummy prefix


def test_every_merge_is_the_first_merge_of_the_list_that_makes_its_piece(gemma):
    meta_merges = gemma.model.merge_pairs
    for k in random.Random(0).sample(range(gemma.num_merges), 2000):
        tid = gemma.model.merged_ids[k]
        a, b = gemma.parents[tid]
        assert (a, b) == meta_merges[k] and gemma.vocab[a] + gemma.vocab[b] == gemma.vocab[tid]
        assert gemma.rank_of[tid] == k


def test_merge_trees_end_at_characters(gemma):
    for tid in random.Random(2).sample(sorted(gemma.parents), 300):
        leaves = gemma.merge_tree(tid).leaves()
        assert b"".join(leaf.bytes for leaf in leaves) == gemma.vocab[tid]
        assert all(len(leaf.bytes.decode("utf-8")) == 1 for leaf in leaves)


def test_pieces_no_merge_makes_are_tokens_no_text_reaches(gemma):
    unused = gemma.model.piece_to_id["<unused0>"]
    assert unused in gemma.whole_tokens and unused not in gemma.parents
    assert gemma.encode_ordinary("<unused0>") != [unused]


def test_fewer_merges_give_more_tokens(gemma):
    text = "The quick brown fox jumps over the lazy dog"
    lengths = [len(gemma.truncated(k).encode_ordinary(text)) for k in (0, 100, 1000, gemma.num_merges)]
    assert lengths == sorted(lengths, reverse=True) and lengths[0] == len(text) and lengths[-1] < lengths[1]
    assert gemma.truncated(gemma.num_merges).encode_ordinary(text) == gemma.encode_ordinary(text)


def test_stepping_through_replays_to_the_encoding(gemma):
    for line in [*MULTILINGUAL.splitlines()[:40], " " * 40, "a\n\n\nb", "<bos>hi<turn|> x\n\n"]:
        trace = gemma.encode_trace(line, allowed_special="all")
        assert trace.final == gemma.encode(line, allowed_special="all"), line
        assert [s.rank for s in trace.steps] == sorted(s.rank for s in trace.steps)


def test_a_merge_list_that_names_a_missing_piece_is_a_value_error():
    base = [f"<0x{b:02X}>" for b in range(256)]
    with pytest.raises(ValueError, match="merge 0"):
        SentencePieceBPE([*base, "a", "b"], [0.0] * 258, [6] * 256 + [1, 1], merges=["a b"])
    model = SentencePieceBPE([*base, "a", "b", "ab"], [0.0] * 259, [6] * 256 + [1, 1, 1], merges=["a b"], add_space_prefix=False)
    assert model.encode("abab") == [258, 258] and model.encode("ba") == [257, 256]
