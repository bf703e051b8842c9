"""Compare's token tax in AppTest: our passages by default, a user's parallel texts, bad input."""

from __future__ import annotations

from pathlib import Path

import pytest
import tiktoken
from streamlit.testing.v1 import AppTest

from classroom.stores import FolderStore
from tokenizer import registry, train
from ui.compare import languages

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "compare.py")


def run() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.run()
    assert not at.exception
    return at


def tax_table(at):
    """The tokens table: a static table (its headers wrap, so it fits the page), one column of tokens per tokenizer."""
    [df] = [t.value for t in at.table if "language" in t.value.columns and "bytes" in t.value.columns]
    return df


def premiums(df, reference: str):
    """Each tokenizer's tokens per language over the reference language's (what the chart's cells say)."""
    tokens = df.set_index("language").drop(columns=["script", "bytes"])
    return tokens / tokens.loc[reference]


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
    assert list(df.columns) == ["language", "script", "bytes", *labels]
    gpt2 = tiktoken.get_encoding("r50k_base")
    assert df.set_index("language")["GPT-2 (r50k_base)"].to_dict() == {
        lang: len(gpt2.encode(text)) for lang, text in languages.texts().items()
    }
    assert premiums(df, "English").loc["Tamil", "mine (yours, 300 tokens)"] > 5  # a tiny English tokenizer: bytes for Tamil
    assert any("Highest premium here" in c.value for c in at.caption)


def test_relative_to_another_language():
    at = run()
    at.selectbox(key="tax.reference").set_value("Chinese").run()
    df = tax_table(at)
    assert (premiums(df, "Chinese").loc["Chinese"] == 1.0).all()
    assert any("tokens of Chinese" in c.value for c in at.caption)  # the chart and its caption follow the reference


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
    ratio = premiums(df.reset_index(), "English")
    passages = languages.texts()
    for name in open_models:
        label = registry.spec(name).label
        ref = reference_encode(name)
        expected = {lang: len(ref(text)) for lang, text in passages.items()}
        assert df[label].to_dict() == expected
    # the open models' larger vocabularies tax Chinese less than English; GPT-2 charges it double
    assert (ratio.loc["Chinese", [registry.spec(n).label for n in ("llama4", "qwen2.5", "qwen3.6")]] < 1).all()


def usage_table(at):
    [df] = [d.value for d in at.dataframe if "vocabulary used %" in d.value.columns]
    return df


def test_our_program_in_every_programming_language_with_the_references_counts():
    """The code view: each program's tokens and premium over Python, as tiktoken (and llama-models) count them."""
    from model_packages import tiktoken_reference

    from ui.compare import code

    at = run()
    at.segmented_control(key="tax.source").set_value("code").run()
    assert not at.exception and not at.error
    assert at.selectbox(key="tax.reference").value == "Python"
    table = tax_table(at)
    df = table.set_index("language")
    assert list(df.index) == list(code.PROGRAMS) and len(df) >= 10
    assert df["file"].to_dict() == code.files()
    ratio = premiums(table.rename(columns={"file": "script"}), "Python")
    programs = code.texts()
    for name in ("r50k_base", "o200k_base", "llama3"):
        label = registry.spec(name).label
        enc = tiktoken_reference(name)
        counts = {lang: len(enc.encode_ordinary(text)) for lang, text in programs.items()}
        assert df[label].to_dict() == counts
        for lang in programs:
            assert ratio.loc[lang, label] == pytest.approx(counts[lang] / counts["Python"])
    assert any("programming languages" in m.value for m in at.markdown)
    assert any("Highest premium here" in c.value and "the tokens of Python" in c.value for c in at.caption)


def test_vocabulary_used_is_distinct_tokens_over_the_vocabulary_as_tiktoken_counts(workspace):
    from model_packages import tiktoken_reference

    mine = train(languages.texts()["English"] * 20, 300, pattern="gpt4", name="mine")
    FolderStore(workspace).add(mine, corpus="x")
    at = run()
    usage = usage_table(at).set_index("tokenizer")
    passages = languages.texts()
    for name in ("r50k_base", "o200k_base", "llama3"):
        enc = tiktoken_reference(name)
        distinct = set().union(*(enc.encode_ordinary(t) for t in passages.values()))
        row = usage.loc[registry.spec(name).label]
        assert row["vocabulary"] == len(enc.token_byte_values())
        assert row["distinct tokens"] == len(distinct)
        assert row["vocabulary used %"] == round(100 * len(distinct) / len(enc.token_byte_values()), 3)
    small = usage.loc["mine (yours, 300 tokens)"]
    assert small["vocabulary"] == 300 and small["vocabulary used %"] > 50  # a tiny English tokenizer: most of it in use
    [per_text] = [d.value for d in at.dataframe if list(d.value.columns[:1]) == ["language"] and "script" not in d.value.columns]
    assert per_text.set_index("language").loc["Tamil", "GPT-2 (r50k_base)"] == len(
        set(tiktoken_reference("r50k_base").encode_ordinary(passages["Tamil"]))
    )
    assert any("Vocabulary used" in m.value for m in at.markdown)


def test_our_passages_under_official_encodings_are_tabled_once_for_every_session(monkeypatch, workspace):
    from ui.compare import token_tax, token_tax_view

    token_tax_view._for_everyone.clear()
    calls = []
    real = token_tax.tax_frame
    monkeypatch.setattr(token_tax, "tax_frame", lambda *a, **k: calls.append(1) or real(*a, **k))
    first, second = run(), run()  # two sessions (a class opening Compare), official encodings only
    assert len(calls) == 1 and tax_table(first).equals(tax_table(second))
    # a tokenizer of the user's among them: this session's own tables
    FolderStore(workspace).add(train(languages.texts()["English"] * 20, 300, pattern="gpt4", name="mine"), corpus="x")
    mine, again = run(), run()  # two sessions again: each builds its own
    assert len(calls) == 3 and tax_table(mine).equals(tax_table(again)) and "mine (yours, 300 tokens)" in tax_table(mine).columns
