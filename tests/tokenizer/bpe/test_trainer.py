"""train(): known answers from the seeds, parity with the naive recount, metadata, errors."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st
from texts import MULTILINGUAL, code_and_prose, stdlib_sample

from tokenizer import GPT2_PATTERN, GPT4_PATTERN, O200K_PATTERN, TrainingTrace, count_chunks, time_limit, train
from tokenizer.bpe import textbook
from tokenizer.bpe.trainer import train_merges
from tokenizer.pretokenize import splitter
from tokenizer.pretokenize.patterns import BUILTIN_PATTERNS

SEED_000_TEXT = "Hi there! What are you doing? Do you know what the weather is like today? If you do, where would you go?"


def test_wikipedia_example():
    tok = train("aaabdaaabac", 259, pattern=None)
    assert tok.encode("aaabdaaabac") == [258, 100, 258, 97, 99]
    assert tok.merges == {(97, 97): 256, (256, 97): 257, (257, 98): 258}
    assert [m.count for m in tok.merge_list] == [4, 2, 2]


def test_seed_000_basic_tokenizer():
    # seed 000 prints merges (111, 117), (104, 101), (32, 121) for this paragraph
    tok = train(SEED_000_TEXT, 259, pattern=None)
    assert tok.merges == {(111, 117): 256, (104, 101): 257, (32, 121): 258}
    ids = tok.encode("Hi there! You look amazing today. You should go out!")
    assert ids[:8] == [72, 105, 32, 116, 257, 114, 101, 33]
    assert ids.count(256) == 4
    assert tok.decode(ids) == "Hi there! You look amazing today. You should go out!"


def test_seed_002_honolulu():
    tok = train("Honolulu", 257, pattern=None)
    assert tok.merges == {(108, 117): 256}
    assert tok.encode("Honolulu") == [72, 111, 110, 111, 256, 256]


def test_seed_001_the_cat_in_the_hat():
    tok = train("the cat in the hat", 259, pattern=None)
    assert [tok.vocab[i] for i in (256, 257, 258)] == [b"th", b"the", b"the "]
    assert tok.decode_tokens_bytes(tok.encode("the cat in the hat"))[:2] == [b"the ", b"c"]


@given(
    st.text(alphabet=st.sampled_from("ab \n'sS1😄"), max_size=60),
    st.integers(256, 290),
    st.sampled_from([None, "gpt2", "gpt4", "o200k"]),
)
def test_train_equals_the_textbook_recount(text, vocab_size, pattern):
    tok = train(text, vocab_size, pattern=pattern)
    want = textbook.train(text, vocab_size, tok.pattern)
    assert [(m.pair, m.new_id, m.count) for m in tok.merge_list] == want
    assert tok.encode_ordinary(text) == textbook.encode(text, tok.merges, tok.pattern)


@pytest.mark.parametrize("pattern", [GPT2_PATTERN, GPT4_PATTERN, O200K_PATTERN, None])
def test_real_text_equals_naive(pattern):
    text = (MULTILINGUAL + stdlib_sample(12_000))[:14_000]
    tok = train(text, 256 + 60, pattern=pattern)
    assert [(m.pair, m.new_id, m.count) for m in tok.merge_list] == textbook.train(text, 256 + 60, pattern)


def test_stops_early_only_when_no_pair_is_left():
    tok = train("abab", 300, pattern=None)
    # a,b -> X ; X,X -> Y ; then one token is left and nothing to pair
    assert tok.num_merges == 2
    assert tok.metadata["stopped_early"] is True
    assert train("", 300).num_merges == 0


def test_documents_never_merge_across_each_other():
    tok = train(["ab", "ab"], 258, pattern=None)
    assert tok.merges == {(97, 98): 256}  # (b, a) would only exist across the boundary


def test_special_tokens_are_cut_out_and_numbered_after_merges():
    text = "hello world<|endoftext|>hello there<|endoftext|>"
    tok = train(text, 270, pattern="gpt4", special_tokens=["<|endoftext|>"])
    assert tok.special_tokens == {"<|endoftext|>": 256 + tok.num_merges}
    assert all(b"<|" not in tok.vocab[m.new_id] for m in tok.merge_list)
    ids = tok.encode(text, allowed_special="all")
    assert ids.count(tok.special_tokens["<|endoftext|>"]) == 2
    assert tok.decode(ids) == text


def test_special_token_ids_that_collide_with_merges_are_refused():
    with pytest.raises(ValueError, match="already uses"):
        train("aaaa bbbb", 260, pattern=None, special_tokens={"<|x|>": 256})


@pytest.mark.parametrize("bad", [100, 255, -1, 300.5, "512", None, True])
def test_bad_vocab_size(bad):
    with pytest.raises(ValueError, match="vocab_size"):
        train("hello", bad)


def test_float_vocab_size_that_is_whole_is_accepted():
    assert train("hello hello", 258.0, pattern=None).num_merges == 2


def test_invalid_regex_names_the_fix():
    with pytest.raises(ValueError, match="not a valid regex"):
        train("hello", 300, pattern="(unclosed")


def test_catastrophic_regex_times_out_instead_of_hanging():
    with pytest.raises(ValueError, match="took longer"):
        train("a" * 40, 260, pattern=r"(a|a)+b")


def test_the_time_limit_holds_for_the_whole_call_not_each_document():
    # each document alone stays under the limit; together they would take far longer
    seen = []

    def docs():
        for i in range(40):
            seen.append(i)
            yield "a" * 18  # ~0.2 s each for (a|a)+b

    with time_limit(0.5) as budget, pytest.raises(ValueError, match="took longer than 0.5 s"):
        train(docs(), 260, pattern=r"(a|a)+b")
    assert len(seen) < 10 and budget.remaining() <= 0


def test_a_time_limit_block_is_shared_by_every_call_in_it():
    with time_limit(0.4) as budget, pytest.raises(ValueError, match="took longer"):
        for _ in range(40):
            count_chunks("a" * 18, r"(a|a)+b")
    assert budget.remaining() <= 0
    with pytest.raises(ValueError, match="positive number of seconds"), time_limit(0):
        pass


def test_progress_is_reported_to_the_end():
    calls = []
    tok = train(stdlib_sample(20_000), 256 + 400, progress=lambda d, t: calls.append((d, t)))
    assert calls[0] == (0, 400) and calls[-1] == (400, 400)
    assert len(calls) >= 100
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)
    assert tok.num_merges == 400


def test_metadata_and_lengths():
    text = stdlib_sample(30_000)
    tok = train(text, 400)
    md = tok.metadata
    assert md["corpus_bytes"] == len(text.encode()) == md["tokens_before"]
    assert md["corpus_chars"] == len(text)
    assert md["tokens_after"] == len(tok.encode_ordinary(text))
    tr = tok.training
    for k in (0, 1, 17, 100, tok.num_merges):
        assert tr.length_at(k) == len(tok.truncated(k).encode_ordinary(text)) == tr.tokens_at(tok, k)


def test_pair_counts_at_step_k_lead_with_the_merge_training_chose():
    text = MULTILINGUAL + stdlib_sample(5_000)
    tok = train(text, 256 + 80)
    for k in range(tok.num_merges):
        top = tok.training.pair_counts(tok, k, top=5)
        assert top[0].pair == tok.merge_list[k].pair
        assert top[0].count == tok.merge_list[k].count
        assert [p.count for p in top] == sorted((p.count for p in top), reverse=True)


def test_training_trace_rebuilt_from_text_equals_the_original():
    text = stdlib_sample(10_000)
    tok = train(text, 300)
    again = TrainingTrace.from_text(tok, text)
    assert again.chunks == tok.training.chunks
    assert again.weights == tok.training.weights
    assert again.tokens_after == tok.training.tokens_after


@pytest.mark.parametrize("name", sorted(BUILTIN_PATTERNS))
def test_training_on_blocks_equals_training_on_the_whole_text(name, monkeypatch):
    monkeypatch.setattr(splitter, "WINDOW", 2_000)
    text = code_and_prose(120_000)
    pattern = BUILTIN_PATTERNS[name]
    whole = train(text, 700, pattern=pattern)
    streamed = train([iter([text[i : i + 1_000] for i in range(0, len(text), 1_000)])], 700, pattern=pattern)
    assert streamed.merge_list == whole.merge_list


def test_lone_surrogates_are_replaced_like_tiktoken():
    tok = train("a\ud800b a\ud800b", 260, pattern=None)
    assert "\ud800" not in tok.decode(tok.encode("a\ud800b"))
    assert tok.decode(tok.encode("a\ud800b")) == "a\ufffdb"


def test_iterable_of_documents_is_consumed_lazily():
    def docs():
        for i in range(100):
            yield f"document {i} says hello\n"

    tok = train(docs(), 300)
    assert tok.num_merges == 44
    assert tok.metadata["corpus_chars"] == sum(len(f"document {i} says hello\n") for i in range(100))


# ----------------------------------------------------------------------------- train_merges, the incremental engine

# small alphabets make ties and overlapping runs (aaa) common, which is where bugs hide
texts = st.text(alphabet=st.sampled_from("aab c\n😄é"), max_size=80)
patterns_ = st.sampled_from([None, GPT2_PATTERN, GPT4_PATTERN, O200K_PATTERN])


def fast_train(text, vocab_size, pattern):
    chunks = {}
    docs = [text] if isinstance(text, str) else text
    for d in docs:
        for c in textbook.split(d, pattern):
            chunks[c] = chunks.get(c, 0) + 1
    raw = train_merges([c.encode() for c in chunks], list(chunks.values()), vocab_size - 256)
    return [((a, b), 256 + i, c) for i, (a, b, c, _) in enumerate(raw)]


@given(texts, st.integers(256, 320), patterns_)
def test_incremental_training_equals_the_textbook_recount(text, vocab_size, pattern):
    assert fast_train(text, vocab_size, pattern) == textbook.train(text, vocab_size, pattern)


@given(st.lists(texts, max_size=4), st.integers(256, 300), patterns_)
def test_documents_are_trained_as_separate_chunks(docs, vocab_size, pattern):
    assert fast_train(docs, vocab_size, pattern) == textbook.train(docs, vocab_size, pattern)


def test_ties_go_to_the_earliest_first_occurrence():
    # every pair occurs once: the textbook merges them in order of first appearance
    text = "abcdefg"
    got = fast_train(text, 256 + 3, None)
    assert [p for p, _, _ in got] == [(97, 98), (256, 99), (257, 100)]
    assert got == textbook.train(text, 256 + 3, None)


def test_tie_break_uses_current_first_occurrence_not_original():
    # after (a,a) is merged the first (a,b) occurrence is consumed; the tie must look at what is left
    text = "aab xyab xy"
    assert fast_train(text, 262, None) == textbook.train(text, 262, None)


def test_replaced_counts_overlapping_runs_once():
    raw = train_merges([b"aaa"], [1], 1)
    assert raw == [(97, 97, 2, 1)]  # count 2 (overlapping), one replacement


def test_random_long_texts_match_naive():
    rng = random.Random(7)
    for _ in range(20):
        text = "".join(rng.choice("the cat in the hat sat on a mat\n") for _ in range(rng.randint(200, 600)))
        for pattern in (None, GPT4_PATTERN):
            assert fast_train(text, 300, pattern) == textbook.train(text, 300, pattern)
