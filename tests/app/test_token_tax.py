"""Compare's token tax in AppTest: our passages by default, a user's parallel texts, bad input."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from classroom.stores import FolderStore
from tokenizer import train
from ui.compare import languages

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "compare.py")


def run() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.run()
    assert not at.exception
    return at


def tax_table(at):
    [df] = [d.value for d in at.dataframe if "language" in d.value.columns and "bytes" in d.value.columns]
    return df


def test_default_every_language_under_every_chosen_tokenizer(workspace):
    mine = train(languages.texts()["English"] * 20, 300, pattern="gpt4", name="mine")
    FolderStore(workspace).add(mine, corpus="x")
    at = run()
    assert "Token tax by language" in [s.value for s in at.subheader]
    df = tax_table(at)
    assert df["language"].tolist() == list(languages.PASSAGES)
    labels = [
        "mine (yours, 300 tokens)",
        "GPT-2 (r50k_base)",
        "GPT-4o (o200k_base)",
        "Llama 3 (3.1, 3.2, 3.3)",
    ]  # Compare's default set
    assert [c for c in df.columns if c.endswith(" ×")] == [f"{label} ×" for label in labels]
    assert (df.set_index("language").loc["English", [f"{label} ×" for label in labels]] == 1.0).all()
    assert df.set_index("language").loc["Tamil", "mine (yours, 300 tokens) ×"] > 5  # a tiny English tokenizer: bytes for Tamil
    assert any("Highest premium here" in c.value for c in at.caption)


def test_relative_to_another_language():
    at = run()
    at.selectbox(key="tax.reference").set_value("Chinese").run()
    df = tax_table(at).set_index("language")
    assert (df.loc["Chinese", [c for c in df.columns if c.endswith(" ×")]] == 1.0).all()


def test_own_parallel_texts_pasted(workspace):
    at = run()
    at.segmented_control(key="tax.source").set_value("yours").run()
    assert any("at least two languages" in i.value for i in at.info)
    at.text_area(key="tax.paste").set_value("German: Guten Morgen.\nEnglish: Good morning.\nRussian: Доброе утро.").run()
    assert not at.exception
    df = tax_table(at)
    assert df["language"].tolist() == ["German", "English", "Russian"]
    assert at.selectbox(key="tax.reference").value == "English"
    at.text_area(key="tax.paste").set_value("English: fine\nthis line has no name").run()
    assert any("Line 2 has no language name" in e.value for e in at.error)
    assert not at.exception


@pytest.mark.slow
def test_the_open_models_counts_are_their_own_packages():
    """Every open model in the token tax, its counts checked against the tokenizer its own package builds."""
    from model_packages import reference_encode

    from tokenizer import registry

    open_models = [s.name for s in registry.specs() if s.family != "OpenAI"]
    at = run()
    at.multiselect(key="compare.tokenizers").set_value(open_models).run()
    assert not at.exception and not at.error
    df = tax_table(at).set_index("language")
    passages = languages.texts()
    for name in open_models:
        label = registry.spec(name).label
        ref = reference_encode(name)
        expected = {lang: len(ref(text)) for lang, text in passages.items()}
        assert df[f"{label} tokens"].to_dict() == expected
        assert df.loc["English", f"{label} ×"] == 1.0
    # the open models' larger vocabularies tax Chinese less than English; GPT-2 charges it double
    assert (df.loc["Chinese", [f"{registry.spec(n).label} ×" for n in ("llama4", "qwen2.5", "qwen3.6")]] < 1).all()
