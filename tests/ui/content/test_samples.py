"""ui/content/samples.py: the built-in sample texts cover what Tokenize and Compare are for."""

from __future__ import annotations

from ui.content import samples


def test_samples_cover_what_the_issue_asks_for():
    text = "".join(samples.SAMPLES.values())
    assert len(samples.SAMPLES) >= 7
    assert "def " in samples.SAMPLES["Python code"]
    assert any("\u4e00" <= c <= "\u9fff" for c in text)  # CJK
    assert any("\u0400" <= c <= "\u04ff" for c in text)  # Cyrillic
    assert any("\u0900" <= c <= "\u097f" for c in text)  # Devanagari
    assert any(ord(c) >= 0x1F300 for c in text)  # emoji
    assert "\t" in samples.SAMPLES["Whitespace-heavy"] and "    " in samples.SAMPLES["Whitespace-heavy"]
