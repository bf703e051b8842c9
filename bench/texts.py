"""Test corpora built from what every machine has: our own multilingual lines and stdlib sources."""

from __future__ import annotations

import sysconfig
from pathlib import Path

from tokenizer.pretokenize.patterns import BUILTIN_PATTERNS

# Written for these tests: many scripts, numbers, code, emoji, odd whitespace, special-token look-alikes.
MULTILINGUAL = """\
The quick brown fox jumps over the lazy dog. It's 2024; I'M sure they'll say we've done it.
Hello 你好, 世界! こんにちは、世界。 안녕하세요 세계
Привет, мир! Как дела? Съешь же ещё этих мягких французских булок.
مرحبا بالعالم، كيف حالك؟ नमस्ते दुनिया, आप कैसे हैं? שלום עולם
Γειά σου Κόσμε! Ελληνικά κείμενα με τόνους: ά έ ή ί ό ύ ώ.
Emoji: 😄🤪🧐 👩🏽‍💻 🇫🇷 🤚🏾 ❤️‍🔥 and a flag 🏳️‍🌈.
Numbers: 1234567890 3.14159 -42 1e-9 0xFF 1,000,000 ١٢٣ ४५६
Tabs\tand  double  spaces   and trailing spaces\x20\x20\x20
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


# C and JavaScript, where o200k's ` ?[^\s\p{L}\p{N}]+[\r\n/]*` runs from `}` over the newline into `//`
C_LIKE = """\
/* {n}: parse the header, then the body */
static int parse_{n}(const char *s, size_t n) {{
    if (n == 0) {{
        return -1;  // nothing to read (é)
    }}
// the body: one record per line
    for (size_t i = 0; i < n; i++) {{ total += s[i] * {n}; }}
}}
// end of parse_{n}
const f{n} = (x) => {{ return x.map((y) => y * {n}); }};
/** JSDoc: returns «{n}» */
"""


def code_and_prose(n_chars: int = 1_200_000) -> str:
    """Real code (stdlib sources, C, JavaScript) and prose in many scripts, interleaved in
    stretches of a few kilobytes, cut at ``n_chars``: long, and not ASCII throughout."""
    code = stdlib_sample(max(n_chars // 2, 50_000))
    parts, n, k, pos = [], 0, 0, 0
    while n < n_chars:
        step = 3_000 + (k * 7_919) % 9_000
        block = code[pos : pos + step] or code[:step]
        pos = pos + step if pos + step < len(code) else 0
        extra = MULTILINGUAL if k % 2 else "".join(C_LIKE.format(n=k * 10 + j) for j in range(8))
        parts += [block, extra]
        n += len(block) + len(extra)
        k += 1
    return "".join(parts)[:n_chars]


# The split patterns of the open models in the registry, and DeepSeek V3's stages (a
# Hugging Face pre-tokenizer sequence): patterns of the kind the registry may add
OPEN_MODEL_PATTERNS = {
    **{name: p for name, p in BUILTIN_PATTERNS.items() if name not in ("gpt2", "gpt4", "o200k")},
    "deepseek_v3_digits": r"\p{N}{1,3}",
    "deepseek_v3_cjk": r"[一-龥぀-ゟ゠-ヿ]+",
    "deepseek_v3_main": (
        r"""[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
    ),
}
