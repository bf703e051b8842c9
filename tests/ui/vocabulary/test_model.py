"""ui/vocabulary/model.py: the vocabulary table, its filters and the never-produced tokens."""

from __future__ import annotations

import time

import pandas as pd
import pytest
from busy import busy_machine

from tokenizer import load_encoding, train
from ui.vocabulary import model as vocab


@pytest.fixture(scope="module")
def gpt2():
    tok = load_encoding("r50k_base")
    return tok, vocab.vocab_frame(tok)


def test_gpt2_ids_240_to_270_as_in_seed_001(gpt2):
    tok, df = gpt2
    rows = vocab.filter_vocab(df, id_from=240, id_to=270)
    assert list(rows["id"]) == list(range(240, 271))
    assert (rows.loc[240:255, "kind"] == "byte").all()
    assert rows.loc[240:255, "token"].str.startswith("<").all()  # bytes that are not characters on their own
    assert rows.loc[256, ["token", "GPT-2 form", "merged from"]].tolist() == ["·t", "Ġt", "· + t"]
    assert int(rows.loc[256, "rank"]) == 0  # the first merge learned: rank 0, id 256 + 0
    assert df.loc[50256, "kind"] == "special" and df.loc[50256, "token"] == "<|endoftext|>"


def test_frame_matches_the_tokenizer(gpt2):
    tok, df = gpt2
    assert len(df) == len(tok.vocab)
    sample = df.sample(200, random_state=0)
    for tid, row in sample.iterrows():
        assert row["bytes"] == len(tok.vocab[tid])
        if row["kind"] == "merged":
            assert (int(row["left id"]), int(row["right id"])) == tok.parents[tid]


def test_filters(gpt2):
    _, df = gpt2
    ing = vocab.filter_vocab(df, pattern=r"^\sthe$")
    assert list(ing["token"]) == ["·the"]
    long = vocab.filter_vocab(df, min_bytes=60, kind="merged")
    assert (long["bytes"] >= 60).all() and len(long) > 0
    assert list(vocab.filter_vocab(df, kind="special")["id"]) == [50256]


def test_bad_and_slow_regexes_are_value_errors(gpt2):
    _, df = gpt2
    with pytest.raises(ValueError, match="not a valid regex"):
        vocab.filter_vocab(df, pattern="(unclosed")
    with pytest.raises(ValueError, match="took longer"):
        vocab.regex_mask(df["text"].head(2000).map(lambda t: "a" * 30 + "!"), r"(a|aa)+$", timeout=0.3)


def test_longest_and_lengths(gpt2):
    _, df = gpt2
    top = vocab.longest(df, 5)
    assert list(top["bytes"]) == sorted(top["bytes"], reverse=True)
    counts = vocab.length_counts(df)
    assert counts["tokens"].sum() == len(df) - 1  # the special token is left out


def test_never_and_rarely_produced_on_the_training_text():
    text = "Honolulu honolulu " * 3 + "lulu"
    tok = train(text, 270, pattern="gpt2")
    df = vocab.vocab_frame(tok)
    u = vocab.usage(df, vocab.usage_counts(tok, text), rare_max=1)
    produced = set(vocab.usage_counts(tok, text))
    assert set(u["never"]["id"]).isdisjoint(produced)
    assert u["used"] + len(u["never"]) == tok.num_merges
    assert (u["rare"]["produced"] == 1).all()
    assert list(u["never"]["rank"]) == sorted(u["never"]["rank"])  # stepping stones, earliest first


def test_the_filter_regex_stops_on_the_clock_on_a_busy_machine():
    # regex's own timeout counts CPU time, which a busy machine hands out several times slower than the clock
    texts = pd.Series(["a" * 40 + "!"] * 50)
    with busy_machine():
        t0 = time.monotonic()
        with pytest.raises(ValueError, match="took longer than 2 s"):
            vocab.regex_mask(texts, r"(a|aa)+$", timeout=2.0)
        waited = time.monotonic() - t0
    assert waited < 2 * 2.0 + 1, waited
    assert vocab.regex_mask(pd.Series(["the", "cat"]), r"^t", timeout=2.0).tolist() == [True, False]
