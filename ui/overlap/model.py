"""What the Overlap page computes, as plain data (no Streamlit): where two or more vocabularies meet.

Tokens are compared **by their bytes**, so GPT-4o's ``" the"`` and Llama 3's ``" the"``
are the same token whatever their ids. Special tokens are left apart (their strings
are compared by name, ``special_overlap``): they are markers, not text.

* ``vocab_of``: a tokenizer's ordinary tokens, ``{bytes: id}``;
* ``overlap``: which of the chosen vocabularies hold each token (a bit mask per token),
  from which come the shared tokens, the tokens only one has, the Jaccard similarity
  of every pair (shared ÷ in either) and the longest tokens only one of them has;
* ``split_under``: how one tokenizer's tokens come out under another (GPT-4o's tokens as
  Llama 3 pieces): for each token, the number of tokens the other tokenizer needs for
  it on its own (``target_pieces``).

Set operations on whole vocabularies are quick; ``split_under`` encodes every token,
which takes seconds for a large vocabulary (docs/performance.md, ``bench/bench_overlap.py``).
The page keeps both as ``ui.common.cache`` allows.
"""

from __future__ import annotations

import heapq
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from tokenizer import Tokenizer
from tokenizer.display import visible
from tokenizer.spm import SentencePieceTokenizer

#: The most tokenizers the page compares at once (one bit each in a token's mask).
MAX_TOKENIZERS = 8
#: Tokens encoded between two progress reports in ``split_under``.
BATCH = 5_000
#: Piece counts from this one up are one bar in the chart ("8+").
TOP_PIECES = 8
#: Rows of a table sent to the browser at once.
ROWS = 1_000


# ---------------------------------------------------------------- vocabularies


@dataclass(frozen=True)
class Vocab:
    """One tokenizer's ordinary tokens: ``ids`` maps a token's bytes to its id (the lowest, when two ids hold the
    same bytes); ``special`` is the set of its special tokens' strings."""

    label: str
    ids: Mapping[bytes, int]
    special: frozenset[str] = frozenset()

    def __len__(self) -> int:
        return len(self.ids)


def vocab_of(tok, label: str) -> Vocab:
    """The ordinary tokens of a tokenizer (special tokens apart), by bytes.

    A tokenizer without a finite list of tokens (the characters baseline: every Unicode
    code point is a token) is a ValueError that says what to pick instead.

    >>> from tokenizer import Tokenizer
    >>> v = vocab_of(Tokenizer({(97, 98): 256}, special_tokens={"<|end|>": 257}), "T")
    >>> len(v), v.ids[b"ab"], v.special
    (257, 256, frozenset({'<|end|>'}))
    """
    if not isinstance(tok, Tokenizer):
        raise ValueError(
            f"{label} has no list of tokens to compare (one token per Unicode character: over a million of them); "
            "leave it out, or compare the UTF-8 bytes baseline instead."
        )
    specials = tok.special_ids
    # a SentencePiece byte token comes after the character's own piece
    is_byte = tok.is_byte_token if isinstance(tok, SentencePieceTokenizer) else lambda tid: False
    ids: dict[bytes, int] = {}
    for tid, data in tok.vocab.items():
        if tid in specials:
            continue
        seen = ids.get(data)
        if seen is None or (is_byte(seen), seen) > (is_byte(tid), tid):
            ids[data] = tid
    return Vocab(label, ids, frozenset(tok.special_tokens))


# ---------------------------------------------------------------- overlap


