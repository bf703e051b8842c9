"""ui/render/charts.py: every chart is a Vega-Lite spec the browser can take as it is."""

from __future__ import annotations

import json

import pandas as pd
import pyarrow as pa
import pytest

from tokenizer import train
from ui.compare import coverage, token_tax
from ui.compare import model as compare
from ui.overlap import model as overlap
from ui.render import charts
from ui.step import model as step
from ui.tokenize import pieces
from ui.train import heldout
from ui.train import model as training
from ui.vocabulary import model as vocabulary

TOK = train("low lower newest widest " * 10, 290, pattern="gpt2")


def specs() -> dict[str, dict]:
    stats = pd.DataFrame(
        [{"tokenizer": "A", "tokens": 3, "chars/token": 2.0, "bytes/token": 2.0, "unique tokens": 3, "whole words %": 50.0}]
    )
    board = compare.leaderboard(["A", "B"], ["s"], lambda i, s: {"tokens": 2 + i, "chars": 4, "bytes": 6})
    frame = training.compression_frame(TOK.training, TOK.num_merges)
    vocabs = [overlap.vocab_of(TOK, "A"), overlap.vocab_of(TOK.truncated(10), "B"), overlap.Vocab("C", {b"x": 0})]
    ov = overlap.overlap(vocabs)
    split = overlap.split_under(vocabs[0], TOK.truncated(10), "B")
    return {
        "stats": charts.compare_stats(stats),
        "leaderboard": charts.compare_leaderboard(board[board["sample"] != compare.ALL_SAMPLES], "bytes/token"),
        "counts": charts.merge_counts(training.counts_frame(TOK)),
        "compression": charts.compression(frame, vocab_size=300),
        "cursor": charts.at_cursor(charts.compression(frame, cursor=True), frame, 5),
        "length": charts.at_cursor(charts.sequence_length(frame), frame, 5),
        "pairs": charts.top_pairs(step.top_pairs_frame(TOK, TOK.training, 3)),
        "lengths": charts.length_histogram(vocabulary.length_counts(vocabulary.vocab_frame(TOK))),
        "tax": charts.token_tax(
            token_tax.tax_frame(
                {"English": "Hi.", "Greek": "Γεια."}, ["A", "B"], lambda i, lang: 2 + i + len(lang), reference="English"
            ),
            ["English", "Greek"],
            "English",
        ),
        "heldout": charts.vocab_vs_compression(heldout.curve(TOK, "lower newest low"), {"GPT-2": 3.1, "GPT-4o": 3.4}),
        "heldout-alone": charts.vocab_vs_compression(heldout.curve(TOK, "lower newest low"), {}),
        "pieces-of-n": charts.piece_sizes(pieces.table(pieces.cut(TOK.spans(TOK.encode("lower newest low " * 5)), 4)), 4),
        "vocabulary-used": charts.vocabulary_used(
            coverage.usage_frame([("A", {"x": [1, 2]}, 300), ("B (yours, 300 tokens)", {"x": [5]}, 50_000)])
        ),
        "overlap": charts.overlap_summary(overlap.summary_long(overlap.summary(ov))),
        "overlap-two": charts.overlap_summary(overlap.summary_long(overlap.summary(overlap.overlap(vocabs[:2])))),
        "jaccard": charts.jaccard_heatmap(overlap.pairs(ov)),
        "pieces": charts.split_histogram(overlap.histogram([split, overlap.split_under(vocabs[1], TOK, "A")])),
        **variant_specs(),
    }


def variant_specs() -> dict[str, dict]:
    """The training variants' charts on the Train and Step pages."""
    from tokenizer.bpe.parity import train_parity
    from tokenizer.bpe.superwords import train_superwords
    from ui.train import variants

    fair = train_parity({"English": "the cat sat", "German": "die Katze saß"}, 280, baseline=True)
    sup = train_superwords("of the cat and of the dog " * 5, 290, "gpt2", transition=275, baseline=True)
    frame = variants.parity_frame(fair)
    return {
        "parity-tax": charts.token_tax(frame, ["English", "German"], "English"),
        "superwords": charts.compression_compare(
            variants.superword_curves(sup, sup.training.baseline, sup.training, sup.training.baseline.training), transition=275
        ),
        "languages": charts.language_tokens(step.language_frame(fair.training, 3)),
    }


def as_json(spec):
    """The spec with its DataFrames as records: what the browser gets (Streamlit sends the DataFrames as Arrow)."""
    if isinstance(spec, pd.DataFrame):
        return json.loads(spec.to_json(orient="records"))
    if isinstance(spec, pa.Table):
        return spec.to_pylist()
    if isinstance(spec, dict):
        return {k: as_json(v) for k, v in spec.items()}
    if isinstance(spec, list):
        return [as_json(v) for v in spec]
    return spec


