"""What a Hugging Face tokenizer.json does to text before BPE, reproduced exactly.

``tokenizers`` encodes a text in four steps, and ``Pipeline`` takes the same ones in the
same order (the Rust functions named are in ``tokenizers/src/``):

1. **Added tokens, raw** (``AddedVocabulary::extract_and_normalize``): the added tokens
   with ``normalized: false`` are found in the text, leftmost and longest first; each
   becomes its id. ``single_word`` drops a match inside a word, ``lstrip``/``rstrip``
   take the whitespace beside it into the token.
2. **Normalizer**, on each remaining piece: NFC, NFKC, NFD, NFKD or a sequence of them.
   Then the added tokens with ``normalized: true`` are found in the normalized pieces.
3. **Pre-tokenizer stages**, on each remaining piece, in order: ``Split`` (a regex or a
   string, one of five behaviours, maybe inverted), ``Digits``, ``ByteLevel`` (a prefix
   space, GPT-2's split, then bytes) and ``Sequence``.
4. **BPE** on each chunk, with ``ignore_merges`` (a chunk that is a whole vocabulary
   token is that token).

Special tokens follow tiktoken's convention in BPE Lab (``allowed_special``): a special
token that is not allowed is found and then skipped, exactly as ``tokenizers`` does
with ``encode_special_tokens=True``. Non-special added tokens are always found.

**Offsets.** A normalizer can change the text (``é`` written as ``e`` + U+0301 becomes
one character under NFC) and ``ByteLevel(add_prefix_space=True)`` adds a space that is
not in it. BPE Lab keeps two views: the *model's view* (the bytes BPE merges, prefix
spaces included), which ``encode_trace`` replays step by step, and the user's *original
text*, which every ``Span`` from ``encode_spans`` points into: a token made of
inserted space covers no character (``start == end``), and a token from text the
normalizer changed covers the original characters it came from.

Normalization is Hugging Face's, not Python's: ``tokenizers`` normalizes with tables of
Unicode 9.0, so a character assigned later is left alone (``OPAQUE``); Python's
``unicodedata`` does the rest (tests/tokenizer/pretokenize/test_hf_pipeline.py checks every code
point against ``tokenizers``).
"""

from __future__ import annotations

import functools
import unicodedata
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import regex

from ..display import bytes_to_unicode, unicode_to_bytes
from ..trace import EncodeStep, EncodeTrace, Span
from .onig import from_oniguruma
from .splitter import USER_PATTERN_TIMEOUT

# ----------------------------------------------------------------------------- regexes, stepped as Oniguruma steps

#: GPT-2's split, as ``ByteLevel(use_regex=True)`` runs it (tokenizers' byte_level.rs).
BYTELEVEL_REGEX = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


#: ``Digits`` splits on ``char::is_numeric``, the general category N as the Rust standard library
#: that built tokenizers knows it (Unicode 17: ten Tolong Siki and three Kirat Rai digits more than
#: the Unicode 16 tables of Python's regex; tests/tokenizer/pretokenize/test_hf_pipeline.py checks every code point).
DIGITS_REGEX = r"[\p{N}\x{11de0}-\x{11de9}\x{16ff4}-\x{16ff6}]"


class OnigRegex:
    """An Oniguruma pattern, run by Python's ``regex`` with Oniguruma's meaning and stepping.

    After an empty match, Oniguruma (the ``onig`` crate's ``find_iter``) skips an empty
    match at the end of the previous one and moves on by one character; Python's
    ``finditer`` may then still find a longer match there. Patterns that cannot match
    empty text step alike, and use ``finditer`` directly.
    """

    def __init__(self, pattern: str, *, timeout: float = USER_PATTERN_TIMEOUT):
        t = from_oniguruma(pattern)
        self.source = pattern
        self.python = t.pattern
        self.nullable = t.nullable
        self.timeout = timeout
        self._re = regex.compile(t.pattern)

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Every match as ``(start, end)``, in Oniguruma's order."""
        try:
            if not self.nullable:
                return [m.span() for m in self._re.finditer(text, timeout=self.timeout)]
            out = []
            pos = 0
            last_end = None
            n = len(text)
            search = self._re.search
            while pos <= n:
                m = search(text, pos, timeout=self.timeout)
                if m is None:
                    break
                s, e = m.span()
                if s == e and last_end == e:
                    pos += 1
                    continue
                pos = last_end = e
                out.append((s, e))
            return out
        except TimeoutError:
            raise ValueError(
                f"the split pattern {self.source!r} took longer than {self.timeout:g} s on this text and was stopped; "
                "it probably backtracks catastrophically"
            ) from None


