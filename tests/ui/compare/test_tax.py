"""ui/compare/tax.py and languages.py: the token tax by language."""

from __future__ import annotations

import unicodedata

import pytest
import tiktoken

from ui.compare import languages, tax


def test_at_least_fifteen_languages_across_the_scripts_the_issue_names():
    assert len(languages.PASSAGES) >= 15
    assert list(languages.PASSAGES)[0] == languages.REFERENCE == "English"
    needed = {"Latin", "Cyrillic", "Greek", "Arabic", "Hebrew", "Devanagari", "Bengali", "Tamil", "Thai", "Han", "Hangul"}
    assert needed <= set(languages.scripts().values())
    assert "Japanese" in languages.PASSAGES


# the Unicode names of each script's letters start with these words
SCRIPT_NAMES = {
    "Cyrillic": ("CYRILLIC",),
    "Greek": ("GREEK",),
    "Armenian": ("ARMENIAN",),
    "Georgian": ("GEORGIAN",),
    "Arabic": ("ARABIC",),
    "Hebrew": ("HEBREW",),
    "Ge'ez": ("ETHIOPIC",),
    "Devanagari": ("DEVANAGARI",),
    "Bengali": ("BENGALI",),
    "Tamil": ("TAMIL",),
    "Thai": ("THAI",),
    "Han": ("CJK",),
    "Hangul": ("HANGUL",),
    "Kanji and kana": ("CJK", "HIRAGANA", "KATAKANA"),
    "Latin": ("LATIN",),
}


@pytest.mark.parametrize("language", list(languages.PASSAGES))
def test_each_passage_is_written_in_its_script(language):
    script, text = languages.PASSAGES[language]
    letters = [c for c in text if unicodedata.category(c).startswith("L")]
    assert len(letters) >= 20
    assert all(unicodedata.name(c, "").startswith(SCRIPT_NAMES[script]) for c in letters), language
    assert text == unicodedata.normalize("NFC", text)
    if script != "Thai":  # Thai ends a sentence with a space, not a mark
        assert sum(text.count(p) for p in ".。։።।") == 3  # three sentences


def test_parse_accepts_colons_tabs_json_and_names_bad_lines():
    assert tax.parse_parallel("English: Hi: there\nGerman\tHallo") == {"English": "Hi: there", "German": "Hallo"}
    with pytest.raises(ValueError, match="Line 2 has no language name"):
        tax.parse_parallel("English: Hi\nno separator here")
    with pytest.raises(ValueError, match="appears twice"):
        tax.parse_parallel("English: a\nEnglish: b")
    with pytest.raises(ValueError, match="no passage"):
        tax.parse_parallel("English:   ")
    with pytest.raises(ValueError, match="JSON is not valid"):
        tax.parse_parallel('{"English": ')
    with pytest.raises(ValueError, match="one object"):
        tax.parse_parallel('{"English": 3}')
    with pytest.raises(ValueError, match="longer than"):
        tax.parse_parallel("English: " + "a" * (tax.MAX_PASSAGE_CHARS + 1))
    assert tax.parse_parallel("  \n") == {}


def test_premiums_match_tiktoken_counts():
    """The frame's counts and premiums, recomputed with tiktoken for the three official encodings."""
    passages = languages.texts()
    names = ["r50k_base", "cl100k_base", "o200k_base"]
    encs = [tiktoken.get_encoding(n) for n in names]
    frame = tax.tax_frame(passages, names, lambda i, lang: len(encs[i].encode_ordinary(passages[lang])), reference="English")
    assert len(frame) == len(names) * len(passages)
    for row in frame.itertuples():
        enc = encs[names.index(row.tokenizer)]
        assert row.tokens == len(enc.encode_ordinary(passages[row.language]))
        assert row.premium == round(row.tokens / len(enc.encode_ordinary(passages["English"])), 3)
    ref = frame[frame["language"] == "English"]
    assert (ref["premium"] == 1.0).all()
    # the known direction of the tax: GPT-2 charges Tamil far more than o200k does
    tamil = frame[frame["language"] == "Tamil"].set_index("tokenizer")["premium"]
    assert tamil["r50k_base"] > 3 * tamil["o200k_base"]


def test_an_unknown_reference_is_an_error_that_lists_the_choices():
    with pytest.raises(ValueError, match="pick one of English, German"):
        tax.tax_frame({"English": "a", "German": "b"}, ["A"], lambda i, lang: 1, reference="Klingon")


def test_table_has_a_tokens_column_per_tokenizer():
    passages = {"English": "Hello.", "Greek": "Γεια σου."}
    frame = tax.tax_frame(passages, ["A", "B"], lambda i, lang: (i + 1) * len(passages[lang]), reference="Greek")
    table = tax.tokens_table(frame)
    assert list(table.columns) == ["language", "script", "bytes", "A", "B"]
    assert table.set_index("language").loc["Greek", "B"] == 2 * len("Γεια σου.")
