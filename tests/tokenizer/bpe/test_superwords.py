"""bpe/superwords.py: the two stages equal the naive SuperBPE, tokens cross words only after the transition,
and the trace gives each stage's own pair counts and lengths."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from texts import stdlib_sample

from tests.tokenizer.bpe import naive
from tokenizer import TrainingTrace, from_json, to_json, train
from tokenizer.bpe import textbook
from tokenizer.bpe.superwords import SUPERBPE_PATTERN, SuperwordTrace, default_transition, train_superwords
from tokenizer.pretokenize.patterns import resolve_pattern

PIECES = ["the ", "of ", "a", "b", " ", ", ", "1", "234", "..", "\n", "é", "!?"]
text_strategy = st.lists(st.sampled_from(PIECES), max_size=50).map("".join)
patterns = st.sampled_from([None, "gpt2", "gpt4"])
superword_patterns = st.sampled_from([SUPERBPE_PATTERN, None, r" ?\w+(?: \w+)?"])


@given(text_strategy, st.integers(256, 320), st.floats(0, 1), patterns, superword_patterns)
def test_equals_the_naive_two_stages(text, vocab_size, share, pattern, superword):
    if resolve_pattern(pattern) == superword:
        return
    transition = 256 + round((vocab_size - 256) * share)
    tok = train_superwords(text, vocab_size, pattern, transition=transition, superword_pattern=superword)
    want = naive.superwords(text, vocab_size, transition, resolve_pattern(pattern), superword)
    assert [(m.pair, m.new_id, m.count) for m in tok.merge_list] == want
    assert tok.pattern == superword
    assert tok.encode_ordinary(text) == textbook.encode(text, tok.merges, superword)
    assert tok.metadata["tokens_after"] == len(tok.encode_ordinary(text))


@given(text_strategy, st.integers(256, 300), st.floats(0, 1), patterns)
def test_the_trace_rebuilt_from_the_stored_text_keeps_its_promise(text, vocab_size, share, pattern):
    transition = 256 + round((vocab_size - 256) * share)
    tok = train_superwords(text, vocab_size, pattern, transition=transition)
    rebuilt = TrainingTrace.from_text(from_json(json.loads(json.dumps(to_json(tok)))), text)
    assert isinstance(rebuilt, SuperwordTrace)
    trace = tok.training
    assert rebuilt.tokens_after == trace.tokens_after and rebuilt.stage2_start == trace.stage2_start
    assert rebuilt.stage1_merges == trace.stage1_merges == tok.metadata["training"]["stage1_merges"]
    for k, m in enumerate(tok.merge_list):
        top = rebuilt.pair_counts(tok, k, top=1)[0]
        assert (top.pair, top.count) == (m.pair, m.count)  # the pair counts of the stage that chose merge k + 1
        assert rebuilt.tokens_at(tok, k) == rebuilt.length_at(k)
        assert rebuilt.pattern_at(tok, k) == (resolve_pattern(pattern) if k < trace.stage1_merges else SUPERBPE_PATTERN)


def test_tokens_cross_words_only_in_the_second_stage():
    text = stdlib_sample(40_000)
    tok = train_superwords(text, 900, "gpt4", transition=700, baseline=True)
    words = [tok.vocab[m.new_id] for m in tok.merge_list]
    across = [w for w in words if b" " in w.strip(b" ")]  # a space inside: two words in one token
    assert across and all(words.index(w) >= 700 - 256 for w in across)
    # stage 1 is plain BPE, the start of the plain training of the same size
    plain = train(text, 900, "gpt4")
    assert tok.merge_list[: 700 - 256] == plain.merge_list[: 700 - 256]
    record = tok.metadata["training"]
    assert record["plain_tokens"] == plain.metadata["tokens_after"]
    assert tok.training.baseline.merge_list == plain.merge_list
    assert tok.training.baseline.training.tokens_after == plain.training.tokens_after
    assert tok.metadata["tokens_after"] < record["plain_tokens"]  # superwords compress this text further


def test_the_edges_of_the_transition():
    text = stdlib_sample(5_000)
    # transition at the full size: plain BPE under the stage-1 pattern
    assert train_superwords(text, 300, "gpt2", transition=300).merge_list == train(text, 300, "gpt2").merge_list
    # transition at 256: stage 2 alone, i.e. plain BPE under the superword pattern
    assert train_superwords(text, 300, "gpt2", transition=256).merge_list == train(text, 300, SUPERBPE_PATTERN).merge_list
    # a stage 1 that runs out of pairs hands the rest of the vocabulary to stage 2
    short = "of the cat and of the dog " * 3
    tok = train_superwords(short, 300, "gpt2", transition=300)
    assert tok.training.stage1_merges == train(short, 300, "gpt2").num_merges < tok.num_merges
    assert default_transition(256) == 256 and default_transition(1256) == 1056


def test_progress_runs_once_from_zero_to_the_end():
    seen = []
    train_superwords("ab ab ab cd cd " * 4, 280, "gpt2", transition=266, baseline=True, progress=lambda d, t: seen.append((d, t)))
    total = 24 + (280 - 266)
    assert seen[0] == (0, total) and seen[-1] == (total, total)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_bad_input_names_the_fix():
    with pytest.raises(ValueError, match="transition must be a vocab size from 256 to vocab_size"):
        train_superwords("abc", 300, transition=301)
    with pytest.raises(ValueError, match="transition must be a vocab size from 256 to vocab_size"):
        train_superwords("abc", 300, transition=200)
    with pytest.raises(ValueError, match="stage 2 would learn what plain BPE learns"):
        train_superwords("abc", 300, "gpt2", superword_pattern="gpt2")
    with pytest.raises(ValueError):
        train_superwords("abc", 300, superword_pattern="(unclosed")
