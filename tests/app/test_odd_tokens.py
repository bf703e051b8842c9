"""Vocabulary's unreachable and odd tokens in AppTest: counts, the two tables, a click into the merge tree."""

from __future__ import annotations

from pathlib import Path

import pytest
from drawn import drawn
from streamlit.testing.v1 import AppTest

from classroom.stores import FolderStore
from tokenizer import Tokenizer, train

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "vocabulary.py")
CORPUS = "hello world hello world hello world"


def run_with(workspace, tok) -> AppTest:
    key = "user:" + FolderStore(workspace).add(tok, corpus=CORPUS)
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.session_state["shared.tokenizer"] = key
    at.run()
    assert not at.exception
    assert at.selectbox(key="vocab.tokenizer").value == key
    return at


def odd_table(at):
    [df] = [
        d.value for d in at.dataframe if "why" in d.value.columns or list(d.value.columns) == ["id", "token", "bytes", "rank"]
    ]
    return df


def metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def test_unreachable_tokens_of_a_tokenizer_of_yours(workspace):
    merges = train(CORPUS, 270, pattern=None).merge_list
    at = run_with(workspace, Tokenizer(merges, pattern="gpt2", name="spaces inside"))
    assert "Unreachable and odd tokens" in [s.value for s in at.subheader]
    assert metric(at, "Tokens checked") == "269"  # 256 bytes and the 13 merges the corpus allows
    assert metric(at, "Unreachable") == "9"
    assert metric(at, "Not valid UTF-8 alone") == "128"
    df = odd_table(at)
    assert len(df) == 9 and df["why"].str.startswith("split by the pattern").all()
    first = int(df["id"].iloc[0])
    trees = [h for h in drawn(at) if '<div class="bpe-tree">' in h]
    assert any(f"id {first}," in t for t in trees)  # the first row's tree is drawn below the table
    at.segmented_control(key="vocab_odd.kind").set_value("partial").run()
    assert list(odd_table(at).columns) == ["id", "token", "bytes", "rank"] and len(odd_table(at)) == 128


def test_nothing_unreachable_says_so(workspace):
    at = run_with(workspace, train(CORPUS, 270, pattern=None, name="no split"))
    assert metric(at, "Unreachable") == "0"
    assert any("every token of this vocabulary encodes back to itself" in s.value for s in at.success)


@pytest.mark.slow
def test_an_open_model_with_whole_tokens():
    """Llama 3: 588 tokens no merge builds and merges that build on later tokens; all reached from their own text."""
    at = AppTest.from_file(PAGE, default_timeout=180)
    at.session_state["shared.tokenizer"] = "llama3"
    at.run()
    assert not at.exception and not at.error
    assert metric(at, "Tokens checked") == "128,000"
    assert metric(at, "Unreachable") == "0" and metric(at, "Not valid UTF-8 alone") == "1,352"
    assert any("every token of this vocabulary encodes back to itself" in s.value for s in at.success)
    assert any("588 tokens are built by no merge" in c.value for c in at.caption)
