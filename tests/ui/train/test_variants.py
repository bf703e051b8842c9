"""ui/train/variants.py: the parallel texts parity-aware training reads (the token tax's reader, whole texts)."""

from __future__ import annotations

import json

import pytest

from ui.compare.token_tax import MAX_PASSAGE_CHARS
from ui.train import variants


def test_whole_texts_in_every_format_the_token_tax_reads():
    long = "The weather is nice today. " * (MAX_PASSAGE_CHARS // 20)  # longer than a token-tax passage
    expected = {"English": long.strip(), "German": "Das Wetter ist schön."}
    assert variants.parse_parallel(f"English: {long}\nGerman: Das Wetter ist schön.") == expected
    german = "Das Wetter ist schön."
    assert variants.parse_parallel(json.dumps({"English": long, "German": german})) == expected
    listed = json.dumps([{"language": "English", "text": long}, ["German", german]])
    assert variants.parse_parallel(listed) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"English": ' * 5000 + '"x"' + "}" * 5000, "nested too deeply"),
        ('{"English": "Hi", "English": "Hello", "German": "Hallo"}', "English"),
        ('{"English": "Hi", " English ": "Hello", "German": "Hallo"}', "appears twice"),
        ('{"English": "Hi"', "JSON"),
        ('{"English": "Hi"}', "at least two languages"),
        ("[1, 2]", "Item 1 of the JSON list"),
    ],
)
def test_bad_parallel_texts_are_a_clear_error(text, message):
    with pytest.raises(ValueError, match=message):
        variants.parse_parallel(text)
