"""Training a byte-level BPE tokenizer fast, and looking back at training step by step.

``train`` counts the text's chunks (``pretokenize.count``), learns the merges
(``train_merges``) and returns a Tokenizer that remembers what it saw
(``TrainingTrace``). The merges are exactly ``textbook.train``'s, tie-break included;
``train_merges`` says how it gets them without recounting every pair at every step.
"""

from __future__ import annotations

import heapq
import itertools
import time
from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from operator import mul
from typing import ClassVar

from ..core import Tokenizer, check_tokenizer
from ..errors import MAX_ID, check_int, check_str
from ..pretokenize.count import count_chunks, count_stream, special_names, text_stream
from ..pretokenize.patterns import DEFAULT_PATTERN, pattern_name
from ..pretokenize.splitter import Splitter
from ..trace import Merge, PairCount
from .common import training_method

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


def train_merges(
    chunks: Sequence[bytes],
    weights: Sequence[int],
    num_merges: int,
    progress: Progress = None,
    every: int = 1,
    *,
    token_lengths: Sequence[int] | None = None,
) -> list[tuple[int, int, int, int]]:
    """Learn up to ``num_merges`` merges; return ``[(left, right, count, replaced), ...]``.

    ``chunks`` are bytes, and merge ``i`` mints id ``256 + i``. To go on from tokens
    an earlier training made, give each chunk as its ids instead (its encoding under a
    base tokenizer) and ``token_lengths``, the byte length of every id below the first
    new one (0 for an id not in use): merge ``i`` then mints ``len(token_lengths) + i``.

    Each step takes the pair with the highest count
    (summed over chunks, each weighted by how often it occurs); among equal counts,
    the pair whose first occurrence comes earliest in the text, i.e. the earliest
    ``(chunk index, byte offset)`` with chunks in order of first appearance. Every
    non-overlapping occurrence is replaced left to right. Stops early only when no
    adjacent pair is left.

    Incremental: pair counts change only where a merge touched a word; a pair's
    occurrences are all created at the step that minted its newer id and afterwards
    only destroyed, so counts only fall and first occurrences only move right. The
    heap therefore holds optimistic entries that are checked when popped.

    Data shapes, chosen for speed: a pair is the int ``a * K + b``, a first occurrence the
    int ``chunk << OFF_BITS | offset``, a heap entry one int that sorts as ``(-count, first
    occurrence, pair)`` does, a pair's chunk list an ``array`` and a chunk a tuple: ints are
    cheaper to compare and hash than tuples, and none of these holds anything the garbage
    collector must walk (it took a quarter of the time when they were tuples and lists).

    ``replaced`` is how many occurrences the merge replaced (less than ``count`` only
    for overlapping runs such as ``aaa``), so the sequence length after each merge
    follows without re-encoding.

    >>> train_merges([b"aaabdaaabac"], [1], 3)
    [(97, 97, 4, 2), (256, 97, 2, 2), (257, 98, 2, 2)]
    """
    words = [tuple(c) for c in chunks]  # tuples of ints: the garbage collector stops walking them
    tok_len = [1] * 256 if token_lengths is None else list(token_lengths)
    first_id = len(tok_len)
    # a chunk's length in bytes: each token is one byte unless training goes on from longer ones
    byte_lens = list(map(len, chunks)) if token_lengths is None else [sum(map(tok_len.__getitem__, w)) for w in words]
    # a pair (a, b) is the int a * K + b: cheaper to build and hash than a tuple
    K = 1 << max(9, (first_id + num_merges).bit_length())
    OFF_BITS = max(byte_lens, default=1).bit_length() + 1
    KEY_BITS = 2 * (K.bit_length() - 1)
    F_BITS = len(chunks).bit_length() + OFF_BITS
    SHIFT = F_BITS + KEY_BITS
    KEY_MASK = (1 << KEY_BITS) - 1
    F_NONE = (1 << F_BITS) - 1  # no occurrence left: sorts after every real one
    CMAX = sum(map(mul, byte_lens, weights)) + 1  # above any pair count
    # every adjacent pair counted at once (one pass of numpy; a Python loop over every byte
    # of the unique chunks was a third of training a small text)
    counts, where, first = _initial_pairs(chunks, weights, K, OFF_BITS, None if token_lengths is None else tok_len)
    counts_get = counts.get
    heap = [((CMAX - c) << SHIFT) | (first[k] << KEY_BITS) | k for k, c in counts.items()]
    heapq.heapify(heap)
    cursor = {}

    def first_occurrence(key):
        lst = where[key]
        k = cursor.get(key, 0)
        a, b = divmod(key, K)
        while k < len(lst):
            w = words[lst[k]]
            last = len(w) - 1
            i = 0
            while a in w[i:last]:  # tuple.index finds the candidates in C
                i = w.index(a, i, last)
                if w[i + 1] == b:
                    cursor[key] = k
                    return (lst[k] << OFF_BITS) | sum(map(tok_len.__getitem__, w[:i]))
                i += 1
            k += 1
        cursor[key] = k
        return F_NONE

    merges: list[tuple[int, int, int, int]] = []
    every = max(1, every)
    heappop, heappush = heapq.heappop, heapq.heappush
    while len(merges) < num_merges and heap:
        top = heappop(heap)
        key = top & KEY_MASK
        c = counts_get(key, 0)
        if c <= 0:
            continue
        if c != CMAX - (top >> SHIFT):
            heappush(heap, ((CMAX - c) << SHIFT) | (first_occurrence(key) << KEY_BITS) | key)
            continue
        new_id = first_id + len(merges)
        a, b = divmod(key, K)
        tok_len.append(tok_len[a] + tok_len[b])
        # Merge every occurrence, chunk by chunk. Only the pairs next to a merge change:
        # (left, a) becomes (left, new) and (b, right) becomes (new, right); in a run
        # such as a b a b the middle (b, a) becomes (new, new). Pairs holding new_id are
        # brand new (first seen here), so they get their chunk list and first occurrence
        # now. Written out in one loop on purpose: this is the trainer's innermost code.
        new_keys = []
        replaced = 0
        seen = -1
        bK = b * K
        newK = new_id * K
        for ci in where[key]:
            if ci == seen:
                continue
            seen = ci
            w = words[ci]
            n = len(w)
            last = n - 1
            i = -1  # the first occurrence (the chunk list may be stale for this chunk)
            while True:
                if a not in w[i + 1 : last]:
                    i = -1
                    break
                i = w.index(a, i + 1, last)
                if w[i + 1] == b:
                    break
            if i < 0:
                continue
            wt = weights[ci]
            out = list(w[:i])
            while True:
                if out:
                    left = out[-1]
                    if left != new_id:  # else the (b, a) between two merges was removed already
                        counts[left * K + a] -= wt
                    p = left * K + new_id
                    cc = counts_get(p)
                    if cc is None:
                        counts[p] = wt
                        where[p] = array("i", (ci,))
                        first[p] = (ci << OFF_BITS) | (sum(map(tok_len.__getitem__, out)) - tok_len[left])
                        new_keys.append(p)
                    else:
                        counts[p] = cc + wt
                        lst = where[p]
                        if lst[-1] != ci:
                            lst.append(ci)
                j = i + 2
                nxt = -1
                if j < n:
                    right = w[j]
                    counts[bK + right] -= wt
                    if right == a and j < last and w[j + 1] == b:
                        nxt = j  # merged next: its left side is handled there
                    else:
                        p = newK + right
                        cc = counts_get(p)
                        if cc is None:
                            counts[p] = wt
                            where[p] = array("i", (ci,))
                            first[p] = (ci << OFF_BITS) | sum(map(tok_len.__getitem__, out))
                            new_keys.append(p)
                        else:
                            counts[p] = cc + wt
                            lst = where[p]
                            if lst[-1] != ci:
                                lst.append(ci)
                out.append(new_id)
                replaced += wt
                if nxt < 0:
                    k = j
                    while k < last and a in w[k:last]:
                        k = w.index(a, k, last)
                        if w[k + 1] == b:
                            nxt = k
                            break
                        k += 1
                    if nxt < 0:
                        out += w[j:]
                        break
                out += w[j:nxt]
                i = nxt
            words[ci] = tuple(out)
        merges.append((a, b, c, replaced))
        del counts[key]
        for p in new_keys:
            heappush(heap, ((CMAX - counts[p]) << SHIFT) | (first[p] << KEY_BITS) | p)
        if progress is not None and (len(merges) % every == 0 or len(merges) == num_merges):
            progress(len(merges), num_merges)
    return merges


