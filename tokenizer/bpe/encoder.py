"""Encoding with the merges, fast: exactly the ids of ``textbook.encode``, in plain Python.

The textbook loop (merge the lowest-rank pair present, until none is) is the rule;
everything here gives the same ids (tests check it with hypothesis) and exists only
for speed:

- ``ChunkCache``: each chunk's ids are kept, because text repeats its words.
- ``Encoder.whole``: a chunk that equals a token known to encode to itself is that token
  (tiktoken's shortcut), so most words of a large vocabulary skip merging altogether.
- ``bpe_short``: short chunks (most words) by rescanning a small list, cheaper than a heap.
- ``bpe_batch``: the new short chunks of a long text all at once, a merge per chunk per
  numpy step, where a Python loop per merge would be most of a cold encode's time.
- ``bpe_heap``: longer chunks with a heap over positions: O(n log n), where rescanning is quadratic.
- ``bpe_long``: very long chunks (a million spaces, a base64 blob) one merge rank at a
  time over whole numpy arrays, a few dozen steps where the heap would take millions.

Vocabulary of this module: a *chunk* is the bytes of one regex piece; a merge's rank is its
place in the merge list; ``Ranks`` is the merge list as the loops look it up.
"""

from __future__ import annotations

import heapq
from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import compress, count, filterfalse, repeat
from operator import and_, gt, is_not, not_

Pair = tuple[int, int]

# The chunk cache keeps a chunk's ids packed as bytes (``array`` items of 4 bytes): the garbage
# collector never tracks bytes (a cold encode of 10 MB makes 55,000 values, and every
# collection they set off walked the young list of millions of chunks), and a text's ids are
# one ``bytes.join`` of them, unpacked once.
IDS = "I" if array("I").itemsize == 4 else "L"
_W = array(IDS).itemsize


def pack(ids: Iterable[int]) -> bytes:
    """Ids as the chunk cache keeps them.

    >>> unpack(pack([7, 100_000]))
    [7, 100000]
    """
    return array(IDS, ids).tobytes()


def unpack(packed: bytes) -> list[int]:
    """The ids of ``pack``'s bytes (of several chunks' laid end to end, too)."""
    return array(IDS, packed).tolist()


# Chunks shorter than this are encoded by rescanning (fast for short words); longer
# ones with a heap over positions, which stays O(n log n) for a 100 kB chunk.
SHORT_CHUNK = 48
# Chunks at least this long (a million spaces, a base64 blob, a text with no split
# pattern) are encoded a merge rank at a time with numpy (``bpe_long``).
LONG_CHUNK = 4096
# A text's new short chunks are encoded all at once with numpy (``bpe_batch``) when its first
# ``BATCH_PROBE`` chunks hold at least ``BATCH_FROM`` different new ones: below about 500, the
# few dozen numpy steps cost more than merging each chunk on its own.
BATCH_FROM = 500
BATCH_PROBE = 5_000


class Ranks:
    """The merges as the loops below look them up: the rank of a pair, and the id a rank mints.

    A pair ``(a, b)`` is the int ``a * width + b`` (``width`` a power of two above every id):
    an int key hashes and compares faster than a tuple, which is most of the work of encoding
    a word. ``add`` appends a merge (recovering merges from ranks builds the table as it goes).

    >>> r = Ranks([(97, 97), (256, 97)], [256, 257])
    >>> r.rank_of(256, 97), r.new_id[1], len(r)
    (1, 257, 2)
    """

    __slots__ = ("width", "rank", "new_id", "pairs")

    def __init__(self, pairs: Sequence[Pair] = (), new_ids: Sequence[int] = (), *, top: int | None = None):
        if top is None:
            top = max((max(max(p) for p in pairs), max(new_ids)), default=255) if pairs else 255
        self.width = 1 << max(9, top.bit_length())
        self.rank: dict[int, int] = {}
        self.new_id: list[int] = []
        self.pairs: list[Pair] = []
        for pair, new_id in zip(pairs, new_ids):
            self.add(pair, new_id)

    def add(self, pair: Pair, new_id: int) -> None:
        """The next merge: ``pair`` -> ``new_id`` at the next rank (a repeated pair keeps its first rank)."""
        self.rank.setdefault(pair[0] * self.width + pair[1], len(self.new_id))
        self.new_id.append(new_id)
        self.pairs.append(pair)

    def rank_of(self, a: int, b: int) -> int | None:
        return self.rank.get(a * self.width + b)

    def __len__(self) -> int:
        return len(self.new_id)


