"""What the Compare page computes, as plain data (no Streamlit here).

Per-tokenizer statistics, the boundary diff between several tokenizations of one
text, and the compression leaderboard over the built-in samples. The page draws
what these functions return.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from tokenizer import TokenizerLike, clean_text, visible
from tokenizer.trace import Span
from ui.common.user_text import counts

#: Spans drawn per tokenizer (the statistics count them all).
SPAN_LIMIT = 1_200
#: Rows of the boundary-diff table.
DIFF_ROWS = 300
#: The default choice after your latest tokenizer, if you have one: GPT-2, GPT-4o and an open model.
OFFICIAL_DEFAULT = ("r50k_base", "o200k_base", "llama3")
LEADERBOARD_METRICS = {
    "bytes/token": "UTF-8 bytes per token (higher: each token carries more text)",
    "chars/token": "characters per token (higher: fewer tokens for the same text)",
    "tokens": "tokens for the sample (lower is better)",
}
ALL_SAMPLES = "all samples"

_WORD = re.compile(r"\w+")


@dataclass
class Tokenized:
    """One tokenizer's result on the text."""

    key: str
    label: str
    ids: list[int]
    spans: list[Span]
    tok: TokenizerLike | None = field(default=None, repr=False, compare=False)  # the tokenizer that made them (its merge trees)


def default_keys(latest_user_key: str | None, available: Callable[[str], bool] = lambda name: True) -> list[str]:
    """Your latest trained tokenizer (if any), then GPT-2, GPT-4o and Llama 3 (those installed).

    >>> default_keys("user:mine-1a2b3c")
    ['user:mine-1a2b3c', 'r50k_base', 'o200k_base', 'llama3']
    >>> default_keys(None, available=lambda name: name != "llama3")
    ['r50k_base', 'o200k_base']
    """
    return ([latest_user_key] if latest_user_key else []) + [k for k in OFFICIAL_DEFAULT if available(k)]


def unique_labels(keys: Sequence[str], choices: Mapping[str, str]) -> dict[str, str]:
    """``{key: label}``; two tokenizers with the same label (two of yours, same name) get a number added.

    >>> unique_labels(["user:a", "user:b", "chars"], {"user:a": "mine", "user:b": "mine", "chars": "Characters"})
    {'user:a': 'mine', 'user:b': 'mine (2)', 'chars': 'Characters'}
    """
    out: dict[str, str] = {}
    for key in keys:
        label = choices.get(key, key)
        n = 2
        while label in out.values():
            label = f"{choices.get(key, key)} ({n})"
            n += 1
        out[key] = label
    return out


def whole_words(text: str, spans: Sequence[Span]) -> int:
    """How many tokens are whole words of the text.

    A token counts when its text, without one leading space, is exactly one
    complete ``\\w+`` run of the text: ``" token"`` in ``"a token."`` is a whole
    word; ``"tok"`` is not, nor is ``" token"`` in ``"a tokenizer"``.

    >>> from tokenizer.trace import make_spans
    >>> whole_words("a token.", make_spans([(0, b"a"), (1, b" token"), (2, b".")]))
    2
    """
    words = {(m.start(), m.end()) for m in _WORD.finditer(clean_text(text))}
    n = 0
    for s in spans:
        if s.special or not s.bytes:
            continue
        start = s.start + 1 if s.bytes[:1] == b" " else s.start
        if (start, s.end) in words and not s.partial:
            n += 1
    return n


def stats_row(label: str, text: str, spans: Sequence[Span]) -> dict:
    """The statistics of one tokenizer on the text.

    >>> from tokenizer.trace import make_spans
    >>> stats_row("A", "ab", make_spans([(1, b"a"), (2, b"b")]))
    {'tokenizer': 'A', 'tokens': 2, 'chars/token': 1.0, 'bytes/token': 1.0, 'unique tokens': 2, 'whole words %': 0.0}
    """
    c = counts(text, spans)
    return {
        "tokenizer": label,
        "tokens": c.tokens,
        "chars/token": round(c.chars_per_token, 3),
        "bytes/token": round(c.bytes_per_token, 3),
        "unique tokens": len({s.id for s in spans}),
        "whole words %": round(100 * whole_words(text, spans) / c.tokens, 1) if c.tokens else 0.0,
    }


# ---------------------------------------------------------------- boundary diff


@dataclass(frozen=True)
class BoundaryDiff:
    """Where several tokenizers cut the same text differently.

    ``agreed_cuts``: byte offsets where every tokenizer starts a token (and the
    two ends). A *region* is the stretch between two neighbouring agreed cuts; it
    differs when some tokenizer cuts inside it. ``dim[label]``: indices of that
    tokenizer's tokens which every tokenizer has (same bytes, same place);
    ``cuts[label]``: indices of its tokens that start where some other tokenizer
    does not cut.
    """

    agreed_cuts: tuple[int, ...]
    n_regions: int
    n_differing: int
    shared_bytes: int
    total_bytes: int
    dim: Mapping[str, frozenset[int]]
    cuts: Mapping[str, frozenset[int]]
    table: pd.DataFrame

    @property
    def shared_share(self) -> float:
        """Share of the text's bytes inside tokens that every tokenizer has."""
        return self.shared_bytes / self.total_bytes if self.total_bytes else 1.0


