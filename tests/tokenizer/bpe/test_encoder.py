"""bpe/encoder.py: every fast path gives the textbook's ids (``textbook.encode``)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tokenizer import GPT2_PATTERN, GPT4_PATTERN, O200K_PATTERN
from tokenizer.bpe import textbook
from tokenizer.bpe.encoder import ChunkCache, Encoder, LongChunkTables, Ranks, bpe_heap, bpe_long, bpe_short

# small alphabets make ties and overlapping runs (aaa) common, which is where bugs hide
texts = st.text(alphabet=st.sampled_from("aab c\n😄é"), max_size=80)
patterns = st.sampled_from([None, GPT2_PATTERN, GPT4_PATTERN, O200K_PATTERN])


def _ranks(merges):
    """``{pair: new_id}`` in merge order -> the encoder's ``Ranks``."""
    return Ranks(list(merges), list(merges.values()))


@given(st.lists(st.integers(0, 5), max_size=60), st.integers(0, 12), st.randoms(use_true_random=False))
def test_heap_encoder_equals_rescan_encoder(ids, n_merges, rnd):
    # random merge tables over a tiny alphabet, including pairs that never occur
    merges = {}
    known = list(range(6))
    for _ in range(n_merges):
        pair = (rnd.choice(known), rnd.choice(known))
        if pair in merges:
            continue
        merges[pair] = 100 + len(merges)
        known.append(merges[pair])
    ranks = _ranks(merges)
    for limit in (0, len(ranks) // 2, len(ranks)):
        assert bpe_heap(list(ids), ranks, limit) == bpe_short(list(ids), ranks, limit)


@given(texts, st.integers(256, 300), patterns, texts)
def test_encoder_equals_the_textbook_encode(train_text, vocab_size, pattern, text):
    merges = {p: i for p, i, _ in textbook.train(train_text, vocab_size, pattern)}
    enc = Encoder(range(256), _ranks(merges))
    chunks = textbook.split(text, pattern)
    assert enc.encode_chunks(chunks) == textbook.encode(text, merges, pattern)
    # a second pass is served from the chunk cache and must not differ
    assert enc.encode_chunks(chunks) == textbook.encode(text, merges, pattern)


def test_long_chunk_uses_heap_and_matches_naive():
    text = "ab" * 300 + "a" * 101
    merges = {p: i for p, i, _ in textbook.train(text, 270, None)}
    enc = Encoder(range(256), _ranks(merges))
    assert enc.encode_bytes(text.encode()) == textbook.encode(text, merges, None)


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


# long chunks: a merge rank at a time with numpy, handing over to the heap when merges get sparse
long_pieces = st.lists(st.sampled_from(["a", "aa", "b", "ab", " ", "\n", "\r\n", "é", "aab"]), min_size=1, max_size=6).map(
    "".join
)


@given(st.lists(texts, min_size=1, max_size=3), long_pieces, st.integers(1, 3000), st.integers(260, 330))
def test_long_chunks_encode_like_the_heap(train_texts, piece, repeat, vocab_size):
    merges = textbook.train("".join(train_texts) + piece * 3, vocab_size, None)
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