class Encoder:
    """Applies merges to chunks: lowest rank first, every occurrence, until none applies.

    ``ranks`` are the merges (``Ranks``); ``whole`` maps the bytes of tokens
    known to encode to themselves to their id, so a chunk equal to one is that token
    (tiktoken's shortcut, made safe by checking it holds for the token first). Both
    are given at construction and never changed (neither here nor by the caller), so
    an encoder can be shared.

    ``encode_chunks`` keeps each chunk's ids in a ``ChunkCache``: text repeats its
    words, so most chunks are hits.
    """

    def __init__(
        self,
        byte_ids: Sequence[int],
        ranks: Ranks | None = None,
        whole: Mapping[bytes, int] | None = None,
    ):
        self.byte_ids = list(byte_ids)
        # bytes -> initial ids in C when every byte id fits in a byte (trained tokenizers:
        # the identity; official encodings: a permutation of 0..255)
        self._byte_table = bytes(self.byte_ids) if max(self.byte_ids) < 256 else None
        self.ranks: Ranks = ranks if ranks is not None else Ranks()  # kept, not copied
        self.whole: Mapping[bytes, int] = whole if whole is not None else {}
        self.cache = ChunkCache(self._encode_chunk)
        self._long: LongChunkTables | None = None  # built on the first long chunk

    def encode_bytes(self, data: bytes, max_rank: int = -1) -> list[int]:
        """One chunk's ids with the merges of rank below ``max_rank`` (all when negative)."""
        limit = max_rank if max_rank >= 0 else len(self.ranks.new_id)
        table = self._byte_table
        if len(data) < SHORT_CHUNK and table is not None:  # most chunks: straight to the short loop
            return bpe_short(list(data.translate(table)), self.ranks, limit)
        if len(data) >= LONG_CHUNK and self.ranks.new_id:
            long = self._tables()
            return bpe_long(long.initial(data), long, self.ranks, limit)
        ids = list(data.translate(table)) if table is not None else [self.byte_ids[b] for b in data]
        if len(ids) < SHORT_CHUNK:
            return bpe_short(ids, self.ranks, limit)
        return bpe_heap(ids, self.ranks, limit)

    def encode_many(self, chunks: Sequence[bytes]) -> list[tuple[int, ...]]:
        """Each chunk's ids with every merge, as ``encode_bytes`` gives them: the chunks under ``SHORT_CHUNK`` bytes
        merged together (``bpe_batch``), the rest one by one. For checking a whole vocabulary, where a loop over
        ``encode_bytes`` spends seconds in Python (Qwen 3.6's 248,000 tokens: 2.2 s, this way 0.9)."""
        out: list = [None] * len(chunks)
        short = [i for i, c in enumerate(chunks) if len(c) < SHORT_CHUNK] if self.ranks.new_id else []
        if short:
            for i, ids in zip(short, bpe_batch([chunks[i] for i in short], self._tables(), len(self.ranks.new_id))):
                out[i] = ids
        return [ids if ids is not None else tuple(self.encode_bytes(c)) for ids, c in zip(out, chunks)]

    def merge_events(self, data: bytes) -> list[tuple[int, int, int]]:
        """The merges that encoding one chunk applies: ``[(rank, position, new_id), ...]``."""
        events: list[tuple[int, int, int]] = []
        bpe_heap([self.byte_ids[b] for b in data], self.ranks, len(self.ranks.new_id), events)
        return events

    def _encode_chunk(self, data: bytes) -> bytes:
        """One chunk's ids, packed (``pack``)."""
        tid = self.whole.get(data)
        return pack((tid,) if tid is not None else self.encode_bytes(data))

    def encode_chunk(self, chunk: str | bytes) -> list[int]:
        """One chunk's ids: a str through the cache, bytes (a chunk cut inside a character) directly."""
        return unpack(self.cache[chunk] if isinstance(chunk, str) else self._encode_chunk(chunk))

    def encode_chunks(self, chunks: Iterable[str]) -> list[int]:
        """The ids of text chunks laid end to end (cached per chunk)."""
        if isinstance(chunks, list):
            self.fill_cache(chunks)
        return unpack(b"".join(map(self.cache.__getitem__, chunks)))

    def encode_pieces(self, pieces: Iterable) -> list[int]:
        """The ids of a pre-tokenizer's pieces (``pretokenize.Piece``): a token's id, a chunk's ids."""
        pieces = list(pieces)
        self.fill_cache([p.chunk for p in pieces if isinstance(p.chunk, str)])
        encode_chunk = self.encode_chunk
        out: list[int] = []
        for p in pieces:
            if p.token is not None:
                out.append(p.token)
            else:
                out.extend(encode_chunk(p.chunk))
        return out

    def fill_cache(self, chunks: list[str]) -> None:
        """Encode the new short chunks of a text together (``bpe_batch``), ahead of reading them from the cache."""
        if len(chunks) < BATCH_FROM or not self.ranks.new_id:
            return
        cache = self.cache
        if len(set(filterfalse(cache.__contains__, chunks[:BATCH_PROBE]))) < BATCH_FROM:
            return  # too few new chunks to repay the batch (a text encoded before, or one line repeated, has none)
        new_chunks = list(filterfalse(cache.__contains__, set(chunks)))
        if len(new_chunks) > cache.limit:
            return  # more than the cache keeps: chunk by chunk, as the cache fills and clears
        if len(cache) + len(new_chunks) > cache.limit:
            cache.clear()
        # in C, chunk by chunk: a new chunk that is a whole token is that token; the short rest are merged together
        data = list(map(str.encode, new_chunks))
        tids = list(map(self.whole.get, data))
        whole = list(map(is_not, tids, repeat(None)))
        packed = pack(compress(tids, whole))
        cache.update(zip(compress(new_chunks, whole), map(packed.__getitem__, map(slice, count(0, _W), count(_W, _W)))))
        # not whole, and shorter than SHORT_CHUNK (longer ones are encoded one by one, as they are read)
        rest = list(map(and_, map(not_, whole), map(gt, repeat(SHORT_CHUNK), map(len, data))))
        if any(rest):
            data = list(compress(data, rest))
            cache.update(zip(compress(new_chunks, rest), bpe_batch(data, self._tables(), len(self.ranks.new_id), packed=True)))

    def _tables(self) -> LongChunkTables:
        long = self._long
        if long is None:
            long = self._long = LongChunkTables(self.ranks, self.byte_ids)  # a race builds it twice, harmlessly
        return long