# ----------------------------------------------------------------------------- splitting a piece


def _regex_matches(rx: OnigRegex, s: str) -> list[tuple[int, int, bool]]:
    """``Pattern::find_matches`` for a regex: the whole of ``s`` as matched and unmatched runs."""
    if not s:
        return [(0, 0, False)]
    out = []
    prev = 0
    for a, b in rx.spans(s):
        if prev != a:
            out.append((prev, a, False))
        out.append((a, b, True))
        prev = b
    if prev != len(s):
        out.append((prev, len(s), False))
    return out


def _behave(matches: list[tuple[int, int, bool]], behavior: str) -> list[tuple[int, int]]:
    """``NormalizedString::split``: which runs become pieces, under each ``SplitDelimiterBehavior``."""
    if behavior == "Isolated":
        return [(a, b) for a, b, _ in matches]
    if behavior == "Removed":
        return [(a, b) for a, b, m in matches if not m]
    acc: list[list[int]] = []
    prev = False
    if behavior == "Contiguous":
        for a, b, m in matches:
            if m == prev and acc:
                acc[-1][1] = b
            else:
                acc.append([a, b])
            prev = m
    elif behavior == "MergedWithPrevious":
        for a, b, m in matches:
            if m and not prev and acc:
                acc[-1][1] = b
            else:
                acc.append([a, b])
            prev = m
    elif behavior == "MergedWithNext":
        for a, b, m in reversed(matches):
            if m and not prev and acc:
                acc[-1][0] = a
            else:
                acc.append([a, b])
            prev = m
        acc.reverse()
    else:
        raise ValueError(f"unknown split behaviour {behavior!r}")
    return [(a, b) for a, b in acc]


@dataclass(frozen=True)
class SplitStage:
    """``Split``: a regex (or a literal string, escaped) with a behaviour, maybe inverted."""

    regex: OnigRegex
    behavior: str  # Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous
    invert: bool = False

    def cut(self, s: str) -> list[tuple[int, int]]:
        matches = _regex_matches(self.regex, s)
        if self.invert:
            matches = [(a, b, not m) for a, b, m in matches]
        return _behave(matches, self.behavior)


@dataclass(frozen=True)
class ByteLevelStage:
    """``ByteLevel``: a space before each piece that lacks one (``add_prefix_space``), GPT-2's split (``use_regex``), bytes."""

    add_prefix_space: bool
    use_regex: bool


@functools.lru_cache(maxsize=1)
def _bytelevel_regex() -> OnigRegex:
    return OnigRegex(BYTELEVEL_REGEX, timeout=None)


# ----------------------------------------------------------------------------- normalization, as tokenizers does it

