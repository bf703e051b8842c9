"""Cutting text into chunks with a split pattern (``Splitter``), fast and under a time limit.

A byte-level BPE never merges across a chunk boundary, so the chunks decide what BPE
can build. The patterns themselves are in ``patterns.py``.

User-supplied patterns are compiled with the ``regex`` module and always run with
a time limit (``time_limit``) of wall-clock seconds, so a catastrophic pattern fails
after two seconds instead of hanging, however many texts a call splits and however
busy the machine is (``within_wall_time``).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import contextvars
import functools
import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

import regex

from ..errors import InvalidType
from .pattern_syntax import SafeCuts, bmp_twin, safe_cuts
from .patterns import BUILTIN_PATTERNS, resolve_pattern

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

#: Seconds of wall-clock time a custom pattern may use in one call (``train``, ``encode``, ...),
#: or in one ``time_limit`` block.
USER_PATTERN_TIMEOUT = 2.0

# Threads that run user regexes for callers who wait on the clock (``within_wall_time``); a
# regex abandoned at its deadline keeps one until its own CPU limit stops it.
_REGEX_THREADS = 32

# Texts longer than this are split window by window, so a 10 MB corpus never becomes
# one list of millions of chunk strings (see ``Splitter.pieces``).
WINDOW = 1 << 20


# ----------------------------------------------------------------------------- time limits


_T = TypeVar("_T")
_pool: tuple[int, concurrent.futures.ThreadPoolExecutor] | None = None
_pool_lock = threading.Lock()


def _regex_pool() -> concurrent.futures.ThreadPoolExecutor:
    global _pool
    pid = os.getpid()
    if _pool is None or _pool[0] != pid:  # a forked child has the object but none of its threads
        with _pool_lock:
            if _pool is None or _pool[0] != pid:
                _pool = (pid, concurrent.futures.ThreadPoolExecutor(_REGEX_THREADS, thread_name_prefix="bpe-lab-regex"))
    return _pool[1]


def within_wall_time(seconds: float, fn: Callable[..., _T], *args) -> _T:
    """``fn(*args)``, or TimeoutError once ``seconds`` of wall-clock time have passed.

    ``regex``'s own ``timeout=`` counts the process's CPU time, which on a shared machine
    runs several times slower than the clock: so ``fn`` runs in a worker thread and the
    caller waits on the clock. ``fn`` must still stop by itself (a regex ``timeout=`` of
    at most ``seconds``, ``concurrent=True`` so the wait is not held by the GIL): work
    abandoned at the deadline goes on until that limit, never longer.

    >>> within_wall_time(1.0, sum, [1, 2, 3])
    6
    """
    future = _regex_pool().submit(fn, *args)
    try:
        return future.result(timeout=max(seconds, 0.0))
    except concurrent.futures.TimeoutError:
        future.cancel()  # not started yet (every thread busy with abandoned work): never starts
        raise TimeoutError(f"stopped after {seconds:g} s") from None


class TimeBudget:
    """Seconds of wall-clock time that custom split patterns may still use.

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


def has_astral(text: str) -> bool:
    """Whether the text has a character above U+FFFF.

    >>> has_astral("héllo 你好"), has_astral("hi 😄")
    (False, True)
    """
    # its UTF-16 is two bytes a character unless it has one: a copy at memory speed, far quicker than a regex scan
    return len(text.encode("utf-16-le", "surrogatepass")) != 2 * len(text)


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
            matches = functools.partial(self._compiled.finditer, text, concurrent=True, timeout=remaining)
            return within_wall_time(remaining, lambda: _fill_gaps(text, matches()))
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
        if text.isascii() or not has_astral(text):
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
