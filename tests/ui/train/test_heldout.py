"""ui/train/heldout.py: every prefix of the merges on a held-out text, at once."""

from __future__ import annotations

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.tier import examples
from tokenizer import train
from tokenizer.baselines import bytes_tokenizer
from ui.train import heldout

WORDS = st.sampled_from(["low", "lower", "newest", "widest", " ", "\n", "the", "héllo", "你好", "1234", "!"])


@settings(max_examples=examples(40))
@given(
    st.lists(WORDS, min_size=1, max_size=40).map("".join),
    st.lists(WORDS, max_size=40).map("".join),
    st.sampled_from([None, "gpt2", "gpt4", "o200k"]),
)
def test_each_prefix_equals_the_truncated_tokenizer(corpus, text, pattern):
    tok = train(corpus, 256 + 30, pattern=pattern)
    got = tok.merge_curve(text)[1]
    assert got == [len(tok.truncated(k).encode(text)) for k in range(tok.num_merges + 1)]


def test_curve_columns_and_ends():
    tok = train("low lower newest widest " * 30, 300, pattern="gpt2")
    text = "the lowest and the newest, wider and wider"
    df = heldout.curve(tok, text)
    assert list(df.columns) == ["merges", "vocab size", "tokens", "bytes per token"]
    assert df["merges"].iloc[0] == 0 and df["merges"].iloc[-1] == tok.num_merges
    assert df["tokens"].iloc[0] == len(text.encode()) and df["tokens"].iloc[-1] == len(tok.encode(text))
    assert df["tokens"].is_monotonic_decreasing


def test_the_curve_is_thinned_but_keeps_both_ends():
    tok = train("abcdefghij" * 50 + "".join(chr(0x4E00 + i) for i in range(400)), 256 + 500, pattern=None)
    df = heldout.curve(tok, "abcdefghij" * 3, points=50)
    assert len(df) <= 50 and df["merges"].iloc[-1] == tok.num_merges


def test_match_finds_the_first_prefix_that_reaches_a_reference():
    df = pd.DataFrame({"merges": [0, 10, 20, 30], "bytes per token": [1.0, 2.0, 3.0, 3.5]})
    found = heldout.matches(df, {"GPT-2": 2.5, "o200k": 4.0, "bytes": 1.0})
    assert [(m.label, m.merges) for m in found] == [("GPT-2", 20), ("o200k", None), ("bytes", 0)]
    assert "not reached" in heldout.describe(found[1]) and "3.50" in heldout.describe(found[1])


def test_reference_ratio_is_bytes_over_tokens():
    assert heldout.reference_ratio(bytes_tokenizer(), "naïve") == 1.0
    tok = train("aaaa aaaa aaaa", 258, pattern=None)
    assert heldout.reference_ratio(tok, "aaaa") == 4 / len(tok.encode("aaaa"))
