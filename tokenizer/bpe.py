"""The Tokenizer: one canonical model (merges, split pattern, special tokens) and
everything derived from it: vocab, encoding, decoding, spans and traces.

The API follows tiktoken's ``Encoding`` where one exists (``encode``,
``encode_ordinary``, ``decode``, ``decode_bytes``, ``decode_tokens_bytes``).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

import regex

from . import engine_py
from .patterns import Splitter, pattern_name, resolve_pattern
from .trace import EncodeStep, EncodeTrace, Merge, MergeTree, Span, make_spans

if TYPE_CHECKING:  # annotations only: trainer.py imports this module
    from .trainer import TrainingTrace

Pair = tuple[int, int]
_IDENTITY = tuple(range(256))
# Held while a tokenizer builds its encoder, so threads sharing one build it once. One
# lock for all (not one per tokenizer) keeps Tokenizers picklable; builds are rare.
_ENCODER_LOCK = threading.Lock()


class MergeTable(NamedTuple):
    """Merges as three parallel lists: the compact form a Tokenizer keeps.

    Plain tuples of ints are not tracked by Python's garbage collector, so a
    200,000-merge encoding adds nothing to every collection; ``Merge`` records are
    made only when ``merge_list`` is asked for.
    """

    pairs: list[Pair]
    new_ids: list[int]
    counts: list[int | None] | None = None


def clean_text(text: str) -> str:
    """Replace lone surrogates with U+FFFD, exactly as tiktoken does before encoding."""
    if not isinstance(text, str):
        raise ValueError(f"text must be a str, not {type(text).__name__}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


class Tokenizer:
    """A byte-level BPE tokenizer.

    ``merges`` maps ``(left, right)`` to the new id, in merge order (minbpe's
    convention); it may also be given as a sequence of ``Merge`` records. Ids
    ``byte_ids[b]`` are the single bytes (``0..255`` in order unless the tokenizer
    comes from an official encoding, whose byte tokens are shuffled). ``training``
    is what training saw (a ``TrainingTrace``), for a tokenizer just trained.

    Other ways to make one: ``train()``, ``Tokenizer.from_ranks`` (tiktoken-style
    ranks), ``load_encoding`` (a registered encoding), ``formats.load`` (a file).

    Threads may share a Tokenizer: encoding changes nothing a caller can see (its
    chunk cache is safe to share, see ``engine_py.ChunkCache``).

    >>> tok = Tokenizer({(97, 97): 256, (256, 97): 257})
    >>> tok.encode("aaab")
    [257, 98]
    >>> tok.decode([257, 98])
    'aaab'
    """

    def __init__(
        self,
        merges: Mapping[Pair, int] | Sequence[Merge] | MergeTable = (),
        *,
        pattern: str | None = None,
        special_tokens: Mapping[str, int] | None = None,
        byte_ids: Sequence[int] | None = None,
        name: str = "",
        metadata: Mapping[str, Any] | None = None,
        training: TrainingTrace | None = None,
    ):
        if isinstance(merges, MergeTable):
            table = merges
        elif isinstance(merges, Mapping):
            table = MergeTable([(int(a), int(b)) for a, b in merges], [int(v) for v in merges.values()])
        else:
            merges = list(merges)
            counts = [m.count for m in merges]
            table = MergeTable([(m.pair[0], m.pair[1]) for m in merges], [m.new_id for m in merges], counts if any(c is not None for c in counts) else None)
        self._pairs: list[Pair] = table.pairs
        self._ids: list[int] = table.new_ids
        self._counts: list[int | None] | None = table.counts
        self.byte_ids: tuple[int, ...] = tuple(byte_ids) if byte_ids is not None else _IDENTITY
        self.pattern: str | None = resolve_pattern(pattern)
        self.special_tokens: dict[str, int] = dict(special_tokens or {})
        self.name = name
        self.metadata: dict[str, Any] = dict(metadata or {})
        self.training = training  # a TrainingTrace when this tokenizer was just trained
        # ids whose bytes are known to encode to themselves (None: checked when the encoder is built)
        self._self_encoding: frozenset[int] | None = None
        self._encoder: engine_py.PyEncoder | None = None  # built on first use, see _engine
        self._check()
        self._splitter = Splitter(self.pattern)

    @classmethod
    def from_ranks(
        cls,
        ranks: Mapping[bytes, int],
        *,
        pattern: str | None,
        special_tokens: Mapping[str, int] | None = None,
        name: str = "",
        metadata: Mapping[str, Any] | None = None,
        merges: MergeTable | None = None,
    ) -> Tokenizer:
        """A Tokenizer from tiktoken-style mergeable ranks ``{token bytes: rank}``.

        A token's rank is its id. The merges are recovered from the ranks
        (``engine_py.recover_merges``) unless ``merges`` brings them: a table recovered
        earlier from the same ranks (``pretrained`` keeps one on disk), trusted as such.

        >>> ranks = {**{bytes([b]): b for b in range(256)}, b"ab": 256, b"abc": 257}
        >>> Tokenizer.from_ranks(ranks, pattern=None).encode("abcab")
        [257, 256]
        """
        byte_ids = byte_ids_of(ranks)
        if merges is None:
            multi = sorted(((t, r) for t, r in ranks.items() if len(t) > 1), key=lambda tr: tr[1])
            merges = MergeTable(*engine_py.recover_merges(multi, byte_ids))
        # recovery encoded every token's bytes to exactly its pair, so each encodes to itself
        return cls._derived(
            merges, pattern=pattern, special_tokens=special_tokens, byte_ids=byte_ids, name=name, metadata=metadata,
            self_encoding=frozenset(merges.new_ids),
        )

    @classmethod
    def _derived(cls, table: MergeTable, *, self_encoding: frozenset[int] | None = None,
                 encoder: engine_py.PyEncoder | None = None, **kwargs) -> Tokenizer:
        """A new Tokenizer that starts with what is already known about its merges."""
        tok = cls(table, **kwargs)
        tok._self_encoding = self_encoding
        tok._encoder = encoder
        return tok

    # ------------------------------------------------------------------ model

    def _check(self) -> None:
        if len(self.byte_ids) != 256 or len(set(self.byte_ids)) != 256:
            raise ValueError("byte_ids must give 256 different ids, one for each byte value")
        if len(self._pairs) != len(self._ids) or (self._counts is not None and len(self._counts) != len(self._ids)):
            raise ValueError("merges, their ids and their counts must be lists of the same length")
        known = set(self.byte_ids)
        for rank, ((a, b), new_id) in enumerate(zip(self._pairs, self._ids)):
            if a not in known or b not in known:
                missing = a if a not in known else b
                raise ValueError(
                    f"merge #{rank} {(a, b)} -> {new_id} uses id {missing}, which no byte or earlier merge defines; "
                    "merges must be listed in the order they were learned"
                )
            if new_id in known:
                raise ValueError(f"merge #{rank} {(a, b)} mints id {new_id}, which is already taken; every merge needs a new id")
            known.add(new_id)
        for tok, tid in self.special_tokens.items():
            if not isinstance(tok, str) or not tok:
                raise ValueError(f"special token {tok!r} must be a non-empty string")
            if not isinstance(tid, int) or isinstance(tid, bool) or tid < 0:
                raise ValueError(f"special token {tok!r} needs a whole-number id, got {tid!r}")
            if tid in known:
                free = max(known) + 1
                raise ValueError(
                    f"special token {tok!r} has id {tid}, which a byte or merge already uses; "
                    f"give it an id of {free} or more (the first free id), or pass a list of names to have ids assigned"
                )
            known.add(tid)

    @property
    def merges(self) -> dict[Pair, int]:
        """``{(left, right): new_id}`` in merge order."""
        return dict(zip(self._pairs, self._ids))

    @functools.cached_property
    def merge_list(self) -> tuple[Merge, ...]:
        """The merges as records, with the count each had when it was learned."""
        counts = self._counts or [None] * len(self._ids)
        return tuple(Merge(i, p, n, c) for i, (p, n, c) in enumerate(zip(self._pairs, self._ids, counts)))

    @property
    def merge_table(self) -> MergeTable:
        """The merges as parallel lists (shared, do not modify)."""
        return MergeTable(self._pairs, self._ids, self._counts)

    @property
    def num_merges(self) -> int:
        return len(self._ids)

    @functools.cached_property
    def vocab(self) -> dict[int, bytes]:
        """``{id: bytes}`` for bytes, merges and special tokens, derived from the merges."""
        vocab = {tid: bytes([b]) for b, tid in enumerate(self.byte_ids)}
        for (a, b), new_id in zip(self._pairs, self._ids):
            vocab[new_id] = vocab[a] + vocab[b]
        for tok, tid in self.special_tokens.items():
            vocab[tid] = tok.encode("utf-8")
        return vocab

    @functools.cached_property
    def parents(self) -> dict[int, Pair]:
        """``{new_id: (left, right)}``: what each merged token was made from."""
        return dict(zip(self._ids, self._pairs))

    @functools.cached_property
    def rank_of(self) -> dict[int, int]:
        """``{new_id: rank}`` for merged tokens."""
        return {new_id: rank for rank, new_id in enumerate(self._ids)}

    @property
    def n_vocab(self) -> int:
        """One more than the largest id (tiktoken's ``n_vocab``)."""
        return max(self.vocab) + 1

    @property
    def special_ids(self) -> frozenset[int]:
        return frozenset(self.special_tokens.values())

    @property
    def pattern_name(self) -> str:
        return pattern_name(self.pattern)

    def __repr__(self) -> str:
        label = f" {self.name!r}" if self.name else ""
        return f"<Tokenizer{label}: {256 + self.num_merges} tokens, pattern={self.pattern_name}, {len(self.special_tokens)} special>"

    def truncated(self, k: int) -> Tokenizer:
        """This tokenizer after only its first ``k`` merges (same pattern and specials).

        Encoding the training text with it gives the text as training left it after
        ``k`` merges.
        """
        if not isinstance(k, int) or not 0 <= k <= self.num_merges:
            raise ValueError(f"k must be a whole number from 0 to {self.num_merges}, got {k!r}")
        counts = self._counts[:k] if self._counts is not None else None
        table = MergeTable(self._pairs[:k], self._ids[:k], counts)
        known = None
        if self._self_encoding is not None:
            # a token encodes to itself with all merges iff it does with those up to its own rank
            kept = set(table.new_ids)
            known = frozenset(i for i in self._self_encoding if i in kept)
        # special ids may lie above the cut; they stay valid
        return Tokenizer._derived(
            table, pattern=self.pattern, special_tokens=self.special_tokens, byte_ids=self.byte_ids, name=self.name,
            self_encoding=known,
        )

    def with_special_tokens(self, extra: Mapping[str, int], *, name: str | None = None) -> Tokenizer:
        """The same merges and pattern with more special tokens (e.g. a chat format's).

        The two share one encoder and its chunk cache: their merges are the same.
        """
        return Tokenizer._derived(
            self.merge_table,
            pattern=self.pattern,
            special_tokens={**self.special_tokens, **extra},
            byte_ids=self.byte_ids,
            name=self.name if name is None else name,
            metadata=self.metadata,
            self_encoding=self._self_encoding,
            encoder=self._engine(),
        )

    # ------------------------------------------------------------------ encoding

    def _engine(self) -> engine_py.PyEncoder:
        """The encoder, built once (under a lock: the app's sessions share official tokenizers)."""
        enc = self._encoder
        if enc is None:
            with _ENCODER_LOCK:
                enc = self._encoder
                if enc is None:
                    enc = self._encoder = self._build_encoder()
        return enc

    def _build_encoder(self) -> engine_py.PyEncoder:
        ranks = {pair: (rank, new_id) for rank, (pair, new_id) in enumerate(zip(self._pairs, self._ids))}
        vocab = self.vocab
        ids = self._self_encoding
        if ids is None:
            # BPE can mint a token whose bytes later encode differently (e.g. the same
            # bytes by two merges): only tokens that survive the check take the shortcut
            probe = engine_py.PyEncoder(self.byte_ids, ranks)
            ids = frozenset(i for i in self._ids if probe.encode_bytes(vocab[i]) == [i])
            self._self_encoding = ids
        return engine_py.PyEncoder(self.byte_ids, ranks, {vocab[i]: i for i in ids})

    def encode_bytes(self, data: bytes, max_rank: int | None = None) -> list[int]:
        """Encode ``data`` as one chunk with only the first ``max_rank`` merges (all if None).

        No split pattern and no special tokens: BPE alone, as training applies it to
        one chunk. ``max_rank=k`` gives what ``truncated(k)`` would.

        >>> tok = Tokenizer({(97, 97): 256, (256, 97): 257})
        >>> tok.encode_bytes(b"aaa"), tok.encode_bytes(b"aaa", max_rank=1)
        ([257], [256, 97])
        """
        if max_rank is None:
            return self._engine().encode_bytes(bytes(data))
        if isinstance(max_rank, bool) or not isinstance(max_rank, int) or not 0 <= max_rank <= self.num_merges:
            raise ValueError(f"max_rank must be None or a whole number from 0 to {self.num_merges}, got {max_rank!r}")
        return self._engine().encode_bytes(bytes(data), max_rank)

    def merge_events(self, data: bytes) -> list[tuple[int, int, int]]:
        """The merges that encoding ``data`` as one chunk applies, in order: ``(rank, position, new_id)``.

        ``position`` is the index of the byte where the merged token starts.

        >>> Tokenizer({(97, 97): 256, (256, 97): 257}).merge_events(b"aaa")
        [(0, 0, 256), (1, 0, 257)]
        """
        return self._engine().merge_events(bytes(data))

    def clear_cache(self) -> None:
        """Forget every chunk encoded so far (benchmarks time cold encoding this way).

        Only speed depends on the cache, never a result.
        """
        if self._encoder is not None:
            self._encoder.cache.clear()

    def split(self, text: str) -> list[str]:
        """The pre-tokenisation chunks of ordinary text."""
        return self._splitter.split(clean_text(text))

    def encode_ordinary(self, text: str) -> list[int]:
        """Encode text, treating special-token strings as ordinary text."""
        return self._engine().encode_chunks(self._splitter.split(clean_text(text)))

    def encode(
        self,
        text: str,
        *,
        allowed_special: Literal["all"] | Collection[str] = frozenset(),
        disallowed_special: Literal["all"] | Collection[str] = "all",
    ) -> list[int]:
        """Encode text; special tokens as in tiktoken.

        Text equal to a special token raises ValueError unless the token is in
        ``allowed_special`` (encoded as the special id) or left out of
        ``disallowed_special`` (encoded as ordinary text).
        """
        text = clean_text(text)
        out: list[int] = []
        budget = self._splitter.budget()  # one time limit for the whole call
        for piece, special in self._pieces(text, allowed_special, disallowed_special):
            if special is not None:
                out.append(special)
            else:
                out.extend(self._engine().encode_chunks(self._splitter.split(piece, budget)))
        return out

    def _pieces(self, text, allowed_special, disallowed_special):
        """Cut text at allowed special tokens: ``[(piece, special_id or None), ...]``."""
        specials = set(self.special_tokens)
        if allowed_special == "all":
            allowed = specials
        else:
            allowed = set(allowed_special)
            unknown = allowed - specials
            if unknown:
                raise ValueError(
                    f"allowed_special names {sorted(unknown)!r}, which this tokenizer does not have; "
                    f"its special tokens are {sorted(specials)!r}"
                )
        disallowed = specials - allowed if disallowed_special == "all" else set(disallowed_special)
        if disallowed:
            m = special_regex(tuple(sorted(disallowed))).search(text)
            if m:
                raise_disallowed_special_token(m.group())
        if not allowed:
            return [(text, None)] if text else []
        pieces = []
        pos = 0
        for m in special_regex(tuple(sorted(allowed))).finditer(text):
            if m.start() > pos:
                pieces.append((text[pos : m.start()], None))
            pieces.append((m.group(), self.special_tokens[m.group()]))
            pos = m.end()
        if pos < len(text):
            pieces.append((text[pos:], None))
        return pieces

    def encode_single_token(self, text_or_bytes: str | bytes) -> int:
        """The id of a token given its exact text or bytes; KeyError if there is none."""
        data = text_or_bytes.encode("utf-8") if isinstance(text_or_bytes, str) else bytes(text_or_bytes)
        if isinstance(text_or_bytes, str) and text_or_bytes in self.special_tokens:
            return self.special_tokens[text_or_bytes]
        try:
            return self._bytes_to_id[data]
        except KeyError:
            raise KeyError(f"{text_or_bytes!r} is not a single token of this tokenizer") from None

    @functools.cached_property
    def _bytes_to_id(self) -> dict[bytes, int]:
        out: dict[bytes, int] = {}
        specials = self.special_ids
        for tid, b in self.vocab.items():
            if tid not in specials:
                out.setdefault(b, tid)
        return out

    # ------------------------------------------------------------------ decoding

    def decode_tokens_bytes(self, ids: Iterable[int]) -> list[bytes]:
        """The bytes of each token.

        >>> Tokenizer().decode_tokens_bytes([104, 105])
        [b'h', b'i']
        """
        vocab = self.vocab
        try:
            return [vocab[i] for i in ids]
        except (KeyError, TypeError):
            pass
        for i in ids:
            if not isinstance(i, int) or i not in vocab:
                raise ValueError(
                    f"cannot decode token id {i!r}: this tokenizer has ids 0 to {self.n_vocab - 1} "
                    f"({len(vocab)} in use); check that the ids came from the same tokenizer"
                ) from None
        raise AssertionError("unreachable")

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        return b"".join(self.decode_tokens_bytes(ids))

    def decode(self, ids: Iterable[int], errors: str = "replace") -> str:
        """Decode ids to text; invalid UTF-8 becomes U+FFFD unless ``errors`` says otherwise."""
        return self.decode_bytes(ids).decode("utf-8", errors=errors)

    # ------------------------------------------------------------------ display data

    def spans(self, ids: Sequence[int]) -> list[Span]:
        """One ``Span`` per token, with character and byte offsets in the decoded text."""
        return make_spans(list(zip(ids, self.decode_tokens_bytes(ids))), self.special_ids)

    def encode_spans(self, text: str, **special_args) -> list[Span]:
        """``encode`` then ``spans``: what the playground shows."""
        return self.spans(self.encode(text, **special_args))

    def encode_trace(
        self,
        text: str,
        *,
        allowed_special: Literal["all"] | Collection[str] = frozenset(),
        disallowed_special: Literal["all"] | Collection[str] = (),
    ) -> EncodeTrace:
        """Encode step by step: each step applies one merge rank everywhere at once.

        Replaying every step gives exactly ``encode`` (a test checks it). Special
        tokens in the text are ordinary text unless allowed.
        """
        text = clean_text(text)
        data = text.encode("utf-8")
        enc = self._engine()
        chunks: list[tuple[int, int]] = []
        chunk_bytes: list[tuple[int, int]] = []
        specials: list[tuple[int, int, int]] = []
        events: list[tuple[int, int, int]] = []
        per_chunk: dict[str, list[tuple[int, int, int]]] = {}
        char_pos = 0
        byte_pos = 0
        budget = self._splitter.budget()
        for piece, special in self._pieces(text, allowed_special, disallowed_special):
            pieces = [piece] if special is not None else self._splitter.split(piece, budget)
            for chunk in pieces:
                cb = chunk.encode("utf-8")
                chunks.append((char_pos, char_pos + len(chunk)))
                chunk_bytes.append((byte_pos, byte_pos + len(cb)))
                if special is not None:
                    specials.append((byte_pos, len(cb), special))
                else:
                    ev = per_chunk.get(chunk)
                    if ev is None:
                        ev = per_chunk[chunk] = enc.merge_events(cb)
                    events.extend((r, byte_pos + p, new_id) for r, p, new_id in ev)
                char_pos += len(chunk)
                byte_pos += len(cb)
        events.sort()
        steps = []
        n_tokens = len(data) - sum(length - 1 for _, length, _ in specials)
        vocab = self.vocab
        i = 0
        while i < len(events):
            r = events[i][0]
            j = i
            while j < len(events) and events[j][0] == r:
                j += 1
            new_id = events[i][2]
            n_tokens -= j - i
            steps.append(EncodeStep(len(steps) + 1, r, self._pairs[r], new_id, vocab[new_id], tuple(e[1] for e in events[i:j]), n_tokens))
            i = j
        return EncodeTrace(text, data, self.byte_ids, tuple(chunks), tuple(chunk_bytes), tuple(specials), tuple(steps))

    def merge_tree(self, token_id: int) -> MergeTree:
        """How ``token_id`` was built, recursively down to bytes."""
        vocab = self.vocab
        if token_id not in vocab:
            raise ValueError(f"no token with id {token_id}: ids go from 0 to {self.n_vocab - 1}")
        parents = self.parents

        def build(tid: int) -> MergeTree:
            pair = parents.get(tid)
            if pair is None:
                return MergeTree(tid, vocab[tid])
            return MergeTree(tid, vocab[tid], (build(pair[0]), build(pair[1])))

        return build(token_id)


def byte_ids_of(ranks: Mapping[bytes, int]) -> list[int]:
    """The ids of the 256 single bytes in tiktoken-style ranks; ValueError if one is missing."""
    try:
        return [ranks[bytes([b])] for b in range(256)]
    except KeyError as e:
        raise ValueError(f"the ranks lack the single byte {e.args[0]!r}: a byte-level BPE needs all 256") from None


@functools.lru_cache(maxsize=64)
def special_regex(tokens: tuple[str, ...]):
    """A regex that finds any of ``tokens``; longest first, so a token that is a prefix of another never wins."""
    ordered = sorted(tokens, key=len, reverse=True)
    return regex.compile("|".join(regex.escape(t) for t in ordered))


def raise_disallowed_special_token(token: str):
    """tiktoken's error, word for word: it names the two arguments that change it."""
    raise ValueError(
        f"Encountered text corresponding to disallowed special token {token!r}.\n"
        "If you want this text to be encoded as a special token, "
        f"pass it to `allowed_special`, e.g. `allowed_special={{{token!r}, ...}}`.\n"
        f"If you want this text to be encoded as normal text, disable the check for this token "
        f"by passing `disallowed_special=(enc.special_tokens_set - {{{token!r}}})`.\n"
        "To disable this check for all special tokens, pass `disallowed_special=()`.\n"
    )
