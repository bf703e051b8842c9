"""What the Tokenize and Compare pages compute, as plain data (no Streamlit here).

Counts, token and byte tables, per-tokenizer statistics and the boundary diff
between tokenizers. The pages draw what these functions return.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from tokenizer import clean_text, visible
from tokenizer.trace import Span

#: Pasted text above this many characters is cut here (about 200 kB of English);
#: the page says so and tokenizes the first part. It keeps a rerun well under a second.
MAX_CHARS = 200_000
#: Spans drawn as HTML on the Tokenize page; counts, ids and tables cover every token.
SPAN_LIMIT = 2_500
#: Spans drawn per tokenizer on the Compare page.
COMPARE_SPAN_LIMIT = 1_200
#: Rows in the bytes view (one per character) and the boundary-diff table.
BYTES_ROWS = 2_000
DIFF_ROWS = 300

_WORD = re.compile(r"\w+")


def clip(text: str, limit: int = MAX_CHARS) -> tuple[str, int]:
    """``(first part, characters left out)``.

    >>> clip("abcdef", 4)
    ('abcd', 2)
    """
    if len(text) <= limit:
        return text, 0
    return text[:limit], len(text) - limit


def encode(tok, text: str, *, recognise_special: bool) -> list[int]:
    """Encode with one of the two special-token modes of the pages.

    ``recognise_special=False``: special-token strings such as ``<|endoftext|>`` are
    ordinary text (what OpenAI's tokenizer page does, and never an error);
    ``True``: they become their single special id (what Tiktokenizer does).
    """
    if recognise_special:
        return tok.encode(text, allowed_special="all")
    return tok.encode(text, disallowed_special=())


@dataclass(frozen=True)
class Counts:
    tokens: int
    characters: int
    bytes: int

    @property
    def chars_per_token(self) -> float:
        return self.characters / self.tokens if self.tokens else 0.0

    @property
    def bytes_per_token(self) -> float:
        return self.bytes / self.tokens if self.tokens else 0.0


def counts(text: str, ids: Sequence[int]) -> Counts:
    """Tokens, characters (code points) and UTF-8 bytes of a text.

    >>> c = counts("Hello 你好", [9906, 220, 57668, 53901]); (c.characters, c.bytes, c.chars_per_token)
    (8, 12, 2.0)
    """
    text = clean_text(text)
    return Counts(len(ids), len(text), len(text.encode("utf-8")))


def spaced_hex(data: bytes, limit: int = 64) -> str:
    """``b"\\xe4\\xbd\\xa0"`` -> ``"E4 BD A0"`` (long tokens end with ``…``)."""
    out = " ".join(f"{b:02X}" for b in data[:limit])
    return out + (" …" if len(data) > limit else "")


def token_table(spans: Sequence[Span]) -> pd.DataFrame:
    """One row per token: index, id, visible text, bytes (hex), and what kind it is."""
    return pd.DataFrame(
        {
            "index": [s.index for s in spans],
            "id": [s.id for s in spans],
            "text": [visible(s.bytes) for s in spans],
            "bytes": [spaced_hex(s.bytes) for s in spans],
            "kind": ["special" if s.special else ("part of a character" if s.partial else "") for s in spans],
        }
    )


def bytes_table(text: str, limit: int = BYTES_ROWS) -> pd.DataFrame:
    """One row per character (code point): what it is and its UTF-8 bytes.

    >>> bytes_table("a你").to_dict("list")["utf-8 bytes"]
    ['61', 'E4 BD A0']
    """
    rows = {"char": [], "code point": [], "utf-8 bytes": [], "n bytes": [], "byte offset": []}
    offset = 0
    for i, ch in enumerate(clean_text(text)):
        data = ch.encode("utf-8")
        if i < limit:
            rows["char"].append(visible(data))
            rows["code point"].append(f"U+{ord(ch):04X}")
            rows["utf-8 bytes"].append(spaced_hex(data))
            rows["n bytes"].append(len(data))
            rows["byte offset"].append(offset)
        offset += len(data)
    return pd.DataFrame(rows)


def byte_histogram(text: str) -> dict[int, int]:
    """How many characters take 1, 2, 3 and 4 UTF-8 bytes.

    >>> byte_histogram("Hello 你好😄")
    {1: 6, 2: 0, 3: 2, 4: 1}
    """
    out = {1: 0, 2: 0, 3: 0, 4: 0}
    for ch in clean_text(text):
        out[len(ch.encode("utf-8"))] += 1
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
    """The Compare page's statistics for one tokenizer."""
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