#: Characters that Python's ``unicodedata`` normalizes (they decompose, combine or compose)
#: but ``tokenizers`` leaves alone: its tables are Unicode 9.0, and these came later
#: (up to Unicode 16.0). Found by comparing the two on every code point; the test that
#: checks this table prints a new one when ``tokenizers`` changes.
OPAQUE = (
    (0x7FD, 0x7FD), (0x897, 0x89F), (0x8CA, 0x8D3), (0x9FE, 0x9FE), (0xC3C, 0xC3C), (0xD3B, 0xD3C), (0xEBA, 0xEBA),
    (0x1715, 0x1715), (0x1ABF, 0x1ACE), (0x1DF6, 0x1DFA), (0x32FF, 0x32FF), (0xA7F2, 0xA7F4), (0xA82C, 0xA82C),
    (0xAB69, 0xAB69), (0x105C9, 0x105C9), (0x105E4, 0x105E4), (0x10781, 0x10785), (0x10787, 0x107B0),
    (0x107B2, 0x107BA), (0x10D24, 0x10D27), (0x10D69, 0x10D6D), (0x10EAB, 0x10EAC), (0x10EFD, 0x10EFF),
    (0x10F46, 0x10F50), (0x10F82, 0x10F85), (0x11070, 0x11070), (0x1133B, 0x1133B), (0x11383, 0x11383),
    (0x11385, 0x11385), (0x1138E, 0x1138E), (0x11391, 0x11391), (0x113B8, 0x113B8), (0x113BB, 0x113BB),
    (0x113C2, 0x113C2), (0x113C5, 0x113C5), (0x113C7, 0x113C9), (0x113CE, 0x113D0), (0x1145E, 0x1145E),
    (0x11839, 0x1183A), (0x11930, 0x11930), (0x11938, 0x11938), (0x1193D, 0x1193E), (0x11943, 0x11943),
    (0x119E0, 0x119E0), (0x11A34, 0x11A34), (0x11A47, 0x11A47), (0x11A99, 0x11A99), (0x11D42, 0x11D42),
    (0x11D44, 0x11D45), (0x11D97, 0x11D97), (0x11F41, 0x11F42), (0x1611E, 0x16129), (0x1612F, 0x1612F),
    (0x16D67, 0x16D6A), (0x16FF0, 0x16FF1), (0x1CCD6, 0x1CCF9), (0x1E030, 0x1E06D), (0x1E08F, 0x1E08F),
    (0x1E130, 0x1E136), (0x1E2AE, 0x1E2AE), (0x1E2EC, 0x1E2EF), (0x1E4EC, 0x1E4EF), (0x1E5EE, 0x1E5EF),
    (0x1F16C, 0x1F16C), (0x1FBF0, 0x1FBF9),
)  # fmt: skip
NORMAL_FORMS = ("NFC", "NFKC", "NFD", "NFKD")


@functools.lru_cache(maxsize=1)
def _opaque_regex():
    return regex.compile("([" + "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in OPAQUE) + "])")


def hf_normalize(form: str, text: str) -> str:
    """``unicodedata.normalize`` as ``tokenizers`` does it: characters in ``OPAQUE`` stay as they are.

    Such a character is, to ``tokenizers``, an unassigned starter: it does not decompose,
    reorder or compose, and nothing composes across it.

    >>> hf_normalize("NFC", "e\\u0301"), hf_normalize("NFKC", "\\u32ff")
    ('é', '\\u32ff')
    """
    if text.isascii():
        return text
    parts = _opaque_regex().split(text)
    if len(parts) == 1:
        return unicodedata.normalize(form, text)
    # split() with a group: odd positions are the opaque characters themselves
    return "".join(p if i % 2 else unicodedata.normalize(form, p) for i, p in enumerate(parts))


class Normalizer(NamedTuple):
    """A sequence of Unicode normal forms, applied in order (an empty one changes nothing)."""

    forms: tuple[str, ...]

    def __call__(self, text: str) -> str:
        for form in self.forms:
            text = hf_normalize(form, text)
        return text

    def aligned(self, text: str) -> tuple[str, list[tuple[int, int]] | None]:
        """The normalized text and, if it changed, each of its characters' span in ``text``.

        Alignment is per cluster (a starter and the marks after it): every character a
        cluster becomes points at the whole cluster. Clusters are checked to normalize
        alike alone and together; where they do not, the whole text is one cluster.
        """
        out = self(text)
        if out == text:
            return out, None
        cuts = [0] + [m.start() for m in _cluster_start().finditer(text) if m.start()] + [len(text)]
        pieces = [self(text[a:b]) for a, b in zip(cuts, cuts[1:])]
        if "".join(pieces) != out:
            return out, [(0, len(text))] * len(out)
        align = []
        for (a, b), p in zip(zip(cuts, cuts[1:]), pieces):
            align.extend([(a, b)] * len(p))
        return out, align