class ChunkCache(dict):
    """``{chunk: ids}`` that encodes a chunk the first time it is asked for (the encoder's ids are packed, ``pack``).

    Policy: at most ``limit`` chunks; when a new chunk would go over, everything is
    forgotten and the cache fills again. Clearing is O(1) per chunk on average and
    keeps a hit a single C-level dict lookup, which an LRU order would not.

    One encoder, and so one cache, serves every thread that encodes with the same
    tokenizer (in the app, every session). That is safe without a lock: each lookup,
    insert and ``clear`` is a single dict operation, atomic under CPython's GIL; the
    values are immutable (bytes); and a value depends only on its key. The worst a
    race does is encode a chunk twice, or forget one just stored, never give a wrong
    answer.
    """

    LIMIT = 500_000

    def __init__(self, encode_bytes: Callable[[bytes], object], limit: int | None = None):
        super().__init__()
        self._encode_bytes = encode_bytes  # bytes -> ids
        self.limit = self.LIMIT if limit is None else limit

    def __missing__(self, chunk: str):
        ids = self._encode_bytes(chunk.encode("utf-8"))
        if len(self) >= self.limit:
            self.clear()
        self[chunk] = ids
        return ids


_NO_RANK = 1 << 62


def bpe_short(ids: list[int], ranks: Ranks, limit: int) -> list[int]:
    """Encode one short chunk: merge the leftmost lowest-rank pair until none applies.

    Merging the leftmost occurrence first and looking again is minbpe's "merge every
    occurrence at once" loop: a merge only creates pairs that hold the new id, which
    rank higher, so the next lowest rank is the same pair until its occurrences are
    gone (an overlapping one, as in ``aaa``, has been consumed, as left to right would).
    The ranks of neighbouring pairs are kept in a list; only the two next to a merge
    are looked up again, and ``min``/``index`` run in C.

    >>> bpe_short([1, 1, 1, 1], Ranks([(1, 1), (9, 9)], [9, 10]), 2)
    [10]
    """
    get = ranks.rank.get
    w = ranks.width
    new_id = ranks.new_id
    rs = [get(ids[k] * w + ids[k + 1], _NO_RANK) for k in range(len(ids) - 1)]
    while rs:
        best = min(rs)
        if best >= limit:
            break
        i = rs.index(best)
        new = new_id[best]
        ids[i] = new  # in place: a merge allocates nothing, so it does not wake the garbage collector
        del ids[i + 1]
        del rs[i]
        if i:
            rs[i - 1] = get(ids[i - 1] * w + new, _NO_RANK)
        if i < len(rs):
            rs[i] = get(new * w + ids[i + 1], _NO_RANK)
    return ids


