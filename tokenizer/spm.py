"""A SentencePiece-style BPE vocabulary (``bpe.sentencepiece``) behind the Tokenizer's interface, for every page.

Pages ask a Tokenizer for ids, spans, token bytes, merge trees and ranks; this one answers them for the
other kind of BPE. Encoding is ``SentencePieceBPE``'s (characters merged by score, byte fallback), so
the ids are exactly llama.cpp's; the rest is laid out as for byte-level BPE:

- a token's bytes are its piece's text with ``▁`` as the space it stands for (``<0x41>`` is the byte
  0x41), so spans, decoding and the whitespace toggle treat both kinds alike;
- the model's view of a text is the text with the dummy prefix's space in front of each stretch of
  ordinary text (after a special token too, as llama.cpp does), a typed ``▁`` read as the space it is;
- a merged piece's "merge" is the pair it is made of when its own characters are encoded with the
  pieces ranked before it (as minbpe recovers tiktoken's merges), its rank its place by score, so merge
  trees end at characters, the symbols SentencePiece starts from; a piece its own characters never
  reach is a token no merge builds.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any, Literal

from .bpe.merges import MergeTable
from .bpe.sentencepiece import SPACE, SentencePieceBPE
from .core import Tokenizer
from .errors import check_bytes, check_int, clean_text
from .pretokenize.pretokenizer import Piece, _cut, source_bytes
from .protocol import TokenizerLike
from .trace import EncodeTrace, char_spans, steps_from_events

#: How this kind differs from byte-level BPE, in one line (pages show it under the model's name).
DIFFERENCE = (
    "SentencePiece-style BPE: spaces are ▁ and one goes before the text, merges join characters (not bytes) and "
    "follow each piece's score (not a merge rank), and a character with no piece falls back to <0x..> byte tokens."
)
#: The same for a model of this kind ordered by a merge list (Gemma 4).
MERGE_LIST_DIFFERENCE = (
    "SentencePiece-style BPE: spaces are ▁, the text is cut at runs of newlines, merges join characters (not bytes) "
    "in the order of the model's merge list, and a character with no piece falls back to <0x..> byte tokens."
)


def difference(tok: TokenizerLike) -> str | None:
    """The line that says how ``tok`` differs from byte-level BPE, or None for byte-level BPE."""
    if tok.kind != "sentencepiece":
        return None
    return MERGE_LIST_DIFFERENCE if tok.model.merge_rank is not None else DIFFERENCE


def difference_note(toks: Iterable[TokenizerLike]) -> str | None:
    """How those of ``toks`` of this kind differ (pages show it in one line: each distinct line once), else None.

    >>> difference_note([]) is None
    True
    """
    lines = dict.fromkeys(d for d in map(difference, toks) if d is not None)
    return " ".join(lines) or None


class SentencePiecePreTokenizer:
    """The model's view: special tokens cut out, each stretch of text after the dummy prefix's space (no split).

    A stretch starts the text or follows an allowed special token; under llama.cpp's rules a user-defined piece
    (``always``) ends one too, under the sentencepiece package's (``prefix_after_always`` false) it sits inside its
    stretch, so a stretch that begins with one has the prefix's space as a chunk of its own before it.
    """

    pattern = None
    name = "sentencepiece"
    normalizer = None
    ignore_merges = False

    def __init__(self, add_space_prefix: bool, always: Mapping[str, int], prefix_after_always: bool = True):
        self.add_space_prefix = add_space_prefix
        self.always = dict(always)  # user-defined pieces: found in any text, as llama.cpp and sentencepiece find them
        self.prefix_after_always = prefix_after_always
        self._always_ids = frozenset(self.always.values())

    def budget(self):
        return None

    def _fragments(self, text: str, allowed: Mapping[str, int]) -> list[tuple[str, int | None]]:
        return _cut(text, {**self.always, **allowed})

    def view(self, fragment: str, after_token: bool) -> tuple[str, tuple[tuple[int, int], ...] | None, int]:
        """``(chunk, align, typed bytes)``: one stretch of typed text as the model sees it, spaces as spaces."""
        prefix = " " if self.add_space_prefix and after_token else ""
        chunk = prefix + fragment.replace(SPACE, " ")
        n = len(fragment.encode("utf-8"))
        if chunk == fragment:
            return chunk, None, n
        align: list[tuple[int, int]] = [(0, 0)] * len(prefix)  # the inserted space comes from no typed byte
        pos = 0
        for ch in fragment:
            k = len(ch.encode("utf-8"))
            align.extend([(pos, pos + k)] if ch == SPACE else [(pos + i, pos + i + 1) for i in range(k)])
            pos += k
        return chunk, tuple(align), n

    def pieces(self, text: str, allowed: Mapping[str, int], budget=None) -> list[Piece]:
        out: list[Piece] = []
        pos = 0
        after_token = True
        for fragment, tid in self._fragments(text, allowed):
            n = len(fragment.encode("utf-8"))
            if tid is not None and not self.prefix_after_always and tid in self._always_ids:
                if after_token and self.add_space_prefix:
                    out.append(Piece(" ", None, pos, pos, ((pos, pos),)))  # the prefix's space, from no typed byte
                out.append(Piece(None, tid, pos, pos + n))
                after_token = False
            elif tid is not None:
                out.append(Piece(None, tid, pos, pos + n))
                after_token = True
            else:
                chunk, align, _ = self.view(fragment, after_token)
                if align is not None:
                    align = tuple((pos + a, pos + b) for a, b in align)
                out.append(Piece(chunk, None, pos, pos + n, align))
                after_token = False
            pos += n
        return out

    def encode(self, encoder, text: str, allowed: Mapping[str, int], budget=None) -> list[int]:
        return encoder.encode_pieces(self.pieces(text, allowed))

    def split(self, text: str) -> list[str]:
        return [p.chunk for p in self.pieces(text, {}) if p.chunk is not None]

    def __repr__(self) -> str:
        return "SentencePiecePreTokenizer()"


class _NoCache:
    """SentencePiece encodes the whole text at once: there are no chunks to cache."""

    def clear(self) -> None:
        pass

    def __contains__(self, item) -> bool:
        return False


class SentencePieceEngine:
    """What a Tokenizer asks of its encoder, answered by ``SentencePieceBPE`` on the model's view (spaces as spaces)."""

    def __init__(self, model: SentencePieceBPE, max_rank: int | None = None):
        self.model = model
        self.max_rank = max_rank
        self.whole: dict[bytes, int] = {}  # no whole-chunk shortcut: every text is merged
        self.cache = _NoCache()

    def _limit(self, max_rank: int | None) -> int | None:
        if max_rank is None or max_rank < 0:
            return self.max_rank
        return max_rank if self.max_rank is None else min(max_rank, self.max_rank)

    def encode_chunk(self, chunk: str | bytes, max_rank: int | None = None) -> list[int]:
        text = chunk if isinstance(chunk, str) else chunk.decode("utf-8", "replace")
        return self.model.merge_text(text.replace(" ", SPACE), self._limit(max_rank))

    def encode_bytes(self, data: bytes, max_rank: int | None = -1) -> list[int]:
        return self.encode_chunk(data, max_rank)

    def encode_chunks(self, chunks: Iterable[str]) -> list[int]:
        out: list[int] = []
        for c in chunks:
            out.extend(self.encode_chunk(c))
        return out

    def encode_many(self, chunks: Sequence[bytes]) -> list[tuple[int, ...]]:
        return [tuple(self.encode_chunk(c)) for c in chunks]

    def encode_pieces(self, pieces: Iterable[Piece]) -> list[int]:
        out: list[int] = []
        for p in pieces:
            if p.token is not None:
                out.append(p.token)
            else:
                out.extend(self.encode_chunk(p.chunk))
        return out

    def merge_events(self, data: bytes) -> list[tuple[int, int, int]]:
        """``(rank, byte position in data, new id)`` of each merge SentencePiece makes, in the order it makes them."""
        text = data.decode("utf-8", "replace")
        events: list[tuple[int, int, int]] = []
        self.model.merge_text(text.replace(" ", SPACE), self._limit(None), events)
        starts, pos = [], 0
        for ch in text:
            starts.append(pos)
            pos += len(ch.encode("utf-8"))
        return [(rank, starts[i], tid) for rank, i, tid in events]


