"""Steps as data: the records that the pages draw (spans, merge steps, pair counts).

Everything here is a frozen dataclass or a pure function over them; nothing prints.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field

from .display import is_partial
from .errors import check_int

# UTF-8 continuation bytes (10xxxxxx): deleting them leaves one byte per character.
_CONTINUATION = bytes(range(0x80, 0xC0))


@dataclass(frozen=True, slots=True)
class Merge:
    """One learned merge: ``pair`` -> ``new_id``, the ``rank``-th merge (0-based).

    ``count`` is how often the pair occurred in the training text when it was chosen
    (``None`` for merges recovered from an official encoding's ranks).
    """

    rank: int
    pair: tuple[int, int]
    new_id: int
    count: int | None = None


@dataclass(frozen=True, slots=True)
class Span:
    """One token as it sits in the text, for display.

    ``start``/``end`` are character offsets: from the character holding the token's
    first byte to just after the one holding its last byte, so a token that holds
    only part of an emoji still points at that emoji. ``byte_start``/``byte_end``
    are exact.
    """

    index: int
    id: int
    bytes: bytes
    start: int
    end: int
    byte_start: int
    byte_end: int
    special: bool = False

    @property
    def partial(self) -> bool:
        """True when the token is not a whole number of characters."""
        return is_partial(self.bytes)


def make_spans(tokens: Sequence[tuple[int, bytes]], special_ids: frozenset[int] | set[int] = frozenset()) -> list[Span]:
    """Spans for ``[(id, token_bytes), ...]`` laid end to end.

    >>> [(s.start, s.end) for s in make_spans([(1, b"a"), (2, "😄".encode()[:2]), (3, "😄".encode()[2:])])]
    [(0, 1), (1, 2), (1, 2)]
    """
    spans = []
    chars = 0
    pos = 0
    for i, (tid, tb) in enumerate(tokens):
        n = len(tb)
        lead = len(tb.translate(None, _CONTINUATION))
        starts_inside = n > 0 and 0x80 <= tb[0] < 0xC0
        start = max(0, chars - 1) if starts_inside else chars
        chars += lead
        spans.append(Span(i, tid, tb, start, max(chars, start + (1 if n else 0)), pos, pos + n, tid in special_ids))
        pos += n
    return spans


@dataclass(frozen=True, slots=True)
class EncodeStep:
    """One step of encoding: merge rank ``rank`` applied everywhere at once.

    ``positions`` are the byte offsets in the text where each new token starts;
    ``n_tokens`` is the length of the sequence after the step.
    """

    step: int
    rank: int
    pair: tuple[int, int]
    new_id: int
    token: bytes
    positions: tuple[int, ...]
    n_tokens: int

    @property
    def count(self) -> int:
        return len(self.positions)


@dataclass(frozen=True)
class EncodeTrace:
    """How a text is encoded, one merge rank at a time (minbpe's encode loop, step by step).

    ``chunks`` are the pre-tokenisation pieces as character spans (special tokens are
    pieces of their own); ``steps[k-1]`` is step k. ``tokens_at(k)`` is the sequence
    after k steps: ``tokens_at(0)`` is the bytes, ``tokens_at(len(steps))`` equals
    ``encode``. Self-contained: it needs no tokenizer to be replayed. ``wholes`` are
    chunks taken whole as one token before any merge (a tiktoken-style vocabulary's
    tokens that no merge builds, ``Tokenizer.whole_tokens``), laid out like ``specials``.

    ``text`` and ``data`` are the model's view: the text as BPE sees it. When a model
    changes the text first (a normalizer, a tokenizer.json's prefix space), ``source`` is
    the text as typed and ``source_bytes[b]`` the bytes of ``source`` that byte ``b`` of
    ``data`` comes from; ``source_spans_at`` points into it. Both are None otherwise.
    """

    text: str
    data: bytes
    byte_ids: tuple[int, ...]
    chunks: tuple[tuple[int, int], ...]
    chunk_bytes: tuple[tuple[int, int], ...]
    specials: tuple[tuple[int, int, int], ...]  # (byte offset, byte length, id)
    steps: tuple[EncodeStep, ...]
    wholes: tuple[tuple[int, int, int], ...] = ()  # (byte offset, byte length, id)
    source: str | None = None  # the text as typed, when the model's view differs from it
    source_bytes: tuple[tuple[int, int], ...] | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.steps)

    @property
    def initial_count(self) -> int:
        """How many tokens the text is at step 0: one per byte, one per special token or whole chunk."""
        return len(self.data) - sum(length - 1 for _, length, _ in self.specials + self.wholes)

    def boundaries_at(self, k: int) -> list[tuple[int, int, int]]:
        """``[(byte_start, byte_end, id), ...]`` of the tokens after ``k`` steps."""
        k = check_int(k, "step", 0, len(self.steps))
        n = len(self.data)
        node_end = [0] * n
        node_id = [-1] * n
        for off, length, tid in self.specials + self.wholes:
            node_id[off] = tid
            node_end[off] = off + length
        for st in self.steps[:k]:
            length = len(st.token)
            for p in st.positions:
                # a merge that builds on a later one (Tokenizer: tiktoken-style vocabularies) is replayed
                # first; the later one then builds a part of it, which stays inside it
                if p + length > node_end[p]:
                    node_id[p] = st.new_id
                    node_end[p] = p + length
        out = []
        i = 0
        data = self.data
        byte_ids = self.byte_ids
        while i < n:
            tid = node_id[i]
            if tid >= 0:
                e = node_end[i]
                out.append((i, e, tid))
                i = e
            else:
                out.append((i, i + 1, byte_ids[data[i]]))
                i += 1
        return out

    def tokens_at(self, k: int) -> list[int]:
        """The token ids after ``k`` steps."""
        return [t for _, _, t in self.boundaries_at(k)]

    def spans_at(self, k: int) -> list[Span]:
        """Display spans after ``k`` steps."""
        data = self.data
        special_ids = frozenset(t for _, _, t in self.specials)
        return make_spans([(t, data[s:e]) for s, e, t in self.boundaries_at(k)], special_ids)

    def source_spans_at(self, k: int) -> list[Span]:
        """Display spans after ``k`` steps, with offsets into the text as typed (``source``).

        After the last step they are ``Tokenizer.encode_spans``.
        """
        spans = self.spans_at(k)
        if self.source_bytes is None:
            return spans
        return to_source(spans, self.source, self.source_bytes)

    @property
    def final(self) -> list[int]:
        return self.tokens_at(len(self.steps))


@dataclass(frozen=True, slots=True)
class PairCount:
    """A pair's count in the training text at some step, and where it first occurs."""

    pair: tuple[int, int]
    count: int
    first: tuple[int, int]  # (chunk index, byte offset in chunk): the tie-break


@dataclass(frozen=True, slots=True)
class MergeTree:
    """How a token was built: itself, and the two tokens merged into it (none for a byte)."""

    id: int
    bytes: bytes
    children: tuple[MergeTree, ...] = ()

    @property
    def depth(self) -> int:
        return 1 + max((c.depth for c in self.children), default=0)

    def leaves(self) -> list[MergeTree]:
        if not self.children:
            return [self]
        return [leaf for c in self.children for leaf in c.leaves()]


# ----------------------------------------------------------------------------- building them


def steps_from_events(
    events: list[tuple[int, int, int]], pairs: Sequence[tuple[int, int]], vocab: dict[int, bytes], n_tokens: int
) -> tuple[EncodeStep, ...]:
    """The steps of an encoding from its merge events ``(rank, byte position, new id)``: one step per rank, in rank order.

    ``n_tokens`` is the length of the sequence before the first step.

    >>> [(s.rank, s.positions, s.n_tokens) for s in steps_from_events([(0, 2, 9), (0, 0, 9)], [(97, 97)], {9: b"aa"}, 4)]
    [(0, (0, 2), 2)]
    """
    events = sorted(events)
    steps = []
    i = 0
    while i < len(events):
        r = events[i][0]
        j = i
        while j < len(events) and events[j][0] == r:
            j += 1
        new_id = events[i][2]
        n_tokens -= j - i
        steps.append(EncodeStep(len(steps) + 1, r, pairs[r], new_id, vocab[new_id], tuple(e[1] for e in events[i:j]), n_tokens))
        i = j
    return tuple(steps)


def char_spans(text: str, byte_spans: Sequence[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """Byte spans of ``text``'s UTF-8 as character spans: from the character holding the first byte
    to just after the one holding the last.

    >>> char_spans("aé!", [(0, 1), (1, 3), (3, 4)])
    ((0, 1), (1, 2), (2, 3))
    """
    if text.isascii():
        return tuple(byte_spans)
    starts = []
    pos = 0
    for ch in text:
        starts.append(pos)
        pos += len(ch.encode("utf-8", "surrogatepass"))

    def at(b: int) -> int:
        return max(0, bisect_right(starts, b) - 1)

    return tuple((at(a), at(b - 1) + 1 if b > a else at(a)) for a, b in byte_spans)


def to_source(spans: Sequence[Span], source: str, source_bytes: Sequence[tuple[int, int]] | None) -> list[Span]:
    """Spans over a model's view of a text as spans over the text as typed.

    ``source_bytes[b]`` is the bytes of ``source`` that byte ``b`` of the view comes from
    (None: the view is ``source`` itself). A token covers the bytes its own bytes come from,
    and the characters that hold them.

    >>> view = make_spans([(1, b" a"), (2, "é".encode())])  # " a" + "é", from "a" + "e" + U+0301
    >>> [(s.start, s.end, s.byte_start, s.byte_end) for s in to_source(view, "ae\u0301", [(0, 1), (0, 1), (1, 4), (1, 4)])]
    [(0, 1, 0, 1), (1, 3, 1, 4)]
    """
    if source_bytes is None:
        return list(spans)
    byte_spans = []
    for s in spans:
        if s.byte_end > s.byte_start:
            covered = source_bytes[s.byte_start : s.byte_end]
            byte_spans.append((min(a for a, _ in covered), max(b for _, b in covered)))
        else:
            at = (
                source_bytes[s.byte_start][0]
                if s.byte_start < len(source_bytes)
                else (source_bytes[-1][1] if source_bytes else 0)
            )
            byte_spans.append((at, at))
    chars = char_spans(source, byte_spans)
    return [Span(s.index, s.id, s.bytes, c0, c1, b0, b1, s.special) for s, (c0, c1), (b0, b1) in zip(spans, chars, byte_spans)]
