"""The training variants as a textbook would write them, slow on purpose: the references of their tests.

Each one is the textbook loop (``tokenizer.bpe.textbook``: count every pair again, take
``max(stats, key=stats.get)``, merge it everywhere) with the variant's one change written
out. The fast trainers must give exactly these merges, ties included.
"""

from __future__ import annotations

from tokenizer.bpe.textbook import encode, get_stats, merge, split


def _chunks(text: str, pattern: str | None) -> list[list[int]]:
    return [list(c.encode("utf-8")) for c in split(text, pattern)]


def parity(texts: dict[str, str], vocab_size: int, pattern: str | None, global_merges: int = 0, tie=None):
    """Parity-aware BPE: ``[(pair, new_id, count, language index or -1)]``.

    Each step: the language with the most tokens among those with a pair left (the first
    on ties) picks its most frequent pair (the first met on ties, or the largest by
    ``tie(pair, vocab)`` when given); the first ``global_merges`` steps pick over every
    text instead (-1).
    """
    langs = [_chunks(t, pattern) for t in texts.values()]
    vocab = {i: bytes([i]) for i in range(256)}
    merges = []
    for new_id in range(256, vocab_size):
        if new_id - 256 < global_merges:
            who, pool = -1, [c for chunks in langs for c in chunks]
        else:
            left = [g for g, chunks in enumerate(langs) if any(len(c) > 1 for c in chunks)]
            if not left:
                break
            lengths = [sum(map(len, chunks)) for chunks in langs]
            who = max(left, key=lambda g: (lengths[g], -g))
            pool = langs[who]
        stats = {}
        for ids in pool:
            get_stats(ids, stats)
        if not stats:
            break
        pair = max(stats, key=stats.get) if tie is None else max(stats, key=lambda p: (stats[p], tie(p, vocab)))
        vocab[new_id] = vocab[pair[0]] + vocab[pair[1]]
        langs = [[merge(ids, pair, new_id) for ids in chunks] for chunks in langs]
        merges.append((pair, new_id, stats[pair], who))
    return merges


def lengths(texts: dict[str, str], merges: dict, pattern: str | None) -> list[int]:
    """Each text's length in tokens under ``merges`` (textbook encoding)."""
    return [len(encode(t, merges, pattern)) for t in texts.values()]


def go_on(chunks: list[list[int]], num_merges: int, first_id: int):
    """More textbook merges on chunks that are already ids: ``[(pair, new_id, count)]``, ids from ``first_id``."""
    merges = []
    for new_id in range(first_id, first_id + num_merges):
        stats = {}
        for ids in chunks:
            get_stats(ids, stats)
        if not stats:
            break
        pair = max(stats, key=stats.get)
        chunks = [merge(ids, pair, new_id) for ids in chunks]
        merges.append((pair, new_id, stats[pair]))
    return merges


def continued(base: dict, text: str, num_merges: int, pattern: str | None, first_id: int):
    """Continued training from textbook ``base`` merges (``{pair: new_id}``): each chunk encoded by them, then more merges."""
    chunks = [encode(c, base) for c in split(text, pattern)]
    return go_on(chunks, num_merges, first_id)


def superwords(text: str, vocab_size: int, transition: int, pattern: str | None, superword_pattern: str | None):
    """SuperBPE's two stages: textbook BPE to ``transition`` under ``pattern``, then more merges on
    ``superword_pattern``'s chunks, each encoded by the first stage's merges: ``[(pair, new_id, count)]``."""
    from tokenizer.bpe.textbook import train

    stage1 = train(text, transition, pattern)
    ranks = {pair: new_id for pair, new_id, _ in stage1}
    chunks = [encode(c, ranks) for c in split(text, superword_pattern)]
    return stage1 + go_on(chunks, vocab_size - 256 - len(stage1), 256 + len(stage1))