class LongChunkTables:
    """The merges as numpy arrays, for looking up the ranks of many pairs at once.

    A pair ``(a, b)`` is the key ``a * width + b``; the keys and their ranks are kept in a
    hash table with linear probing (``slot_key``, ``slot_rank``; an empty slot's key is -1),
    so a batch of pairs is looked up in a probe or two each, where a binary search over
    sorted keys would take eighteen scattered reads for a large vocabulary. ``new_id`` and
    ``pair_by_rank`` are by rank.
    """

    def __init__(self, ranks: Ranks, byte_ids: Sequence[int] = range(256)):
        import numpy as np

        self.byte_ids = np.array(byte_ids, dtype=np.int64)
        self.width = ranks.width
        n = len(ranks)
        self.pair_by_rank = np.array(ranks.pairs, dtype=np.int64).reshape(-1, 2)
        self.new_id = np.array(ranks.new_id, dtype=np.int64)
        keys = np.array(list(ranks.rank), dtype=np.int64)
        values = np.array(list(ranks.rank.values()), dtype=np.int64)
        self.size = len(keys)
        bits = max(4, (2 * len(keys)).bit_length())  # at most half full: probes stay short
        self._mask = (1 << bits) - 1
        self._shift = np.uint64(64 - bits)
        self.slot_key = np.full(1 << bits, -1, dtype=np.int64)
        self.slot_rank = np.zeros(1 << bits, dtype=np.int64)
        # insert all keys at once: each round, every key not yet placed tries its slot, one key wins each free
        # slot, and the rest move on to the next slot (so no key sits behind an empty slot in its probe)
        slot = self._slot(keys)
        pending = np.arange(len(keys))
        while len(pending):
            free = self.slot_key[slot] == -1
            won, first = np.unique(slot[free], return_index=True)
            winners = pending[free][first]
            self.slot_key[won] = keys[winners]
            self.slot_rank[won] = values[winners]
            placed = np.zeros(len(keys), dtype=bool)
            placed[winners] = True
            left = ~placed[pending]
            pending = pending[left]
            slot = (slot[left] + 1) & self._mask
        # ranks whose new token is an input of a merge of lower rank (tiktoken-style vocabularies,
        # see Tokenizer): such a merge can apply between two occurrences of this one, so these
        # ranks are not merged all at once
        first_use = np.full(self.width, n, dtype=np.int64)
        np.minimum.at(first_use, self.pair_by_rank[:, 0], np.arange(n))
        np.minimum.at(first_use, self.pair_by_rank[:, 1], np.arange(n))
        self.feeds_lower = first_use[self.new_id] < np.arange(n)

    def _slot(self, keys):
        """Each key's first slot (Fibonacci hashing: the top bits of the key times 2**64 over the golden ratio)."""
        import numpy as np

        return ((keys.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)) >> self._shift).astype(np.int64)

    def initial(self, data: bytes):
        """A chunk's bytes as the array of their ids."""
        import numpy as np

        return self.byte_ids[np.frombuffer(data, dtype=np.uint8)]

    def ranks_of(self, left, right, limit: int):
        """The rank of each pair ``(left[i], right[i])``, or ``limit`` when it has none below ``limit``.

        >>> import numpy as np
        >>> r = Ranks([(1, 2), (3, 4)], [5, 6])
        >>> LongChunkTables(r).ranks_of(np.array([1, 3, 2]), np.array([2, 4, 1]), 2).tolist()
        [0, 1, 2]
        """
        import numpy as np

        keys = left * self.width + right
        out = np.full(len(keys), limit, dtype=np.int64)
        slot = self._slot(keys)
        todo = np.arange(len(keys))
        while len(todo):
            there = self.slot_key[slot]
            hit = there == keys
            out[todo[hit]] = self.slot_rank[slot[hit]]
            on = ~hit & (there != -1)  # another key in this slot: probe the next one
            todo, keys, slot = todo[on], keys[on], (slot[on] + 1) & self._mask
        out[out > limit] = limit
        return out


