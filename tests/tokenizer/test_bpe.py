"""Tokenizer: encode/decode round trips, special tokens, spans, traces, errors."""

from __future__ import annotations

import pytest
from corpus import MULTILINGUAL, stdlib_sample
from hypothesis import given
from hypothesis import strategies as st
from reference import naive_encode

from tokenizer import Merge, Tokenizer, train
from tokenizer.bpe import clean_text


@pytest.fixture(scope="module")
def tok():
    return train(MULTILINGUAL * 3 + stdlib_sample(40_000), 256 + 500, special_tokens=["<|endoftext|>", "<|fim_prefix|>"])


@given(st.text(max_size=300))
def test_round_trip_any_text(tok, text):
    assert tok.decode(tok.encode_ordinary(text)) == clean_text(text)


@given(st.text(max_size=200))
def test_encode_equals_naive_minbpe_encode(tok, text):
    text = clean_text(text)
    assert tok.encode_ordinary(text) == naive_encode(text, tok.merges, tok.pattern)


def test_spans_cover_text_and_point_at_partial_characters():
    tok = Tokenizer()  # bytes only: every multi-byte character is split
    text = "a😄你"
    spans = tok.spans(tok.encode(text))
    assert len(spans) == 1 + 4 + 3
    assert [(s.start, s.end) for s in spans] == [(0, 1)] + [(1, 2)] * 4 + [(2, 3)] * 3
    assert [s.partial for s in spans] == [False] + [True] * 7
    assert b"".join(s.bytes for s in spans) == text.encode()
    assert spans[-1].byte_end == len(text.encode())


@given(st.text(max_size=120))
def test_span_offsets_slice_the_text(tok, text):
    text = clean_text(text)
    spans = tok.spans(tok.encode_ordinary(text))
    pos = 0
    for s in spans:
        assert s.byte_start == pos
        pos = s.byte_end
        assert 0 <= s.start < s.end <= len(text)
        if not s.partial:
            assert text[s.start : s.end].encode() == s.bytes


def test_special_tokens_follow_tiktoken_rules(tok):
    text = "a<|endoftext|>b"
    with pytest.raises(ValueError) as e:
        tok.encode(text)
    assert "allowed_special" in str(e.value) and "disallowed_special" in str(e.value)
    eot = tok.special_tokens["<|endoftext|>"]
    assert eot in tok.encode(text, allowed_special={"<|endoftext|>"})
    assert eot in tok.encode(text, allowed_special="all")
    as_text = tok.encode(text, disallowed_special=())
    assert eot not in as_text and tok.decode(as_text) == text
    # allowing one special still forbids the other
    with pytest.raises(ValueError, match="fim_prefix"):
        tok.encode("<|fim_prefix|><|endoftext|>", allowed_special={"<|endoftext|>"})
    with pytest.raises(ValueError, match="does not have"):
        tok.encode("x", allowed_special={"<|nope|>"})


def test_special_spans_are_marked(tok):
    spans = tok.encode_spans("hi<|endoftext|>", allowed_special="all")
    assert spans[-1].special and spans[-1].bytes == b"<|endoftext|>"


def test_decode_unknown_id_says_what_to_do(tok):
    with pytest.raises(ValueError, match="cannot decode token id 999999"):
        tok.decode([1, 999999])
    with pytest.raises(ValueError, match="cannot decode"):
        tok.decode([1, "x"])


def test_decode_errors_argument():
    tok = Tokenizer()
    assert tok.decode([128]) == "\ufffd"  # seed 003: decode([128])
    with pytest.raises(UnicodeDecodeError):
        tok.decode([128], errors="strict")


def test_constructor_validates_ids():
    with pytest.raises(ValueError, match="earlier merge"):
        Tokenizer({(300, 1): 256})
    with pytest.raises(ValueError, match="already taken"):
        Tokenizer({(1, 2): 65})
    with pytest.raises(ValueError, match="first free id"):
        Tokenizer({(1, 2): 256}, special_tokens={"<|x|>": 256})


def test_merges_and_vocab_are_derived_from_one_list():
    tok = Tokenizer([Merge(0, (104, 105), 256, 9)])
    assert tok.merges == {(104, 105): 256}
    assert tok.vocab[256] == b"hi" and tok.merge_list[0].count == 9
    assert tok.merge_tree(256).leaves()[1].bytes == b"i"


@given(st.text(alphabet=st.sampled_from("the cat in hat😄\n<|endoftext|>"), max_size=150))
def test_encode_trace_replays_to_encode(tok, text):
    trace = tok.encode_trace(text)
    assert trace.final == tok.encode(text, disallowed_special=())
    assert trace.tokens_at(0) == [tok.byte_ids[b] for b in text.encode()]
    for k in range(len(trace)):
        st_k = trace.steps[k]
        assert trace.steps[k].n_tokens == len(trace.tokens_at(k + 1))
        assert tok.vocab[st_k.new_id] == st_k.token == tok.vocab[st_k.pair[0]] + tok.vocab[st_k.pair[1]]
    assert [s.rank for s in trace.steps] == sorted(s.rank for s in trace.steps)


def test_trace_steps_apply_each_rank_everywhere_at_once(tok):
    text = "the cat in the hat, the end"
    trace = tok.encode_trace(text)
    data = text.encode()
    for k, step in enumerate(trace.steps):
        before = trace.boundaries_at(k)
        starts = {s: t for s, _, t in before}
        # every occurrence of the pair in the sequence before the step is merged
        pairs_at = [s for (s, _, a), (_, _, b) in zip(before, before[1:]) if (a, b) == step.pair]
        assert set(step.positions) <= set(pairs_at)
        for p in step.positions:
            assert starts[p] == step.pair[0]
            assert data[p : p + len(step.token)] == step.token


def test_trace_with_allowed_special_keeps_it_whole(tok):
    trace = tok.encode_trace("ab<|endoftext|>ab", allowed_special="all")
    assert trace.final == tok.encode("ab<|endoftext|>ab", allowed_special="all")
    assert len(trace.chunks) == 3


def test_trace_spans_and_char_offsets():
    tok = train("héllo héllo", 262, pattern=None)
    trace = tok.encode_trace("héllo")
    assert [s.bytes for s in trace.spans_at(len(trace))] == tok.decode_tokens_bytes(tok.encode("héllo"))
    assert trace.char_offset(3) == 2  # byte 3 is "l", the third character


def test_truncated_view_equals_partial_training(tok):
    text = "indivisible tokenization"
    for k in (0, 1, 50, 499):
        t = tok.truncated(k)
        assert t.num_merges == k
        assert t.encode_ordinary(text) == naive_encode(text, dict(list(tok.merges.items())[:k]), tok.pattern)
    with pytest.raises(ValueError, match="whole number from 0"):
        tok.truncated(10_000)


def test_with_special_tokens_shares_merges(tok):
    chat = tok.with_special_tokens({"<|im_start|>": 5000})
    assert chat.merges == tok.merges and chat.special_tokens["<|im_start|>"] == 5000
    assert chat.encode("<|im_start|>hi", allowed_special="all")[0] == 5000


def test_encode_single_token(tok):
    assert tok.encode_single_token("a") == 97
    assert tok.encode_single_token("<|endoftext|>") == tok.special_tokens["<|endoftext|>"]
    with pytest.raises(KeyError):
        tok.encode_single_token("not a single token at all")