@dataclass(frozen=True)
class Overlap:
    """Which of several vocabularies hold each token of their union.

    ``tokens[k]`` is held by vocabulary ``i`` when bit ``i`` of ``masks[k]`` is set;
    ``regions`` counts the tokens of each mask (the cells of a Venn diagram). The union
    is in order of length, then bytes.
    """

    labels: tuple[str, ...]
    vocabs: tuple[Vocab, ...]
    tokens: tuple[bytes, ...]
    masks: np.ndarray
    regions: Mapping[int, int] = field(repr=False)

    @property
    def full(self) -> int:
        """The mask of a token every vocabulary holds."""
        return (1 << len(self.labels)) - 1

    def size(self, i: int) -> int:
        return len(self.vocabs[i])

    def shared(self, i: int, j: int) -> int:
        """Tokens vocabularies ``i`` and ``j`` both hold (``shared(i, i)`` is ``size(i)``)."""
        both = (1 << i) | (1 << j)
        return sum(n for m, n in self.regions.items() if m & both == both)

    def union(self, i: int, j: int) -> int:
        """Tokens ``i`` or ``j`` holds."""
        either = (1 << i) | (1 << j)
        return sum(n for m, n in self.regions.items() if m & either)

    def jaccard(self, i: int, j: int) -> float:
        """Shared ÷ in either (1.0 for identical vocabularies, 0.0 for disjoint ones)."""
        u = self.union(i, j)
        return self.shared(i, j) / u if u else 1.0

    @property
    def shared_by_all(self) -> int:
        return self.regions.get(self.full, 0)

    def only(self, i: int) -> int:
        """Tokens vocabulary ``i`` holds and no other does."""
        return self.regions.get(1 << i, 0)


def overlap(vocabs: Sequence[Vocab]) -> Overlap:
    """Where the vocabularies meet.

    >>> a = Vocab("A", {b"a": 0, b"b": 1, b"ab": 2})
    >>> b = Vocab("B", {b"a": 5, b"b": 6, b"ba": 7, b"abc": 8})
    >>> ov = overlap([a, b])
    >>> ov.shared(0, 1), ov.only(0), ov.only(1), round(ov.jaccard(0, 1), 3)
    (2, 1, 2, 0.4)
    >>> ov.tokens
    (b'a', b'b', b'ab', b'ba', b'abc')
    """
    if not 1 <= len(vocabs) <= MAX_TOKENIZERS:
        raise ValueError(f"Compare from 1 to {MAX_TOKENIZERS} vocabularies at once, not {len(vocabs)}.")
    member: dict[bytes, int] = {}
    get = member.get
    for bit, v in enumerate(vocabs):
        m = 1 << bit
        for data in v.ids:
            member[data] = get(data, 0) | m
    tokens = tuple(sorted(sorted(member), key=len))  # by length, then bytes (two C-level sorts)
    masks = np.fromiter((member[t] for t in tokens), dtype=np.int64, count=len(tokens))
    regions = dict(Counter(member.values()))
    return Overlap(tuple(v.label for v in vocabs), tuple(vocabs), tokens, masks, regions)


GROUPS = ("shared by all", "shared with some", "only here")


def summary(ov: Overlap) -> pd.DataFrame:
    """One row per tokenizer: its tokens, then how many every other one holds too, some other one, or none.

    With two tokenizers "shared with some" is always 0 (the other one is all the others).

    >>> ov = overlap([Vocab("A", {b"a": 0, b"ab": 1}), Vocab("B", {b"a": 0, b"b": 1}), Vocab("C", {b"ab": 9})])
    >>> summary(ov).values.tolist()
    [['A', 2, 0, 2, 0], ['B', 2, 0, 1, 1], ['C', 1, 0, 1, 0]]
    """
    rows = []
    for i, label in enumerate(ov.labels):
        bit = 1 << i
        mine = {m: n for m, n in ov.regions.items() if m & bit}
        rows.append(
            {
                "tokenizer": label,
                "tokens": ov.size(i),
                GROUPS[0]: mine.get(ov.full, 0),
                GROUPS[1]: sum(n for m, n in mine.items() if m not in (ov.full, bit)),
                GROUPS[2]: mine.get(bit, 0),
            }
        )
    return pd.DataFrame(rows, columns=["tokenizer", "tokens", *GROUPS])


def summary_long(table: pd.DataFrame) -> pd.DataFrame:
    """``summary`` in long form for the stacked bars: tokenizer, group, tokens, share of its vocabulary.

    >>> t = summary(overlap([Vocab("A", {b"a": 0, b"ab": 1}), Vocab("B", {b"a": 0})]))
    >>> summary_long(t)[["tokenizer", "group", "tokens", "share"]].values.tolist()[:3]
    [['A', 'shared by all', 1, 0.5], ['A', 'shared with some', 0, 0.0], ['A', 'only here', 1, 0.5]]
    """
    rows = [
        {
            "tokenizer": r["tokenizer"],
            "group": g,
            "tokens": int(r[g]),
            "share": round(r[g] / r["tokens"], 4) if r["tokens"] else 0.0,
            "vocabulary": int(r["tokens"]),
            "order": k,
        }
        for r in table.to_dict("records")
        for k, g in enumerate(GROUPS)
    ]
    return pd.DataFrame(rows, columns=["tokenizer", "group", "tokens", "share", "vocabulary", "order"])


