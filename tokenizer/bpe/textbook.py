"""Byte-level BPE as a textbook writes it: count the pairs, merge the most frequent, repeat.

This is the algorithm every page of BPE Lab shows, a page long and slow on purpose:
the seeds' notebooks and minbpe's ``RegexTokenizer``, step for step. The fast code
(``bpe.trainer``, ``bpe.encoder``) must give exactly the same merges and ids; the
tests check it with hypothesis on every input they can think of, ties included.

Text becomes UTF-8 bytes, so ids 0..255 are the 256 bytes and nothing is ever unknown.
A split pattern first cuts the text into chunks (words, numbers, runs of spaces), and
no merge crosses a chunk boundary. Merge ``i`` mints id ``256 + i``.

**The tie-break.** Training merges the pair with the highest count; among pairs with
equal counts, the pair that occurs first in the text (chunks in text order, each left
to right). ``get_stats`` inserts pairs into a dict in the order it meets them, and
``max`` returns the first of the largest, so ``max(stats, key=stats.get)`` is exactly
that rule, which the fast trainer keeps (``trainer.train_merges``).

>>> merges = train("aaabdaaabac", 259)
>>> merges
[((97, 97), 256, 4), ((256, 97), 257, 2), ((257, 98), 258, 2)]
>>> ranks = {pair: new_id for pair, new_id, _ in merges}
>>> encode("aaabdaaabac", ranks)
[258, 100, 258, 97, 99]
>>> decode([258, 100, 258, 97, 99], ranks)
'aaabdaaabac'
"""

from __future__ import annotations

import regex


def get_stats(ids, counts=None):
    """How often each adjacent pair occurs, in the order first met; adds to ``counts`` if given.

    >>> get_stats([1, 2, 3, 1, 2])
    {(1, 2): 2, (2, 3): 1, (3, 1): 1}
    """
    counts = {} if counts is None else counts
    for pair in zip(ids, ids[1:]):
        counts[pair] = counts.get(pair, 0) + 1
    return counts


def merge(ids, pair, idx):
    """Replace every occurrence of ``pair`` with ``idx``, left to right (in ``1 1 1`` only the first two).

    >>> merge([1, 1, 1, 2], (1, 1), 9)
    [9, 1, 2]
    """
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


def split(text, pattern=None):
    """The text's chunks: every match of ``pattern``, and the text between matches as chunks of
    their own (so no character is ever lost; minbpe's ``regex.findall`` would drop it).

    >>> split("Hello world!!", r" ?\\w+")
    ['Hello', ' world', '!!']
    """
    if pattern is None:
        return [text] if text else []
    chunks, pos = [], 0
    for m in regex.finditer(pattern, text):
        if m.end() > m.start():
            if m.start() > pos:
                chunks.append(text[pos : m.start()])
            chunks.append(m.group())
            pos = m.end()
    if pos < len(text):
        chunks.append(text[pos:])
    return chunks


def train(text, vocab_size, pattern=None):
    """Learn ``vocab_size - 256`` merges: ``[(pair, new_id, count), ...]`` in the order learned.

    ``text`` is a string or a list of documents (no chunk crosses from one to the next).
    Training stops early only when no chunk has two tokens left.
    """
    texts = [text] if isinstance(text, str) else list(text)
    chunks = [list(chunk.encode("utf-8")) for t in texts for chunk in split(t, pattern)]
    merges = []
    for new_id in range(256, vocab_size):
        stats = {}
        for ids in chunks:
            get_stats(ids, stats)
        if not stats:
            break
        pair = max(stats, key=stats.get)  # the highest count; among equal counts, the first met
        chunks = [merge(ids, pair, new_id) for ids in chunks]
        merges.append((pair, new_id, stats[pair]))
    return merges


def encode(text, merges, pattern=None):
    """Each chunk's bytes, then the earliest-learned merge present, again and again, until none is.

    ``merges`` maps a pair to its new id, in the order learned (a merge's rank is its
    place in that order).
    """
    rank = {pair: r for r, pair in enumerate(merges)}
    out = []
    for chunk in split(text, pattern):
        ids = list(chunk.encode("utf-8"))
        while len(ids) >= 2:
            stats = get_stats(ids)
            pair = min(stats, key=lambda p: rank.get(p, float("inf")))
            if pair not in merges:
                break  # no pair left that a merge joins
            ids = merge(ids, pair, merges[pair])
        out.extend(ids)
    return out


def decode(ids, merges):
    """The text of ``ids``: each merged token is its two parts' bytes, joined.

    Bytes that are not whole UTF-8 (a token can hold half a character) become U+FFFD.
    """
    vocab = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        vocab[new_id] = vocab[a] + vocab[b]
    return b"".join(vocab[i] for i in ids).decode("utf-8", errors="replace")