def bpe_batch(chunks: Sequence[bytes], tables: LongChunkTables, limit: int, *, packed: bool = False) -> list:
    """Encode many short chunks at once: for each, exactly what ``bpe_short`` gives.

    Each step merges, in every chunk still merging, its leftmost lowest-rank pair
    (``bpe_short``'s rule), for all chunks in a few whole-array operations; a chunk
    with no pair below ``limit`` left is done and leaves the arrays. The steps are as
    many as the most merges one chunk needs (a few dozen for chunks under
    ``SHORT_CHUNK`` bytes), so the thousands of new words of a long text cost a few
    dozen numpy passes instead of a Python loop per merge. Each chunk's ids come as a
    tuple, or packed (``pack``, as the chunk cache keeps them) with ``packed=True``.

    >>> r = Ranks([(1, 1), (9, 9), (2, 1)], [9, 10, 11])
    >>> bpe_batch([bytes([1, 1, 1, 1]), bytes([2]), bytes([2, 1, 2, 1, 1])], LongChunkTables(r), 3)
    [(10,), (2,), (11, 2, 9)]
    """
    import numpy as np

    out: list = [b"" if packed else ()] * len(chunks)
    some = [i for i, c in enumerate(chunks) if c]  # an empty chunk is no tokens
    if len(some) < len(chunks):
        for i, ids in zip(some, bpe_batch([chunks[i] for i in some], tables, limit, packed=packed)):
            out[i] = ids
        return out
    if not chunks:
        return out
    ids, lens, which = _merge_all(chunks, tables, limit)
    ends = np.cumsum(lens).tolist()
    starts = [0, *ends[:-1]]
    if packed:
        buf = ids.astype(IDS).tobytes()
        w = _W
        for k, a, b in zip(which.tolist(), starts, ends):
            out[k] = buf[a * w : b * w]
    else:
        flat = ids.tolist()
        for k, a, b in zip(which.tolist(), starts, ends):
            out[k] = tuple(flat[a:b])
    return out


def _merge_all(chunks: Sequence[bytes], tables: LongChunkTables, limit: int):
    """``bpe_batch``'s steps on non-empty chunks: (every chunk's ids laid end to end, each one's length, its index),
    in the order the chunks finished merging."""
    import numpy as np

    lens = np.fromiter(map(len, chunks), dtype=np.int64, count=len(chunks))
    tok = tables.initial(b"".join(chunks))
    which = np.arange(len(chunks))  # the chunk (its index in ``chunks``) each row of the arrays is
    if not tables.size or limit <= 0:  # nothing to merge
        return tok, lens, which
    seg = np.repeat(np.arange(len(chunks)), lens)  # the row each token belongs to
    ends = np.cumsum(lens) - 1  # each row's last token
    rk = np.empty(len(tok), dtype=np.int64)
    rk[:-1] = tables.ranks_of(tok[:-1], tok[1:], limit)
    rk[ends] = limit  # no pair across two chunks
    done_tok, done_lens, done_which = [], [], []
    while len(tok):
        starts = ends - lens + 1
        best = np.minimum.reduceat(rk, starts)
        merging = best < limit
        if not merging.all():  # rows with nothing left to merge are done: they leave the arrays
            keep = merging[seg]
            done = ~merging
            done_tok.append(tok[~keep])
            done_lens.append(lens[done])
            done_which.append(which[done])
            if not merging.any():
                break
            tok, rk = tok[keep], rk[keep]
            seg = (np.cumsum(merging) - 1)[seg[keep]]
            lens, which, best = lens[merging], which[merging], best[merging]
            ends = np.cumsum(lens) - 1
            starts = ends - lens + 1
        # each row's leftmost pair of its lowest rank
        at = np.flatnonzero(rk == best[seg])
        at = at[np.searchsorted(seg[at], np.arange(len(lens)))]
        tok[at] = tables.new_id[best]
        gone = np.ones(len(tok), dtype=bool)
        gone[at + 1] = False
        tok, rk, seg = tok[gone], rk[gone], seg[gone]
        at -= np.arange(len(at))  # where the merged tokens are now
        lens -= 1
        ends = np.cumsum(lens) - 1
        # the pair the merged token starts (none at its row's end), and the one it ends
        last = at == ends
        rk[at[last]] = limit
        inner = at[~last]
        rk[inner] = tables.ranks_of(tok[inner], tok[inner + 1], limit)
        before = at[at > ends - lens + 1]
        before -= 1
        rk[before] = tables.ranks_of(tok[before], tok[before + 1], limit)
    return np.concatenate(done_tok), np.concatenate(done_lens), np.concatenate(done_which)


# Below this many merges per rank (as a share of the sequence), a heap beats a pass over
# the whole sequence per rank, and bpe_long hands over to bpe_heap.
_SPARSE = 512


