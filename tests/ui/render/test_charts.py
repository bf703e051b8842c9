"""ui/render/charts.py: every chart is a Vega-Lite spec the browser can take as it is."""

from __future__ import annotations

import json

import pandas as pd

from tokenizer import train
from ui.compare import model as compare
from ui.render import charts
from ui.step import model as step
from ui.train import model as training
from ui.vocabulary import model as vocabulary

TOK = train("low lower newest widest " * 10, 290, pattern="gpt2")


def specs() -> dict[str, dict]:
    stats = pd.DataFrame([{"tokenizer": "A", "tokens": 3, "chars/token": 2.0, "bytes/token": 2.0, "unique tokens": 3, "whole words %": 50.0}])
    board = compare.leaderboard(["A", "B"], ["s"], lambda i, s: {"tokens": 2 + i, "chars": 4, "bytes": 6})
    frame = training.compression_frame(TOK.training, TOK.num_merges)
    return {
        "stats": charts.compare_stats(stats),
        "leaderboard": charts.compare_leaderboard(board[board["sample"] != compare.ALL_SAMPLES], "bytes/token"),
        "counts": charts.merge_counts(training.counts_frame(TOK)),
        "compression": charts.compression(frame, vocab_size=300),
        "cursor": charts.at_cursor(charts.compression(frame, cursor=True), frame, 5),
        "length": charts.at_cursor(charts.sequence_length(frame), frame, 5),
        "pairs": charts.top_pairs(step.top_pairs_frame(TOK, TOK.training, 3)),
        "lengths": charts.length_histogram(vocabulary.length_counts(vocabulary.vocab_frame(TOK))),
    }


def test_every_chart_is_a_plain_json_spec():
    for name, spec in specs().items():
        assert isinstance(spec, dict), name
        json.dumps(spec)  # what st.vega_lite_chart sends
        assert "mark" in spec or "layer" in spec or "facet" in spec or "spec" in spec, name


def test_the_cursor_moves_without_rebuilding_the_chart():
    frame = training.compression_frame(TOK.training, TOK.num_merges)
    spec = charts.sequence_length(frame)
    moved = charts.at_cursor(spec, frame, TOK.num_merges)
    assert moved["params"] == [{"name": "cursor", "value": TOK.num_merges}, {"name": "cursor_row", "value": TOK.num_merges}]
    assert {k: v for k, v in moved.items() if k != "params"} == {k: v for k, v in spec.items() if k != "params"}


def test_the_next_pair_is_orange():
    spec = charts.top_pairs(step.top_pairs_frame(TOK, TOK.training, 0))
    assert spec["data"]["values"][0]["next"] is True
    assert spec["encoding"]["color"]["condition"]["value"] == charts.NEXT
