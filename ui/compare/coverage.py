"""Vocabulary used: how much of a tokenizer's vocabulary a set of texts actually draws on (a coverage measure).

tokka-bench reports, per language, the number of *unique tokens* a tokenizer uses on a
sample: a script the tokenizer knows well is written with many different tokens, one
it hardly knows falls back to the same few byte tokens again and again. BPE Lab
reports that count and its share of the vocabulary, precisely:

* **distinct tokens** of a text: the number of different token ids in its encoding
  (special-token strings encoded as text);
* **vocabulary used** by texts: the distinct tokens of all of them together ÷ the
  tokenizer's ordinary vocabulary (every token id but the special ones; for the
  characters baseline, every Unicode scalar value, 1,112,064), as a percentage.

Plain data, no Streamlit: Compare's language view draws ``usage_frame`` as a chart and
``distinct_table`` as a table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from tokenizer import Tokenizer

#: Unicode scalar values: every code point but the 2,048 surrogates (the characters baseline's vocabulary).
CODE_POINTS = 0x110000 - 0x800


def vocabulary_size(tok) -> int:
    """The ordinary vocabulary: token ids that are not special tokens.

    >>> from tokenizer import Tokenizer
    >>> from tokenizer.baselines import CharTokenizer
    >>> vocabulary_size(Tokenizer({(97, 98): 256}, special_tokens={"<|end|>": 257})), vocabulary_size(CharTokenizer())
    (257, 1112064)
    """
    if not isinstance(tok, Tokenizer):
        return CODE_POINTS
    specials = tok.special_ids
    return sum(1 for tid in tok.vocab if tid not in specials)


def usage_row(label: str, ids_by_text: Mapping[str, Sequence[int]], vocabulary: int) -> dict:
    """One tokenizer's use of its vocabulary over several texts.

    >>> usage_row("A", {"x": [1, 2, 2], "y": [2, 3]}, 300)
    {'tokenizer': 'A', 'vocabulary': 300, 'tokens': 5, 'distinct tokens': 3, 'vocabulary used %': 1.0}
    """
    distinct = set().union(*(set(ids) for ids in ids_by_text.values())) if ids_by_text else set()
    return {
        "tokenizer": label,
        "vocabulary": vocabulary,
        "tokens": sum(len(ids) for ids in ids_by_text.values()),
        "distinct tokens": len(distinct),
        "vocabulary used %": round(100 * len(distinct) / vocabulary, 3) if vocabulary else 0.0,
    }


def usage_frame(rows: Sequence[tuple[str, Mapping[str, Sequence[int]], int]]) -> pd.DataFrame:
    """``usage_row`` for each ``(label, {text: ids}, vocabulary size)``.

    >>> usage_frame([("A", {"x": [1, 1]}, 10), ("B", {"x": [5, 6]}, 100)])["vocabulary used %"].tolist()
    [10.0, 2.0]
    """
    return pd.DataFrame(
        [usage_row(*r) for r in rows], columns=["tokenizer", "vocabulary", "tokens", "distinct tokens", "vocabulary used %"]
    )


def distinct_table(rows: Sequence[tuple[str, Mapping[str, Sequence[int]]]]) -> pd.DataFrame:
    """One row per text, one column per tokenizer: the distinct tokens of that text.

    >>> distinct_table([("A", {"x": [1, 1, 2], "y": [3]}), ("B", {"x": [7], "y": [8, 9]})]).to_dict("records")
    [{'text': 'x', 'A': 2, 'B': 1}, {'text': 'y', 'A': 1, 'B': 2}]
    """
    if not rows:
        return pd.DataFrame(columns=["text"])
    texts = list(rows[0][1])
    out = pd.DataFrame({"text": texts})
    for label, ids_by_text in rows:
        out[label] = [len(set(ids_by_text[t])) for t in texts]
    return out
