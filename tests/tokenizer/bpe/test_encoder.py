"""bpe/encoder.py: every fast path gives the textbook's ids (``textbook.encode``)."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tokenizer import GPT2_PATTERN, GPT4_PATTERN, O200K_PATTERN
from tokenizer.bpe import encoder, textbook
from tokenizer.bpe.encoder import ChunkCache, Encoder, LongChunkTables, Ranks, bpe_batch, bpe_heap, bpe_long, bpe_short

# small alphabets make ties and overlapping runs (aaa) common, which is where bugs hide
texts = st.text(alphabet=st.sampled_from("aab c\n😄é"), max_size=80)
patterns = st.sampled_from([None, GPT2_PATTERN, GPT4_PATTERN, O200K_PATTERN])


def _ranks(merges):
    """``{pair: new_id}`` in merge order -> the encoder's ``Ranks``."""
    return Ranks(list(merges), list(merges.values()))


def _random_merges(n_merges, rnd) -> dict:
    """A random merge table over the ids 0-5, including pairs that never occur and merges of merges."""
    merges = {}
    known = list(range(6))
    for _ in range(n_merges):
        pair = (rnd.choice(known), rnd.choice(known))
        if pair in merges:
            continue
        merges[pair] = 100 + len(merges)
        known.append(merges[pair])
    return merges


