"""The Tokenizer: one canonical model (merges, split pattern, special tokens) and
everything derived from it: vocab, encoding, decoding, spans and traces.

It puts the stages together: special tokens are cut out first (``special``), the
rest is split into chunks (``pretokenize``), and BPE merges each chunk (``bpe``).
The API follows tiktoken's ``Encoding`` where one exists (``encode``,
``encode_ordinary``, ``decode``, ``decode_bytes``, ``decode_tokens_bytes``).
"""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from .bpe.encoder import Encoder, Ranks
from .bpe.merges import MergeTable, as_merge_table, byte_ids_of, check_order, check_ranks, recover_merges, without_missing_inputs
from .errors import (
    MAX_ID,
    InvalidType,
    UnknownToken,
    check_bytes,
    check_ids,
    check_int,
    check_str,
    check_utf8,
    clean_text,
    error_handler,
    type_name,
)
from .pretokenize.hf import HFPreTokenizer
from .pretokenize.pretokenizer import PreTokenizer, RegexPreTokenizer, source_bytes
from .pretokenize.splitter import using
from .special import allowed_and_disallowed, check_disallowed, check_special_tokens
from .trace import EncodeTrace, Merge, MergeTree, Span, char_spans, make_spans, steps_from_events, to_source

if TYPE_CHECKING:  # annotations only: bpe/trainer.py imports this module
    from .bpe.trainer import TrainingTrace

Pair = tuple[int, int]
_IDENTITY = tuple(range(256))
# Held while a tokenizer builds its encoder, so threads sharing one build it once. One
# lock for all (not one per tokenizer) keeps Tokenizers picklable; builds are rare.
_ENCODER_LOCK = threading.Lock()


def _encoding_to_themselves(probe: Encoder, ids: Sequence[int], vocab: Mapping[int, bytes]) -> frozenset[int]:
    """The ids among ``ids`` whose bytes ``probe`` encodes to that id alone (the whole-token shortcut holds for them)."""
    return frozenset(i for i, got in zip(ids, probe.encode_many([vocab[i] for i in ids])) if got == (i,))


