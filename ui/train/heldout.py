"""Vocabulary size against compression on a held-out text, for a tokenizer you trained.

Every prefix of a tokenizer's merge list is a smaller tokenizer (``tok.truncated(k)``).
``Tokenizer.merge_curve`` gives the held-out text's length under all of them at once:
each distinct chunk's merges counted once, by rank (the same numbers as replaying an
encode trace up to each rank, which ``ui.step.model`` relies on; tests check both
against ``truncated(k).encode``). Reference tokenizers (GPT-2, cl100k, o200k) on the
same text give horizontal lines, which answers "how big must my vocabulary be to
compress this text as well as GPT-2?".

Plain data, no Streamlit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from tokenizer import Tokenizer, clean_text

from .model import CHART_POINTS, thin

#: The held-out text is cut here (characters): its curve takes a fifth of a second or so.
MAX_CHARS = 200_000
#: Characters of the start of a held-out text looked for in the training text.
OVERLAP_PROBE = 300


def curve(tok: Tokenizer, text: str, *, points: int = CHART_POINTS) -> pd.DataFrame:
    """``merges, vocab size, tokens, bytes per token`` on ``text`` for every prefix of the merges (thinned to ``points``).

    >>> from tokenizer import train
    >>> curve(train("aaabdaaabac", 259, pattern=None), "aaab aaab")["tokens"].tolist()
    [9, 7, 5, 3]
    """
    n_bytes, all_lengths = tok.merge_curve(text)
    ks = thin(tok.num_merges + 1, points)
    return pd.DataFrame(
        {
            "merges": ks,
            "vocab size": [256 + k for k in ks],
            "tokens": [all_lengths[k] for k in ks],
            "bytes per token": [round(n_bytes / all_lengths[k], 4) if all_lengths[k] else None for k in ks],
        }
    )


@dataclass(frozen=True)
class Match:
    """Where your tokenizer's curve reaches a reference: ``merges`` (None: never), and the two ratios."""

    label: str
    bytes_per_token: float
    merges: int | None
    yours_at_end: float


def reference_ratio(tok, text: str) -> float:
    """Bytes per token of ``tok`` on ``text`` (special-token strings as text).

    >>> from tokenizer.baselines import bytes_tokenizer
    >>> reference_ratio(bytes_tokenizer(), "héllo")
    1.0
    """
    ids = tok.encode(text, disallowed_special=())
    return len(clean_text(text).encode("utf-8")) / len(ids) if ids else 0.0


def match(full_curve: pd.DataFrame, label: str, target: float) -> Match:
    """The fewest merges whose bytes per token reach ``target`` (on the thinned curve: the first point at or above it).

    >>> df = pd.DataFrame({"merges": [0, 1, 2], "bytes per token": [1.0, 1.5, 2.0]})
    >>> match(df, "GPT-2", 1.4).merges, match(df, "GPT-2", 3.0).merges
    (1, None)
    """
    reached = full_curve[full_curve["bytes per token"] >= target]
    merges = int(reached["merges"].iloc[0]) if not reached.empty else None
    return Match(label, target, merges, float(full_curve["bytes per token"].iloc[-1]))


def matches(full_curve: pd.DataFrame, refs: Mapping[str, float]) -> list[Match]:
    return [match(full_curve, label, ratio) for label, ratio in refs.items()]


def describe(m: Match) -> str:
    """One sentence about a reference line.

    >>> describe(Match("GPT-2", 4.2, 3000, 4.5))
    'GPT-2 (4.20 bytes per token) is reached after 3,000 merges, a vocabulary of 3,256 tokens.'
    >>> describe(Match("o200k", 4.8, None, 4.5))
    'o200k (4.80 bytes per token) is not reached: with all its merges yours gets 4.50.'
    """
    if m.merges is None:
        return f"{m.label} ({m.bytes_per_token:.2f} bytes per token) is not reached: with all its merges yours gets {m.yours_at_end:.2f}."
    return f"{m.label} ({m.bytes_per_token:.2f} bytes per token) is reached after {m.merges:,} merges, a vocabulary of {256 + m.merges:,} tokens."


def overlaps(heldout: str, training: str | None) -> bool:
    """Whether the held-out text looks like part of the training text (its start appears in it).

    >>> overlaps("the cat sat", "once the cat sat down"), overlaps("a dog", "the cat"), overlaps("x", None)
    (True, False, False)
    """
    if not training or not heldout:
        return False
    probe = heldout[:OVERLAP_PROBE]
    return probe in training or training[:OVERLAP_PROBE] in heldout