def bpe_long(ids, tables: LongChunkTables, ranks: Ranks, limit: int) -> list[int]:
    """Encode one long chunk: the same result as ``bpe_heap``, a merge rank at a time with numpy.

    Each step takes the lowest rank present and merges every occurrence of its pair,
    left to right (in a run ``a a a`` of the pair ``(a, a)``, the first two), in whole
    arrays; only the pairs next to a merge are looked up again. A million repeated
    characters take a few dozen steps. When a rank merges only a few places in a long
    sequence (varied text), the rest is handed to ``bpe_heap``, which is cheaper then;
    so it is when the rank's new token feeds a merge of lower rank (a merge that builds
    on a later one), which may apply between two of its occurrences.

    >>> r = Ranks([(1, 1), (9, 9)], [9, 10])
    >>> bpe_long([1] * 9, LongChunkTables(r), r, 2)
    [10, 10, 1]
    """
    import numpy as np

    seq = np.array(ids, dtype=np.int64)  # a list, or an array (copied: merges change it)
    rk = tables.ranks_of(seq[:-1], seq[1:], limit)
    while len(rk):
        best = int(rk.min())
        if best >= limit:
            break
        hits = np.flatnonzero(rk == best)
        n = len(seq)
        if len(hits) * _SPARSE < n or tables.feeds_lower[best]:
            return bpe_heap(seq.tolist(), ranks, limit)
        a, b = tables.pair_by_rank[best]
        if a == b and len(hits) > 1:
            # overlapping occurrences in runs: keep the 1st, 3rd, ... of each run of consecutive hits
            starts = np.ones(len(hits), dtype=bool)
            starts[1:] = hits[1:] != hits[:-1] + 1
            run_start = np.maximum.accumulate(np.where(starts, np.arange(len(hits)), 0))
            hits = hits[(np.arange(len(hits)) - run_start) % 2 == 0]
        seq[hits] = tables.new_id[best]
        keep = np.ones(n, dtype=bool)
        keep[hits + 1] = False
        seq = seq[keep]
        rk = rk[keep[1:]]  # the pair starting at a deleted token goes; the merged one is looked up below
        at = hits - np.arange(len(hits))  # where the merged tokens are now
        around = np.concatenate((at - 1, at))
        around = around[(around >= 0) & (around < len(rk))]
        rk[around] = tables.ranks_of(seq[around], seq[around + 1], limit)
    return seq.tolist()


def bpe_heap(
    ids: list[int],
    ranks: Ranks,
    limit: int,
    events: list[tuple[int, int, int]] | None = None,
) -> list[int]:
    """Encode one chunk with a heap over positions; optionally record the merges.

    Each merge applied is appended to ``events`` as ``(rank, position, new_id)``, where
    ``position`` is the index in ``ids`` (the chunk's initial tokens, normally its
    bytes) at which the merged token starts. Popping (rank, position) from a heap is
    the same as "lowest rank first, all occurrences left to right": a merge only
    creates pairs that contain the new id, and those rank higher than the current one.

    >>> bpe_heap([1, 1, 1], Ranks([(1, 1)], [9]), 1)
    [9, 1]
    """
    n = len(ids)
    tok = list(ids)
    nxt = list(range(1, n + 1))
    prv = list(range(-1, n - 1))
    heap = []
    get = ranks.rank.get
    w = ranks.width
    new_ids = ranks.new_id
    for i in range(n - 1):
        r = get(tok[i] * w + tok[i + 1])
        if r is not None and r < limit:
            heap.append((r, i))
    heapq.heapify(heap)
    heappop, heappush = heapq.heappop, heapq.heappush
    while heap:
        r, i = heappop(heap)
        if tok[i] < 0:
            continue
        j = nxt[i]
        if j >= n:
            continue
        if get(tok[i] * w + tok[j]) != r:
            continue
        new_id = new_ids[r]
        if events is not None:
            events.append((r, i, new_id))
        tok[i] = new_id
        tok[j] = -1
        k = nxt[j]
        nxt[i] = k
        if k < n:
            prv[k] = i
        p = prv[i]
        if p >= 0:
            rr = get(tok[p] * w + new_id)
            if rr is not None and rr < limit:
                heappush(heap, (rr, p))
        if k < n:
            rr = get(new_id * w + tok[k])
            if rr is not None and rr < limit:
                heappush(heap, (rr, i))
    out = []
    i = 0
    while i < n:
        out.append(tok[i])
        i = nxt[i]
    return out
