"""ui/compare/token_tax.py and languages.py: the token tax by language."""

from __future__ import annotations

import json
import unicodedata

import pytest
import tiktoken
from hypothesis import example, given
from hypothesis import strategies as st

from ui.compare import languages, token_tax


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
    assert token_tax.parse_parallel("English: Hi: there\nGerman\tHallo") == {"English": "Hi: there", "German": "Hallo"}
    with pytest.raises(ValueError, match="Line 2 has no language name"):
        token_tax.parse_parallel("English: Hi\nno separator here")
    with pytest.raises(ValueError, match="appears twice"):
        token_tax.parse_parallel("English: a\nEnglish: b")
    with pytest.raises(ValueError, match="no passage"):
        token_tax.parse_parallel("English:   ")
    with pytest.raises(ValueError, match="JSON is not valid"):
        token_tax.parse_parallel('{"English": ')
    with pytest.raises(ValueError, match="not a passage"):
        token_tax.parse_parallel('{"English": 3}')
    with pytest.raises(ValueError, match="longer than"):
        token_tax.parse_parallel("English: " + "a" * (token_tax.MAX_PASSAGE_CHARS + 1))
    assert token_tax.parse_parallel("  \n") == {}


# ----------------------------------------------------------------------------- parallel texts, every format

names = st.text(
    st.characters(blacklist_categories=("Cc", "Cs", "Zs", "Zl", "Zp"), blacklist_characters=":#\t\ufeff"), min_size=1, max_size=12
)
passage = (
    st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), min_size=1, max_size=40)
    .filter(str.strip)
    .map(str.strip)
)
fields = {*token_tax.LANGUAGE_FIELDS, *token_tax.PASSAGE_FIELDS}
usable = names.filter(lambda n: n.strip() == n and n[0] not in "{[\"'" and n.lower() not in fields)
parallel = st.dictionaries(usable, passage, min_size=1, max_size=6)


def lines(p, sep=": "):
    return "\n".join(f"{k}{sep}{v}" for k, v in p.items())


FORMATS = {
    "lines": lines,
    "tsv": lambda p: lines(p, "\t"),
    "tsv with a header": lambda p: "language\ttext\n" + lines(p, "\t"),
    "json object": lambda p: json.dumps(p, ensure_ascii=False, indent=1),
    "json list of objects": lambda p: json.dumps([{"language": k, "text": v} for k, v in p.items()]),
    "json list, other field names": lambda p: json.dumps(
        [{"Lang": k, "Passage": v, "id": i} for i, (k, v) in enumerate(p.items())]
    ),
    "json list of pairs": lambda p: json.dumps([[k, v] for k, v in p.items()]),
    "json list of one-entry objects": lambda p: json.dumps([{k: v} for k, v in p.items()]),
}


@pytest.mark.parametrize("fmt", list(FORMATS))
@given(p=parallel, bom=st.booleans())
@example(p={"English": "The weather is nice today.", "Ελληνικά": "Σήμερα ο καιρός είναι ωραίος."}, bom=True)
def test_every_format_is_read_as_meant_with_or_without_a_byte_order_mark(fmt, p, bom):
    text = FORMATS[fmt](p)
    assert token_tax.parse_parallel("\ufeff" * bom + text) == p
    if bom:  # an upload saved with a mark, in UTF-8 or UTF-16
        from tokenizer.formats.json_input import decode_text

        assert token_tax.parse_parallel(decode_text(text.encode("utf-8-sig"))) == p
        assert token_tax.parse_parallel(decode_text(text.encode("utf-16"))) == p


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)


@given(json_values)
@example([{"language": "English", "passage": 3}])
@example([{"language": "English", "text": "Hi"}, "German: Hallo"])
@example("English: Hi")
@example(42)
def test_any_json_is_read_as_meant_or_refused_never_as_lines(value):
    text = json.dumps(value)
    try:
        out = token_tax.parse_parallel(text)
    except ValueError as e:
        assert "JSON" in str(e) or "Item" in str(e) or "entry" in str(e) or "appears twice" in str(e) or "no passage" in str(e)
        return
    # whatever was read came from the JSON's own strings, never from a line cut at a colon
    strings = set()

    def collect(v):
        if isinstance(v, str):
            strings.add(v.strip())
        elif isinstance(v, list):
            for x in v:
                collect(x)
        elif isinstance(v, dict):
            for k, x in v.items():
                collect(k)
                collect(x)

    collect(value)
    assert isinstance(value, (dict, list)) and set(out) <= strings and set(out.values()) <= strings


