"""Counting the chunks of a text: what training learns from, each unique chunk once with its frequency.

A text is a stream (``text_stream``): documents read in blocks, cleaned as tiktoken
cleans text, with special-token strings cut out. ``count_chunks`` splits it piece by
piece at the pattern's safe cuts (``Splitter.pieces``) and, for a long text under a
built-in pattern, counts the pieces in worker processes on every core.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections import Counter, deque
from collections.abc import Iterable, Iterator

from ..errors import check_int, clean_text
from ..special import check_special_length, special_regex
from .patterns import DEFAULT_PATTERN
from .splitter import Splitter, TimeBudget


def count_chunks(
    text: str | Iterable[str | Iterable[str]],
    pattern: str | None = DEFAULT_PATTERN,
    special_tokens: Iterable[str] = (),
    *,
    budget: TimeBudget | None = None,
    workers: int | None = None,
) -> Counter:
    """``{chunk: occurrences}`` in order of first appearance.

    ``text`` is one string or an iterable of documents, each a string or an iterable of
    string blocks that follow each other (a file read in parts); no chunk crosses a
    document or a special-token string (those are cut out and not counted). Long
    documents are split piece by piece at the pattern's safe cuts, so memory grows with
    the number of unique chunks, not with the size of the text, and the counts are
    those of the whole text.

    >>> count_chunks(["Hello world", ["Hel", "lo<|x|>wor", "ld"]], "gpt2", ["<|x|>"])
    Counter({'Hello': 2, ' world': 1, 'world': 1})
    """
    splitter = Splitter(pattern)
    return count_stream(splitter, text_stream(text, special_tokens), budget, workers)


#: Below this many characters one process counts chunks; above it the pieces beyond go
#: to worker processes (see ``_count``).
PARALLEL_CHARS = 2_000_000


def count_stream(
    splitter: Splitter, stream: Iterable[str | None], budget: TimeBudget | None = None, workers: int | None = None
) -> Counter:
    """Chunk counts of a stream, in order of first appearance.

    With a trusted (built-in) pattern and a long text, the text's pieces (cut at safe
    places, ``Splitter.pieces``) are counted by ``workers`` forked processes, and their
    counts added up in text order, which keeps the order of first appearance. Custom
    patterns stay in this process: their pieces depend on each other (unmatched text
    joined across cuts) and their time limit is this process's.
    """
    counts: Counter = Counter()
    n_workers = _workers(workers) if splitter.builtin and splitter.pattern is not None else 1
    if n_workers <= 1:
        for chunks in splitter.iter_chunks(stream, budget):
            counts.update(chunks)
        return counts
    seen = 0
    pieces = (p for p in splitter.pieces(stream) if p)
    for piece in pieces:  # the first pieces here, until the text proves long
        counts.update(splitter.split(piece))
        seen += len(piece)
        if seen >= PARALLEL_CHARS:
            break
    else:
        return counts
    global _WORKER_SPLITTER
    _WORKER_SPLITTER = splitter  # inherited by the forked workers
    pending: deque = deque()
    with multiprocessing.get_context("fork").Pool(n_workers) as pool:
        for piece in pieces:
            pending.append(pool.apply_async(_count_piece, (piece,)))
            while len(pending) > 2 * n_workers:  # a bounded number of pieces in flight
                counts.update(pending.popleft().get())
        while pending:
            counts.update(pending.popleft().get())
    return counts


_WORKER_SPLITTER: Splitter | None = None


def _count_piece(piece: str) -> Counter:
    return Counter(_WORKER_SPLITTER.split(piece))


def _workers(workers: int | None) -> int:
    """How many processes count chunks: ``workers``, or every core when None, but one
    where forking is not available or not safe (outside the main thread: a server's
    worker thread, such as a Streamlit session's, is never forked)."""
    if workers is not None:
        return check_int(workers, "workers", 1)
    if "fork" not in multiprocessing.get_all_start_methods() or threading.current_thread() is not threading.main_thread():
        return 1
    return os.cpu_count() or 1


def text_stream(text: str | Iterable[str | Iterable[str]], special_tokens: Iterable[str] = ()) -> Iterator[str | None]:
    """Documents as one stream for ``Splitter.iter_chunks``: their text, cleaned as tiktoken
    cleans it, with ``None`` where a document ends and where a special-token string was
    cut out. A special token split between two blocks is still found.

    >>> list(text_stream(["ab<|x|>cd", ["e<|", "x|>f"]], ["<|x|>"]))
    ['ab', None, 'cd', None, 'e', None, 'f', None]
    """
    if text is None or isinstance(text, (bytes, bytearray)):
        raise ValueError(
            f"training text must be a str or an iterable of str documents, not {type(text).__name__}"
            + ("; decode it first, e.g. data.decode('utf-8')" if isinstance(text, (bytes, bytearray)) else "")
        )
    docs = [text] if isinstance(text, str) else text
    try:
        docs = iter(docs)
    except TypeError:
        raise ValueError(f"training text must be a str or an iterable of str documents, not {type(text).__name__}") from None
    specials = special_names(special_tokens)
    return _stream(docs, specials)


def special_names(special_tokens) -> tuple[str, ...]:
    if special_tokens is None:
        return ()
    if isinstance(special_tokens, (str, bytes)) or not isinstance(special_tokens, Iterable):
        raise ValueError(f"special_tokens must be a list of strings, e.g. ['<|endoftext|>'], not {type(special_tokens).__name__}")
    names = tuple(special_tokens)
    for s in names:
        if not isinstance(s, str) or not s:
            raise ValueError(f"special token {s!r} must be a non-empty string")
        check_special_length(s)
    return names


def _stream(docs: Iterator, specials: tuple[str, ...]) -> Iterator[str | None]:
    cut = special_regex(specials) if specials else None
    keep = max(map(len, specials), default=1) - 1  # characters that may be the start of a special token
    for n, doc in enumerate(docs):
        if isinstance(doc, str):
            blocks: Iterable = (doc,)
        elif doc is None or isinstance(doc, (bytes, bytearray)) or not hasattr(doc, "__iter__"):
            raise ValueError(f"document {n} is {type(doc).__name__}: each document must be a str or an iterable of str blocks")
        else:
            blocks = doc
        yield from _cut_specials(_clean_blocks(blocks, n), cut, keep)
        yield None


def _clean_blocks(blocks: Iterable, doc: int) -> Iterator[str]:
    """Blocks with lone surrogates replaced (``clean_text``); a high surrogate at a block's
    end waits for the next block, where its low half may be."""
    held = ""
    for k, block in enumerate(blocks):
        if not isinstance(block, str):
            raise ValueError(f"document {doc}, block {k} is {type(block).__name__}, not a str")
        block = held + block
        held = ""
        if block and "\ud800" <= block[-1] <= "\udbff":
            block, held = block[:-1], block[-1]
        if block:
            yield clean_text(block)
    if held:
        yield clean_text(held)


def _cut_specials(blocks: Iterable[str], cut, keep: int) -> Iterator[str | None]:
    """The text of blocks with each special-token match replaced by ``None``.

    A match starting ``keep`` or more characters before the end of what has been read is
    decided (the longest special token fits); later text waits for the next block.
    """
    if cut is None:
        yield from blocks
        return
    buf = ""
    for block in blocks:
        buf += block
        limit = len(buf) - keep
        pos = 0
        for m in cut.finditer(buf):
            if m.start() >= limit:
                break
            if m.start() > pos:
                yield buf[pos : m.start()]
            yield None
            pos = m.end()
        if pos < limit:
            yield buf[pos:limit]
            pos = limit
        buf = buf[pos:]
    pos = 0
    for m in cut.finditer(buf):
        if m.start() > pos:
            yield buf[pos : m.start()]
        yield None
        pos = m.end()
    if pos < len(buf):
        yield buf[pos:]
