"""Built-in sample texts for the Tokenize and Compare pages, written for BPE Lab.

``DEFAULT_TEXT`` is what a new session starts with. Each of the ``SAMPLES``
stresses a different part of a tokenizer: English prose (what the vocabularies
were mostly trained on), code (indentation, operators), numbers (how digits are
grouped), CJK and Cyrillic/Devanagari (several bytes per character), emoji (four
bytes, often split inside a character) and whitespace-heavy text (runs of
spaces, tabs and newlines). Plain Python, no Streamlit.
"""

from __future__ import annotations

#: The text a session starts with on Tokenize, Compare and Step through.
DEFAULT_TEXT = (
    "Many words map to one token, but some don't: indivisible.\n\n"
    "Unicode characters like emojis may be split into many tokens containing the underlying bytes: 🤚🏾\n\n"
    "Sequences of characters commonly found next to each other may be grouped together: 1234567890\n\n"
    "Hello 你好 — tokenization, aaabdaaabac, Honolulu.\n"
)

#: name -> text, in menu order.
SAMPLES: dict[str, str] = {
    "English prose": (
        "The lighthouse keeper counted the ships every evening. Most nights there were three or four, "
        "their lamps moving slowly along the coast; on stormy nights there were none, and he wrote a "
        "zero in the log with the same care. Nobody ever read the log. He kept it anyway, because a "
        "number written down is a promise that somebody was paying attention."
    ),
    "Python code": (
        "def merge(ids, pair, new_id):\n"
        '    """Replace every occurrence of pair in ids with new_id."""\n'
        "    out, i = [], 0\n"
        "    while i < len(ids):\n"
        "        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:\n"
        "            out.append(new_id)\n"
        "            i += 2\n"
        "        else:\n"
        "            out.append(ids[i])\n"
        "            i += 1\n"
        "    return out\n"
    ),
    "Numbers": (
        "Invoice 2024-0917: 3 items, 12.50 + 7.25 + 1,299.99 = 1,319.74 EUR (VAT 19%: 250.75).\n"
        "Pi is 3.14159265358979; 2**32 = 4294967296; phone +49 30 1234567; 1000000 vs 1 000 000 vs 1e6."
    ),
    "Chinese and Japanese": (
        "你好，世界！分词器把文本切成词元，每个汉字在 UTF-8 里占三个字节。\n"
        "今日はいい天気ですね。東京から大阪まで新幹線で二時間半かかります。"
    ),
    "Russian and Hindi": (
        "Токенизатор разбивает текст на части; кириллица занимает два байта на букву.\n"
        "टोकनाइज़र पाठ को छोटे टुकड़ों में बाँटता है, और देवनागरी के हर अक्षर को तीन बाइट चाहिए।"
    ),
    "Emoji": "Hello tokenizer 😄🤪🧐! Thumbs up 👍🏽, family 👩‍👩‍👧, flag 🇺🇦, heart ❤️ and a rocket 🚀 to the moon 🌕.",
    "Whitespace-heavy": (
        "name        value     unit\n"
        "----        -----     ----\n"
        "width         640     px\n"
        "height        480     px\n"
        "\n\n\n"
        "\tindented with a tab\n"
        "        indented with eight spaces\n"
        "trailing spaces here    \n"
    ),
}


def names() -> list[str]:
    """The sample names, in menu order.

    >>> names()[:2]
    ['English prose', 'Python code']
    """
    return list(SAMPLES)