@given(st.lists(st.integers(0, 5), max_size=60), st.integers(0, 12), st.randoms(use_true_random=False))
def test_heap_encoder_equals_rescan_encoder(ids, n_merges, rnd):
    ranks = _ranks(_random_merges(n_merges, rnd))
    for limit in (0, len(ranks) // 2, len(ranks)):
        assert bpe_heap(list(ids), ranks, limit) == bpe_short(list(ids), ranks, limit)


@given(st.sets(st.tuples(st.integers(0, 300), st.integers(0, 300)), max_size=400), st.data())
def test_the_tables_look_up_each_pairs_rank_as_the_dict_does(pairs, data):
    # the hash table (tables of 16 to 1,024 slots: collisions and long probes), present and absent pairs alike
    pairs = list(pairs)
    ranks = Ranks(pairs, range(301, 301 + len(pairs)), top=700)
    tables = LongChunkTables(ranks)
    asked = pairs + data.draw(st.lists(st.tuples(st.integers(0, 700), st.integers(0, 700)), max_size=200))
    limit = data.draw(st.integers(0, len(pairs)))
    left, right = (np.array([p[i] for p in asked], dtype=np.int64) for i in (0, 1))
    want = [min(ranks.rank_of(a, b) if ranks.rank_of(a, b) is not None else limit, limit) for a, b in asked]
    assert tables.ranks_of(left, right, limit).tolist() == want


@given(
    st.lists(st.lists(st.integers(0, 5), min_size=0, max_size=30), max_size=25),
    st.integers(0, 14),
    st.randoms(use_true_random=False),
)
def test_batch_encoder_equals_rescan_encoder(chunks, n_merges, rnd):
    # many chunks at once, each as bpe_short would merge it alone: one-byte and empty chunks, runs (aaa), ties
    ranks = Ranks(*zip(*_random_merges(n_merges, rnd).items()), top=300) if n_merges else Ranks()
    tables = LongChunkTables(ranks)
    for limit in (0, len(ranks) // 2, len(ranks)):
        want = [tuple(bpe_short(list(c), ranks, limit)) for c in chunks]
        assert bpe_batch([bytes(c) for c in chunks], tables, limit) == want


@given(
    st.lists(st.binary(max_size=2 * encoder.SHORT_CHUNK), max_size=30),
    st.sampled_from([b"", b"a", b"ab", b"\xff\xfe"]),
    st.integers(0, 14),
    st.randoms(use_true_random=False),
    st.permutations(range(256)),
)
def test_encode_many_gives_each_chunk_what_encode_bytes_gives(chunks, fill, n_merges, rnd, byte_ids):
    # the vocabulary check's path: short chunks together, long ones (SHORT_CHUNK bytes or more) one by one, with the
    # initial ids a permutation of the bytes (official encodings) and merges over the bytes the chunks are made of
    merges = {}
    known = [byte_ids[b] for b in b"ab\xff\xfe"]
    for _ in range(n_merges):
        pair = (rnd.choice(known), rnd.choice(known))
        merges.setdefault(pair, 300 + len(merges))
        known.append(merges[pair])
    enc = Encoder(byte_ids, Ranks(list(merges), list(merges.values()), top=400) if merges else None)
    chunks = [c + fill * rnd.randint(0, encoder.SHORT_CHUNK) for c in chunks]
    assert enc.encode_many(chunks) == [tuple(enc.encode_bytes(c)) for c in chunks]


def test_a_loaded_vocabulary_finds_the_tokens_that_encode_to_themselves(official):
    # a file read back has no engine yet: building one checks every token, as the loop over encode_bytes did
    from tokenizer import formats

    ours, _ = official
    again = formats.loads(formats.dumps(ours))
    assert again._self_encoding is None
    again.encode_ordinary("built")
    probe = Encoder(ours.byte_ids, Ranks(ours.merge_table.pairs, ours.merge_table.new_ids, top=ours.n_vocab))
    assert again._self_encoding == {i for i in ours.merge_table.new_ids if probe.encode_bytes(ours.vocab[i]) == [i]}


@given(texts, st.integers(256, 300), patterns, st.lists(texts, min_size=1, max_size=40))
def test_a_long_texts_new_chunks_encoded_together_equal_the_textbook(train_text, vocab_size, pattern, parts):
    # the batch path, with its thresholds lowered so that small texts take it; every chunk is new the first time
    merges = {p: i for p, i, _ in textbook.train(train_text, vocab_size, pattern)}
    enc = Encoder(range(256), _ranks(merges))
    text = "".join(parts)
    chunks = textbook.split(text, pattern)
    with mock.patch.multiple(encoder, BATCH_FROM=1, BATCH_PROBE=1):
        assert enc.encode_chunks(chunks) == textbook.encode(text, merges, pattern)
        assert enc.encode_chunks(chunks) == textbook.encode(text, merges, pattern)  # now from the cache


def test_the_batch_path_keeps_the_cache_within_its_limit(monkeypatch):
    monkeypatch.setattr(encoder, "BATCH_FROM", 1)
    monkeypatch.setattr(encoder, "BATCH_PROBE", 1)
    merges = {p: i for p, i, _ in textbook.train("the cat sat on the mat " * 20, 280, GPT4_PATTERN)}
    enc = Encoder(range(256), _ranks(merges))
    enc.cache.limit = 50
    words = [f" w{i}" for i in range(40)]
    want = [textbook.encode(w, merges, None) for w in words]
    assert enc.encode_chunks(words) == sum(want, [])
    assert len(enc.cache) == 40  # encoded together, and kept
    more = [f" x{i}" for i in range(30)]
    assert enc.encode_chunks(more) == sum((textbook.encode(w, merges, None) for w in more), [])
    assert len(enc.cache) <= 50  # 40 + 30 would not fit: the cache started afresh
    many = [f" y{i}" for i in range(80)]  # more new chunks than the cache keeps: one at a time, as it fills and clears
    assert enc.encode_chunks(many) == sum((textbook.encode(w, merges, None) for w in many), [])
    assert len(enc.cache) <= 50


def test_the_batch_path_gives_a_chunk_that_is_a_whole_token_that_token(monkeypatch):
    # a tokenizer.json that ignores merges: a chunk equal to a vocabulary token is that token, whatever BPE would give
    monkeypatch.setattr(encoder, "BATCH_FROM", 1)
    monkeypatch.setattr(encoder, "BATCH_PROBE", 1)
    merges = {(104, 105): 256, (32, 256): 257}  # "hi", " hi"
    enc = Encoder(range(256), _ranks(merges), whole={b" hi!": 300, b" hi": 257})
    assert enc.encode_chunks([" hi!", " hi", " hi?", "x"]) == [300, 257, 257, 63, 120]


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


def test_a_long_text_of_new_words_equals_tiktoken(official):
    # enough chunks for the batch path, nearly all of them new: made-up words, numbers, code, emoji and CJK
    import random

    ours, ref = official
    rnd = random.Random(7)
    alphabet = "etaoinshrdlucmfwypvbgkjqxz" * 3 + "ETAOIN'\".,;:!?()[]{}<>=+-*/_0123456789\t\n é你好😄ß"
    words = ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(1, 60))) for _ in range(40_000)]
    text = " ".join(words)
    ours.clear_cache()
    assert len(ours.split(text)) >= encoder.BATCH_FROM
    assert ours.encode_ordinary(text) == ref.encode_ordinary(text)
