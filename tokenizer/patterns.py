"""Pre-tokenisation: the split patterns and the functions that cut text into chunks.

A byte-level BPE never merges across a chunk boundary. The built-in patterns are
exactly tiktoken's ``pat_str`` for each encoding (a test compares them with the
installed tiktoken), so a chunking here is the chunking the official encoders use.

User-supplied patterns are compiled with the ``regex`` module and always run with
a timeout, so a catastrophic pattern fails in about two seconds instead of hanging.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

import regex

# tiktoken's r50k_base / gpt2 pattern (tiktoken >= 0.9 spells it with possessive quantifiers).
GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""

# tiktoken's cl100k_base pattern (GPT-4): case-insensitive contractions, numbers in
# groups of at most three digits, newlines kept apart from other whitespace.
GPT4_PATTERN = r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""

# tiktoken's o200k_base pattern (GPT-4o): splits camelCase, keeps contractions on the word.
O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)

# The same patterns for text that is pure ASCII, where they match exactly alike: no ASCII
# character is a mark, a number other than 0-9 or a letter other than A-Z/a-z, and \s is
# spelled out because Python's re counts \x1c-\x1f as space while regex does not.
# Python's re runs them about 2.5x faster; tests/tokenizer/test_patterns.py checks they agree.
_S = r"[\t-\r ]"
_NS = r"[^\t-\r ]"
ASCII_EQUIVALENTS = {
    GPT2_PATTERN: rf"""'(?:[sdmt]|ll|ve|re)| ?[A-Za-z]++| ?[0-9]++| ?[^\t-\r A-Za-z0-9]++|{_S}++$|{_S}+(?!{_NS})|{_S}""",
    GPT4_PATTERN: (
        rf"""'(?i:[sdmt]|ll|ve|re)|[^\r\nA-Za-z0-9]?+[A-Za-z]++|[0-9]{{1,3}}+| ?[^\t-\r A-Za-z0-9]++[\r\n]*+"""
        rf"""|{_S}++$|{_S}*[\r\n]|{_S}+(?!{_NS})|{_S}"""
    ),
    # in ASCII the upper- and lower-case runs are disjoint and each alternative ends
    # where its last run ends, so these runs never need to give characters back
    O200K_PATTERN: "|".join(
        [
            r"""[^\r\nA-Za-z0-9]?+[A-Z]*+[a-z]++(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""[^\r\nA-Za-z0-9]?+[A-Z]++[a-z]*+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""[0-9]{1,3}+""",
            r""" ?[^\t-\r A-Za-z0-9]++[\r\n/]*+""",
            rf"""{_S}*[\r\n]+""",
            rf"""{_S}+(?!{_NS})""",
            rf"""{_S}+""",
        ]
    ),
}
# Mixed text is split in pieces of about this many characters (at safe cuts), so the
# ASCII pieces of mostly-ASCII text still take the fast path.
ASCII_PIECE = 1 << 14

#: Names accepted wherever a pattern is asked for; ``None`` means "no pre-split".
PATTERNS: dict[str, str] = {
    "gpt2": GPT2_PATTERN,
    "r50k_base": GPT2_PATTERN,
    "gpt4": GPT4_PATTERN,
    "cl100k_base": GPT4_PATTERN,
    "o200k": O200K_PATTERN,
    "o200k_base": O200K_PATTERN,
}

#: The pattern ``train`` uses unless told otherwise (GPT-4's).
DEFAULT_PATTERN = "gpt4"

#: Seconds a user-supplied pattern may spend on one piece of text.
USER_PATTERN_TIMEOUT = 2.0

# Texts longer than this are split window by window, so a 10 MB corpus never becomes
# one list of millions of chunk strings (see ``_safe_cut``).
WINDOW = 1 << 20


def resolve_pattern(pattern: str | None) -> str | None:
    """Map a pattern name (``"gpt4"``) to its regex; pass a regex string through.

    >>> resolve_pattern("gpt2") == GPT2_PATTERN
    True
    """
    if pattern is None or pattern == "":
        return None
    if not isinstance(pattern, str):
        raise ValueError(f"pattern must be None, a name ({', '.join(PATTERNS)}) or a regex string, not {type(pattern).__name__}")
    return PATTERNS.get(pattern, pattern)


def pattern_name(pattern: str | None) -> str:
    """The short name of a built-in pattern, ``"none"``, or ``"custom"``."""
    if pattern is None:
        return "none"
    for name in ("gpt2", "gpt4", "o200k"):
        if PATTERNS[name] == pattern:
            return name
    return "custom"