@pytest.mark.parametrize(
    "text",
    [
        "English: a\nEnglish: b",
        "English: a\n English : b",
        "English\ta\nEnglish\tb",
        '{"English": "a", "English": "b"}',
        '{"English": "a", " English ": "b"}',
        '[{"language": "English", "text": "a"}, {"language": "English ", "text": "b"}]',
        '[["English", "a"], ["English", "b"]]',
    ],
)
def test_a_language_given_twice_is_reported_not_overwritten(text):
    with pytest.raises(ValueError, match="twice"):
        token_tax.parse_parallel(text)


@given(p=parallel, fmt=st.sampled_from(list(FORMATS)), data=st.data())
def test_a_repeated_language_is_reported_in_every_format(p, fmt, data):
    name = data.draw(st.sampled_from(sorted(p)))
    spaced = data.draw(st.sampled_from([name, f" {name}", f"{name} "]))
    if fmt in ("lines", "tsv", "tsv with a header") and spaced != name:
        spaced = name  # a line's name is trimmed anyway
    twice = [*p.items(), (spaced, "again")]
    if fmt == "json object":
        text = "{" + ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in twice) + "}"
    else:
        text = _render_pairs(fmt, twice)
    with pytest.raises(ValueError, match="twice"):
        token_tax.parse_parallel(text)


def _render_pairs(fmt, pairs):
    if fmt in ("lines", "tsv", "tsv with a header"):
        sep = ": " if fmt == "lines" else "\t"
        return ("language\ttext\n" if fmt == "tsv with a header" else "") + "\n".join(f"{k}{sep}{v}" for k, v in pairs)
    if fmt == "json list of objects":
        return json.dumps([{"language": k, "text": v} for k, v in pairs])
    if fmt == "json list, other field names":
        return json.dumps([{"Lang": k, "Passage": v} for k, v in pairs])
    if fmt == "json list of pairs":
        return json.dumps([[k, v] for k, v in pairs])
    return json.dumps([{k: v} for k, v in pairs])


@pytest.mark.parametrize(
    "text, fix",
    [
        ('[{"language": "English", "text": "Hi"}, {"lang": "German"}]', "Item 2 of the JSON list"),
        ('["English: Hi", "German: Hallo"]', "Item 1 of the JSON list is a string"),
        ('"English: Hi"', "The text is JSON \\(a string\\)"),
        ("null", "The text is JSON"),
        ('{"English": ""}', "no passage"),
        ('{"": "Hi"}', "no language name"),
        ("[" * 5000 + "]" * 5000, "nested too deeply"),
        ('[{"language": "English", "text": "Hi"},]', "not valid JSON.*otherwise write one `Language: passage` per line"),
    ],
)
def test_json_of_another_shape_is_refused_with_what_to_write(text, fix):
    with pytest.raises(ValueError, match=fix):
        token_tax.parse_parallel(text)


def test_premiums_match_tiktoken_counts():
    """The frame's counts and premiums, recomputed with tiktoken for the three official encodings."""
    passages = languages.texts()
    names = ["r50k_base", "cl100k_base", "o200k_base"]
    encs = [tiktoken.get_encoding(n) for n in names]
    frame = token_tax.tax_frame(
        passages, names, lambda i, lang: len(encs[i].encode_ordinary(passages[lang])), reference="English"
    )
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
        token_tax.tax_frame({"English": "a", "German": "b"}, ["A"], lambda i, lang: 1, reference="Klingon")


def test_table_has_a_tokens_column_per_tokenizer():
    passages = {"English": "Hello.", "Greek": "Γεια σου."}
    frame = token_tax.tax_frame(passages, ["A", "B"], lambda i, lang: (i + 1) * len(passages[lang]), reference="Greek")
    table = token_tax.tokens_table(frame)
    assert list(table.columns) == ["language", "script", "bytes", "A", "B"]
    assert table.set_index("language").loc["Greek", "B"] == 2 * len("Γεια σου.")