@functools.lru_cache(maxsize=1)
def _cluster_start():
    # a character that neither combines with what precedes it nor decomposes into something that does
    return regex.compile(r"(?=[\p{ccc=0}--[\p{NFC_QC=M}\p{NFKC_QC=M}\p{NFKD_QC=N}\p{NFD_QC=N}]])", regex.V1)


# ----------------------------------------------------------------------------- added tokens


@dataclass(frozen=True)
class AddedToken:
    """One entry of ``added_tokens`` with the id ``tokenizers`` gives it when it loads the file.

    ``text`` is what is matched: the content, or (``normalized`` with a normalizer) the
    normalized content, which is also what it decodes to.
    """

    content: str
    id: int
    special: bool = False
    single_word: bool = False
    lstrip: bool = False
    rstrip: bool = False
    normalized: bool = False
    text: str = ""
    in_vocab: bool = False  # its text is a merged token's spelling, so it has that token's id (and bytes)

    @property
    def bytes(self) -> bytes:
        return (self.text or self.content).encode("utf-8")


_WS = regex.compile(r"\s")
_WORD = regex.compile(r"\w")


class _Matcher:
    """Finds added tokens leftmost-longest, as ``AddedVocabulary::find_matches`` does."""

    def __init__(self, tokens: Sequence[AddedToken]):
        by_text: dict[str, AddedToken] = {}
        for t in tokens:
            by_text[t.text or t.content] = t
        self.by_text = by_text
        ordered = sorted(by_text, key=len, reverse=True)
        self.rx = regex.compile("|".join(regex.escape(t) for t in ordered)) if ordered else None

    def find(self, s: str, allowed: frozenset[str] | None) -> list[tuple[AddedToken | None, int, int]]:
        """``[(token or None, start, end), ...]`` covering ``s`` (pieces may overlap, as in tokenizers)."""
        if not s:
            return [(None, 0, 0)]
        if self.rx is None:
            return [(None, 0, len(s))]
        splits: list[tuple[AddedToken | None, int, int]] = []
        start_offset = 0
        n = len(s)
        for m in self.rx.finditer(s):
            start, stop = m.span()
            tok = self.by_text[m.group()]
            if tok.special and allowed is not None and tok.content not in allowed:
                continue
            if tok.single_word:
                start_space = start == 0 or not _WORD.match(s[start - 1])
                stop_space = stop == n or not _WORD.match(s[stop])
                if not (start_space and stop_space):
                    continue
            if tok.lstrip:
                j = start
                while j > 0 and _WS.match(s[j - 1]):
                    j -= 1
                start = max(j, start_offset)
            if tok.rstrip:
                while stop < n and _WS.match(s[stop]):
                    stop += 1
            if start_offset < start:
                splits.append((None, start_offset, start))
            splits.append((tok, start, stop))
            start_offset = stop
        if start_offset != n:
            splits.append((None, start_offset, n))
        return splits


# ----------------------------------------------------------------------------- the pipeline


class Piece(NamedTuple):
    """One unit of the model's view: an added token, or a chunk for BPE.

    ``data`` are its bytes in the model's view; ``src`` the span of original characters it
    comes from; ``pre`` how many of its first bytes were inserted (a prefix space);
    ``align``, when the normalizer changed this text, the original span of each byte of
    ``data`` (else ``data[pre:]`` is exactly the original text of ``src``).
    """

    data: bytes
    token: int | None
    src: tuple[int, int]
    pre: int = 0
    align: tuple[tuple[int, int], ...] | None = None
    key: str | None = None  # the chunk as text, when it is whole UTF-8 (the encoder caches by it)
    sub: int = 0  # bytes of the first original character before the chunk starts (cut inside it)