def pairs(ov: Overlap) -> pd.DataFrame:
    """Every ordered pair of tokenizers (the diagonal too): shared tokens, tokens in either, Jaccard similarity.

    >>> ov = overlap([Vocab("A", {b"a": 0, b"b": 1}), Vocab("B", {b"a": 0, b"c": 1})])
    >>> pairs(ov).values.tolist()
    [['A', 'A', 2, 2, 1.0], ['A', 'B', 1, 3, 0.3333], ['B', 'A', 1, 3, 0.3333], ['B', 'B', 2, 2, 1.0]]
    """
    rows = []
    for i, a in enumerate(ov.labels):
        for j, b in enumerate(ov.labels):
            rows.append(
                {"a": a, "b": b, "shared": ov.shared(i, j), "either": ov.union(i, j), "jaccard": round(ov.jaccard(i, j), 4)}
            )
    return pd.DataFrame(rows, columns=["a", "b", "shared", "either", "jaccard"])


def longest_only(ov: Overlap, i: int, n: int = 20) -> pd.DataFrame:
    """The ``n`` longest tokens (by bytes; ties: lower id first) that vocabulary ``i`` holds and no other does.

    >>> ov = overlap([Vocab("A", {b"abc": 3, b"xyz": 2, b"a": 0}), Vocab("B", {b"a": 0})])
    >>> longest_only(ov, 0)[["id", "token", "bytes"]].values.tolist()
    [[2, 'xyz', 3], [3, 'abc', 3]]
    """
    bit = 1 << i
    ids = ov.vocabs[i].ids
    only = [ov.tokens[k] for k in np.flatnonzero(ov.masks == bit)]
    top = heapq.nsmallest(n, only, key=lambda t: (-len(t), ids[t]))
    return pd.DataFrame(
        {"id": [ids[t] for t in top], "token": [visible(t) for t in top], "bytes": [len(t) for t in top]},
        columns=["id", "token", "bytes"],
    )


WHERE_ALL, WHERE_SHARED = "all", "shared"


def where_choices(labels: Sequence[str]) -> dict[str, str]:
    """The table's filter: every token, those every tokenizer holds, or those only one holds (``"only:<i>"``).

    >>> where_choices(["A", "B"])
    {'all': 'Every token', 'shared': 'Shared by all', 'only:0': 'Only in A', 'only:1': 'Only in B'}
    """
    return {
        WHERE_ALL: "Every token",
        WHERE_SHARED: "Shared by all",
        **{f"only:{i}": f"Only in {label}" for i, label in enumerate(labels)},
    }


def union_rows(ov: Overlap, where: str = WHERE_ALL, match: Callable[[Sequence[str]], Sequence[bool]] | None = None) -> np.ndarray:
    """Indices into ``ov.tokens`` of the tokens ``where`` selects whose text ``match`` accepts (all when None).

    ``match`` takes the candidates' texts and returns one bool each (the page passes a
    regex search with a time limit).

    >>> ov = overlap([Vocab("A", {b"a": 0, b"ab": 1}), Vocab("B", {b"a": 0, b"b": 1})])
    >>> [ov.tokens[k] for k in union_rows(ov, "only:0")], [ov.tokens[k] for k in union_rows(ov, match=lambda ts: ["b" in t for t in ts])]
    ([b'ab'], [b'b', b'ab'])
    """
    if where == WHERE_ALL:
        rows = np.arange(len(ov.tokens))
    elif where == WHERE_SHARED:
        rows = np.flatnonzero(ov.masks == ov.full)
    elif where.startswith("only:") and where[5:].isdigit() and int(where[5:]) < len(ov.labels):
        rows = np.flatnonzero(ov.masks == 1 << int(where[5:]))
    else:
        raise ValueError(f"unknown filter {where!r}: pick one of {', '.join(where_choices(ov.labels))}")
    if match is not None and len(rows):
        keep = np.asarray(match([ov.tokens[k].decode("utf-8", "replace") for k in rows]), dtype=bool)
        rows = rows[keep]
    return rows