class SentencePieceTokenizer(Tokenizer):
    """A SentencePiece-style BPE model with the Tokenizer's interface (see the module's docstring).

    ``special_tokens`` are its control and unknown pieces (``<s>``, ``</s>``, ``<unk>``): text only when allowed, as
    for byte-level models; user-defined pieces are found in any text, as llama.cpp finds them.
    """

    kind = "sentencepiece"

    def __init__(
        self,
        model: SentencePieceBPE,
        *,
        name: str = "",
        metadata: Mapping[str, Any] | None = None,
        special_tokens: Mapping[str, int] | None = None,
        max_rank: int | None = None,
        _merges: tuple[MergeTable, frozenset[int]] | None = None,
    ):
        if not isinstance(model, SentencePieceBPE):
            raise ValueError("give a SentencePieceBPE model (tokenizer.bpe.sentencepiece), e.g. SentencePieceBPE.from_gguf(meta)")
        self.model = model
        self.max_rank = max_rank
        if special_tokens is None:
            special_tokens = {p: i for i, (p, t) in enumerate(zip(model.pieces, model.types)) if t in (2, 3)}
        super().__init__((), special_tokens=special_tokens, byte_ids=_byte_ids(model), name=name, metadata=metadata)
        llama_cpp = model.rules == "llama.cpp"
        # sentencepiece keeps a one-character user-defined piece as one symbol too; llama.cpp merges it as a character
        always = {p: i for i, (p, t) in enumerate(zip(model.pieces, model.types)) if t == 4 and (len(p) > 1 or not llama_cpp)}
        self.pretokenizer = SentencePiecePreTokenizer(model.add_space_prefix, always, prefix_after_always=llama_cpp)
        table, unreached = _merges if _merges is not None else _recover(model)
        if max_rank is not None:
            table = MergeTable(table.pairs[:max_rank], table.new_ids[:max_rank])
        self._pairs, self._ids, self._counts, self._order = table.pairs, table.new_ids, None, None
        self._all_merges = (table, unreached) if max_rank is None else _merges
        # pieces no merge builds (single characters aside): their characters never reach them
        self.whole_tokens = {} if max_rank is not None else {i: self._piece_bytes(i) for i in sorted(unreached)}

    def _piece_bytes(self, tid: int) -> bytes:
        m = self.model
        if m.types[tid] == 6:
            return bytes([int(m.pieces[tid][3:5], 16)])
        return m.pieces[tid].replace(SPACE, " ").encode("utf-8")

    @functools.cached_property
    def vocab(self) -> dict[int, bytes]:
        """``{id: bytes}`` of every piece: ``▁`` as a space, ``<0xNN>`` as its byte, a special piece as its text."""
        out = {i: self._piece_bytes(i) for i in range(self.model.n_vocab)}
        out.update((tid, tok.encode("utf-8")) for tok, tid in self.special_tokens.items())
        return out

    @property
    def n_vocab(self) -> int:
        return max(self.model.n_vocab, *[i + 1 for i in self.special_tokens.values()])

    def merged_lengths(self) -> list[int]:
        return [len(self.vocab[i]) for i in self._ids]

    @functools.cached_property
    def _bytes_to_id(self) -> dict[bytes, int]:
        # a character's own piece before the byte token of the same byte (``A`` before ``<0x41>``)
        out: dict[bytes, int] = {}
        specials = self.special_ids
        for tid in sorted(self.vocab, key=lambda i: (self.is_byte_token(i), i)):
            if tid not in specials:
                out.setdefault(self.vocab[tid], tid)
        return out

    def piece(self, tid: int) -> str:
        """Token ``tid`` as the model's file spells it (``▁the``, ``<0x0A>``, ``<s>``)."""
        return self.model.pieces[check_int(tid, "tid", 0, self.model.n_vocab - 1)]

    def is_byte_token(self, tid: int) -> bool:
        """Whether ``tid`` is one of the 256 byte-fallback tokens ``<0x00>``…``<0xFF>``."""
        return 0 <= tid < self.model.n_vocab and self.model.types[tid] == 6

    def _model_rank(self, k: int | None) -> int | None:
        """The piece rank (``SentencePieceBPE.rank``) below which the first ``k`` merges' pieces lie (None: all)."""
        ids = self._all_merges[0].new_ids
        return None if k is None or k >= len(ids) else self.model.rank[ids[k]]

    def _build_encoder(self) -> SentencePieceEngine:
        return SentencePieceEngine(self.model, self._model_rank(self.max_rank))

    def __repr__(self) -> str:
        label = f" {self.name!r}" if self.name else ""
        return f"<SentencePieceTokenizer{label}: n_vocab={self.n_vocab}, {self.num_merges} merged pieces>"

    def _again(self, **changes) -> SentencePieceTokenizer:
        args = {"name": self.name, "metadata": self.metadata, "special_tokens": self.special_tokens, "max_rank": self.max_rank}
        args.update(changes)
        tok = SentencePieceTokenizer(self.model, _merges=self._all_merges, **args)
        if tok.max_rank == self.max_rank:
            tok._encoder = self._engine()
        return tok

    def truncated(self, k: int) -> SentencePieceTokenizer:
        """This model with only its ``k`` best-scored merged pieces (the others are never made)."""
        return self._again(max_rank=check_int(k, "k", 0, len(self._all_merges[0].new_ids)))

    def with_special_tokens(self, extra: Mapping[str, int], *, name: str | None = None) -> SentencePieceTokenizer:
        return self._again(special_tokens={**self.special_tokens, **extra}, name=self.name if name is None else name)

    def extended(self, *args, **kwargs):
        raise ValueError("continued training adds byte-level merges; a SentencePiece-style model has none to add to")

    def encode_bytes(self, data: bytes, max_rank: int | None = None) -> list[int]:
        """Encode ``data`` as the model's view of one stretch of text (no dummy prefix added), with only the first
        ``max_rank`` merged pieces (all if None)."""
        data = check_bytes(data, "data")
        if max_rank is not None:
            max_rank = check_int(max_rank, "max_rank", 0, self.num_merges)
        return self._engine().encode_bytes(data, self._model_rank(max_rank))

    def decode(self, ids: Iterable[int], errors: str = "replace") -> str:
        """The text of ``ids`` as SentencePiece decodes it: special pieces dropped, and the dummy prefix's space."""
        ids = [i for i in ids if i not in self.special_ids]
        text = super().decode(ids, errors)
        # the prefix is the first piece's ▁, as sentencepiece drops it: a byte token <0x20> is a space it keeps
        first = ids[0] if ids else None
        if self.model.add_space_prefix and first is not None and not self.is_byte_token(first) and text.startswith(" "):
            return text[1:]
        return text

    def decode_with_offsets(self, tokens: Sequence[int]) -> tuple[str, list[int]]:
        """``decode``'s text and where each token starts in it (the dropped prefix's token starts at 0)."""
        tokens = list(tokens)
        ordinary = [t for t in tokens if t not in self.special_ids]  # special pieces decode to nothing, as in decode
        text, offsets = super().decode_with_offsets(ordinary)
        starts = iter(reversed(offsets))
        out, at = [], len(text)  # a special piece starts where the next ordinary token does (or at the end)
        for t in reversed(tokens):
            if t not in self.special_ids:
                at = next(starts)
            out.append(at)
        out.reverse()
        if self.decode(ordinary) == text:
            return text, out
        return text[1:], [max(0, o - 1) for o in out]

    def encode_trace(
        self,
        text: str,
        *,
        allowed_special: Literal["all"] | Collection[str] = frozenset(),
        disallowed_special: Literal["all"] | Collection[str] = (),
    ) -> EncodeTrace:
        """Encode step by step, as for byte-level BPE: each step makes one merged piece everywhere at once, in rank
        (score) order. SentencePiece starts from characters, so a character with a piece of its own is that piece
        from step 0 (``EncodeTrace.wholes``); one without stays its bytes, each its byte-fallback token."""
        text = clean_text(text)
        allowed = self._allowed(text, allowed_special, disallowed_special)
        vocab, special_ids, engine, model = self.vocab, self.special_ids, self._engine(), self.model
        parts: list[bytes] = []
        chunk_bytes: list[tuple[int, int]] = []
        specials: list[tuple[int, int, int]] = []
        wholes: list[tuple[int, int, int]] = []
        events: list[tuple[int, int, int]] = []
        pos = 0
        pieces = self.pretokenizer.pieces(text, allowed)
        for p in pieces:
            if p.token is not None:
                data = vocab[p.token]
                (specials if p.token in special_ids else wholes).append((pos, len(data), p.token))
            else:
                data = p.chunk.encode("utf-8")
                at = pos
                for ch in p.chunk:
                    n = len(ch.encode("utf-8"))
                    tid = model.piece_to_id.get(ch) if n > 1 else None
                    if tid is not None and not self.is_byte_token(tid):
                        wholes.append((at, n, tid))
                    at += n
                for start, word in model.words(p.chunk):
                    tid = model.whole_word(word.replace(" ", SPACE))
                    if tid is not None:  # a run of newlines that is a piece: that piece from step 0, as llama.cpp takes it
                        at = pos + len(p.chunk[:start].encode("utf-8"))
                        wholes.append((at, len(word.encode("utf-8")), tid))
                for _, q, new_id in engine.merge_events(data):
                    rank = self.rank_of.get(new_id)
                    if rank is None:
                        raise ValueError(f"piece {model.pieces[new_id]!r} is made by no merge of its own characters")
                    events.append((rank, pos + q, new_id))
            parts.append(data)
            chunk_bytes.append((pos, pos + len(data)))
            pos += len(data)
        data = b"".join(parts)
        view = data.decode("utf-8", "replace")
        n_tokens = len(data) - sum(length - 1 for _, length, _ in specials + wholes)
        source = source_bytes(pieces, vocab, text)
        return EncodeTrace(
            view,
            data,
            self.byte_ids,
            char_spans(view, chunk_bytes),
            tuple(chunk_bytes),
            tuple(specials),
            steps_from_events(events, self._pairs, vocab, n_tokens),
            tuple(wholes),
            source=text if source is not None else None,
            source_bytes=tuple(source) if source is not None else None,
        )

    def merge_curve(self, text: str) -> tuple[int, list[int]]:
        """``(characters, lengths)``: the view's characters, and its tokens after the first ``k`` merged pieces, for
        every ``k`` (special-token strings as text)."""
        text = clean_text(text)
        pieces = self.pretokenizer.pieces(text, {})
        chunks = [p.chunk for p in pieces if p.chunk is not None]
        n = sum(len(c) for c in chunks)
        engine = self._engine()
        limits = [self._model_rank(k) for k in range(self.num_merges)] + [engine.max_rank]
        return n, [sum(len(engine.encode_chunk(c, r)) for c in chunks) for r in limits]


