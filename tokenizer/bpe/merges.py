"""The merge table: BPE's model, as lists; checked, put in building order, recovered from ranks.

A tokenizer's merges are three parallel lists (``MergeTable``): the pair each merge
joins, the id it mints and, for a trained tokenizer, how often the pair occurred. Merge
``i`` has rank ``i``: encoding applies the lowest rank first.

tiktoken-style vocabularies (Llama 3's, Qwen 3.5's) are given as ranks, ``{token bytes:
rank}``, not as merges; ``recover_merges`` finds the pair behind each token, as minbpe's
``gpt4.py`` does for GPT-4. Some of their merges build on a token that a *later* merge
mints (it applies at its own rank, once that token exists); ``check_order`` finds the
order in which the tokens can be built.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from ..errors import MAX_ID, InvalidType, check_int, type_name
from ..trace import Merge
from .encoder import SHORT_CHUNK, Ranks, bpe_heap, bpe_short

Pair = tuple[int, int]


class MergeTable(NamedTuple):
    """Merges as three parallel lists: the compact form a Tokenizer keeps.

    Plain tuples of ints are not tracked by Python's garbage collector, so a
    200,000-merge encoding adds nothing to every collection; ``Merge`` records are
    made only when ``merge_list`` is asked for.
    """

    pairs: list[Pair]
    new_ids: list[int]
    counts: list[int | None] | None = None


def check_order(table: MergeTable, byte_ids: Sequence[int]) -> tuple[set[int], list[int] | None]:
    """Check that the merges fit together: ``(every id the bytes and merges take, building order)``.

    Each merge mints a new id from two ids that a byte or another merge defines. The
    building order lists the merge indices with every merge after the ones it builds on;
    it is None when the list already is in that order (every trained tokenizer). ValueError
    for an id minted twice, an id that nothing defines, or merges that build on each other
    in a circle.

    >>> check_order(MergeTable([(97, 257), (98, 99)], [256, 257]), range(256))[1]
    [1, 0]
    """
    pairs, new_ids, counts = table
    if len(pairs) != len(new_ids) or (counts is not None and len(counts) != len(new_ids)):
        raise ValueError("merges, their ids and their counts must be lists of the same length")
    known = set(byte_ids)  # every id taken so far
    ready = set(known)  # ids built by the bytes and the merges above, in list order
    later: list[int] = []  # merges that build on a token minted further down the list
    for rank, ((a, b), new_id) in enumerate(zip(pairs, new_ids)):
        if new_id in known:
            raise ValueError(f"merge #{rank} {(a, b)} mints id {new_id}, which is already taken; every merge needs a new id")
        known.add(new_id)
        if a in ready and b in ready:
            ready.add(new_id)
        else:
            later.append(rank)
    return known, (_inputs_first(pairs, new_ids, set(byte_ids), later) if later else None)


def _inputs_first(pairs: list[Pair], new_ids: list[int], bytes_: set[int], later: list[int]) -> list[int]:
    """Merge indices with each merge after the merges it builds on (``later``: the ones listed too early)."""
    minted = {new_id: rank for rank, new_id in enumerate(new_ids)}
    for rank in later:
        for x in pairs[rank]:
            if x not in bytes_ and x not in minted:
                raise ValueError(
                    f"merge #{rank} {pairs[rank]} -> {new_ids[rank]} uses id {x}, which no byte or merge defines; "
                    "check the merges (each builds on bytes or on tokens other merges mint)"
                )
    waiting = set(later)
    order = [rank for rank in range(len(new_ids)) if rank not in waiting]  # each builds on ready ids only
    done = {new_ids[rank] for rank in order} | bytes_
    pending = later
    while pending:
        still = []
        for rank in pending:
            a, b = pairs[rank]
            if a in done and b in done:
                order.append(rank)
                done.add(new_ids[rank])
            else:
                still.append(rank)
        if len(still) == len(pending):
            rank = still[0]
            raise ValueError(f"merge #{rank} {pairs[rank]} -> {new_ids[rank]} builds on itself through other merges (a circle)")
        pending = still
    return order


def without_missing_inputs(table: MergeTable, byte_ids: Sequence[int]) -> MergeTable:
    """The merges of ``table`` whose inputs the table itself builds (transitively), in the same order."""
    minted = set(table.new_ids)
    ready = set(byte_ids)
    keep = [False] * len(table.new_ids)
    changed = True
    while changed:
        changed = False
        for i, ((a, b), new_id) in enumerate(zip(table.pairs, table.new_ids)):
            if not keep[i] and a in ready and b in ready and new_id in minted:
                keep[i] = True
                ready.add(new_id)
                changed = True
    counts = [c for c, k in zip(table.counts, keep) if k] if table.counts is not None else None
    return MergeTable([p for p, k in zip(table.pairs, keep) if k], [n for n, k in zip(table.new_ids, keep) if k], counts)


# ----------------------------------------------------------------------------- checks at the boundary


def as_merge_table(merges) -> MergeTable:
    """The merges as a MergeTable, whatever form they came in; ValueError for anything else."""
    if isinstance(merges, MergeTable):
        pairs, new_ids, counts = merges
        if not isinstance(pairs, list) or not isinstance(new_ids, list) or not (counts is None or isinstance(counts, list)):
            raise InvalidType("a MergeTable holds lists: pairs, new_ids and counts (or None)")
        for rank, pair in enumerate(pairs):
            if type(pair) is not tuple or len(pair) != 2 or type(pair[0]) is not int or type(pair[1]) is not int:
                raise InvalidType(f"merge #{rank}: a pair must be a tuple of two int ids, got {pair!r}")
        _check_ids_list(new_ids, "merge")
        if counts is not None:
            for rank, c in enumerate(counts):
                if c is not None and (type(c) is not int or c < 0):
                    raise ValueError(f"merge #{rank}: its count must be a whole number of at least 0 or None, got {c!r}")
        return merges
    if isinstance(merges, Mapping):
        pairs, new_ids = [], []
        for rank, (pair, new_id) in enumerate(merges.items()):
            if not isinstance(pair, tuple) or len(pair) != 2:
                raise InvalidType(f"merge #{rank}: a key must be a pair (left id, right id), got {pair!r}")
            pairs.append(
                (
                    check_int(pair[0], f"merge #{rank}'s left id", 0, MAX_ID),
                    check_int(pair[1], f"merge #{rank}'s right id", 0, MAX_ID),
                )
            )
            new_ids.append(check_int(new_id, f"merge #{rank}'s new id", 0, MAX_ID))
        return MergeTable(pairs, new_ids)
    if isinstance(merges, (str, bytes)) or not isinstance(merges, Iterable):
        raise InvalidType(
            f"merges must be a dict {{(left, right): new_id}}, Merge records or a MergeTable, not {type_name(merges)}"
        )
    records = list(merges)
    for rank, m in enumerate(records):
        if not isinstance(m, Merge):
            raise InvalidType(f"merge #{rank} is {type_name(m)}: give Merge records, or a dict {{(left, right): new_id}}")
    counts = [m.count for m in records]
    for rank, c in enumerate(counts):
        if c is not None and (isinstance(c, bool) or not isinstance(c, int) or c < 0):
            raise ValueError(f"merge #{rank}: its count must be a whole number of at least 0 or None, got {c!r}")
    table = MergeTable(
        [
            (check_int(m.pair[0], f"merge #{r}'s left id", 0, MAX_ID), check_int(m.pair[1], f"merge #{r}'s right id", 0, MAX_ID))
            if isinstance(m.pair, tuple) and len(m.pair) == 2
            else _bad_pair(r, m.pair)
            for r, m in enumerate(records)
        ],
        [check_int(m.new_id, f"merge #{r}'s new id", 0, MAX_ID) for r, m in enumerate(records)],
        counts if any(c is not None for c in counts) else None,
    )
    return table


def check_ranks(ranks) -> Mapping[bytes, int]:
    """tiktoken-style ``{token bytes: rank}``, checked: non-empty bytes, distinct whole-number ranks."""
    if not isinstance(ranks, Mapping):
        raise InvalidType(f"ranks must be a dict {{token bytes: rank}}, not {type_name(ranks)}")
    seen: dict[int, bytes] = {}
    for token, rank in ranks.items():
        if not isinstance(token, bytes) or not token:
            raise InvalidType(f"every token in ranks must be non-empty bytes, found {token!r}")
        if type(rank) is not int or not 0 <= rank <= MAX_ID:
            rank = check_int(rank, f"the rank of {token!r}", 0, MAX_ID)
        if rank in seen:
            raise ValueError(f"tokens {seen[rank]!r} and {token!r} have the same rank {rank}; every token needs its own rank")
        seen[rank] = token
    return ranks


def byte_ids_of(ranks: Mapping[bytes, int]) -> list[int]:
    """The ids of the 256 single bytes in tiktoken-style ranks; ValueError if one is missing."""
    try:
        return [ranks[bytes([b])] for b in range(256)]
    except KeyError as e:
        raise ValueError(f"the ranks lack the single byte {e.args[0]!r}: a byte-level BPE needs all 256") from None


def _bad_pair(rank: int, pair) -> tuple[int, int]:
    raise InvalidType(f"merge #{rank}: a pair must be (left id, right id), got {pair!r}")


def _check_ids_list(ids: list, what: str) -> None:
    for i, x in enumerate(ids):
        if type(x) is not int or not 0 <= x <= MAX_ID:
            raise ValueError(f"{what} #{i}: an id must be a whole number from 0 to {MAX_ID}, got {x!r}")


# ----------------------------------------------------------------------------- merges from ranks


def recover_merges(
    tokens: Iterable[tuple[bytes, int]], byte_ids: Sequence[int], ranks: Mapping[bytes, int] | None = None
) -> tuple[list[Pair], list[int]]:
    """Merges from tiktoken-style ranks: ``(pairs, new_ids)`` in rank order.

    ``tokens`` are the ``(token bytes, rank)`` of the multi-byte tokens in rank order;
    the rank is the token's id. Each one, encoded with the merges recovered before it,
    must come out as exactly two tokens: that pair is its merge (as minbpe's
    ``gpt4.py`` recovers GPT-4's merges).

    >>> recover_merges([(b"ab", 256), (b"abc", 257)], range(256))
    ([(97, 98), (256, 99)], [256, 257])

    Some vocabularies (Llama 3's, Qwen 3.5's) hold tokens that this cannot recover,
    because tiktoken merges by bytes, not by pairs: two adjacent parts merge whenever
    their bytes join into a token, at that token's rank. Given every token's rank
    (``ranks``, bytes -> id), such a token is handled as tiktoken handles it. When
    tiktoken's rule builds it from its own bytes, its merge is the last step of that
    build, which may use a token of a higher rank (a merge that builds on a later
    one: it can only apply once that one exists, as in tiktoken). When the rule never
    builds it, it gets no merge and is left out of the result: tiktoken produces such a
    token only when a whole chunk equals it. Without ``ranks`` such a token is a
    ValueError.

    >>> recover_merges([(b"abc", 256)], range(256))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: token b'abc' (rank 256) is not made of two lower-ranked tokens (got 3 parts)...
    >>> ranks = {b"abc": 256, b"bc": 257, b"xyz": 258}  # abc is built from a + bc, bc ranks higher; xyz is never built
    >>> recover_merges(sorted(ranks.items(), key=lambda kv: kv[1]), range(256), ranks)
    ([(97, 257), (98, 99)], [256, 257])
    """
    byte_table = list(byte_ids)
    tokens = list(tokens)
    table = Ranks(top=max([*byte_table, *(r for _, r in tokens)], default=255))
    pairs: list[Pair] = []
    new_ids: list[int] = []
    for tok, r in tokens:
        ids = [byte_table[b] for b in tok]
        ids = bpe_short(ids, table, len(table)) if len(ids) < SHORT_CHUNK else bpe_heap(ids, table, len(table))
        if len(ids) != 2:
            if ranks is None:
                raise ValueError(
                    f"token {tok!r} (rank {r}) is not made of two lower-ranked tokens (got {len(ids)} parts), so its merge cannot be recovered"
                )
            last = tiktoken_last_merge(tok, ranks)
            if last is None:
                continue  # never built by merges: only a whole chunk equal to it gives it
            ids = [ranks[part] if len(part) > 1 else byte_table[part[0]] for part in last]
        pair = (ids[0], ids[1])
        table.add(pair, r)
        pairs.append(pair)
        new_ids.append(r)
    return pairs, new_ids


_NOT_A_TOKEN = float("inf")


def tiktoken_last_merge(token: bytes, ranks: Mapping[bytes, int]) -> tuple[bytes, bytes] | None:
    """The last merge of tiktoken's rule on ``token``'s bytes, or None when the rule does not end at ``token``.

    The rule: merge the adjacent parts whose joined bytes have the lowest rank, until
    no joined pair is a token.

    >>> tiktoken_last_merge(b"abc", {b"bc": 256, b"abc": 257, b"ab": 258})
    (b'a', b'bc')
    >>> tiktoken_last_merge(b"abc", {b"abc": 256}) is None
    True
    """
    # parts are token[cut[k]:cut[k + 1]]; joined[k] is the rank of part k joined with part k + 1 (_NOT_A_TOKEN when
    # none): only the two next to a merge change, so a token costs O(len) lookups instead of O(len^2)
    get = ranks.get
    cut = list(range(len(token) + 1))
    joined = [get(token[k : k + 2], _NOT_A_TOKEN) for k in range(len(token) - 1)]
    last = None
    while joined:
        best = min(joined)
        if best == _NOT_A_TOKEN:
            return None
        i = joined.index(best)  # the leftmost of the lowest
        last = (token[cut[i] : cut[i + 1]], token[cut[i + 1] : cut[i + 2]])
        del cut[i + 1], joined[i]
        if i:
            joined[i - 1] = get(token[cut[i - 1] : cut[i + 1]], _NOT_A_TOKEN)
        if i < len(joined):
            joined[i] = get(token[cut[i] : cut[i + 2]], _NOT_A_TOKEN)
    return last  # one part is left, the token itself (None for a token of one byte or none)