def test_every_chart_is_a_valid_vega_lite_spec():
    """Written as dicts for speed, checked here against Vega-Lite's own JSON schema (the one Altair validates with)."""
    import jsonschema
    from altair.vegalite.v6.schema import load_schema

    validator = jsonschema.Draft7Validator(load_schema())
    every = specs()
    for name, spec in [*every.items(), *((f"{n} (presented)", charts.presented(s)) for n, s in every.items())]:
        assert isinstance(spec, dict), name
        doc = as_json(spec)
        json.dumps(doc)
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
        assert not errors, (name, [e.message[:200] for e in errors[:3]])
        assert "mark" in spec or "layer" in spec or "facet" in spec, name


def font_sizes(node) -> list[tuple[str, float]]:
    """Every text size a spec sets: axis, legend and header labels and titles, and the chart titles' own."""
    out = []
    if isinstance(node, dict):
        out += [(k, v) for k, v in node.items() if k in ("labelFontSize", "titleFontSize")]
        title = node.get("title")
        if isinstance(title, dict) and "fontSize" in title:
            out.append(("title", title["fontSize"]))
        for v in node.values():
            out += font_sizes(v)
    elif isinstance(node, list):
        for v in node:
            out += font_sizes(v)
    return out


@pytest.mark.parametrize("size", [charts.PRESENT_FONT, 30])
def test_in_presenter_mode_no_chart_text_is_smaller_than_the_body_text(size):
    for name, spec in specs().items():
        before = json.dumps(as_json(spec), sort_keys=True)
        out = charts.presented(spec, size)
        assert json.dumps(as_json(spec), sort_keys=True) == before, name  # the page's own spec is left as it was
        sizes = font_sizes(out)
        assert sizes, name
        assert all(v >= size for _, v in sizes), (name, [kv for kv in sizes if kv[1] < size])
        for part in ("axis", "legend", "header"):
            assert out["config"][part]["labelFontSize"] >= size and out["config"][part]["titleFontSize"] >= size
        assert out["config"]["title"]["fontSize"] >= size
        assert as_json(out).keys() == as_json(spec).keys() | {"config", "padding"}


def fields(node) -> set[str]:
    out = set()
    if isinstance(node, dict):
        if isinstance(node.get("field"), str):
            out.add(node["field"])
        for v in node.values():
            out |= fields(v)
    elif isinstance(node, list):
        for v in node:
            out |= fields(v)
    return out


def test_only_the_top_level_data_is_a_dataframe():
    """st.vega_lite_chart turns the top-level data.values into Arrow (a DataFrame, records, or an Arrow table already);
    anything deeper must be JSON already."""
    for name, spec in specs().items():
        inner = {k: v for k, v in spec.items() if k != "data"}
        try:
            json.dumps(inner)
        except TypeError as e:
            raise AssertionError(f"chart {name!r}: {e}") from None


def test_every_encoded_field_is_in_the_data():
    for name, spec in specs().items():
        values = spec["data"]["values"]
        columns = set(
            values.column_names if isinstance(values, pa.Table) else values.columns if hasattr(values, "columns") else values[0]
        )
        inner = [
            spec.get("encoding", {}),
            *[layer.get("encoding", {}) for layer in spec.get("layer", []) if "data" not in layer],
            *[layer.get("encoding", {}) for layer in spec.get("spec", {}).get("layer", [])],
        ]
        assert fields(inner) <= columns, (name, fields(inner) - columns)


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


@pytest.mark.parametrize("vocab", [257, 300, 376, 377, 1000])
def test_the_merge_count_chart_of_any_run_has_something_to_draw(vocab):
    """At vocab 300 the chart must not be empty (bars on a log scale have no base). Bars stand on a linear scale
    from zero; a log scale only carries a line, and only over counts that span more than a decade or so."""
    from tokenizer import train as train_

    tok = train_("the cat in the hat sat on the mat; the rat ate the fat cat. " * 200, vocab, pattern=None)
    spec = charts.merge_counts(training.counts_frame(tok))
    counts = spec["data"]["values"]["count"]
    assert len(counts) == tok.num_merges and counts.min() > 0
    log = spec["encoding"]["y"]["scale"].get("type") == "log"
    if spec["mark"]["type"] == "bar":
        assert not log and spec["encoding"]["y"]["scale"]["zero"] is True
    assert not log or counts.max() >= charts.LOG_SPAN * counts.min()