@dataclass(frozen=True, eq=False)
class Pipeline:
    """A tokenizer.json's text handling before BPE (see the module's docstring).

    Built by ``formats.hf`` from a file; the Tokenizer holds it and hands it its encoder.
    ``spec`` is the file's own description of these steps (kept to write the file back).
    """

    normalizer: Normalizer | None
    stages: tuple[SplitStage | ByteLevelStage, ...]
    added: tuple[AddedToken, ...]
    ignore_merges: bool
    spec: dict

    # the Splitter's interface: no single pattern
    pattern = None
    builtin = False
    name = "tokenizer.json"

    @functools.cached_property
    def _raw(self) -> _Matcher:
        return _Matcher([t for t in self.added if not t.normalized])

    @functools.cached_property
    def _normalized(self) -> _Matcher:
        # found second, in the pieces the raw ones leave (normalized first, if there is a normalizer)
        return _Matcher([t for t in self.added if t.normalized])

    @property
    def added_tokens(self) -> dict[str, int]:
        """The ids the non-special added tokens add to the vocabulary, ``{text: id}``.

        Special ones are the Tokenizer's ``special_tokens``; one spelled like a merged token
        (``in_vocab``) is that token and adds nothing.
        """
        return {t.text or t.content: t.id for t in self.added if not t.special and not t.in_vocab}

    @functools.cached_property
    def added_bytes(self) -> dict[int, bytes]:
        return {t.id: t.bytes for t in self.added if not t.special and not t.in_vocab}

    def with_special_tokens(self, extra: dict[str, int]) -> Pipeline:
        """The same steps with more special tokens (found raw, like a chat format's), or self if none are new."""
        known = {t.content: t.id for t in self.added if t.special}
        new = {text: tid for text, tid in extra.items() if known.get(text) != tid}
        if not new:
            return self
        added = [t for t in self.added if t.content not in new]
        added += [AddedToken(text, tid, special=True, text=text) for text, tid in new.items()]
        spec = {**self.spec, "added_tokens": [
            *(a for a in self.spec["added_tokens"] if a["content"] not in new),
            *({"id": tid, "content": text, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True} for text, tid in new.items()),
        ]}  # fmt: skip
        return Pipeline(self.normalizer, self.stages, tuple(added), self.ignore_merges, spec)

    # -- the steps
    def pieces(self, text: str, allowed: frozenset[str] | None) -> list[Piece]:
        """The model's view of ``text``: added tokens and BPE chunks, in order.

        ``allowed``: the special tokens to recognise (None: all of them); a special token
        not allowed is found and skipped, as ``tokenizers`` does with ``encode_special_tokens``.
        """
        out: list[Piece] = []
        for tok, a, b in self._raw.find(text, allowed):
            if tok is not None:
                out.append(Piece(tok.bytes, tok.id, (a, b)))
                continue
            if a == b:
                continue
            self._normalized_piece(text[a:b], a, allowed, out)
        return out

    def _normalized_piece(self, s: str, offset: int, allowed, out: list[Piece]) -> None:
        align = None
        if self.normalizer is not None:
            s, align = self.normalizer.aligned(s)
        for tok, a, b in self._normalized.find(s, allowed):
            src = _span(align, a, b, offset)
            if tok is not None:
                out.append(Piece(tok.bytes, tok.id, src))
            elif a != b:
                self._pre_tokenize(s, a, b, offset, align, out)

    def _pre_tokenize(self, s: str, a: int, b: int, offset: int, align, out: list[Piece]) -> None:
        # A piece while splitting is (text, start, inserted prefix characters). Until ByteLevel,
        # and after it when it is the last stage, text is s's own characters and start a
        # character offset in s; stages after ByteLevel see GPT-2's byte characters (one per
        # byte, as tokenizers does), and start is then a byte offset in s's UTF-8.
        pieces: list[tuple[str, int, int]] = [(s[a:b], a, 0)]
        in_bytes = False
        byte_pos: list[int] | None = None
        last = len(self.stages) - 1
        for k, stage in enumerate(self.stages):
            nxt: list[tuple[str, int, int]] = []
            if isinstance(stage, ByteLevelStage):
                for t, start, _ in pieces:
                    pre = 0
                    if stage.add_prefix_space and not t.startswith(" "):
                        t = " " + t
                        pre = 1
                    if stage.use_regex:
                        cuts = _behave(_regex_matches(_bytelevel_regex(), t), "Isolated")
                    else:
                        cuts = [(0, len(t))]
                    for x, y in cuts:
                        if x != y:
                            nxt.append((t[x:y], start + max(0, x - pre), pre if x == 0 else 0))
                if k != last:
                    byte_pos = _byte_positions(s)
                    nxt = [(_to_byte_chars(t), byte_pos[start], pre) for t, start, pre in nxt]
                    in_bytes = True
            else:
                for t, start, pre in pieces:
                    for x, y in stage.cut(t):
                        if x != y:
                            nxt.append((t[x:y], start + max(0, x - pre), pre if x == 0 else 0))
            pieces = nxt
        for t, start, pre in pieces:
            sub = 0
            if not in_bytes:
                data = t.encode("utf-8")
                key: str | None = t
                c0, c1 = start, start + len(t) - pre
                chars = None
            else:
                data = _from_byte_chars(t)
                n = len(data) - pre
                chars = [_char_at(byte_pos, start + j) for j in range(n)]
                c0 = chars[0] if chars else _char_at(byte_pos, start)
                c1 = chars[-1] + 1 if chars else c0
                sub = start - byte_pos[c0]
                try:
                    key = data.decode("utf-8")
                except UnicodeDecodeError:
                    key = None
            src = _span(align, c0, c1, offset)
            piece_align = None
            if align is not None:  # where each byte of the model's view came from
                if chars is None:
                    chars = [c0 + j for j, ch in enumerate(t[pre:]) for _ in range(len(ch.encode("utf-8")))]
                piece_align = ((src[0], src[0]),) * pre + tuple(_span(align, c, c + 1, offset) for c in chars)
            out.append(Piece(data, None, src, pre, piece_align, key, sub))

    # -- what the Tokenizer asks for
    def split(self, text: str) -> list[str]:
        """The chunks of ordinary text in the model's view (added tokens as their own chunks)."""
        return [p.data.decode("utf-8", "replace") for p in self.pieces(text, frozenset())]

    def encode(self, encoder, text: str, allowed: frozenset[str] | None) -> list[int]:
        """Ids of ``text``; ``encoder`` is the Tokenizer's (a ``bpe.encoder.Encoder``)."""
        out: list[int] = []
        cache = encoder.cache
        for p in self.pieces(text, allowed):
            if p.token is not None:
                out.append(p.token)
            elif p.key is not None:
                out.extend(cache[p.key])
            else:
                out.extend(_bpe(encoder, p.data))
        return out

    def _chunk_ids(self, encoder, p: Piece) -> list[int]:
        return list(encoder.cache[p.key]) if p.key is not None else _bpe(encoder, p.data)

    def spans(self, tok, encoder, text: str, allowed: frozenset[str] | None) -> list[Span]:
        """One ``Span`` per token with offsets into ``text`` (the user's original text; see the module's docstring)."""
        obyte = _byte_positions(text)
        vocab = tok.vocab
        special_ids = tok.special_ids
        out: list[Span] = []

        def char_of(b: int) -> int:
            return _char_at(obyte, b)

        for p in self.pieces(text, allowed):
            if p.token is not None:
                c0, c1 = p.src
                out.append(Span(len(out), p.token, p.data, c0, c1, obyte[c0], obyte[c1], p.token in special_ids))
                continue
            base = obyte[p.src[0]] + p.sub
            x = 0
            for tid in self._chunk_ids(encoder, p):
                y = x + len(vocab[tid])
                if p.align is None:
                    b0, b1 = base + max(0, x - p.pre), base + max(0, y - p.pre)
                    c0 = char_of(b0)
                    c1 = char_of(b1 - 1) + 1 if b1 > b0 else c0
                else:
                    c0, c1 = p.align[x][0], p.align[y - 1][1]
                    b0, b1 = obyte[c0], obyte[c1]
                out.append(Span(len(out), tid, vocab[tid], c0, c1, b0, b1, False))
                x = y
        return out

    def trace(self, tok, encoder, text: str, allowed: frozenset[str] | None) -> EncodeTrace:
        """``encode_trace`` in the model's view (the bytes BPE merges, prefix spaces included).

        With ``ignore_merges``, a chunk that is a whole token but that the merges would build
        differently is shown built by its own merge tree.
        """
        pieces = self.pieces(text, allowed)
        data = b"".join(p.data for p in pieces)
        view = data.decode("utf-8", "replace")
        char_starts = _byte_positions(view)
        chunks, chunk_bytes, specials, events = [], [], [], []
        rank_of = tok.rank_of
        pos = 0
        for p in pieces:
            end = pos + len(p.data)
            chunk_bytes.append((pos, end))
            chunks.append(
                (_char_at(char_starts, pos), _char_at(char_starts, end - 1) + 1 if end > pos else _char_at(char_starts, pos))
            )
            if p.token is not None:
                specials.append((pos, len(p.data), p.token))
            else:
                tid = encoder.whole.get(p.data) if self.ignore_merges else None
                if tid is not None and encoder.encode_bytes(p.data) != [tid]:
                    ev = _tree_events(tok.merge_tree(tid), rank_of, 0)
                else:
                    ev = encoder.merge_events(p.data)
                events.extend((r, pos + q, new_id) for r, q, new_id in ev)
            pos = end
        events.sort()
        pairs = tok.merge_table.pairs
        vocab = tok.vocab
        steps = []
        n_tokens = len(data) - sum(length - 1 for _, length, _ in specials)
        i = 0
        while i < len(events):
            r = events[i][0]
            j = i
            while j < len(events) and events[j][0] == r:
                j += 1
            new_id = events[i][2]
            n_tokens -= j - i
            steps.append(
                EncodeStep(len(steps) + 1, r, pairs[r], new_id, vocab[new_id], tuple(e[1] for e in events[i:j]), n_tokens)
            )
            i = j
        return EncodeTrace(view, data, tok.byte_ids, tuple(chunks), tuple(chunk_bytes), tuple(specials), tuple(steps))

    def iter_chunks(self, texts: Iterable[str]):
        for text in texts:
            yield [p.data.decode("utf-8", "replace") for p in self.pieces(text, frozenset()) if p.token is None]