def _initial_pairs(
    chunks: Sequence[Sequence[int]],
    weights: Sequence[int],
    K: int,
    OFF_BITS: int,
    token_lengths: Sequence[int] | None = None,
) -> tuple[dict[int, int], dict[int, array], dict[int, int]]:
    """Every adjacent pair of ids in the chunks: its count (weighted), the chunks that hold it, its first occurrence.

    A pair is the int ``a * K + b``; chunk lists are ``array("i")`` in increasing order
    without repeats; a first occurrence is ``chunk << OFF_BITS | byte offset``. Chunks are
    bytes, or ids with ``token_lengths`` (each id's length in bytes, for the offsets).

    >>> counts, where, first = _initial_pairs([b"aab", b"ab"], [1, 5], 512, 3)
    >>> counts == {97 * 512 + 97: 1, 97 * 512 + 98: 6}, list(where[97 * 512 + 98]), first[97 * 512 + 98]
    (True, [0, 1], 1)
    """
    import numpy as np

    lens = np.fromiter(map(len, chunks), dtype=np.int64, count=len(chunks))
    if token_lengths is None:
        flat = np.frombuffer(b"".join(chunks), dtype=np.uint8).astype(np.int64)
    else:
        flat = np.fromiter(itertools.chain.from_iterable(chunks), dtype=np.int64, count=int(lens.sum()))
    owner = np.repeat(np.arange(len(chunks), dtype=np.int64), lens)  # the chunk of each byte
    pos = np.flatnonzero(owner[:-1] == owner[1:])  # a pair starts at every byte but a chunk's last
    if not len(pos):
        return {}, {}, {}
    keys = flat[pos] * K + flat[pos + 1]
    chunk = owner[pos]
    offset = pos - (np.cumsum(lens) - lens)[chunk]
    if token_lengths is not None:  # in bytes: the lengths of the ids before it in its chunk
        sizes = np.asarray(token_lengths, dtype=np.int64)[flat]
        before = np.cumsum(sizes) - sizes
        offset = before[pos] - before[pos - offset]
    order = np.argsort(keys, kind="stable")  # by pair, then by place in the text
    keys, chunk = keys[order], chunk[order]
    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    pairs = keys[starts].tolist()
    totals = np.add.reduceat(np.asarray(weights, dtype=np.int64)[chunk], starts).tolist()
    at = order[starts]
    firsts = ((owner[pos[at]] << OFF_BITS) | offset[at]).tolist()
    # chunk lists: one entry per (pair, chunk)
    fresh = np.concatenate(([True], (keys[1:] != keys[:-1]) | (chunk[1:] != chunk[:-1])))
    held = chunk[fresh].tolist()
    bounds = np.flatnonzero(np.concatenate((keys[fresh][1:] != keys[fresh][:-1], [True]))).tolist()
    where = {}
    lo = 0
    for key, hi in zip(pairs, bounds):
        where[key] = array("i", held[lo : hi + 1])
        lo = hi + 1
    return dict(zip(pairs, totals)), where, dict(zip(pairs, firsts))


