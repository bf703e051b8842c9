"""What the Pre-tokenize page computes, as plain data: one text cut into chunks by several
split patterns, where they cut differently, and how each pattern treats a few probes.

Before a byte-level BPE merges anything, a regex cuts the text into chunks and merges
never cross a chunk boundary. The patterns come from the registry of encodings
(``tokenizer.registry.specs()``: GPT-2, GPT-4, GPT-4o, and any open model added to it
later), plus "no split" and a pattern of the user's own. No Streamlit here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from tokenizer import Splitter, registry
from tokenizer.display import visible
from tokenizer.pretokenize.patterns import pattern_name
from tokenizer.trace import Span, make_spans

#: The built-in patterns' rules in one line each, for a learner (keyed by ``tokenizer.pretokenize.patterns.pattern_name``).
RULES = {
    "gpt2": (
        "Contractions only in lower case ('s 't 're 've 'm 'll 'd, so I'M is cut I | ' | M); letters, digits and other "
        "symbols each in runs, a run taking one leading space; digits in runs of any length; a newline and the next "
        "line's indentation form one chunk (the last space goes with the word)."
    ),
    "gpt4": (
        "Contractions in any case (I'M is I | 'M); a word may take one leading space or symbol; digits in groups of at "
        "most three (1234567 is 123 | 456 | 7); a newline ends a chunk (symbols take the newlines after them), so a "
        "line's indentation starts a chunk of its own."
    ),
    "o200k": (
        "Like GPT-4, but a word keeps its contraction (I'm, I'M stay whole) and is cut where case changes (camel | Case); "
        "digits in groups of at most three; symbols take the newlines and slashes that follow them."
    ),
    # the open models' patterns (keyed by encoding name where ``tokenizer.pretokenize.patterns.pattern_name`` differs: qwen2.5, qwen3.6)
    "llama3": (
        "GPT-4's rule, spelled without possessive quantifiers: contractions in any case, digits in groups of at most three, "
        "a newline ends a chunk; only whitespace holding a newline at the very end of the text is cut differently "
        "(GPT-4 keeps it whole, Llama 3 cuts after the newline)."
    ),
    "qwen2.5": (
        "Llama 3's rule, but every digit is a chunk of its own (1234567 is 1 | 2 | 3 | 4 | 5 | 6 | 7), so numbers are "
        "always spelled digit by digit; combining marks are not letters (नमस्ते falls apart at its vowel signs)."
    ),
    "qwen3.6": (
        "Qwen 2.5's rule (one digit per chunk, contractions in any case), but combining marks stay with their letters "
        "(नमस्ते, café written with a combining accent stay whole)."
    ),
    "tekken": (
        "GPT-4o's word rule (cut where case changes: camel | Case; marks stay with letters) without its contractions "
        "(I'm is I | 'm), and every digit a chunk of its own."
    ),
    "none": "No split: the whole text is one chunk, so merges may cross spaces, words and lines.",
    "custom": "Your own regex; text it does not match becomes chunks of its own, so nothing is lost.",
}
OTHER_RULE = "This encoding's own regex (shown below); the probes table shows what it does."

#: Short texts that show where the patterns differ (the seed examples first).
SEEDS: dict[str, str] = {
    "I'm. I'M": "I'm. I'M",
    " 677": " 677",
    "Hello 你好": "Hello 你好",
    "Code with indentation": "def area(r):\n    if r < 0:\n        return 0  # no negative radius\n    return 3.14159 * r ** 2\n",
    "Numbers": "In 2024 we sold 1234567 units, up 15% from 999.",
    "camelCase and URLs": "parseHTTPResponse(getUserID) → see https://example.org/a/b",
}
DEFAULT_TEXT = "I'm here. I'M HERE! It's 677 km, or 1234567 m.\nHello 你好\n    def f(x):\n        return x  # indented\n"

#: What the probes table runs every chosen pattern on.
PROBES: dict[str, str] = {
    "contraction, lower case": "I'm",
    "contraction, upper case": "I'M",
    "digits": "1234567",
    "leading space": " 677 apples",
    "two spaces before a word": "a  b",
    "newline and indentation": "x\n\n    y",
    "case change": "camelCase",
    "letters and CJK": "Hello 你好",
    "combining marks": "नमस्ते",
}


@dataclass(frozen=True)
class PatternChoice:
    """A split pattern the page offers: ``pattern`` (None: no split), its label, who uses it, its rule."""

    key: str
    label: str
    pattern: str | None
    used_by: tuple[str, ...]
    rule: str


def builtin_choices() -> dict[str, PatternChoice]:
    """The registry's split patterns, one entry per distinct pattern (in menu order), then "no split".

    >>> list(builtin_choices())[:3], builtin_choices()["none"].pattern is None
    (['gpt2', 'gpt4', 'o200k'], True)
    >>> builtin_choices()["gpt4"].used_by
    ('GPT-4 (cl100k_base)',)
    """
    out: dict[str, PatternChoice] = {}
    by_pattern: dict[str | None, str] = {}
    no_split: tuple[str, ...] = ()  # encodings without a pattern (SentencePiece-style ones) are users of "no split"
    for s in registry.specs():
        if s.pattern is None:
            if not s.staged:  # a tokenizer.json (or a GGUF read as one) splits with its own stages, not with no split
                no_split += (s.label,)
            continue
        if s.pattern in by_pattern:  # another encoding with the same pattern: name it as a user
            key = by_pattern[s.pattern]
            c = out[key]
            out[key] = PatternChoice(c.key, c.label, c.pattern, (*c.used_by, s.label), c.rule)
            continue
        name = pattern_name(s.pattern)
        key = name if name in RULES and name != "custom" else s.name
        out[key] = PatternChoice(key, s.pattern_label or s.label, s.pattern, (s.label,), RULES.get(key, OTHER_RULE))
        by_pattern[s.pattern] = key
    out["none"] = PatternChoice("none", "No split", None, no_split, RULES["none"])
    return out


def custom_choice(pattern: str) -> PatternChoice:
    return PatternChoice("custom", "Your regex", pattern, (), RULES["custom"])


def split(choice: PatternChoice, text: str) -> list[str]:
    """The chunks of ``text``; a user's regex runs with a time limit (ValueError says what to fix).

    >>> split(builtin_choices()["gpt4"], "I'M 1234567")
    ['I', "'M", ' ', '123', '456', '7']
    >>> split(builtin_choices()["o200k"], "I'M 1234567")
    ["I'M", ' ', '123', '456', '7']
    """
    return Splitter(choice.pattern).split(text)


def chunk_spans(chunks: Sequence[str]) -> list[Span]:
    """The chunks as spans laid end to end (``id`` is the chunk's number), for drawing and for ``boundary_diff``.

    >>> [(s.id, s.byte_start, s.byte_end) for s in chunk_spans(["ab", " 你"])]
    [(0, 0, 2), (1, 2, 6)]
    """
    return make_spans([(i, c.encode("utf-8", "surrogatepass")) for i, c in enumerate(chunks)])


def probes_table(choices: Sequence[PatternChoice], probes: Mapping[str, str] = PROBES) -> pd.DataFrame:
    """One row per probe, one column per pattern: the probe's chunks as ``a | b`` (``·`` is a space, ``↵`` a newline).

    >>> df = probes_table([builtin_choices()["gpt2"], builtin_choices()["gpt4"]])
    >>> df.set_index("probe").loc["contraction, upper case"].tolist()
    ["I'M", "I | ' | M", "I | 'M"]
    """
    rows = []
    for what, text in probes.items():
        row = {"probe": what, "text": visible(text.encode())}
        for c in choices:
            try:
                row[c.label] = " | ".join(visible(x.encode()) for x in split(c, text))
            except ValueError:
                row[c.label] = "(stopped)"
        rows.append(row)
    return pd.DataFrame(rows)


def unique_labels(choices: Sequence[PatternChoice]) -> list[str]:
    """Row labels: each choice's label, numbered when two are alike.

    >>> unique_labels([custom_choice("a"), custom_choice("b")])
    ['Your regex', 'Your regex (2)']
    """
    out: list[str] = []
    for c in choices:
        label, n = c.label, 2
        while label in out:
            label, n = f"{c.label} ({n})", n + 1
        out.append(label)
    return out
