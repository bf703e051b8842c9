"""Training a byte-level BPE tokenizer, and looking back at training step by step."""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from . import engine_py
from .bpe import Tokenizer, clean_text, special_regex
from .errors import MAX_ID, InvalidType, check_int, check_str
from .patterns import DEFAULT_PATTERN, Splitter, TimeBudget, pattern_name
from .trace import Merge, PairCount

Progress = Callable[[int, int], object] | None


def check_vocab_size(vocab_size) -> int:
    """Return ``vocab_size`` as an int, or raise ValueError that says what is allowed."""
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
        if isinstance(vocab_size, float) and vocab_size.is_integer():
            vocab_size = int(vocab_size)
        else:
            raise ValueError(
                f"vocab_size must be a whole number of at least 256, got {vocab_size!r}; "
                "use 256 plus the number of merges you want, e.g. 512"
            )
    if vocab_size < 256:
        raise ValueError(
            f"vocab_size must be at least 256 (one token for each byte value), got {vocab_size}; "
            "use 256 plus the number of merges you want, e.g. 512"
        )
    if vocab_size > MAX_ID:
        raise ValueError(f"vocab_size must be at most {MAX_ID}, got {vocab_size}")
    return vocab_size


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
    return _count(splitter, text_stream(text, special_tokens), budget, workers)


#: Below this many characters one process counts chunks; above it the pieces beyond go
#: to worker processes (see ``_count``).
PARALLEL_CHARS = 2_000_000