@dataclass
class TrainingTrace:
    """What training saw, kept with a freshly trained tokenizer (in memory only).

    ``chunks`` are the unique chunks' bytes in order of first appearance and
    ``weights`` how often each occurs; ``tokens_after[k-1]`` is the length of the
    training text in tokens after k merges.

    The training variants (``methods``) keep subclasses that say more (which language
    a merge served, where a second stage began); every one keeps this class's promise:
    for ``first_learned <= k < num_merges`` the first of ``pair_counts(tok, k)`` is the
    pair merge ``k + 1`` took.
    """

    chunks: list[bytes]
    weights: list[int]
    initial_tokens: int
    tokens_after: list[int]
    seconds: float = 0.0

    #: The training method whose traces this class rebuilds (``from_text``); each variant's subclass names its own.
    method: ClassVar[str] = "bpe"
    _by_method: ClassVar[dict[str, type[TrainingTrace]]] = {}

    #: True when the pair counts after k merges are those of ``chunks`` with the first k
    #: merges applied to their bytes (plain training), so a page may carry them from one
    #: step to the next (``ui.step.model.PairCounter``); a variant asks ``pair_counts``.
    incremental: ClassVar[bool] = True

    def __init_subclass__(cls, **kwargs) -> None:
        """Each variant's trace registers itself, so ``from_text`` finds it without importing the variants (which
        import this module); ``tokenizer`` imports every variant (``bpe.methods``)."""
        super().__init_subclass__(**kwargs)
        TrainingTrace._by_method[cls.method] = cls

    @property
    def first_learned(self) -> int:
        """The first merge learned on this text (0; a continued training's base came before)."""
        return 0

    def pattern_at(self, tokenizer: Tokenizer, k: int) -> str | None:
        """The split pattern training cut the text with when it chose merge ``k + 1`` (the tokenizer's own)."""
        return tokenizer.pattern

    @classmethod
    def from_text(cls, tokenizer: Tokenizer, text: str | Iterable[str]) -> TrainingTrace:
        """Rebuild the trace of a saved tokenizer from its training text (a variant's, if its metadata names one)."""
        check_tokenizer(tokenizer)
        method = training_method(tokenizer)
        if cls is TrainingTrace and method != "bpe":
            if method not in cls._by_method:
                raise ValueError(
                    f"this tokenizer says it was trained by {method!r}, which this BPE Lab does not know: update BPE Lab"
                )
            return cls._by_method[method].from_text(tokenizer, text)
        counts = count_chunks(text, tokenizer.pattern, tokenizer.special_tokens)
        chunks = [c.encode("utf-8") for c in counts]
        weights = list(counts.values())
        initial = sum(len(c) * w for c, w in zip(chunks, weights))
        return cls(chunks, weights, initial, lengths_by_replay(tokenizer, chunks, weights))

    def length_at(self, k: int) -> int:
        """Tokens in the training text after ``k`` merges (from the record)."""
        k = check_int(k, "k", 0, len(self.tokens_after))
        return self.initial_tokens if k == 0 else self.tokens_after[k - 1]

    def tokens_at(self, tokenizer: Tokenizer, k: int) -> int:
        """Tokens in the training text after ``k`` merges, recomputed by encoding."""
        k = check_int(k, "k", 0, check_tokenizer(tokenizer).num_merges)
        encode = tokenizer.encode_bytes
        return sum(len(encode(c, k)) * w for c, w in zip(self.chunks, self.weights))

    def pair_counts(self, tokenizer: Tokenizer, k: int, top: int | None = None) -> list[PairCount]:
        """Pair counts in the training text after ``k`` merges, best first.

        Ordered as training chooses: highest count, then earliest first occurrence.
        So for ``k < num_merges`` the first entry is the pair merge ``k`` merges.
        """
        k = check_int(k, "k", 0, check_tokenizer(tokenizer).num_merges)
        if top is not None:
            top = check_int(top, "top", 0)
        return count_pairs(tokenizer, self.chunks, self.weights, k, top)