class Tokenizer:
    """A byte-level BPE tokenizer.

    ``merges`` maps ``(left, right)`` to the new id, in merge order (minbpe's
    convention); it may also be given as a sequence of ``Merge`` records. Ids
    ``byte_ids[b]`` are the single bytes (``0..255`` in order unless the tokenizer
    comes from an official encoding, whose byte tokens are shuffled). ``training``
    is what training saw (a ``TrainingTrace``), for a tokenizer just trained.

    Two things only tiktoken-style vocabularies need (``from_ranks``; Llama 3's and
    Qwen 3.5's have them): a merge may build on a token that a *later* merge mints
    (it applies at its own rank, once that token exists), and ``whole_tokens``
    (``{id: bytes}``) are tokens that no merge builds, which the encoder gives only
    for a chunk that equals one (tiktoken takes such a chunk whole before merging).

    What happens to text before BPE is the tokenizer's ``pretokenizer``: the split
    ``pattern`` (tiktoken's way; ``normalizer``, a Unicode normal form such as ``"NFC"``,
    when the model's own package normalizes text first, as Qwen's does), or a
    tokenizer.json's own text handling (``pipeline``, run by Hugging Face tokenizers).

    Other ways to make one: ``train()``, ``Tokenizer.from_ranks`` (tiktoken-style
    ranks), ``load_encoding`` (a registered encoding), ``formats.load`` (a file).

    Threads may share a Tokenizer: encoding changes nothing a caller can see (its
    chunk cache is safe to share, see ``bpe.encoder.ChunkCache``).

    >>> tok = Tokenizer({(97, 97): 256, (256, 97): 257})
    >>> tok.encode("aaab")
    [257, 98]
    >>> tok.decode([257, 98])
    'aaab'
    """

    kind = "bpe"

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
        whole_tokens: Mapping[int, bytes] | None = None,
        pipeline: HFPreTokenizer | None = None,
        normalizer: str | None = None,
    ):
        table = as_merge_table(merges)
        self._pairs: list[Pair] = table.pairs
        self._ids: list[int] = table.new_ids
        self._counts: list[int | None] | None = table.counts
        self.byte_ids: tuple[int, ...] = _byte_ids(byte_ids)
        self.special_tokens: dict[str, int] = check_special_tokens(special_tokens)
        self.name = check_utf8(check_str(name, "name"), "name")
        self.metadata: dict[str, Any] = _metadata(metadata)
        if training is not None and not hasattr(training, "length_at"):
            raise InvalidType(f"training must be a TrainingTrace or None, not {type_name(training)}")
        self.training = training  # a TrainingTrace when this tokenizer was just trained
        self.whole_tokens: dict[int, bytes] = _whole_tokens(whole_tokens)  # id -> bytes of tokens no merge builds
        # ids whose bytes are known to encode to themselves (None: checked when the encoder is built)
        self._self_encoding: frozenset[int] | None = None
        self.pretokenizer: PreTokenizer
        if pipeline is not None:
            if not isinstance(pipeline, HFPreTokenizer):
                raise InvalidType(f"pipeline must be a tokenizer.json's HFPreTokenizer or None, not {type_name(pipeline)}")
            if pattern is not None or normalizer is not None:
                raise ValueError("a tokenizer with a tokenizer.json pipeline splits and normalizes text with it: give no pattern")
            self.pretokenizer = pipeline
            # ignore_merges: a chunk that is a vocabulary token is that token; without it no shortcut (it
            # only saves time, and checking 100k+ tokens first would cost seconds)
            self._self_encoding = frozenset(self._ids) if pipeline.ignore_merges else frozenset()
        else:
            if isinstance(pattern, str):
                check_utf8(pattern, "the split pattern")
            self.pretokenizer = RegexPreTokenizer(pattern, normalizer)
        self._encoder: Encoder | None = None  # built on first use, see _engine
        # merge indices with every merge after the ones it builds on; None when the list already is in that order
        known, self._order = check_order(table, self.byte_ids)
        self._check_other_ids(known)

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
        normalizer: str | None = None,
    ) -> Tokenizer:
        """A Tokenizer from tiktoken-style mergeable ranks ``{token bytes: rank}``, encoding as tiktoken does.

        A token's rank is its id. The merges are recovered from the ranks
        (``bpe.merges.recover_merges``) unless ``merges`` brings them: a table recovered
        earlier from the same ranks (``pretrained`` keeps one on disk), trusted as such.
        A token that no merge builds becomes one of ``whole_tokens``.

        >>> ranks = {**{bytes([b]): b for b in range(256)}, b"ab": 256, b"abc": 257}
        >>> Tokenizer.from_ranks(ranks, pattern=None).encode("abcab")
        [257, 256]
        """
        ranks = check_ranks(ranks)
        byte_ids = byte_ids_of(ranks)
        if merges is None:
            multi = sorted(((t, r) for t, r in ranks.items() if len(t) > 1), key=lambda tr: tr[1])
            merges = MergeTable(*recover_merges(multi, byte_ids, ranks))
        merged = set(merges.new_ids)
        whole = {r: t for t, r in ranks.items() if len(t) > 1 and r not in merged}
        # recovery built every merged token from its own bytes, so each encodes to itself
        return cls._derived(
            merges,
            pattern=pattern,
            special_tokens=special_tokens,
            byte_ids=byte_ids,
            name=name,
            metadata=metadata,
            self_encoding=frozenset(merges.new_ids),
            whole_tokens=whole,
            normalizer=normalizer,
        )

    @classmethod
    def _derived(
        cls,
        table: MergeTable,
        *,
        self_encoding: frozenset[int] | None = None,
        encoder: Encoder | None = None,
        **kwargs,
    ) -> Tokenizer:
        """A new Tokenizer that starts with what is already known about its merges."""
        tok = cls(table, **kwargs)
        tok._self_encoding = self_encoding
        tok._encoder = encoder
        return tok

    def _replace(self, table: MergeTable, **changes) -> Tokenizer:
        """A new Tokenizer with ``table`` and every other field as this one's, but for ``changes``.

        The one place that lists the fields, so a derived tokenizer never silently drops one.
        ``self_encoding`` and ``encoder`` are what is already known (see ``_derived``); ``training``
        is never carried over, as it describes how this tokenizer itself was made.
        """
        fields = {
            "pattern": None if self.pipeline is not None else self.pattern,
            "normalizer": None if self.pipeline is not None else self.normalizer,
            "pipeline": self.pipeline,
            "special_tokens": self.special_tokens,
            "byte_ids": self.byte_ids,
            "name": self.name,
            "metadata": self.metadata,
            "whole_tokens": self.whole_tokens,
        }
        unknown = set(changes) - set(fields) - {"self_encoding", "encoder"}
        if unknown:
            raise TypeError(f"_replace takes only Tokenizer fields, not {sorted(unknown)}")
        return Tokenizer._derived(table, **{**fields, **changes})

    # ------------------------------------------------------------------ model

    def _check_other_ids(self, known: set[int]) -> None:
        """Whole, special and added tokens each need an id that no byte, merge or other token takes."""
        for tid, data in self.whole_tokens.items():
            if not isinstance(tid, int) or isinstance(tid, bool) or tid < 0 or tid in known:
                raise ValueError(f"whole token {tid!r} needs a whole-number id that no byte or merge uses")
            if not isinstance(data, bytes) or len(data) < 2:
                raise ValueError(f"whole token {tid} must be at least two bytes, got {data!r}")
            known.add(tid)
        for tok, tid in self.special_tokens.items():
            if tid in known:
                free = max(known) + 1
                raise ValueError(
                    f"special token {tok!r} has id {tid}, which a byte or merge already uses; "
                    f"give it an id of {free} or more (the first free id), or pass a list of names to have ids assigned"
                )
            known.add(tid)
        built = set(self.byte_ids) | set(self._ids)
        for tok, tid in self.pipeline.added_tokens.items() if self.pipeline is not None else ():
            if tid in built:
                continue  # spelled like a byte or merged token, it is that token (as in tokenizers)
            if tid in known:
                raise ValueError(f"added token {tok!r} has id {tid}, which a whole or special token already uses")
            known.add(tid)

    @property
    def pattern(self) -> str | None:
        """The split pattern (None: no split, or a tokenizer.json pipeline that does its own)."""
        return self.pretokenizer.pattern

    @property
    def normalizer(self) -> str | None:
        """The Unicode normal form text is put in before it is split (``"NFC"`` for Qwen), or None."""
        return self.pretokenizer.normalizer

    @property
    def pipeline(self) -> HFPreTokenizer | None:
        """A tokenizer.json's own text handling (normalizer, pre-tokenizer, added tokens), or None."""
        pre = self.pretokenizer
        return pre if isinstance(pre, HFPreTokenizer) else None

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
        """``{id: bytes}`` for bytes, merges, whole tokens and special tokens, derived from the merges."""
        vocab = {tid: bytes([b]) for b, tid in enumerate(self.byte_ids)}
        pairs, ids = self._pairs, self._ids
        if self._order is None:
            for (a, b), new_id in zip(pairs, ids):
                vocab[new_id] = vocab[a] + vocab[b]
        else:
            for rank in self._order:
                a, b = pairs[rank]
                vocab[ids[rank]] = vocab[a] + vocab[b]
        vocab.update(self.whole_tokens)
        for tok, tid in self.special_tokens.items():
            vocab[tid] = tok.encode("utf-8")
        if self.pipeline is not None:  # a tokenizer.json's added tokens that are not special (nor a merged token)
            vocab.update((tid, text.encode("utf-8")) for tid, text in self.pipeline.added_text.items() if tid not in vocab)
        return vocab

    def merged_lengths(self) -> list[int]:
        """The byte length of each merge's new token, in rank order, without building the tokens' bytes.

        A chain of merges (``a a``, ``aa a``, ...) makes a vocabulary whose bytes grow with
        the square of the merges: this is how the loaders check its size first.

        >>> Tokenizer({(97, 97): 256, (256, 97): 257, (257, 257): 258}).merged_lengths()
        [2, 3, 6]
        """
        length = dict.fromkeys(self.byte_ids, 1)
        pairs, ids = self._pairs, self._ids
        for rank in range(len(ids)) if self._order is None else self._order:
            a, b = pairs[rank]
            length[ids[rank]] = length[a] + length[b]
        return [length[i] for i in ids]

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
        return self.pretokenizer.name

    def __repr__(self) -> str:
        label = f" {self.name!r}" if self.name else ""
        return f"<Tokenizer{label}: n_vocab={self.n_vocab}, {self.num_merges} merges, pattern={self.pattern_name}, {len(self.special_tokens)} special>"

    def truncated(self, k: int) -> Tokenizer:
        """This tokenizer after only its first ``k`` merges (same pattern and specials).

        Encoding the training text with it gives the text as training left it after
        ``k`` merges. A merge among them that builds on a later one is left out (it
        cannot apply without it), and so are the whole tokens unless ``k`` takes every merge.
        """
        k = check_int(k, "k", 0, self.num_merges)
        counts = self._counts[:k] if self._counts is not None else None
        table = MergeTable(self._pairs[:k], self._ids[:k], counts)
        if self._order is not None and k < self.num_merges:
            table = without_missing_inputs(table, self.byte_ids)
        known = None
        if self._self_encoding is not None:
            # a token encodes to itself with all merges iff it does with those up to its own rank
            kept = set(table.new_ids)
            known = frozenset(i for i in self._self_encoding if i in kept)
        # special ids may lie above the cut; they stay valid. Whole tokens are not merges: kept only with them all.
        return self._replace(
            table,
            self_encoding=known,
            metadata=None,
            whole_tokens=self.whole_tokens if k == self.num_merges else None,
        )

    def with_special_tokens(self, extra: Mapping[str, int], *, name: str | None = None) -> Tokenizer:
        """The same merges and pattern with more special tokens (e.g. a chat format's).

        The two share one encoder and its chunk cache: their merges are the same.
        """
        extra = check_special_tokens(extra, "extra")
        return self._replace(
            self.merge_table,
            self_encoding=self._self_encoding,
            encoder=self._engine(),
            special_tokens={**self.special_tokens, **extra},
            name=self.name if name is None else name,
            pipeline=self.pipeline.with_special_tokens(extra) if self.pipeline is not None else None,
        )

    def extended(
        self,
        pairs: Sequence[Pair],
        counts: Sequence[int | None],
        *,
        special_tokens: Mapping[str, int],
        name: str,
        metadata: Mapping[str, Any] | None = None,
    ) -> Tokenizer:
        """This tokenizer with more merges after its own, minting ids from ``n_vocab`` on (continued training).

        Its own tokens keep their ids, and what is known about them carries over: a token
        whose bytes encode to itself still does (every new merge ranks after its own, and
        none applies to a single token), so only the new tokens are checked, not 100,000.
        """
        first = self.n_vocab
        counts = list(counts)
        table = MergeTable(
            self._pairs + list(pairs),
            self._ids + list(range(first, first + len(pairs))),
            (self._counts or [None] * len(self._ids)) + counts,
        )
        known = self._engine() and self._self_encoding  # the engine settles which of its own tokens encode to themselves
        tok = self._replace(table, special_tokens=special_tokens, name=name, metadata=metadata)
        top = max(max(self.byte_ids), max(table.new_ids, default=0))
        probe = Encoder(self.byte_ids, Ranks(table.pairs, table.new_ids, top=top))
        vocab = tok.vocab
        added = table.new_ids[len(self._ids) :]
        new = _encoding_to_themselves(probe, added, vocab)
        tok._self_encoding = (known or frozenset()) | new
        return tok

    # ------------------------------------------------------------------ encoding

    def _engine(self) -> Encoder:
        """The encoder, built once (under a lock: the app's sessions share official tokenizers)."""
        enc = self._encoder
        if enc is None:
            with _ENCODER_LOCK:
                enc = self._encoder
                if enc is None:
                    enc = self._encoder = self._build_encoder()
        return enc

    def _build_encoder(self) -> Encoder:
        ranks = Ranks(self._pairs, self._ids, top=max(max(self.byte_ids), max(self._ids, default=0)))
        vocab = self.vocab
        whole: dict[bytes, int] = {}
        enc = Encoder(self.byte_ids, ranks, whole)  # ``whole`` is filled below, before anyone holds the encoder
        ids = self._self_encoding
        if ids is None:
            # BPE can mint a token whose bytes later encode differently (e.g. the same bytes by two merges): only
            # tokens that survive the check take the shortcut (the check never reads ``whole``, and its merge
            # tables stay with the encoder)
            ids = self._self_encoding = _encoding_to_themselves(enc, self._ids, vocab)
        whole.update((vocab[i], i) for i in ids)
        whole.update((b, i) for i, b in self.whole_tokens.items())  # only a chunk equal to one gives it
        return enc

    def whole_chunks(self) -> dict[bytes, int]:
        """The chunks the encoder takes whole, without merging, and their ids (a copy): every token that
        encodes to itself, and the ``whole_tokens`` (a browser engine takes the same shortcut)."""
        return dict(self._engine().whole)

    def encode_bytes(self, data: bytes, max_rank: int | None = None) -> list[int]:
        """Encode ``data`` as one chunk with only the first ``max_rank`` merges (all if None).

        No split pattern and no special tokens: BPE alone, as training applies it to
        one chunk. ``max_rank=k`` gives what ``truncated(k)`` would.

        >>> tok = Tokenizer({(97, 97): 256, (256, 97): 257})
        >>> tok.encode_bytes(b"aaa"), tok.encode_bytes(b"aaa", max_rank=1)
        ([257], [256, 97])
        """
        data = check_bytes(data, "data")
        if max_rank is None:
            return self._engine().encode_bytes(data)
        return self._engine().encode_bytes(data, check_int(max_rank, "max_rank", 0, self.num_merges))

    def merge_events(self, data: bytes) -> list[tuple[int, int, int]]:
        """The merges that encoding ``data`` as one chunk applies, in order: ``(rank, position, new_id)``.

        ``position`` is the index of the byte where the merged token starts.

        >>> Tokenizer({(97, 97): 256, (256, 97): 257}).merge_events(b"aaa")
        [(0, 0, 256), (1, 0, 257)]
        """
        return self._engine().merge_events(check_bytes(data, "data"))

    def clear_cache(self) -> None:
        """Forget every chunk encoded so far (benchmarks time cold encoding this way).

        Only speed depends on the cache, never a result.
        """
        if self._encoder is not None:
            self._encoder.cache.clear()

    def split(self, text: str) -> list[str]:
        """The pre-tokenisation chunks of ordinary text, in the model's view."""
        return self.pretokenizer.split(clean_text(text))

    def encode_ordinary(self, text: str) -> list[int]:
        """Encode text, treating special-token strings as ordinary text."""
        return self.pretokenizer.encode(self._engine(), clean_text(text), {})

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
        ``disallowed_special`` (encoded as ordinary text). Names in ``allowed_special``
        that are not special tokens are ignored; ``disallowed_special=()`` turns the
        check off; a string in ``disallowed_special`` that is found in the text raises
        even if it is not a special token (all as tiktoken does).

        >>> tok = Tokenizer(special_tokens={"<|end|>": 256})
        >>> tok.encode("a<|end|>", allowed_special={"<|end|>"})
        [97, 256]
        >>> tok.encode("a<|end|>", disallowed_special=())
        [97, 60, 124, 101, 110, 100, 124, 62]
        """
        text = clean_text(text)
        allowed = self._allowed(text, allowed_special, disallowed_special)
        return self.pretokenizer.encode(self._engine(), text, allowed)

    def _allowed(self, text: str, allowed_special, disallowed_special) -> Mapping[str, int]:
        """The special tokens to recognise in ``text`` (``{text: id}``); tiktoken's error for a disallowed one in it."""
        allowed, disallowed = allowed_and_disallowed(self.special_tokens, allowed_special, disallowed_special)
        check_disallowed(text, disallowed)
        if len(allowed) == len(self.special_tokens):
            return self.special_tokens
        return {s: self.special_tokens[s] for s in allowed}

    def encode_to_numpy(
        self,
        text: str,
        *,
        allowed_special: Literal["all"] | Collection[str] = frozenset(),
        disallowed_special: Literal["all"] | Collection[str] = "all",
    ):
        """``encode`` as a numpy array of uint32 (tiktoken's ``encode_to_numpy``)."""
        import numpy as np

        return np.array(
            self.encode(text, allowed_special=allowed_special, disallowed_special=disallowed_special), dtype=np.uint32
        )

    def encode_batch(
        self,
        text: Sequence[str],
        *,
        num_threads: int = 8,
        allowed_special: Literal["all"] | Collection[str] = frozenset(),
        disallowed_special: Literal["all"] | Collection[str] = "all",
    ) -> list[list[int]]:
        """``encode`` each text of a list (tiktoken's ``encode_batch``; ``num_threads`` is
        accepted for compatibility: the texts are encoded one after the other).

        >>> Tokenizer().encode_batch(["hi", "yo"])
        [[104, 105], [121, 111]]
        """
        texts = _texts(text)
        check_int(num_threads, "num_threads", 1)
        allowed_and_disallowed(self.special_tokens, allowed_special, disallowed_special)  # bad arguments fail before any work
        with using(self.pretokenizer.budget()):  # one time limit for the whole batch
            return [self.encode(t, allowed_special=allowed_special, disallowed_special=disallowed_special) for t in texts]

    def encode_ordinary_batch(self, text: Sequence[str], *, num_threads: int = 8) -> list[list[int]]:
        """``encode_ordinary`` each text of a list (tiktoken's ``encode_ordinary_batch``)."""
        texts = _texts(text)
        check_int(num_threads, "num_threads", 1)
        with using(self.pretokenizer.budget()):
            return [self.encode_ordinary(t) for t in texts]

    # ------------------------------------------------------------------ tiktoken's names

    @property
    def special_tokens_set(self) -> set[str]:
        """The special tokens' strings (tiktoken's ``special_tokens_set``; a fresh set each time)."""
        return set(self.special_tokens)

    @property
    def eot_token(self) -> int:
        """The id of ``<|endoftext|>`` (tiktoken's ``eot_token``); KeyError/ValueError if there is none."""
        try:
            return self.special_tokens["<|endoftext|>"]
        except KeyError:
            raise UnknownToken(f"{self.name or 'this tokenizer'} has no <|endoftext|> special token") from None

    @property
    def max_token_value(self) -> int:
        """The largest id (tiktoken's ``max_token_value``); ``n_vocab`` is one more."""
        return self.n_vocab - 1

    def is_special_token(self, token: int) -> bool:
        """Whether ``token`` is the id of a special token (tiktoken's ``is_special_token``)."""
        return check_int(token, "token") in self.special_ids

    def token_byte_values(self) -> list[bytes]:
        """The bytes of every ordinary token, sorted (tiktoken's ``token_byte_values``)."""
        specials = self.special_ids
        return sorted(b for i, b in self.vocab.items() if i not in specials)

    def encode_single_token(self, text_or_bytes: str | bytes) -> int:
        """The id of a token given its exact text or bytes, special tokens included (as in
        tiktoken); KeyError (also a ValueError) if there is none.

        >>> Tokenizer(special_tokens={"<|end|>": 256}).encode_single_token(b"<|end|>")
        256
        """
        if isinstance(text_or_bytes, str):
            data = text_or_bytes.encode("utf-8", "surrogatepass")
        elif isinstance(text_or_bytes, (bytes, bytearray, memoryview)):
            data = bytes(text_or_bytes)
        else:
            raise InvalidType(f"encode_single_token takes a str or bytes, not {type_name(text_or_bytes)}")
        tid = self._bytes_to_id.get(data)
        if tid is not None:
            return tid
        try:
            return self.special_tokens[data.decode("utf-8")]
        except (KeyError, UnicodeDecodeError):
            raise UnknownToken(
                f"{text_or_bytes!r} is not a single token of this tokenizer; use encode() for longer text"
            ) from None

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
        ids = check_ids(ids)
        try:
            return [vocab[i] for i in ids]
        except KeyError as e:
            raise UnknownToken(
                f"cannot decode token id {e.args[0]!r}: this tokenizer has ids 0 to {self.n_vocab - 1} "
                f"({len(vocab)} in use); check that the ids came from the same tokenizer"
            ) from None

    def decode_single_token_bytes(self, token: int) -> bytes:
        """The bytes of one token (tiktoken's ``decode_single_token_bytes``); KeyError (also a
        ValueError) for an unknown id."""
        return self.decode_tokens_bytes([check_int(token, "token")])[0]

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        return b"".join(self.decode_tokens_bytes(ids))

    def decode(self, ids: Iterable[int], errors: str = "replace") -> str:
        """Decode ids to text; invalid UTF-8 becomes U+FFFD unless ``errors`` says otherwise."""
        return self.decode_bytes(ids).decode("utf-8", errors=error_handler(errors))

    def decode_with_offsets(self, tokens: Sequence[int]) -> tuple[str, list[int]]:
        """The text and, for each token, the index of the character where it starts (a
        token that starts inside a character gets that character's index), as tiktoken's
        ``decode_with_offsets``; the text must be valid UTF-8.

        >>> Tokenizer().decode_with_offsets([104, 105])
        ('hi', [0, 1])
        """
        token_bytes = self.decode_tokens_bytes(tokens)
        text_len = 0
        offsets = []
        for token in token_bytes:
            offsets.append(max(0, text_len - (0x80 <= token[0] < 0xC0)))
            text_len += sum(1 for c in token if not 0x80 <= c < 0xC0)
        try:
            text = b"".join(token_bytes).decode("utf-8", errors="strict")
        except UnicodeDecodeError as e:
            raise ValueError(
                f"the tokens are not valid UTF-8 text (byte {e.start}), so they have no character offsets; use decode_tokens_bytes"
            ) from None
        return text, offsets

    def decode_batch(self, batch: Sequence[Sequence[int]], *, errors: str = "replace", num_threads: int = 8) -> list[str]:
        """``decode`` each list of ids (tiktoken's ``decode_batch``)."""
        check_int(num_threads, "num_threads", 1)
        errors = error_handler(errors)
        return [self.decode(ids, errors=errors) for ids in _batch(batch)]

    def decode_bytes_batch(self, batch: Sequence[Sequence[int]], *, num_threads: int = 8) -> list[bytes]:
        """``decode_bytes`` each list of ids (tiktoken's ``decode_bytes_batch``)."""
        check_int(num_threads, "num_threads", 1)
        return [self.decode_bytes(ids) for ids in _batch(batch)]

    # ------------------------------------------------------------------ display data

    def spans(self, ids: Sequence[int]) -> list[Span]:
        """One ``Span`` per token, with character and byte offsets in the decoded text."""
        ids = check_ids(ids)
        return make_spans(list(zip(ids, self.decode_tokens_bytes(ids))), self.special_ids)

    def encode_spans(self, text: str, **special_args) -> list[Span]:
        """``encode`` then ``spans``, with offsets into ``text`` as typed.

        They are ``spans(encode(text))`` unless the model sees the text otherwise: a
        normalizer (Qwen's NFC, a tokenizer.json's) or an inserted prefix space. Then each
        token points at the characters (and their bytes) it comes from; for a tokenizer.json
        these are the offsets Hugging Face tokenizers gives the same token.
        """
        text = clean_text(text)
        allowed = self._allowed(
            text, special_args.get("allowed_special", frozenset()), special_args.get("disallowed_special", "all")
        )
        pre = self.pretokenizer
        if isinstance(pre, RegexPreTokenizer) and pre.normalize(text) is text:
            return self.spans(pre.encode(self._engine(), text, allowed))
        pieces = pre.pieces(text, allowed)
        ids = self._engine().encode_pieces(pieces)
        return to_source(self.spans(ids), text, source_bytes(pieces, self.vocab, text))

    def encode_trace(
        self,
        text: str,
        *,
        allowed_special: Literal["all"] | Collection[str] = frozenset(),
        disallowed_special: Literal["all"] | Collection[str] = (),
    ) -> EncodeTrace:
        """Encode step by step: each step applies one merge rank everywhere at once.

        Replaying every step gives exactly ``encode`` (a test checks it). Special
        tokens in the text are ordinary text unless allowed. A chunk equal to one of
        ``whole_tokens`` is that token from step 0 (``EncodeTrace.wholes``). The trace
        shows the model's view of the text (normalized, prefix spaces included, for a
        model that changes it); ``EncodeTrace.source_spans_at`` points into the text as typed.
        """
        text = clean_text(text)
        allowed = self._allowed(text, allowed_special, disallowed_special)
        pieces = self.pretokenizer.pieces(text, allowed)
        enc = self._engine()
        vocab = self.vocab
        whole_ids = {b: i for i, b in self.whole_tokens.items()}
        special_ids = self.special_ids
        takes_whole = self.pretokenizer.ignore_merges  # any chunk that is a token is that token
        parts: list[bytes] = []
        chunk_bytes: list[tuple[int, int]] = []
        specials: list[tuple[int, int, int]] = []
        wholes: list[tuple[int, int, int]] = []
        events: list[tuple[int, int, int]] = []
        per_chunk: dict[bytes, list[tuple[int, int, int]]] = {}
        pos = 0
        for p in pieces:
            if p.token is not None:
                data = vocab[p.token]
                # a special token, or an added token of a tokenizer.json: one token from the start
                (specials if p.token in special_ids else wholes).append((pos, len(data), p.token))
            else:
                data = p.chunk.encode("utf-8") if isinstance(p.chunk, str) else p.chunk
                if data in whole_ids:
                    wholes.append((pos, len(data), whole_ids[data]))  # taken whole, before any merge
                else:
                    ev = per_chunk.get(data)
                    if ev is None:
                        ev = per_chunk[data] = self._chunk_events(enc, data, takes_whole)
                    events.extend((r, pos + q, new_id) for r, q, new_id in ev)
            parts.append(data)
            chunk_bytes.append((pos, pos + len(data)))
            pos += len(data)
        data = b"".join(parts)
        view = data.decode("utf-8", "replace")
        n_tokens = len(data) - sum(length - 1 for _, length, _ in specials + wholes)
        steps = steps_from_events(events, self._pairs, vocab, n_tokens)
        source = source_bytes(pieces, self.vocab, text)
        return EncodeTrace(
            view,
            data,
            self.byte_ids,
            char_spans(view, chunk_bytes),
            tuple(chunk_bytes),
            tuple(specials),
            steps,
            tuple(wholes),
            source=text if source is not None else None,
            source_bytes=tuple(source) if source is not None else None,
        )

    def _chunk_events(self, enc: Encoder, data: bytes, takes_whole: bool) -> list[tuple[int, int, int]]:
        """The merges that build one chunk: ``[(rank, byte position in the chunk, new id), ...]``."""
        tid = enc.whole.get(data) if takes_whole else None
        if tid is not None and enc.encode_bytes(data) != [tid]:
            return _tree_events(self.merge_tree(tid), self.rank_of, 0)  # taken whole: the merges build it otherwise
        return enc.merge_events(data)

    def merge_curve(self, text: str) -> tuple[int, list[int]]:
        """``(bytes, lengths)``: the text's bytes as the model sees it, and its tokens after the first ``k`` merges
        for every ``k`` from 0 to ``num_merges`` (special-token strings as text).

        The same numbers as replaying ``encode_trace(text)`` up to each rank (after ``k`` merges: the tokens of its
        last step of rank below ``k``), without building the trace: each distinct chunk's merges are counted once,
        weighted by how often the chunk occurs, five times faster on a long text (the Train page's held-out curve).

        >>> from tokenizer import train
        >>> train("aaabdaaabac", 259, pattern=None).merge_curve("aaabdaaabac")
        (11, [11, 9, 7, 5])
        """
        text = clean_text(text)
        enc = self._engine()
        whole_ids = {b: i for i, b in self.whole_tokens.items()}
        takes_whole = self.pretokenizer.ignore_merges
        counts: dict[bytes, int] = {}
        n_bytes = special_saving = whole_saving = 0
        for p in self.pretokenizer.pieces(text, {}):
            if p.token is not None:  # an added token of a tokenizer.json: one token from the start
                data = self.vocab[p.token]
                if p.token in self.special_ids:
                    special_saving += len(data) - 1
                else:
                    whole_saving += len(data) - 1
            else:
                data = p.chunk.encode("utf-8") if isinstance(p.chunk, str) else p.chunk
                if data in whole_ids:
                    whole_saving += len(data) - 1
                else:
                    counts[data] = counts.get(data, 0) + 1
            n_bytes += len(data)
        merged = [0] * (self.num_merges + 1)  # merged[r]: merges of rank r applied over the whole text
        for data, n in counts.items():
            for r, _, _ in self._chunk_events(enc, data, takes_whole):
                merged[min(r, self.num_merges)] += n
        start = n_bytes - special_saving
        tokens = n_bytes - special_saving - whole_saving
        out, applied = [start], 0
        for k in range(1, self.num_merges + 1):
            applied += merged[k - 1]
            out.append(tokens - applied if applied else start)
        return n_bytes, out

    def merge_tree(self, token_id: int) -> MergeTree:
        """How ``token_id`` was built, recursively down to bytes."""
        vocab = self.vocab
        token_id = check_int(token_id, "token_id")
        if token_id not in vocab:
            raise UnknownToken(f"no token with id {token_id}: ids go from 0 to {self.n_vocab - 1}")
        parents = self.parents

        def build(tid: int) -> MergeTree:
            pair = parents.get(tid)
            if pair is None:
                return MergeTree(tid, vocab[tid])
            return MergeTree(tid, vocab[tid], (build(pair[0]), build(pair[1])))

        return build(token_id)