def _count(
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
    specials = _special_names(special_tokens)
    return _stream(docs, specials)


def _special_names(special_tokens) -> tuple[str, ...]:
    if special_tokens is None:
        return ()
    if isinstance(special_tokens, (str, bytes)) or not isinstance(special_tokens, Iterable):
        raise ValueError(f"special_tokens must be a list of strings, e.g. ['<|endoftext|>'], not {type(special_tokens).__name__}")
    names = tuple(special_tokens)
    for s in names:
        if not isinstance(s, str) or not s:
            raise ValueError(f"special token {s!r} must be a non-empty string")
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


def _check_tokenizer(tok: object) -> Tokenizer:
    if not isinstance(tok, Tokenizer):
        raise InvalidType(f"expected a Tokenizer, not {type(tok).__name__}")
    return tok


@dataclass
class TrainingTrace:
    """What training saw, kept with a freshly trained tokenizer (in memory only).

    ``chunks`` are the unique chunks' bytes in order of first appearance and
    ``weights`` how often each occurs; ``tokens_after[k-1]`` is the length of the
    training text in tokens after k merges.
    """

    chunks: list[bytes]
    weights: list[int]
    initial_tokens: int
    tokens_after: list[int]
    seconds: float = 0.0

    @classmethod
    def from_text(cls, tokenizer: Tokenizer, text: str | Iterable[str]) -> TrainingTrace:
        """Rebuild the trace of a saved tokenizer from its training text."""
        _check_tokenizer(tokenizer)
        counts = count_chunks(text, tokenizer.pattern, tokenizer.special_tokens)
        chunks = [c.encode("utf-8") for c in counts]
        weights = list(counts.values())
        initial = sum(len(c) * w for c, w in zip(chunks, weights))
        return cls(chunks, weights, initial, _lengths_by_replay(tokenizer, chunks, weights))

    def length_at(self, k: int) -> int:
        """Tokens in the training text after ``k`` merges (from the record)."""
        k = check_int(k, "k", 0, len(self.tokens_after))
        return self.initial_tokens if k == 0 else self.tokens_after[k - 1]

    def tokens_at(self, tokenizer: Tokenizer, k: int) -> int:
        """Tokens in the training text after ``k`` merges, recomputed by encoding."""
        k = check_int(k, "k", 0, _check_tokenizer(tokenizer).num_merges)
        encode = tokenizer.encode_bytes
        return sum(len(encode(c, k)) * w for c, w in zip(self.chunks, self.weights))

    def pair_counts(self, tokenizer: Tokenizer, k: int, top: int | None = None) -> list[PairCount]:
        """Pair counts in the training text after ``k`` merges, best first.

        Ordered as training chooses: highest count, then earliest first occurrence.
        So for ``k < num_merges`` the first entry is the pair merge ``k`` merges.
        """
        k = check_int(k, "k", 0, _check_tokenizer(tokenizer).num_merges)
        if top is not None:
            top = check_int(top, "top", 0)
        encode = tokenizer.encode_bytes
        counts: dict[tuple[int, int], int] = {}
        first: dict[tuple[int, int], tuple[int, int]] = {}
        vocab = tokenizer.vocab
        for ci, (c, w) in enumerate(zip(self.chunks, self.weights)):
            ids = encode(c, k)
            off = 0
            for pair in zip(ids, ids[1:]):
                if pair in counts:
                    counts[pair] += w
                else:
                    counts[pair] = w
                    first[pair] = (ci, off)
                off += len(vocab[pair[0]])
        ordered = sorted(counts, key=lambda p: (-counts[p], first[p]))
        if top is not None:
            ordered = ordered[:top]
        return [PairCount(p, counts[p], first[p]) for p in ordered]


def _lengths_by_replay(tokenizer: Tokenizer, chunks: Sequence[bytes], weights: Sequence[int]) -> list[int]:
    """Sequence length after every merge, from each chunk's merge events."""
    saved = [0] * tokenizer.num_merges
    for c, w in zip(chunks, weights):
        for r, _, _ in tokenizer.merge_events(c):
            saved[r] += w
    total = sum(len(c) * w for c, w in zip(chunks, weights))
    out = []
    for s in saved:
        total -= s
        out.append(total)
    return out


def train(
    text: str | Iterable[str],
    vocab_size: int,
    pattern: str | None = DEFAULT_PATTERN,
    special_tokens: Sequence[str] | Mapping[str, int] | None = None,
    progress: Progress = None,
    *,
    name: str = "",
    workers: int | None = None,
) -> Tokenizer:
    """Train a byte-level BPE tokenizer on ``text``.

    ``text`` is a string or an iterable of documents, each a string or an iterable of
    string blocks read in order (a large file, without holding it whole). ``pattern`` is
    ``None`` (no pre-split), ``"gpt2"``, ``"gpt4"`` (cl100k_base), ``"o200k"`` or a
    regex. Ids 0..255 are the bytes; merge i gets id 256 + i; special tokens (a
    list of strings, or ``{string: id}``) come after the merges and are cut out of
    the training text.

    Each step merges the pair with the highest count summed over all chunks; among
    equal counts, the pair whose first occurrence comes earliest in the text wins
    (what ``max(stats, key=stats.get)`` over an insertion-ordered dict does); every
    non-overlapping occurrence is replaced left to right. Training stops early only
    when no adjacent pair is left. ``progress(done, total)`` is called as merges are
    made (about 200 times in all). Chunks of a long text are counted by ``workers``
    processes (default: every core, from the main thread; ``workers=1``: this one);
    the result never depends on it. Custom patterns have a time limit for the whole
    call (``patterns.time_limit``).

    >>> tok = train("aaabdaaabac", 259, pattern=None)
    >>> tok.encode("aaabdaaabac")
    [258, 100, 258, 97, 99]
    """
    vocab_size = check_vocab_size(vocab_size)
    special_names = list(_special_names(special_tokens))
    if progress is not None and not callable(progress):
        raise ValueError(f"progress must be a function progress(done, total) or None, not {type(progress).__name__}")
    check_str(name, "name")
    splitter = Splitter(pattern)  # a bad pattern fails here, before any work
    text = text_stream(text, special_names)
    t0 = time.perf_counter()
    num_merges = vocab_size - 256
    if progress is not None:
        progress(0, num_merges)
    counts = _count(splitter, text, workers=workers)
    chunks = [c.encode("utf-8") for c in counts]
    weights = list(counts.values())
    n_chars = sum(len(c) * w for c, w in counts.items())
    del counts
    initial = sum(len(c) * w for c, w in zip(chunks, weights))
    raw = engine_py.train_merges(chunks, weights, num_merges, progress, every=max(1, num_merges // 200))
    merges = [Merge(i, (a, b), 256 + i, c) for i, (a, b, c, _) in enumerate(raw)]
    tokens_after = []
    total = initial
    for *_, replaced in raw:
        total -= replaced
        tokens_after.append(total)
    if isinstance(special_tokens, Mapping):
        specials = dict(special_tokens)
    else:
        specials = {s: 256 + len(merges) + i for i, s in enumerate(dict.fromkeys(special_names))}
    seconds = time.perf_counter() - t0
    metadata = {
        "vocab_size": vocab_size,
        "merges_learned": len(merges),
        "stopped_early": len(merges) < num_merges,
        "pattern_name": pattern_name(splitter.pattern),
        "corpus_chars": n_chars,
        "corpus_bytes": initial,
        "unique_chunks": len(chunks),
        "tokens_before": initial,
        "tokens_after": total,
        "seconds": round(seconds, 4),
        "trained_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    training = TrainingTrace(chunks, weights, initial, tokens_after, seconds)
    tok = Tokenizer(merges, pattern=pattern, special_tokens=specials, name=name, metadata=metadata, training=training)
    if progress is not None and num_merges and len(merges) < num_merges:
        progress(num_merges, num_merges)
    return tok