def union_table(ov: Overlap, rows: np.ndarray, limit: int = ROWS) -> pd.DataFrame:
    """The first ``limit`` of ``rows``: the token, its length, how many of the tokenizers hold it, and each one's id.

    >>> ov = overlap([Vocab("A", {b"a": 0, b" ab": 1}), Vocab("B", {b"a": 7})])
    >>> union_table(ov, union_rows(ov)).to_dict("records")[1]
    {'token': '·ab', 'bytes': 3, 'in': 1, 'A id': 1, 'B id': None}
    """
    picked = [ov.tokens[k] for k in rows[:limit]]
    masks = ov.masks[rows[:limit]]
    out = pd.DataFrame(
        {
            "token": [visible(t) for t in picked],
            "bytes": [len(t) for t in picked],
            "in": [int(m).bit_count() for m in masks],
        }
    )
    for v in ov.vocabs:
        out[f"{v.label} id"] = pd.array([v.ids.get(t) for t in picked], dtype="Int64")
    return out


def special_overlap(vocabs: Sequence[Vocab]) -> tuple[dict[str, int], list[str]]:
    """``({label: special tokens}, the special-token strings every one of them has)``, compared by name.

    >>> special_overlap([Vocab("A", {}, frozenset({"<|endoftext|>", "<|fim|>"})), Vocab("B", {}, frozenset({"<|endoftext|>"}))])
    ({'A': 2, 'B': 1}, ['<|endoftext|>'])
    """
    counts = {v.label: len(v.special) for v in vocabs}
    common = sorted(frozenset.intersection(*(v.special for v in vocabs))) if vocabs else []
    return counts, common


# ---------------------------------------------------------------- one tokenizer's tokens under another


def target_pieces(target, data: bytes) -> list[int]:
    """The ids ``target`` gives for one token's bytes on their own.

    A token that is text is encoded as ordinary text (``encode_ordinary``: the split
    pattern, then BPE; a special-token string is text too); one that is not valid UTF-8
    on its own (part of a character) has no text to split, so BPE runs on its bytes
    (``encode_bytes``).

    >>> from tokenizer import Tokenizer
    >>> t = Tokenizer({(97, 98): 256})
    >>> target_pieces(t, b"abc"), target_pieces(t, "你".encode()[:2])
    ([256, 99], [228, 189])
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return target.encode_bytes(data)
    return target.encode_ordinary(text)


@dataclass(frozen=True)
class SplitUnder:
    """The ``source`` tokenizer's ordinary tokens (``ids``, ascending; ``tokens``, their bytes) and the number of
    tokens the ``target`` tokenizer needs for each on its own (``pieces``)."""

    source: str
    target: str
    ids: np.ndarray
    tokens: tuple[bytes, ...]
    pieces: np.ndarray
    seconds: float

    @property
    def mean(self) -> float:
        """Mean pieces per token."""
        return float(self.pieces.mean()) if len(self.pieces) else 0.0

    @property
    def whole(self) -> float:
        """Share of the source's tokens that the target keeps as one token."""
        return float((self.pieces == 1).mean()) if len(self.pieces) else 0.0

    @property
    def direction(self) -> str:
        """``source → target``: the source's tokens as the target's pieces."""
        return f"{self.source} → {self.target}"


def split_under(source: Vocab, target, target_label: str, progress: Callable[[int, int], None] | None = None) -> SplitUnder:
    """Every ordinary token of ``source`` encoded on its own by ``target`` (``target_pieces``); keeps the counts.

    >>> from tokenizer import Tokenizer
    >>> s = split_under(Vocab("A", {b"a": 0, b"ab": 1, b"abc": 2}), Tokenizer({(97, 98): 256}), "B")
    >>> s.pieces.tolist(), round(s.mean, 3), round(s.whole, 3), s.direction
    ([1, 1, 2], 1.333, 0.667, 'A → B')
    """
    t0 = time.perf_counter()
    order = sorted(source.ids.items(), key=lambda kv: kv[1])
    tokens = tuple(t for t, _ in order)
    total = len(tokens)
    counts = np.empty(total, dtype=np.int32)
    for k, data in enumerate(tokens):
        if progress is not None and k % BATCH == 0:
            progress(k, total)
        counts[k] = len(target_pieces(target, data))
    if progress is not None:
        progress(total, total)
    ids = np.fromiter((i for _, i in order), dtype=np.int64, count=total)
    return SplitUnder(source.label, target_label, ids, tokens, counts, time.perf_counter() - t0)