def _byte_ids(byte_ids) -> tuple[int, ...]:
    if byte_ids is None:
        return _IDENTITY
    if isinstance(byte_ids, (str, bytes, Mapping)) or not isinstance(byte_ids, Iterable):
        raise InvalidType(f"byte_ids must be None or a sequence of 256 ids, not {type_name(byte_ids)}")
    ids = tuple(check_int(x, f"byte_ids[{b}]", 0, MAX_ID) for b, x in enumerate(byte_ids))
    if len(ids) != 256 or len(set(ids)) != 256:
        raise ValueError(
            f"byte_ids must give 256 different ids, one for each byte value (got {len(ids)} ids, {len(set(ids))} different)"
        )
    return ids


def _whole_tokens(whole_tokens) -> dict[int, bytes]:
    if whole_tokens is None:
        return {}
    if not isinstance(whole_tokens, Mapping):
        raise InvalidType(f"whole_tokens must be a dict {{id: token bytes}}, not {type_name(whole_tokens)}")
    out = {}
    for tid, data in whole_tokens.items():
        tid = check_int(tid, "the id of a whole token", 0, MAX_ID)
        if not isinstance(data, bytes) or len(data) < 2:
            raise ValueError(f"whole token {tid} must be at least two bytes, got {data!r}")
        out[tid] = data
    return out