def count_pairs(
    tokenizer: Tokenizer, chunks: Sequence[bytes], weights: Sequence[int], k: int, top: int | None = None, start: int = 0
) -> list[PairCount]:
    """The pairs of ``chunks`` (each counted ``weights`` times) after ``k`` merges, in training's order.

    Highest count first, then earliest first occurrence ``(chunk index, byte offset)``;
    chunk indices count from ``start``.
    """
    encode = tokenizer.encode_bytes
    counts: dict[tuple[int, int], int] = {}
    first: dict[tuple[int, int], tuple[int, int]] = {}
    vocab = tokenizer.vocab
    for ci, (c, w) in enumerate(zip(chunks, weights), start):
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


def lengths_by_replay(tokenizer: Tokenizer, chunks: Sequence[bytes], weights: Sequence[int]) -> list[int]:
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
    call (``splitter.time_limit``).

    >>> tok = train("aaabdaaabac", 259, pattern=None)
    >>> tok.encode("aaabdaaabac")
    [258, 100, 258, 97, 99]
    """
    vocab_size = check_vocab_size(vocab_size)
    names = list(special_names(special_tokens))
    if progress is not None and not callable(progress):
        raise ValueError(f"progress must be a function progress(done, total) or None, not {type(progress).__name__}")
    check_str(name, "name")
    splitter = Splitter(pattern)  # a bad pattern fails here, before any work
    text = text_stream(text, names)
    t0 = time.perf_counter()
    num_merges = vocab_size - 256
    if progress is not None:
        progress(0, num_merges)
    counts = count_stream(splitter, text, workers=workers)
    chunks = [c.encode("utf-8") for c in counts]
    weights = list(counts.values())
    n_chars = sum(map(mul, map(len, counts), weights))
    del counts
    initial = sum(map(mul, map(len, chunks), weights))
    raw = train_merges(chunks, weights, num_merges, progress, every=max(1, num_merges // 200))
    merges = [Merge(i, (a, b), 256 + i, c) for i, (a, b, c, _) in enumerate(raw)]
    tokens_after = []
    total = initial
    for *_, replaced in raw:
        total -= replaced
        tokens_after.append(total)
    if isinstance(special_tokens, Mapping):
        specials = dict(special_tokens)
    else:
        specials = {s: 256 + len(merges) + i for i, s in enumerate(dict.fromkeys(names))}
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
