"""ui/compare/model.py: statistics, the boundary diff and the leaderboard behind the Compare page."""

from __future__ import annotations

import pandas as pd
import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenizer
from tests.tier import examples
from tokenizer.baselines import CharTokenizer
from tokenizer.trace import make_spans
from ui.compare import model
from ui.content import samples

TEXTS = st.text(alphabet=st.characters(blacklist_categories=("Cs",)) | st.sampled_from(list(" \n\tab你😄🏽")), max_size=80)


@pytest.fixture(scope="module")
def encodings():
    return {n: tokenizer.load_encoding(n) for n in ["r50k_base", "cl100k_base", "o200k_base"]}


def test_whole_words():
    text = "a token, tokens and tok"
    sp = make_spans([(0, b"a"), (1, b" token"), (2, b","), (3, b" tok"), (4, b"ens"), (5, b" and"), (6, b" tok")])
    # "a", " token", " and", " tok" (the last word is "tok"); not " tok"+"ens"
    assert model.whole_words(text, sp) == 4
    assert model.whole_words("你好", CharTokenizer().encode_spans("你好")) == 0
    assert model.stats_row("x", text, sp)["whole words %"] == round(100 * 4 / 7, 1)


def test_stats_row_of_the_baselines():
    text = "Hello 你好"
    row = model.stats_row("chars", text, CharTokenizer().encode_spans(text))
    assert row == {
        "tokenizer": "chars",
        "tokens": 8,
        "chars/token": 1.0,
        "bytes/token": 1.5,
        "unique tokens": 7,
        "whole words %": 0.0,
    }


@settings(max_examples=examples(60))
@given(TEXTS)
def test_boundary_diff_invariants(encodings, text):
    spans = {n: t.encode_spans(text, disallowed_special=()) for n, t in encodings.items()}
    spans["chars"] = CharTokenizer().encode_spans(text)
    d = model.boundary_diff(spans)
    total = len(text.encode("utf-8"))
    assert d.total_bytes == total
    for label, sp in spans.items():
        cuts = {s.byte_start for s in sp} | {total}
        assert set(d.agreed_cuts) <= cuts | {0}
        # a dimmed token is the same token in every tokenization
        for i in d.dim[label]:
            s = sp[i]
            assert all(any((o.byte_start, o.byte_end) == (s.byte_start, s.byte_end) for o in other) for other in spans.values())
        # a marked cut is one that some other tokenizer does not make
        for i in d.cuts[label]:
            assert sp[i].byte_start not in d.agreed_cuts
    assert len(d.table) == min(d.n_differing, model.DIFF_ROWS)
    assert 0.0 <= d.shared_share <= 1.0
    for _, row in d.table.iterrows():
        for label in spans:
            if "<" not in row[label]:  # no bytes of a split character: the pieces spell the stretch
                assert row[label].replace(" | ", "") == row["text"]


def test_boundary_diff_of_one_tokenizer_has_no_differences(encodings):
    d = model.boundary_diff({"a": encodings["cl100k_base"].encode_spans("Hello world")})
    assert d.n_differing == 0 and d.shared_share == 1.0
    assert model.boundary_diff({}).n_regions == 0


@pytest.mark.parametrize("name", ["r50k_base", "cl100k_base", "o200k_base"])
def test_leaderboard_counts_equal_tiktoken(encodings, name):
    tok, ref = encodings[name], tiktoken.get_encoding(name)
    names = samples.names()
    board = model.leaderboard([name], names, lambda i, s: model.sample_counts(tok, samples.SAMPLES[s]))
    rows = board.set_index("sample")
    for s in names:
        assert rows.loc[s, "tokens"] == len(ref.encode(samples.SAMPLES[s], disallowed_special=()))
    total = rows.loc[model.ALL_SAMPLES]
    assert total["tokens"] == sum(rows.loc[s, "tokens"] for s in names)
    assert total["bytes/token"] == round(total["bytes"] / total["tokens"], 3)


def test_leaderboard_table_names_every_best():
    board = model.leaderboard(
        ["A", "B", "C"], ["s", "t"], lambda i, s: {"tokens": [4, 2, 2][i] if s == "s" else 3, "chars": 6, "bytes": 6}
    )
    table = model.leaderboard_table(board, "tokens", ["s", "t"])
    assert list(table.index) == ["s", "t", model.ALL_SAMPLES]
    assert table["best"].tolist() == ["B = C", "A = B = C", "B = C"]
    higher = model.leaderboard_table(board, "bytes/token", ["s", "t"])
    assert higher.loc["s", "best"] == "B = C"


def test_default_choice_and_labels():
    assert model.default_keys(None) == list(model.OFFICIAL_DEFAULT)
    labels = model.unique_labels(["user:a", "user:b", "user:c"], {"user:a": "x", "user:b": "x", "user:c": "x"})
    assert list(labels.values()) == ["x", "x (2)", "x (3)"]
    assert model.best_of(pd.Series({"A": 1.0}), lower=True) == "A"