class Splitter:
    """Cuts text into chunks with one compiled pattern.

    Built-in patterns run without a timeout (they are linear); any other pattern is
    validated on construction and runs with ``USER_PATTERN_TIMEOUT`` per call.
    Text that a user pattern does not match is kept as a chunk of its own, so no text
    is ever lost (tiktoken and minbpe drop it silently; the built-in patterns match
    everything, so for them this changes nothing).
    """

    def __init__(self, pattern: str | None, *, timeout: float | None = None):
        self.pattern = resolve_pattern(pattern)
        self.builtin = self.pattern is None or self.pattern in PATTERNS.values()
        self.timeout = None if self.builtin else (timeout or USER_PATTERN_TIMEOUT)
        self._compiled = None
        if self.pattern is not None:
            self._compiled = compile_pattern(self.pattern)
        ascii_pattern = ASCII_EQUIVALENTS.get(self.pattern)
        self._ascii = re.compile(ascii_pattern) if ascii_pattern else None

    def split(self, text: str) -> list[str]:
        """All chunks of ``text`` in order; ``"".join(result) == text``.

        >>> Splitter("gpt2").split("Hello world!!")
        ['Hello', ' world', '!!']
        """
        if not text:
            return []
        if self._compiled is None:
            return [text]
        return self._findall(text)

    def _findall(self, text: str) -> list[str]:
        if self._ascii is not None:
            return self._split_builtin(text)
        try:
            if self.builtin:
                return self._compiled.findall(text)
            return _fill_gaps(text, self._compiled.finditer(text, timeout=self.timeout))
        except TimeoutError:
            raise ValueError(
                f"The split pattern took longer than {self.timeout:g} s on this text and was stopped. "
                "It probably backtracks catastrophically (nested quantifiers such as (a+)+); "
                "simplify it, or use one of the built-in patterns (gpt2, gpt4, o200k)."
            ) from None

    def _split_builtin(self, text: str) -> list[str]:
        fast = self._ascii.findall
        if text.isascii():
            return fast(text)
        slow = self._compiled.findall
        if len(text) <= 2 * ASCII_PIECE:
            return slow(text)
        out: list[str] = []
        for piece in iter_safe_pieces([text], window=ASCII_PIECE):
            out += fast(piece) if piece.isascii() else slow(piece)
        return out

    def iter_chunks(self, texts: Iterable[str]) -> Iterator[list[str]]:
        """Chunks of many texts (documents), one list per piece, never crossing documents.

        Long documents are cut at safe places first, so memory stays bounded.
        """
        for text in texts:
            for piece in (iter_safe_pieces([text]) if self.builtin else [text]):
                if piece:
                    yield self.split(piece)


def _fill_gaps(text: str, matches) -> list[str]:
    out = []
    pos = 0
    for m in matches:
        s, e = m.span()
        if e == s:
            continue
        if s > pos:
            out.append(text[pos:s])
        out.append(text[s:e])
        pos = e
    if pos < len(text):
        out.append(text[pos:])
    return out


def compile_pattern(pattern: str):
    """Compile a split pattern with ``regex``, or raise ValueError that says how to fix it."""
    try:
        compiled = regex.compile(pattern)
    except regex.error as e:
        raise ValueError(
            f"The split pattern is not a valid regex: {e}. "
            "Check brackets and escapes, or pick a built-in pattern (gpt2, gpt4, o200k)."
        ) from None
    return compiled


def validate_pattern(pattern: str | None, sample: str = "Hello world, it's 2024! 你好 😄\n") -> list[str]:
    """Compile and try a pattern on a sample; return the sample's chunks or raise ValueError."""
    return Splitter(pattern).split(sample)


# A cut right after a newline that sits between two non-space characters ("word\nWord")
# is a chunk boundary under every built-in pattern: no built-in alternative crosses a
# newline followed by a non-space, and each of them ends the newline run the same way
# whether the text continues or not. tests/tokenizer/test_patterns.py checks this on real text.
_SAFE_CUT = regex.compile(r"(?<=\S\n)(?=\S)")


def _safe_cut(text: str, start: int) -> int:
    """The first safe cut position at or after ``start``, or -1."""
    m = _SAFE_CUT.search(text, start)
    return m.start() if m else -1


def iter_safe_pieces(texts: Iterable[str], window: int = WINDOW) -> Iterator[str]:
    """Re-cut a stream of text pieces into pieces of about ``window`` characters.

    Cuts happen only at safe places (see ``_SAFE_CUT``), so splitting each piece
    with a built-in pattern gives the same chunks as splitting the whole text. The
    input pieces are treated as one continuous text; use separate calls for
    separate documents.
    """
    buf = ""
    for text in texts:
        buf = buf + text if buf else text
        start = 0
        while len(buf) - start > window:
            cut = _safe_cut(buf, start + window)
            if cut < 0:
                break
            yield buf[start:cut]
            start = cut
        if start:
            buf = buf[start:]
    if buf:
        yield buf
