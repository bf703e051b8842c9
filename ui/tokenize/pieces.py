"""Cutting a text's tokens into pieces of at most N tokens, as plain data (no Streamlit).

What a context window, an embedding model or a retrieval index does with a long text
(asked for in Tiktokenizer's tracker, #22): the token ids the page shows are cut every
N ids, so piece *k* holds ids *kN* to *(k+1)N - 1* and only the last piece may be shorter.

* **The ids are what is cut, never the text**: joining the pieces' ids gives the text's
  ids, and joining their bytes gives the text's bytes.
* **A cut can fall inside a character**: a token may hold only some of a character's
  UTF-8 bytes (an emoji's first two bytes), and when the cut comes right after it, the
  character is shared by two pieces. Such a piece's text, decoded on its own, has U+FFFD
  (�) where the bytes of the broken character are; ``starts_inside`` / ``ends_inside``
  say so, and the page names the character.
* **Special tokens**: recognised, one is one id like any other: it counts as one token
  and is never split. Treated as text (the page's other setting), its string is
  ordinary text, several tokens that a cut may separate.
* **N larger than the text's tokens**: one piece holds them all.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

import pyarrow as pa

from tokenizer.display import visible
from tokenizer.trace import Span

#: The default number of tokens per piece: a few pieces of the default text at once.
DEFAULT_N = 16
MAX_N = 1_000_000
#: Rows of the pieces table and bars of the chart.
ROWS = 1_000


def _continues(byte: int) -> bool:
    """A UTF-8 continuation byte (10xxxxxx): it belongs to a character that began before it."""
    return 0x80 <= byte < 0xC0


@dataclass(frozen=True)
class Piece:
    """One piece: its position, its tokens (``spans``, with their offsets in the whole text), and where its cuts fall."""

    index: int
    spans: tuple[Span, ...]
    starts_inside: bool  # its first byte continues a character the piece before began
    ends_inside: bool  # its last character goes on in the next piece

    @property
    def ids(self) -> list[int]:
        return [s.id for s in self.spans]

    @property
    def data(self) -> bytes:
        return b"".join(s.bytes for s in self.spans)

    @property
    def text(self) -> str:
        """Its bytes as text; U+FFFD where a cut broke a character."""
        return self.data.decode("utf-8", "replace")

    @property
    def first(self) -> int:
        """The index (in the whole text) of its first token."""
        return self.spans[0].index

    @property
    def characters(self) -> int:
        """The characters it touches (one broken by a cut counts in both pieces)."""
        return self.spans[-1].end - self.spans[0].start

    @property
    def whole_characters(self) -> bool:
        return not (self.starts_inside or self.ends_inside)


def cut(spans: Sequence[Span], n: int) -> list[Piece]:
    """The text's tokens in pieces of at most ``n``.

    >>> from tokenizer.trace import make_spans
    >>> emoji = "😄".encode()
    >>> pieces = cut(make_spans([(1, b"a"), (2, emoji[:2]), (3, emoji[2:]), (4, b"b")]), 2)
    >>> [(p.ids, p.ends_inside, p.starts_inside) for p in pieces]
    [([1, 2], True, False), ([3, 4], False, True)]
    >>> pieces[0].text, pieces[1].text
    ('a�', '��b')
    >>> [p.ids for p in cut(make_spans([(1, b"a")]), 500)]
    [[1]]
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"A piece holds at least one token: give N as a whole number from 1 up, not {n!r}.")
    out: list[Piece] = []
    for k, lo in enumerate(range(0, len(spans), n)):
        chunk = tuple(spans[lo : lo + n])
        nxt = spans[lo + n] if lo + n < len(spans) else None
        starts_inside = bool(chunk[0].bytes) and _continues(chunk[0].bytes[0]) and lo > 0
        ends_inside = nxt is not None and bool(nxt.bytes) and _continues(nxt.bytes[0])
        out.append(Piece(k, chunk, starts_inside, ends_inside))
    return out


def broken_characters(pieces: Sequence[Piece]) -> list[tuple[int, str]]:
    """``(index of the piece after the cut, the character the cut breaks)`` for every cut inside a character.

    >>> from tokenizer.trace import make_spans
    >>> emoji = "😄".encode()
    >>> broken_characters(cut(make_spans([(1, b"a"), (2, emoji[:2]), (3, emoji[2:]), (4, b"b")]), 2))
    [(1, '😄')]
    """
    data = b"".join(p.data for p in pieces)
    out = []
    offset = 0
    for p in pieces:
        if p.starts_inside:  # the character began before the cut, maybe several pieces back (n = 1)
            start = offset
            while start > 0 and _continues(data[start]):
                start -= 1
            end = offset
            while end < len(data) and _continues(data[end]):
                end += 1
            out.append((p.index, data[start:end].decode("utf-8", "replace")))
        offset += len(p.data)
    return out


def table(pieces: Sequence[Piece], limit: int = ROWS) -> pa.Table:
    """One row per piece: its number (from 1), first token, tokens, characters, bytes, its start, whole characters.

    An Arrow table (``st.dataframe`` sends it as it is; a DataFrame is converted at every rerun).

    >>> from tokenizer.trace import make_spans
    >>> table(cut(make_spans([(1, b"ab"), (2, b" c"), (3, b"d")]), 2)).to_pylist()[0]
    {'piece': 1, 'first token': 0, 'tokens': 2, 'characters': 4, 'bytes': 4, 'starts with': 'ab·c', 'whole characters': True}
    """
    shown = pieces[:limit]
    data = [p.data for p in shown]
    return pa.table(
        {
            "piece": pa.array([p.index + 1 for p in shown], pa.int64()),
            "first token": pa.array([p.first for p in shown], pa.int64()),
            "tokens": pa.array([len(p.spans) for p in shown], pa.int64()),
            "characters": pa.array([p.characters for p in shown], pa.int64()),
            "bytes": pa.array([len(d) for d in data], pa.int64()),
            "starts with": pa.array([_preview(d) for d in data], pa.large_string()),
            "whole characters": pa.array([p.whole_characters for p in shown], pa.bool_()),
        }
    )


def _preview(data: bytes, limit: int = 40) -> str:
    text = visible(data[: limit * 4])
    return text if len(text) <= limit else text[: limit - 1] + "…"


def jsonl(pieces: Sequence[Piece]) -> str:
    """One JSON object per line and piece: ``index`` (from 0), ``text``, ``ids``, ``tokens`` (each token's text), and
    ``whole_characters`` (false when a cut broke a character at one of its ends: its text then has U+FFFD there, and
    its ``ids`` are what to keep).

    >>> from tokenizer.trace import make_spans
    >>> print(jsonl(cut(make_spans([(1, b"Hi"), (2, b" \\xc3\\xa9")]), 1)), end="")
    {"index": 0, "text": "Hi", "ids": [1], "tokens": ["Hi"], "whole_characters": true}
    {"index": 1, "text": " é", "ids": [2], "tokens": [" é"], "whole_characters": true}
    """
    lines = []
    for p in pieces:
        record = {
            "index": p.index,
            "text": p.text,
            "ids": p.ids,
            "tokens": [s.bytes.decode("utf-8", "replace") for s in p.spans],
            "whole_characters": p.whole_characters,
        }
        lines.append(json.dumps(record, ensure_ascii=False))
    return "\n".join(lines) + ("\n" if lines else "")
