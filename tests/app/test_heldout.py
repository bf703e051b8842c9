"""Train's vocabulary-size-vs-compression section in AppTest: default held-out text, reference lines, overlap warning."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from classroom.stores import FolderStore
from tokenizer import train
from ui.content import corpora

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "train.py")


def run_with(workspace, corpus_key: str) -> AppTest:
    text = corpora.text(corpus_key)
    FolderStore(workspace).add(train(text, 512, pattern="gpt4", name="mine"), corpus=text)
    at = AppTest.from_file(PAGE, default_timeout=180)
    at.run()
    assert not at.exception
    return at


def bullets(at) -> str:
    return " ".join(m.value for m in at.markdown if m.value.startswith("- "))


def test_held_out_text_is_not_the_training_text_and_the_references_are_named(workspace):
    at = run_with(workspace, "stdlib-docstrings")
    assert "Vocabulary size vs compression" in [s.value for s in at.subheader]
    assert at.segmented_control(key="heldout.source").value == "stdlib-source"  # the docstrings were the training text
    text = bullets(at)
    for label in ("GPT-2 (r50k_base)", "GPT-4 (cl100k_base)", "GPT-4o (o200k_base)"):
        assert label in text
    assert "not reached" in text  # 256 merges never compress Python source like GPT-4
    assert not at.warning


def test_the_training_text_as_held_out_text_is_flagged(workspace):
    at = run_with(workspace, "about-bpe")
    at.segmented_control(key="heldout.source").set_value("about-bpe").run()
    assert any("part of the tokenizer's training text" in w.value for w in at.warning)


def test_an_empty_pasted_text_is_an_empty_state(workspace):
    at = run_with(workspace, "about-bpe")
    at.segmented_control(key="heldout.source").set_value("paste").run()
    assert any("held-out text is empty" in i.value for i in at.info)
    at.text_area(key="heldout.paste").set_value("The weather is nice today. " * 20).run()
    assert not at.exception and "GPT-2 (r50k_base)" in bullets(at)