def boundary_diff(spans_by_label: Mapping[str, Sequence[Span]], *, rows: int = DIFF_ROWS) -> BoundaryDiff:
    """Compare the token boundaries of several tokenizations of one text.

    >>> from tokenizer.trace import make_spans
    >>> a = make_spans([(1, b"un"), (2, b"do"), (3, b" it")])
    >>> b = make_spans([(7, b"und"), (8, b"o"), (9, b" it")])
    >>> d = boundary_diff({"A": a, "B": b}); (d.agreed_cuts, d.n_differing, sorted(d.dim["A"]))
    ((0, 4, 7), 1, [2])
    >>> d.table.to_dict("records")
    [{'bytes': '0–4', 'text': 'undo', 'A': 'un | do', 'B': 'und | o'}]
    """
    labels = list(spans_by_label)
    if not labels:
        return BoundaryDiff((), 0, 0, 0, 0, {}, {}, pd.DataFrame())
    total = max((s[-1].byte_end for s in spans_by_label.values() if s), default=0)
    starts = {lab: [s.byte_start for s in spans_by_label[lab]] for lab in labels}
    cut_sets = {lab: set(starts[lab]) | {total} for lab in labels}
    agreed = set.intersection(*cut_sets.values()) | {0, total}
    token_sets = [{(s.byte_start, s.byte_end) for s in spans_by_label[lab]} for lab in labels]
    shared_tokens = set.intersection(*token_sets)
    dim = {lab: frozenset(s.index for s in spans_by_label[lab] if (s.byte_start, s.byte_end) in shared_tokens) for lab in labels}
    cuts = {lab: frozenset(s.index for s in spans_by_label[lab] if s.byte_start not in agreed) for lab in labels}
    shared_bytes = sum(e - s for s, e in shared_tokens)

    # the text's bytes, from any tokenization (they all hold the same bytes)
    data = b"".join(s.bytes for s in spans_by_label[labels[0]])
    ordered = sorted(agreed)
    n_regions = max(0, len(ordered) - 1)
    records = []
    n_differing = 0
    for a, b in zip(ordered, ordered[1:]):
        if (a, b) in shared_tokens:
            continue
        n_differing += 1
        if len(records) >= rows:
            continue
        row = {"bytes": f"{a}–{b}", "text": visible(data[a:b])}
        for lab in labels:
            sp = spans_by_label[lab]
            lo = bisect.bisect_left(starts[lab], a)
            hi = bisect.bisect_left(starts[lab], b)
            row[lab] = " | ".join(visible(s.bytes) for s in sp[lo:hi])
        records.append(row)
    table = pd.DataFrame(records, columns=["bytes", "text", *labels])
    return BoundaryDiff(tuple(ordered), n_regions, n_differing, shared_bytes, total, dim, cuts, table)


def stats_table(text: str, results: Sequence[Tokenized]) -> pd.DataFrame:
    """One row of ``stats_row`` per tokenizer."""
    return pd.DataFrame([stats_row(r.label, text, r.spans) for r in results])


# ---------------------------------------------------------------- leaderboard


def sample_counts(tok, text: str) -> dict[str, int]:
    """Tokens, characters and bytes of one built-in sample (special tokens as text).

    >>> from tokenizer.baselines import CharTokenizer
    >>> sample_counts(CharTokenizer(), "naïve")
    {'tokens': 5, 'chars': 5, 'bytes': 6}
    """
    c = counts(text, tok.encode(text, disallowed_special=()))
    return {"tokens": c.tokens, "chars": c.characters, "bytes": c.bytes}


def leaderboard(
    labels: Sequence[str], sample_names: Sequence[str], stats: Callable[[int, str], Mapping[str, int]]
) -> pd.DataFrame:
    """Long form: one row per (sample, tokenizer), then an "all samples" row per tokenizer.

    ``stats(i, sample)`` gives ``sample_counts`` for the ``i``-th tokenizer.

    >>> board = leaderboard(["A"], ["s"], lambda i, s: {"tokens": 2, "chars": 4, "bytes": 6})
    >>> board[["sample", "tokenizer", "tokens", "bytes/token", "chars/token"]].values.tolist()
    [['s', 'A', 2, 3.0, 2.0], ['all samples', 'A', 2, 3.0, 2.0]]
    """
    rows = []
    for i, label in enumerate(labels):
        total = {"tokens": 0, "chars": 0, "bytes": 0}
        for name in sample_names:
            s = stats(i, name)
            total = {k: total[k] + s[k] for k in total}
            rows.append({"sample": name, "tokenizer": label, **s})
        rows.append({"sample": ALL_SAMPLES, "tokenizer": label, **total})
    df = pd.DataFrame(rows)
    if not df.empty:
        df["bytes/token"] = (df["bytes"] / df["tokens"]).round(3)
        df["chars/token"] = (df["chars"] / df["tokens"]).round(3)
    return df


def leaderboard_table(board: pd.DataFrame, metric: str, sample_names: Sequence[str]) -> pd.DataFrame:
    """One row per sample (then "all samples"), one column per tokenizer, and the best of each row.

    >>> board = leaderboard(["A", "B"], ["s"], lambda i, s: {"tokens": 2 + i, "chars": 4, "bytes": 6})
    >>> leaderboard_table(board, "tokens", ["s"]).to_dict("index")["s"]
    {'A': 2, 'B': 3, 'best': 'A'}
    """
    table = board.pivot(index="sample", columns="tokenizer", values=metric)
    table = table.reindex([*sample_names, ALL_SAMPLES])[list(dict.fromkeys(board["tokenizer"]))]
    table["best"] = [best_of(row, lower=metric == "tokens") for _, row in table.iterrows()]
    return table


def best_of(row: pd.Series, *, lower: bool) -> str:
    """The best tokenizer(s) in a leaderboard row; ties are all named.

    >>> best_of(pd.Series({"A": 2.0, "B": 3.0, "C": 3.0}), lower=False)
    'B = C'
    """
    target = row.min() if lower else row.max()
    return " = ".join(str(k) for k, v in row.items() if v == target)
