"""ui/train/model.py: the Train page's settings checks, merges table and curves."""

from __future__ import annotations

import pytest

from tokenizer import train
from ui.common import upload
from ui.train import model


def test_vocab_size_checks():
    assert model.check_vocab_size(256) == 256 and model.check_vocab_size(512.0) == 512
    for bad, msg in [
        (255, "at least 256"),
        (model.MAX_VOCAB + 1, "at most|too large"),
        (300.5, "whole number"),
        (None, "Type a vocab size"),
    ]:
        with pytest.raises(ValueError, match=msg):
            model.check_vocab_size(bad)


def test_corpus_checks():
    for empty in ("", "   \n\t"):
        with pytest.raises(ValueError, match="corpus is empty"):
            model.check_corpus(empty)
    with pytest.raises(ValueError, match="at most 10 MB"):
        model.check_corpus("é" * (upload.MAX_UPLOAD_BYTES // 2 + 1))
    model.check_corpus("fine")


def test_pattern_choices():
    assert model.pattern_for("none") is None
    assert model.pattern_for("gpt2") == "gpt2"
    assert model.pattern_for("custom", r"\w+") == r"\w+"
    with pytest.raises(ValueError, match="Type a custom split regex"):
        model.pattern_for("custom", "  ")


@pytest.mark.slow
def test_custom_pattern_validation():
    chunks, err = model.validate_custom(r"\w+|\s+|[^\w\s]+")
    assert err is None and "Hello" in chunks
    assert model.validate_custom("(unclosed")[1].startswith("The split pattern is not a valid regex")
    assert "longer than" in model.validate_custom(r"(a|aa)+$")[1]  # catastrophic: stopped by the core's timeout
    assert model.validate_custom("")[1]


def test_tables_and_curves():
    tok = train("low lower newest widest " * 10, 280, pattern="gpt2")
    df = model.merges_frame(tok)
    assert list(df["step"]) == list(range(1, tok.num_merges + 1))
    assert list(df["id"]) == [m.new_id for m in tok.merge_list]
    comp = model.compression_frame(tok.training, tok.num_merges)
    assert comp["bytes per token"].iloc[0] == 1.0
    assert list(comp["tokens"]) == sorted(comp["tokens"], reverse=True)
    assert comp["tokens"].iloc[-1] == tok.metadata["tokens_after"]
    big = model.compression_frame(tok.training, tok.num_merges, points=5)
    assert len(big) == 5 and big["merges"].iloc[-1] == tok.num_merges
    assert len(model.counts_frame(tok)) == tok.num_merges
    s = model.summary(tok)
    assert s["Merges"] == str(tok.num_merges) and "Bytes per token" in s
