"""The incremental trainer and the encoders against the naive textbook algorithms."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st
from reference import naive_encode, naive_train, split

from tokenizer.engine_py import (
    ChunkCache,
    LongChunkTables,
    PyEncoder,
    bpe_heap,
    bpe_long,
    bpe_short,
    merge,
    recover_merges,
    train_merges,
)
from tokenizer.patterns import GPT2_PATTERN, GPT4_PATTERN, O200K_PATTERN

# small alphabets make ties and overlapping runs (aaa) common, which is where bugs hide
texts = st.text(alphabet=st.sampled_from("aab c\n😄é"), max_size=80)
patterns = st.sampled_from([None, GPT2_PATTERN, GPT4_PATTERN, O200K_PATTERN])


def _ranks(merges):
    """``{pair: new_id}`` in merge order -> the encoder's ``{pair: (rank, new_id)}``."""
    return {pair: (rank, new) for rank, (pair, new) in enumerate(merges.items())}


def fast_train(text, vocab_size, pattern):
    chunks = {}
    docs = [text] if isinstance(text, str) else text
    for d in docs:
        for c in split(d, pattern):
            chunks[c] = chunks.get(c, 0) + 1
    raw = train_merges([c.encode() for c in chunks], list(chunks.values()), vocab_size - 256)
    return [((a, b), 256 + i, c) for i, (a, b, c, _) in enumerate(raw)]


@given(texts, st.integers(256, 320), patterns)
def test_incremental_training_equals_naive_recount(text, vocab_size, pattern):
    assert fast_train(text, vocab_size, pattern) == naive_train(text, vocab_size, pattern)


@given(st.lists(texts, max_size=4), st.integers(256, 300), patterns)
def test_documents_are_trained_as_separate_chunks(docs, vocab_size, pattern):
    assert fast_train(docs, vocab_size, pattern) == naive_train(docs, vocab_size, pattern)


def test_ties_go_to_the_earliest_first_occurrence():
    # every pair occurs once: the textbook merges them in order of first appearance
    text = "abcdefg"
    got = fast_train(text, 256 + 3, None)
    assert [p for p, _, _ in got] == [(97, 98), (256, 99), (257, 100)]
    assert got == naive_train(text, 256 + 3, None)


def test_tie_break_uses_current_first_occurrence_not_original():
    # after (a,a) is merged the first (a,b) occurrence is consumed; the tie must look at what is left
    text = "aab xyab xy"
    assert fast_train(text, 262, None) == naive_train(text, 262, None)


def test_replaced_counts_overlapping_runs_once():
    raw = train_merges([b"aaa"], [1], 1)
    assert raw == [(97, 97, 2, 1)]  # count 2 (overlapping), one replacement


def test_random_long_texts_match_naive():
    rng = random.Random(7)
    for _ in range(20):
        text = "".join(rng.choice("the cat in the hat sat on a mat\n") for _ in range(rng.randint(200, 600)))
        for pattern in (None, GPT4_PATTERN):
            assert fast_train(text, 300, pattern) == naive_train(text, 300, pattern)


def test_merge_left_to_right():
    assert merge([1, 1, 1, 1, 2], (1, 1), 9) == [9, 9, 2]
    assert merge([1, 2, 1, 2], (1, 2), 7) == [7, 7]


@given(st.lists(st.integers(0, 5), max_size=60), st.integers(0, 12), st.randoms(use_true_random=False))
def test_heap_encoder_equals_rescan_encoder(ids, n_merges, rnd):
    # random merge tables over a tiny alphabet, including pairs that never occur
    ranks = {}
    known = list(range(6))
    for _ in range(n_merges):
        pair = (rnd.choice(known), rnd.choice(known))
        if pair in ranks:
            continue
        ranks[pair] = (len(ranks), 100 + len(ranks))
        known.append(100 + len(ranks) - 1)
    for limit in (0, len(ranks) // 2, len(ranks)):
        assert bpe_heap(list(ids), ranks, limit) == bpe_short(list(ids), ranks, limit)


@given(texts, st.integers(256, 300), patterns, texts)
def test_encoder_equals_naive_encode(train_text, vocab_size, pattern, text):
    merges = {p: i for p, i, _ in naive_train(train_text, vocab_size, pattern)}
    enc = PyEncoder(range(256), _ranks(merges))
    chunks = split(text, pattern)
    assert enc.encode_chunks(chunks) == naive_encode(text, merges, pattern)
    # a second pass is served from the chunk cache and must not differ
    assert enc.encode_chunks(chunks) == naive_encode(text, merges, pattern)


def test_long_chunk_uses_heap_and_matches_naive():
    text = "ab" * 300 + "a" * 101
    merges = {p: i for p, i, _ in naive_train(text, 270, None)}
    enc = PyEncoder(range(256), _ranks(merges))
    assert enc.encode_bytes(text.encode()) == naive_encode(text, merges, None)


def test_chunk_cache_is_bounded_and_answers_the_same_after_clearing():
    calls = []

    def encode(data):
        calls.append(data)
        return tuple(data)

    cache = ChunkCache(encode, limit=3)
    words = ["a", "b", "c", "d", "a", "e"]
    assert [cache[w] for w in words] == [tuple(w.encode()) for w in words]
    assert len(cache) <= 3  # "d" found the cache full and started it afresh
    assert calls.count(b"a") == 2  # "a" was forgotten with the rest, then encoded again
    assert cache["e"] == (101,) and calls.count(b"e") == 1  # a hit


def test_recovery_names_the_token_it_cannot_build():
    with pytest.raises(ValueError, match=r"b'abc' \(rank 256\) is not made of two lower-ranked tokens"):
        recover_merges([(b"abc", 256)], range(256))


# long chunks: a merge rank at a time with numpy, handing over to the heap when merges get sparse
long_pieces = st.lists(st.sampled_from(["a", "aa", "b", "ab", " ", "\n", "\r\n", "é", "aab"]), min_size=1, max_size=6).map(
    "".join
)


@given(st.lists(texts, min_size=1, max_size=3), long_pieces, st.integers(1, 3000), st.integers(260, 330))
def test_long_chunks_encode_like_the_heap(train_texts, piece, repeat, vocab_size):
    merges = naive_train("".join(train_texts) + piece * 3, vocab_size, None)
    ranks = _ranks({pair: new for pair, new, _ in merges})
    data = list((piece * repeat).encode())
    want = bpe_heap(list(data), ranks, len(ranks))
    if ranks:
        assert bpe_long(list(data), LongChunkTables(ranks), ranks, len(ranks)) == want
        limit = len(ranks) // 2
        assert bpe_long(list(data), LongChunkTables(ranks), ranks, limit) == bpe_heap(list(data), ranks, limit)


@pytest.mark.parametrize(
    "text", ["a" * 100_000, " " * 50_000 + "x", "\n" * 70_001, "\r\n" * 30_000, "ab" * 40_000, "😄" * 20_000]
)
def test_long_repeated_chunks_equal_tiktoken(official, text):
    ours, ref = official
    assert ours.encode_ordinary(text) == ref.encode_ordinary(text)
