"""Test corpora built from what every machine has: our own multilingual lines and stdlib sources."""

from __future__ import annotations

import sysconfig
from pathlib import Path

# Written for these tests: many scripts, numbers, code, emoji, odd whitespace, special-token look-alikes.
MULTILINGUAL = """\
The quick brown fox jumps over the lazy dog. It's 2024; I'M sure they'll say we've done it.
Hello 你好, 世界! こんにちは、世界。 안녕하세요 세계
Привет, мир! Как дела? Съешь же ещё этих мягких французских булок.
مرحبا بالعالم، كيف حالك؟ नमस्ते दुनिया, आप कैसे हैं? שלום עולם
Γειά σου Κόσμε! Ελληνικά κείμενα με τόνους: ά έ ή ί ό ύ ώ.
Emoji: 😄🤪🧐 👩🏽‍💻 🇫🇷 🤚🏾 ❤️‍🔥 and a flag 🏳️‍🌈.
Numbers: 1234567890 3.14159 -42 1e-9 0xFF 1,000,000 ١٢٣ ४५६
Tabs\tand  double  spaces   and trailing spaces   
Windows\r\nline endings\r\n and a lone \r carriage return.
camelCaseWords snake_case_words SCREAMING_CASE HTTPServerError parseJSON
<|endoftext|> <|fim_prefix|> <|im_start|> look like special tokens.
Combining: e\u0301 n\u0303 Zalgo: Z\u0351\u0358a\u0344l\u0346g\u0350o\u0352
    indented code:
        def f(x):  # comment
            return {"a": [1, 2, 3], 'b': (x ** 2) // 3}
"""


def stdlib_sample(max_chars: int = 200_000) -> str:
    """Python standard-library sources (code, docstrings, comments), read at run time."""
    root = Path(sysconfig.get_paths()["stdlib"])
    out, n = [], 0
    for path in sorted(root.glob("*.py")):
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        out.append(text)
        n += len(text)
        if n >= max_chars:
            break
    return "".join(out)[:max_chars]

