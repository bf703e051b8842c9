"""The Pre-tokenize page in AppTest: defaults, seeds, a custom regex, bad regexes, empty states."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from drawn import drawn
from streamlit.testing.v1 import AppTest

from ui.render.markdown import md

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "pretokenize.py")


def run() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.run()
    assert not at.exception
    return at


def rows_html(at) -> str:
    [h] = [h for h in drawn(at) if 'class="bpe-row"' in h]
    return h


def row_counts(at) -> dict[str, int]:
    return {
        label: int(n.replace(",", ""))
        for label, n in re.findall(r"<b>([^<]+)</b><span class=\"n\">([\d,]+) chunks?</span>", rows_html(at))
    }


def test_default_shows_five_rows_rules_diff_and_probes():
    at = run()
    assert list(row_counts(at)) == [
        "GPT-2 (r50k_base)", "GPT-4 (cl100k_base)", "GPT-4o (o200k_base)", "Qwen 2.5 (Qwen 1, 2)", "No split"
    ]  # fmt: skip
    assert row_counts(at)["No split"] == 1
    assert 'class="cut"' in rows_html(at) and 'class="t dim"' in rows_html(at)
    assert [s.value for s in at.subheader] == ["The rules", "Where they cut differently", "Probes"]
    rules = " ".join(m.value for m in at.markdown)
    assert "digits in groups of at most three" in rules and "I'M is I | 'M" in rules and "every digit is a chunk" in rules
    assert len(at.table) == 2  # differing stretches, probes: static tables whose headers wrap (a column per pattern)


def test_a_seed_example_replaces_the_text_and_not_the_shared_one():
    at = run()
    shared = at.session_state["shared.text"]
    at.selectbox(key="pretok.sample").set_value(" 677").run()
    assert at.text_area(key="pretok.text").value == " 677"
    assert row_counts(at)["GPT-2 (r50k_base)"] == 1 and row_counts(at)["GPT-4 (cl100k_base)"] == 2
    assert at.session_state["shared.text"] == shared
    at.button(key="pretok.shared").click().run()
    assert at.text_area(key="pretok.text").value == shared


@pytest.mark.slow
def test_a_custom_regex_adds_a_row_and_a_bad_one_an_error_not_a_traceback():
    at = run()
    at.text_input(key="pretok.custom").set_value(r"\w+|\W").run()
    assert "Your regex" in row_counts(at)
    at.text_input(key="pretok.custom").set_value("(unclosed").run()
    assert not at.exception
    assert any("not a valid regex" in e.value for e in at.error)
    assert "GPT-2 (r50k_base)" in row_counts(at)  # the others still shown
    at.text_input(key="pretok.custom").set_value(r"(a|aa)+$").run()
    at.text_area(key="pretok.text").set_value("a" * 40 + "!").run()
    assert any("took longer than" in e.value for e in at.error)


def test_empty_states():
    at = run()
    at.text_area(key="pretok.text").set_value("").run()
    assert any("Nothing to split yet" in i.value for i in at.info)
    at.pills(key="pretok.patterns").set_value([]).run()
    assert any("Choose one or more split patterns" in i.value for i in at.info)


def test_user_text_is_escaped():
    at = run()
    at.text_area(key="pretok.text").set_value("<script>alert(1)</script>").run()
    html = rows_html(at)
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_every_registered_pattern_has_a_row_and_a_rule_even_without_the_model_files(tmp_path, monkeypatch):
    """The patterns are the registry's data: the open models' rows need none of their files."""
    from tokenizer import registry

    monkeypatch.setenv("BPE_LAB_DATA_DIR", str(tmp_path))  # no open model's file there
    at = run()
    keys = at.pills(key="pretok.patterns").options
    at.pills(key="pretok.patterns").set_value(list(keys)).run()
    at.selectbox(key="pretok.sample").set_value(" 677").run()
    assert not at.exception and not at.error
    counts = row_counts(at)
    # a tokenizer.json splits in stages; a SentencePiece-style model (no pattern) is a user of "no split"
    patterns = {s.pattern for s in registry.specs() if not s.staged and s.pattern is not None}
    assert len(counts) == len(patterns) + 1  # one row per distinct pattern, and no split
    assert counts["Llama 3 (3.1, 3.2, 3.3)"] == 2 and counts["Mistral Tekken (NeMo, Pixtral)"] == 4  # ' ' | 677, ' ' | 6 | 7 | 7
    rules = " ".join(m.value for m in at.markdown)
    assert md("(used by GPT-4o (o200k_base), gpt-oss (o200k_harmony), Llama 4)") in rules  # names shown as typed
    assert "marks stay with their letters" in rules and "This encoding's own regex" not in rules


def test_the_text_typed_on_another_page_follows_to_this_one():
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.session_state["shared.text"] = "typed on Tokenize: 1234567 I'M"
    at.run()
    assert at.text_area(key="pretok.text").value == "typed on Tokenize: 1234567 I'M"
    assert row_counts(at)["GPT-4 (cl100k_base)"] > 1
    at.selectbox(key="pretok.sample").set_value(" 677").run()  # an example of this page's stays here
    assert at.session_state["shared.text"] == "typed on Tokenize: 1234567 I'M"
    at.run()  # coming back with nothing new typed elsewhere keeps the example
    assert at.text_area(key="pretok.text").value == " 677"
    at.session_state["shared.text"] = "typed on Compare"
    at.run()
    assert at.text_area(key="pretok.text").value == "typed on Compare"
    at.text_area(key="pretok.text").input("typed here").run()
    assert at.session_state["shared.text"] == "typed here"  # and back to the other pages
    assert not at.exception


def test_a_first_visit_before_anything_was_typed_shows_the_patterns_example():
    at = run()
    from ui.pretokenize import model

    assert at.text_area(key="pretok.text").value == model.DEFAULT_TEXT