def piece_label(n: int, top: int = TOP_PIECES) -> str:
    """The chart's bar for ``n`` pieces.

    >>> piece_label(3), piece_label(8), piece_label(40)
    ('3', '8+', '8+')
    """
    return f"{top}+" if n >= top else str(n)


def histogram(splits: Sequence[SplitUnder], top: int = TOP_PIECES) -> pd.DataFrame:
    """Long form for the chart: one row per (direction, number of pieces), with the tokens and their share.

    >>> s = split_under(Vocab("A", {b"a": 0, b"ab": 1, b"abc": 2}), __import__("tokenizer").Tokenizer(), "B")
    >>> histogram([s])[["pieces", "tokens", "share"]].values.tolist()[:3]
    [['1', 1, 0.3333], ['2', 1, 0.3333], ['3', 1, 0.3333]]
    """
    labels = [piece_label(n, top) for n in range(1, top + 1)]
    rows = []
    for s in splits:
        clipped = np.minimum(s.pieces, top)
        found = np.bincount(clipped, minlength=top + 1)[1:]
        total = max(1, len(s.pieces))
        for label, n in zip(labels, found):
            rows.append({"direction": s.direction, "pieces": label, "tokens": int(n), "share": round(int(n) / total, 4)})
    return pd.DataFrame(rows, columns=["direction", "pieces", "tokens", "share"])


def split_rows(
    split: SplitUnder, *, least: int = 1, most: int | None = None, match: Callable[[Sequence[str]], Sequence[bool]] | None = None
) -> np.ndarray:
    """Indices into ``split.tokens`` of the tokens with ``least`` to ``most`` pieces (None: no upper bound) whose
    text ``match`` accepts, in the source's id order.

    >>> s = split_under(Vocab("A", {b"a": 0, b"ab": 1, b"abc": 2}), __import__("tokenizer").Tokenizer(), "B")
    >>> split_rows(s, least=2, most=2).tolist(), split_rows(s, least=2).tolist()
    ([1], [1, 2])
    >>> split_rows(s, match=lambda ts: [t.startswith("ab") for t in ts]).tolist()
    [1, 2]
    """
    keep = split.pieces >= least
    if most is not None:
        keep &= split.pieces <= most
    rows = np.flatnonzero(keep)
    if match is not None and len(rows):
        found = np.asarray(match([split.tokens[k].decode("utf-8", "replace") for k in rows]), dtype=bool)
        rows = rows[found]
    return rows


def split_table(split: SplitUnder, rows: np.ndarray, target, limit: int = ROWS) -> pd.DataFrame:
    """The first ``limit`` of ``rows``: the source's id and token, its length, and the target's pieces (re-encoded
    here, only for the rows shown).

    >>> from tokenizer import Tokenizer
    >>> s = split_under(Vocab("A", {b"a": 0, b" abc": 2}), Tokenizer({(97, 98): 256}), "B")
    >>> split_table(s, split_rows(s), Tokenizer({(97, 98): 256})).to_dict("records")[1]
    {'id': 2, 'token': '·abc', 'bytes': 4, 'pieces': 3, 'as B tokens': '· | ab | c'}
    """
    shown = rows[:limit]
    as_pieces = []
    for k in shown:
        ids = target_pieces(target, split.tokens[k])
        as_pieces.append(" | ".join(visible(b) for b in target.decode_tokens_bytes(ids)))
    return pd.DataFrame(
        {
            "id": split.ids[shown],
            "token": [visible(split.tokens[k]) for k in shown],
            "bytes": [len(split.tokens[k]) for k in shown],
            "pieces": split.pieces[shown],
            f"as {split.target} tokens": as_pieces,
        }
    )
