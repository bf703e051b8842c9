"""ui/step/model.py: what the Step through page shows at step k agrees with the core."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests import step_reference as reference
from tests.tier import examples
from tokenizer import load_encoding, train
from ui.step import model as stepper

CORPUS = (
    "Byte pair encoding merges the most frequent pair. The pair becomes a token; "
    "then it counts again. Hello 你好, emoji 😄🤪🧐! aaabdaaabac Honolulu\n\n"
) * 6


@pytest.fixture(scope="module", params=["gpt4", None, "gpt2"])
def trained(request):
    return train(CORPUS, 330, pattern=request.param, special_tokens=["<|endoftext|>"])


def test_spans_after_k_merges_equal_truncated_encode(trained):
    text = CORPUS[:300] + "<|endoftext|>" + CORPUS[300:400]
    etrace = stepper.excerpt_trace(trained, text)
    for k in range(trained.num_merges + 1):
        spans = reference.spans_after_merges(etrace, k)
        expected = trained.truncated(k).encode(text, allowed_special="all")
        assert [s.id for s in spans] == expected, k


def test_highlight_marks_exactly_what_the_next_merge_merges(trained):
    text = CORPUS[:400]
    etrace = stepper.excerpt_trace(trained, text)
    for k in range(trained.num_merges):
        view = reference.training_view(trained, trained.training, etrace, k)
        after = reference.spans_after_merges(etrace, k + 1)
        pair = trained.merge_list[k].pair
        assert len(view.highlight) == 2 * view.next_in_excerpt
        assert len(after) == len(view.spans) - view.next_in_excerpt
        for i in view.highlight:
            assert view.spans[i].id in pair
        assert view.next.pair == pair


def test_training_view_numbers_follow_the_trace(trained):
    etrace = stepper.excerpt_trace(trained, CORPUS[:200])
    n = trained.num_merges
    first = reference.training_view(trained, trained.training, etrace, 0)
    last = reference.training_view(trained, trained.training, etrace, n + 5)  # clamped
    assert (first.k, first.last, first.tokens) == (0, None, trained.training.initial_tokens)
    assert (last.k, last.next, last.highlight) == (n, None, set())
    assert last.tokens == trained.metadata["tokens_after"]


def test_top_pairs_start_with_the_next_merge(trained):
    for k in (0, 1, trained.num_merges // 2, trained.num_merges - 1):
        df = stepper.top_pairs_frame(trained, trained.training, k)
        assert bool(df["next"].iloc[0])
        assert df["count"].iloc[0] == trained.merge_list[k].count
        assert list(df["count"]) == sorted(df["count"], reverse=True)
        assert df["pair"].is_unique


def test_chunk_cuts_follow_the_pattern():
    tok = train(CORPUS, 280, pattern="gpt2")
    text = "Hello world, hello again!"
    etrace = stepper.excerpt_trace(tok, text)
    spans = reference.spans_after_merges(etrace, tok.num_merges)
    cuts = stepper.chunk_cuts(spans, etrace)
    starts = {spans[i].start for i in cuts}
    assert starts == {5, 11, 12, 18, 24}  # ' world' ',' ' hello' ' again' '!'
    none = train(CORPUS, 280, pattern=None)
    assert stepper.chunk_cuts(none.encode_spans(text), stepper.excerpt_trace(none, text)) == set()


@pytest.mark.parametrize("name", ["r50k_base", "o200k_base"])
def test_encoding_view_replays_encode(name):
    tok = load_encoding(name)
    text = "Show how tokenization is built up: Hello 你好 😄 " * 3
    trace = tok.encode_trace(text)
    n = len(trace.steps)
    end = reference.encoding_view(trace, n)
    assert [s.id for s in end.spans] == tok.encode(text)
    assert end.upcoming is None and end.step == trace.steps[-1]
    start = reference.encoding_view(trace, 0)
    assert len(start.spans) == len(text.encode()) and start.step is None and start.highlight == set()
    mid = reference.encoding_view(trace, n // 2)
    assert len(mid.highlight) == mid.step.count
    assert all(mid.spans[i].id == mid.step.new_id for i in mid.highlight)
    df = stepper.steps_frame(tok, trace)
    assert list(df["tokens after"]) == [s.n_tokens for s in trace.steps]
    lengths = reference.encode_lengths(trace)
    assert lengths[0] == len(text.encode()) and lengths[-1] == len(tok.encode(text))


def test_word_ladder_builds_tokenization_with_gpt2():
    tok = load_encoding("r50k_base")
    ladder = stepper.word_ladder(tok, "tokenization")
    assert [s.id for s in ladder[-1][1]] == tok.encode("tokenization")
    assert len(ladder[0][1]) == len("tokenization") and ladder[0][0] == "bytes"
    trace = tok.encode_trace("tokenization")
    assert [what for what, _, _ in ladder[1:]] == [f"rank {s.rank:,}: {stepper.pair_label(tok, s.pair)}" for s in trace.steps]
    for (_, spans, new), step in zip(ladder[1:], trace.steps):
        assert len(new) == step.count and all(spans[i].id == step.new_id for i in new)


@settings(max_examples=examples(60))
@given(
    text=st.text(alphabet="ab c\nαβ", min_size=1, max_size=200),
    merges=st.integers(1, 40),
    pattern=st.sampled_from([None, "gpt4"]),
    steps=st.lists(st.integers(0, 5), min_size=1, max_size=12),
    top=st.sampled_from([1, 3, 10, 10_000]),
)
def test_pair_counter_equals_the_trace_at_every_step(text, merges, pattern, steps, top):
    """Stepping merge by merge gives exactly what encoding the whole text again gives: counts, order, first occurrences."""
    tok = train(text, 256 + merges, pattern=pattern)
    counter = stepper.PairCounter(tok, tok.training)
    k = 0
    for jump in steps:
        k = min(tok.num_merges, k + jump)
        counter.advance(k)
        assert counter.top(top) == tok.training.pair_counts(tok, k, top=top)
    with pytest.raises(ValueError, match="only moves forward"):
        counter.advance(k - 1)


def test_top_pairs_frame_with_a_counter_behind_or_ahead():
    tok = train(CORPUS, 300, pattern="gpt4")
    counter = stepper.PairCounter(tok, tok.training)
    ahead = stepper.top_pairs_frame(tok, tok.training, 20, counter=counter)
    behind = stepper.top_pairs_frame(tok, tok.training, 5, counter=counter)  # the counter is at 20: the trace answers
    assert counter.k == 20
    assert ahead.equals(stepper.top_pairs_frame(tok, tok.training, 20))
    assert behind.equals(stepper.top_pairs_frame(tok, tok.training, 5))