def _byte_ids(model: SentencePieceBPE) -> list[int]:
    """The token of each byte alone: its character's piece for an ASCII byte that has one (a space: ``▁``), else its
    byte-fallback token."""
    out = []
    for b in range(256):
        ch = SPACE if b == 0x20 else chr(b)
        tid = model.piece_to_id.get(ch) if b < 0x80 else None
        out.append(tid if tid is not None and model.types[tid] == 1 else model.byte_ids[b])
    return out


def _recover(model: SentencePieceBPE) -> tuple[MergeTable, frozenset[int]]:
    """Each merged piece's pair: its characters encoded with the pieces ranked before it, when that gives two tokens,
    else its first cut into two better-ranked pieces; a piece with neither is a token no merge builds."""
    if model.merge_rank is not None:  # the merges are the file's: each piece's pair is the first merge that makes it
        made = set(model.merged_ids)
        unreached = {i for i, (p, t) in enumerate(zip(model.pieces, model.types)) if t == 1 and len(p) > 1 and i not in made}
        return MergeTable(model.merge_pairs, model.merged_ids), frozenset(unreached)
    pairs, new_ids, unreached = [], [], set()
    for rank, tid in enumerate(model.merged_ids):
        parts = model._merge(list(model.pieces[tid]), rank)
        if len(parts) != 2:
            # its own characters end otherwise (sixteen ▁ end as 15 + 1), but in a longer text it is made from two
            # better-scored pieces: the first cut into two of them is its pair
            text = model.pieces[tid]
            cuts = [(text[:i], text[i:]) for i in range(1, len(text))]
            ok = [
                (model.piece_to_id[a], model.piece_to_id[b])
                for a, b in cuts
                if all(model.piece_to_id.get(x) is not None and model.rank.get(model.piece_to_id[x], -1) < rank for x in (a, b))
            ]
            if not ok:
                unreached.add(tid)
                continue
            parts = list(ok[0])
        pairs.append((parts[0], parts[1]))
        new_ids.append(tid)
    return MergeTable(pairs, new_ids), frozenset(unreached)