def _tree_events(tree: MergeTree, rank_of: dict[int, int], pos: int) -> list[tuple[int, int, int]]:
    """The merges that build ``tree`` from bytes, as ``(rank, position, new_id)``."""
    if not tree.children:
        return []
    left, right = tree.children
    return [
        *_tree_events(left, rank_of, pos),
        *_tree_events(right, rank_of, pos + len(left.bytes)),
        (rank_of[tree.id], pos, tree.id),
    ]


def check_tokenizer(tok: object) -> Tokenizer:
    """``tok`` if it is a Tokenizer, else InvalidType saying where one comes from."""
    if not isinstance(tok, Tokenizer):
        raise InvalidType(f"expected a Tokenizer (from train, load_encoding or load), not {type_name(tok)}")
    return tok


def _metadata(metadata) -> dict[str, Any]:
    if metadata is None:
        return {}
    if not isinstance(metadata, Mapping) or not all(isinstance(k, str) for k in metadata):
        raise InvalidType(f"metadata must be a dict with string keys, not {type_name(metadata)}")
    metadata = dict(metadata)
    try:
        json.dumps(metadata, ensure_ascii=False).encode("utf-8")
    except (TypeError, ValueError, RecursionError) as e:
        reason = "it is nested too deeply" if isinstance(e, RecursionError) else str(e)
        raise ValueError(f"metadata must hold only JSON values (str, numbers, bools, None, lists, dicts): {reason}") from None
    return metadata


def _texts(text) -> list[str]:
    if isinstance(text, str) or not isinstance(text, Iterable):
        raise InvalidType(f"give a list of texts, not {type_name(text)} (for one text, use encode)")
    texts = list(text)
    for i, t in enumerate(texts):
        check_str(t, f"text[{i}]")
    return texts


def _batch(batch) -> list:
    if isinstance(batch, (str, bytes)) or not isinstance(batch, Iterable):
        raise InvalidType(f"give a list of id lists, not {type_name(batch)}")
    return list(batch)
