"""Naive reference implementations: the seeds' textbook algorithms, kept slow and obvious.

``naive_train`` is minbpe's RegexTokenizer.train: a full recount of every pair over
every chunk occurrence at every step, ``max(stats, key=stats.get)`` over an
insertion-ordered dict (so ties go to the pair seen first), merge left to right.
``naive_encode`` is minbpe's encode loop. The fast code must agree with both.
"""

from __future__ import annotations

import regex


def get_stats(ids, counts=None):
    """[1, 2, 3, 1, 2] -> {(1, 2): 2, (2, 3): 1, (3, 1): 1}"""
    counts = {} if counts is None else counts
    for pair in zip(ids, ids[1:]):
        counts[pair] = counts.get(pair, 0) + 1
    return counts


def merge(ids, pair, idx):
    newids = []
    i = 0
    while i < len(ids):
        if i < len(ids) - 1 and ids[i] == pair[0] and ids[i + 1] == pair[1]:
            newids.append(idx)
            i += 2
        else:
            newids.append(ids[i])
            i += 1
    return newids


def split(text, pattern):
    if pattern is None:
        return [text] if text else []
    return regex.findall(pattern, text)


def naive_train(text, vocab_size, pattern=None):
    """Return [(pair, new_id, count), ...] exactly as the textbook recount would."""
    texts = [text] if isinstance(text, str) else list(text)
    ids = [list(ch.encode("utf-8")) for t in texts for ch in split(t, pattern)]
    out = []
    for i in range(vocab_size - 256):
        stats = {}
        for chunk_ids in ids:
            get_stats(chunk_ids, stats)
        if not stats:
            break
        pair = max(stats, key=stats.get)
        idx = 256 + i
        ids = [merge(chunk_ids, pair, idx) for chunk_ids in ids]
        out.append((pair, idx, stats[pair]))
    return out


def naive_encode(text, merges, pattern=None, byte_ids=None):
    """minbpe's encode: per chunk, merge the lowest-rank pair present until none is."""
    out = []
    for ch in split(text, pattern):
        ids = list(ch.encode("utf-8"))
        if byte_ids is not None:
            ids = [byte_ids[b] for b in ids]
        while len(ids) >= 2:
            stats = get_stats(ids)
            pair = min(stats, key=lambda p: merges.get(p, float("inf")))
            if pair not in merges:
                break
            ids = merge(ids, pair, merges[pair])
        out.extend(ids)
    return out


def reference_split(pattern: str | None, text: str) -> list[str]:
    """A whole text's chunks, with no cut for speed: every non-empty match of the pattern
    and the text between matches (which BPE Lab keeps as chunks of their own)."""
    if pattern is None:
        return [text] if text else []
    out, pos = [], 0
    for m in regex.finditer(pattern, text):
        if m.end() > m.start():
            if m.start() > pos:
                out.append(text[pos : m.start()])
            out.append(m.group())
            pos = m.end()
    if pos < len(text):
        out.append(text[pos:])
    return out
