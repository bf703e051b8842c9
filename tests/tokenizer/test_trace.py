"""Encode traces: replaying every step gives encode; each step applies one rank everywhere."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from texts import MULTILINGUAL, stdlib_sample

from tokenizer import train
from tokenizer.trace import make_spans


@pytest.fixture(scope="module")
def tok():
    return train(MULTILINGUAL * 3 + stdlib_sample(40_000), 256 + 500, special_tokens=["<|endoftext|>", "<|fim_prefix|>"])


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


def test_trace_spans():
    tok = train("héllo héllo", 262, pattern=None)
    trace = tok.encode_trace("héllo")
    assert [s.bytes for s in trace.spans_at(len(trace))] == tok.decode_tokens_bytes(tok.encode("héllo"))


def test_spans_of_partial_characters_point_at_the_character():
    smile = "😄".encode()
    spans = make_spans([(1, b"a"), (2, smile[:2]), (3, smile[2:]), (4, b"b")])
    assert [(s.start, s.end) for s in spans] == [(0, 1), (1, 2), (1, 2), (2, 3)]
    assert [(s.byte_start, s.byte_end) for s in spans] == [(0, 1), (1, 3), (3, 5), (5, 6)]
    assert [s.partial for s in spans] == [False, True, True, False]