def _tree_events(tree, rank_of: dict[int, int], pos: int) -> list[tuple[int, int, int]]:
    """The merges that build ``tree`` (a ``MergeTree``) from bytes, as ``(rank, position, new_id)``."""
    if not tree.children:
        return []
    left, right = tree.children
    return [
        *_tree_events(left, rank_of, pos),
        *_tree_events(right, rank_of, pos + len(left.bytes)),
        (rank_of[tree.id], pos, tree.id),
    ]


def _bpe(encoder, data: bytes) -> list[int]:
    """A chunk that is not whole UTF-8 (split inside a character after ByteLevel), uncached."""
    tid = encoder.whole.get(data)
    return [tid] if tid is not None else encoder.encode_bytes(data)


def _span(align, a: int, b: int, offset: int) -> tuple[int, int]:
    """Characters ``[a, b)`` of a (maybe normalized) piece as a span of the original text."""
    if align is None:
        return (offset + a, offset + b)
    if a >= b:
        pos = align[a][0] if a < len(align) else (align[-1][1] if align else 0)
        return (offset + pos, offset + pos)
    return (offset + align[a][0], offset + align[b - 1][1])


def _byte_positions(s: str) -> list[int]:
    """Byte offset of each character of ``s`` (and of its end)."""
    out = [0]
    n = 0
    for ch in s:
        n += 1 if ch < "\x80" else len(ch.encode("utf-8"))
        out.append(n)
    return out


def _char_at(byte_pos: list[int], byte: int) -> int:
    """The index of the character holding byte ``byte``."""
    return max(0, bisect_right(byte_pos, byte) - 1)


_TO_CHARS = {i: c for i, c in bytes_to_unicode().items()}


def _to_byte_chars(t: str) -> str:
    return "".join(_TO_CHARS[b] for b in t.encode("utf-8"))


def _from_byte_chars(t: str) -> bytes:
    table = unicode_to_bytes()
    return bytes(table[c] for c in t)
