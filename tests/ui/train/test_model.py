"""ui/training.py, ui/upload.py, ui/corpora.py and ui/memo.py: the Train page's plain-Python parts."""

from __future__ import annotations

import doctest
import gc

import pytest

from ui.common import corpora
from ui.common import cache as memo
from ui.train import model as training
from ui.common import upload
from tokenizer import train


@pytest.mark.parametrize("module", [training, upload, corpora, memo])
def test_doctests(module):
    assert doctest.testmod(module).failed == 0


def test_vocab_size_checks():
    assert training.check_vocab_size(256) == 256 and training.check_vocab_size(512.0) == 512
    for bad, msg in [(255, "at least 256"), (training.MAX_VOCAB + 1, "at most|too large"), (300.5, "whole number"), (None, "Type a vocab size")]:
        with pytest.raises(ValueError, match=msg):
            training.check_vocab_size(bad)


def test_corpus_checks():
    for empty in ("", "   \n\t"):
        with pytest.raises(ValueError, match="corpus is empty"):
            training.check_corpus(empty)
    with pytest.raises(ValueError, match="at most 10 MB"):
        training.check_corpus("é" * (upload.MAX_UPLOAD_BYTES // 2 + 1))
    training.check_corpus("fine")


def test_pattern_choices():
    assert training.pattern_for("none") is None
    assert training.pattern_for("gpt2") == "gpt2"
    assert training.pattern_for("custom", r"\w+") == r"\w+"
    with pytest.raises(ValueError, match="Type a custom split regex"):
        training.pattern_for("custom", "  ")


def test_custom_pattern_validation():
    chunks, err = training.validate_custom(r"\w+|\s+|[^\w\s]+")
    assert err is None and "Hello" in chunks
    assert training.validate_custom("(unclosed")[1].startswith("The split pattern is not a valid regex")
    assert "longer than" in training.validate_custom(r"(a|aa)+$")[1]  # catastrophic: stopped by the core's timeout
    assert training.validate_custom("")[1]


def test_tables_and_curves():
    tok = train("low lower newest widest " * 10, 280, pattern="gpt2")
    df = training.merges_frame(tok)
    assert list(df["step"]) == list(range(1, tok.num_merges + 1))
    assert list(df["id"]) == [m.new_id for m in tok.merge_list]
    comp = training.compression_frame(tok.training, tok.num_merges)
    assert comp["bytes per token"].iloc[0] == 1.0
    assert list(comp["tokens"]) == sorted(comp["tokens"], reverse=True)
    assert comp["tokens"].iloc[-1] == tok.metadata["tokens_after"]
    big = training.compression_frame(tok.training, tok.num_merges, points=5)
    assert len(big) == 5 and big["merges"].iloc[-1] == tok.num_merges
    assert len(training.counts_frame(tok)) == tok.num_merges
    s = training.summary(tok)
    assert s["Merges"] == str(tok.num_merges) and "Bytes per token" in s


def test_upload_decoding():
    assert upload.decode_corpus("\ufeffhello".encode("utf-8")).text == "hello"  # BOM dropped
    latin = "café crème".encode("latin-1")
    d = upload.decode_corpus(latin, "menu.txt")
    assert d.text is None and d.can_replace and "menu.txt is not UTF-8" in d.problem
    r = upload.decode_corpus(latin, "menu.txt", replace=True)
    assert r.text == "caf� cr�me" and r.replaced == 2
    b = upload.decode_corpus(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "cat.png")
    assert b.text is None and not b.can_replace and "binary" in b.problem
    assert "empty" in upload.decode_corpus(b"", "x.txt").problem
    assert "limited to 10 MB" in upload.decode_corpus(b"a" * (upload.MAX_UPLOAD_BYTES + 1), "big.txt").problem


def test_corpora():
    assert corpora.text("aaabdaaabac") == "aaabdaaabac"
    assert {corpora.text(k) for k in ("honolulu", "cat-in-hat", "hello-nihao", "emoji-line")} == {
        "Honolulu", "the cat in the hat", "Hello 你好", "Hello tokenizer 😄🤪🧐!",
    }
    for key, c in corpora.CORPORA.items():
        assert corpora.text(key), key
        assert 256 <= c.vocab_size <= training.MAX_VOCAB
    docs = corpora.text("stdlib-docstrings")
    src = corpora.text("stdlib-source")
    assert 200_000 <= len(docs) <= corpora.STDLIB_DOCSTRING_CHARS and "def " not in docs[:2000]
    assert 200_000 <= len(src) <= corpora.STDLIB_SOURCE_CHARS and "def " in src
    assert corpora.stdlib_text("docstrings") == docs  # same text every time


def test_missing_stdlib_sources_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="no standard-library sources"):
        corpora.stdlib_text("source", None, str(tmp_path))


def test_memo_is_per_object_and_bounded():
    class Owner:
        pass

    a, b = Owner(), Owner()
    assert memo.memo(a, "x", 1, lambda: "a1") == "a1"
    assert memo.memo(b, "x", 1, lambda: "b1") == "b1"
    assert memo.memo(a, "x", 1, lambda: "other") == "a1"
    for i in range(5):
        memo.memo(a, "y", i, lambda i=i: i, maxsize=2)
    assert memo.memo(a, "y", 0, lambda: "recomputed", maxsize=2) == "recomputed"
    before = len(memo._cache)
    del b
    gc.collect()
    assert len(memo._cache) == before - 1
