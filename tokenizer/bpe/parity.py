"""Parity-aware BPE: each merge helps the language that is worst compressed at that step.

Foroutan, Meister, Paul, Niklaus, Ahmadi, Bosselut and Sennrich (2025), "Parity-aware
Byte Pair Encoding: Improving Cross-lingual Fairness in Tokenization", arXiv:2508.04796.

The training text is *parallel*: the same content in several languages, ``{language:
text}``. Plain BPE counts pairs over all of it, so the languages with the most text or
the most shared pieces win most merges and the others pay a token tax. Parity-aware
BPE changes only which pair each step merges:

1. every language is measured by its text's current length in tokens (the texts say the
   same thing, so more tokens means worse compression);
2. the worst language is the one with the most tokens among those that still have a
   pair to merge; among equal lengths, the language given first;
3. the step merges that language's most frequent pair, counted in its text alone (among
   equal counts, the pair met first in its text, plain training's tie-break), and
   replaces it everywhere, in every language's text.

With ``global_merges`` the first merges are plain ones over all the texts at once (the
paper's hybrid), in text order. The paper measures the languages on a separate parallel
development set; here the parallel training texts are their own development set, which
is what Hugging Face tokenizers' ``ParityBpeTrainer`` does when given the training texts
as ``dev_iterators``. Where the paper's code stops (the worst language's best pair
occurs fewer than ``min_frequency`` times), this one passes over a language with no pair
left and goes on with the next worst.

A merge's ``count`` is its count in the language it served. What a parity-aware training
saw is a ``ParityTrace``: the pair counts behind step ``k`` are those of the language
step ``k`` served, so Step through shows that language's pairs.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from ..core import Tokenizer, check_tokenizer
from ..errors import check_int, check_str
from ..pretokenize.count import count_chunks, count_stream, special_names, text_stream
from ..pretokenize.patterns import DEFAULT_PATTERN
from ..pretokenize.splitter import Splitter
from ..trace import Merge, PairCount
from .common import StagedProgress, metadata, special_ids_after, training_record
from .trainer import Progress, TrainingTrace, check_vocab_size, count_pairs, lengths_by_replay, train

REFERENCE = "Foroutan et al. 2025, Parity-aware Byte Pair Encoding, arXiv:2508.04796"
#: Between two languages' texts in the training text a workspace keeps (split again by their lengths).
SEPARATOR = "\n\n"


def check_parallel(texts) -> dict[str, str]:
    """``{language: text}`` with at least two languages and no empty text; ValueError naming the fix."""
    if not isinstance(texts, Mapping):
        raise ValueError(
            "parity-aware training takes parallel texts as a dict {language: text}, "
            f"e.g. {{'English': 'The weather is nice.', 'German': 'Das Wetter ist schön.'}}, not {type(texts).__name__}"
        )
    if len(texts) < 2:
        raise ValueError("parity-aware training balances languages: give parallel texts in at least two languages")
    out: dict[str, str] = {}
    for lang, text in texts.items():
        if not isinstance(lang, str) or not lang.strip():
            raise ValueError(f"every language needs a name (a non-empty string), got {lang!r}")
        check_str(text, f"the text for {lang}")
        if not text.strip():
            raise ValueError(f"the text for {lang} is empty: give each language the same passage, or leave the language out")
        out[lang] = text
    return out


def join_parallel(texts: Mapping[str, str]) -> str:
    """The training text as one string, for a workspace to keep (``split_parallel`` undoes it).

    >>> join_parallel({"English": "Hi.", "German": "Hallo."})
    'Hi.\\n\\nHallo.'
    """
    return SEPARATOR.join(texts.values())


def split_parallel(corpus: str, record: Mapping) -> dict[str, str]:
    """The parallel texts back from ``join_parallel``'s string, by the lengths a training recorded.

    >>> split_parallel("Hi.\\n\\nHallo.", {"languages": ["English", "German"], "text_chars": [3, 6]})
    {'English': 'Hi.', 'German': 'Hallo.'}
    """
    languages, sizes = record.get("languages"), record.get("text_chars")
    if not isinstance(languages, list) or not isinstance(sizes, list) or len(languages) != len(sizes):
        raise ValueError("the tokenizer's record of its parallel texts is damaged: train it again")
    if len(corpus) != sum(sizes) + len(SEPARATOR) * (len(sizes) - 1):
        raise ValueError("the stored training text does not match the tokenizer's record of its languages: train it again")
    out, pos = {}, 0
    for lang, n in zip(languages, sizes):
        out[lang] = corpus[pos : pos + n]
        pos += n + len(SEPARATOR)
    return out


def worst_language(lengths: Sequence[int], occurrences: Sequence[int]) -> int | None:
    """The language the next merge serves: the most tokens among those with a pair left (the first on ties).

    A language's text has a pair left while it has more tokens than chunk occurrences.

    >>> worst_language([30, 41, 41], [10, 12, 9]), worst_language([5, 6], [5, 6]) is None
    (1, True)
    """
    best = None
    for g, (n, occ) in enumerate(zip(lengths, occurrences)):
        if n > occ and (best is None or n > lengths[best]):
            best = g
    return best


# ----------------------------------------------------------------------------- the merges


def parity_merges(
    groups: Sequence[tuple[Sequence[bytes], Sequence[int]]],
    num_merges: int,
    *,
    global_merges: int = 0,
    progress: Progress = None,
    every: int = 1,
) -> tuple[list[tuple[int, int, int, int]], list[int], list[list[int]]]:
    """Learn up to ``num_merges`` parity-aware merges over ``groups`` (one ``(chunks, weights)`` per language).

    Returns ``(merges, served, lengths)``: ``[(left, right, count, replaced)]`` as
    ``train_merges`` gives them (``count`` in the language served), the language each
    merge served (-1 for a plain merge among the first ``global_merges``), and every
    language's length in tokens after each merge.

    Incremental, like ``train_merges``: a pair's occurrences are all created when its
    newer id is minted and only destroyed afterwards, so per language its count only
    falls and its first occurrence only moves right; each language keeps a heap of
    optimistic entries, checked when they come to the top. A merge changes only the
    pairs next to its occurrences.

    >>> parity_merges([([b"aab"], [1]), ([b"cdcdcd"], [1])], 2)  # the second language first; then a tie: the first
    ([(99, 100, 3, 3), (97, 97, 1, 1)], [1, 0], [[3, 3], [2, 3]])
    """
    n_groups = len(groups)
    words: list[list[int]] = []
    weights: list[int] = []
    group_of: list[int] = []
    bounds: list[tuple[int, int]] = []
    for g, (chunks, ws) in enumerate(groups):
        lo = len(words)
        words.extend(list(c) for c in chunks)
        weights.extend(ws)
        group_of.extend([g] * len(chunks))
        bounds.append((lo, len(words)))
    pooled_index = n_groups  # the counts over every language, while plain merges are made
    pooled = global_merges > 0
    length = [sum(len(words[i]) * weights[i] for i in range(lo, hi)) for lo, hi in bounds]
    occurrences = [sum(weights[lo:hi]) for lo, hi in bounds]
    tok_len = [1] * 256
    K = 1 << max(9, (256 + num_merges).bit_length())  # a pair (a, b) is the int a * K + b
    counts: list[dict[int, int]] = [{} for _ in range(n_groups + 1)]
    first: list[dict[int, tuple[int, int]]] = [{} for _ in range(n_groups + 1)]
    where: dict[int, list[int]] = {}  # word indices in increasing order (may be stale)

    def add(grp: int, key: int, wt: int, wi: int, off: int) -> None:
        cg = counts[grp]
        c = cg.get(key)
        if c is None:
            cg[key] = wt
            first[grp][key] = (wi, off)
        else:
            cg[key] = c + wt

    for wi, w in enumerate(words):
        g, wt = group_of[wi], weights[wi]
        off = 0
        for x, y in zip(w, w[1:]):
            key = x * K + y
            add(g, key, wt, wi, off)
            if pooled:
                add(pooled_index, key, wt, wi, off)
            lst = where.get(key)
            if lst is None:
                where[key] = [wi]
            elif lst[-1] != wi:
                lst.append(wi)
            off += 1
    heaps = [[(-c, first[grp][k], k) for k, c in counts[grp].items()] for grp in range(n_groups + 1)]
    for h in heaps:
        heapq.heapify(h)
    cursor: dict[tuple[int, int], int] = {}

    def first_occurrence(grp: int, key: int) -> tuple[int, int]:
        lo, hi = bounds[grp] if grp < n_groups else (0, len(words))
        lst = where[key]
        j = cursor.get((grp, key), 0)
        a, b = divmod(key, K)
        while j < len(lst) and lst[j] < hi:
            wi = lst[j]
            if wi >= lo:
                w = words[wi]
                off = 0
                for i in range(len(w) - 1):
                    if w[i] == a and w[i + 1] == b:
                        cursor[(grp, key)] = j
                        return (wi, off)
                    off += tok_len[w[i]]
            j += 1
        cursor[(grp, key)] = j
        return (1 << 62, 0)

    def best(grp: int) -> tuple[int, int] | None:
        """The group's pair with the highest count and then the earliest first occurrence."""
        h, cg = heaps[grp], counts[grp]
        while h:
            negc, _, key = h[0]
            c = cg.get(key, 0)
            if c <= 0:
                heapq.heappop(h)
            elif c != -negc:
                heapq.heapreplace(h, (-c, first_occurrence(grp, key), key))
            else:
                return key, c
        return None

    merges: list[tuple[int, int, int, int]] = []
    served: list[int] = []
    lengths: list[list[int]] = []
    every = max(1, every)
    while len(merges) < num_merges:
        if pooled and len(merges) >= global_merges:
            pooled = False  # plain merges are over: the pooled counts are no longer kept
            counts[pooled_index].clear()
            heaps[pooled_index] = []
        grp = pooled_index if pooled else worst_language(length, occurrences)
        if grp is None:
            break
        chosen = best(grp)
        if chosen is None:
            break
        key, c = chosen
        a, b = divmod(key, K)
        new_id = 256 + len(merges)
        tok_len.append(tok_len[a] + tok_len[b])
        replaced = [0] * n_groups
        new_keys: dict[tuple[int, int], None] = {}
        for wi in where[key]:
            w = words[wi]
            n = len(w)
            positions = []
            i = -1
            while True:  # non-overlapping occurrences, left to right
                try:
                    i = w.index(a, i + 1, n - 1)
                except ValueError:
                    break
                if w[i + 1] == b:
                    positions.append(i)
                    i += 1
            if not positions:
                continue
            g, wt = group_of[wi], weights[wi]
            grps = (g, pooled_index) if pooled else (g,)
            # the pairs that touch an occurrence go; every other pair of the word stays as it was
            for j in sorted({j for p in positions for j in (p - 1, p, p + 1) if 0 <= j < n - 1}):
                old = w[j] * K + w[j + 1]
                for grp_ in grps:
                    counts[grp_][old] -= wt
            out: list[int] = []
            minted = []
            prev = 0
            for p in positions:
                out += w[prev:p]
                minted.append(len(out))
                out.append(new_id)
                prev = p + 2
            out += w[prev:]
            # the pairs next to a new token are new (they hold its id): counted, with their first occurrence
            off, at = 0, 0
            for j in sorted({j for q in minted for j in (q - 1, q) if 0 <= j < len(out) - 1}):
                off += sum(tok_len[t] for t in out[at:j])
                at = j
                pair = out[j] * K + out[j + 1]
                for grp_ in grps:
                    add(grp_, pair, wt, wi, off)
                    new_keys[(grp_, pair)] = None
                lst = where.get(pair)
                if lst is None:
                    where[pair] = [wi]
                elif lst[-1] != wi:
                    lst.append(wi)
            words[wi] = out
            replaced[g] += len(positions) * wt
        for cg in counts:
            cg.pop(key, None)
        for grp_, pair in new_keys:
            heapq.heappush(heaps[grp_], (-counts[grp_][pair], first[grp_][pair], pair))
        for g in range(n_groups):
            length[g] -= replaced[g]
        merges.append((a, b, c, sum(replaced)))
        served.append(-1 if grp == pooled_index else grp)
        lengths.append(list(length))
        if progress is not None and (len(merges) % every == 0 or len(merges) == num_merges):
            progress(len(merges), num_merges)
    return merges, served, lengths


# ----------------------------------------------------------------------------- training


def train_parity(
    texts: Mapping[str, str],
    vocab_size: int,
    pattern: str | None = DEFAULT_PATTERN,
    special_tokens: Sequence[str] | Mapping[str, int] | None = None,
    progress: Progress = None,
    *,
    global_merges: int = 0,
    baseline: bool = False,
    name: str = "",
    workers: int | None = None,
) -> Tokenizer:
    """Train a parity-aware BPE tokenizer on parallel ``texts`` (``{language: text}``).

    ``vocab_size``, ``pattern``, ``special_tokens``, ``progress``, ``name`` and
    ``workers`` as in ``train``; each language's text is a document of its own (no chunk
    crosses from one to the next). The first ``global_merges`` merges are plain ones over
    all texts. With ``baseline`` a plain tokenizer of the same size is trained on the same
    texts too, for comparison: its token count per language is recorded beside the
    parity-aware one's (``metadata["training"]``).

    >>> tok = train_parity({"en": "aaaa", "xx": "bcbcbc"}, 258, pattern=None)
    >>> [tok.vocab[m.new_id] for m in tok.merge_list], tok.metadata["training"]["merges_per_language"]
    ([b'bc', b'aa'], [1, 1])
    """
    vocab_size = check_vocab_size(vocab_size)
    texts = check_parallel(texts)
    names = list(special_names(special_tokens))
    if progress is not None and not callable(progress):
        raise ValueError(f"progress must be a function progress(done, total) or None, not {type(progress).__name__}")
    global_merges = check_int(global_merges, "global_merges", 0)
    check_str(name, "name")
    splitter = Splitter(pattern)  # a bad pattern fails here, before any work
    t0 = time.perf_counter()
    num_merges = vocab_size - 256
    staged = StagedProgress(progress, num_merges * (2 if baseline else 1))
    if progress is not None:
        progress(0, staged.total)
    groups = []
    chars = 0
    for text in texts.values():
        counts = count_stream(splitter, text_stream(text, names), workers=workers)
        groups.append(([c.encode("utf-8") for c in counts], list(counts.values())))
        chars += sum(len(c) * w for c, w in counts.items())
    language_bytes = [sum(len(c) * w for c, w in zip(*grp)) for grp in groups]
    raw, served, lengths = parity_merges(
        groups,
        num_merges,
        global_merges=global_merges,
        progress=staged.stage(num_merges),
        every=max(1, num_merges // 200),
    )
    merges = [Merge(i, (a, b), 256 + i, c) for i, (a, b, c, _) in enumerate(raw)]
    final = lengths[-1] if lengths else language_bytes
    record = {
        "method": "parity",
        "reference": REFERENCE,
        "languages": list(texts),
        "text_chars": [len(t) for t in texts.values()],
        "global_merges": global_merges,
        "language_bytes": language_bytes,
        "language_tokens": list(final),
        "merges_per_language": [served.count(g) for g in range(len(texts))],
    }
    specials = special_ids_after(special_tokens, names, 256 + len(merges))
    if baseline:
        plain = train(list(texts.values()), vocab_size, pattern, names or None, staged.stage(num_merges), workers=workers)
        record["plain_language_tokens"] = [
            sum(len(plain.encode_bytes(c)) * w for c, w in zip(chunks, ws)) for chunks, ws in groups
        ]
    seconds = time.perf_counter() - t0
    pooled = [(c, w) for chunks, ws in groups for c, w in zip(chunks, ws)]
    md = metadata(
        vocab_size=vocab_size,
        merges=len(merges),
        asked=num_merges,
        pattern=splitter.pattern,
        chars=chars,
        before=sum(language_bytes),
        after=sum(final),
        unique_chunks=len({c for c, _ in pooled}),
        seconds=seconds,
        record=record,
    )
    trace = ParityTrace(
        [c for c, _ in pooled],
        [w for _, w in pooled],
        sum(language_bytes),
        [sum(row) for row in lengths],
        seconds,
        languages=list(texts),
        bounds=_bounds(groups),
        served=served,
        language_lengths=[language_bytes, *lengths],
        occurrences=[sum(ws) for _, ws in groups],
    )
    tok = Tokenizer(merges, pattern=pattern, special_tokens=specials, name=name, metadata=md, training=trace)
    if progress is not None:
        progress(staged.total, staged.total)
    return tok


def _bounds(groups) -> list[tuple[int, int]]:
    out, lo = [], 0
    for chunks, _ in groups:
        out.append((lo, lo + len(chunks)))
        lo += len(chunks)
    return out


@dataclass
class ParityTrace(TrainingTrace):
    """What a parity-aware training saw: every language's chunks, and which language each merge served.

    ``chunks``/``weights`` hold every language's unique chunks, language after language
    (``bounds[g]`` is language ``g``'s slice); ``served[k]`` is the language merge
    ``k + 1`` served (-1: a plain merge over all texts); ``language_lengths[k][g]`` is
    language ``g``'s length in tokens after ``k`` merges (row 0: its bytes).

    *The training text* of a parity-aware tokenizer is all the languages' texts, so its
    length is their sum; but the pair counts behind step ``k`` (``pair_counts``) are those
    of the language step ``k`` served, where its merge is the top pair.
    """

    method: ClassVar[str] = "parity"

    languages: list[str] = field(default_factory=list)
    bounds: list[tuple[int, int]] = field(default_factory=list)
    served: list[int] = field(default_factory=list)
    language_lengths: list[list[int]] = field(default_factory=list)
    occurrences: list[int] = field(default_factory=list)

    incremental: ClassVar[bool] = False

    @classmethod
    def from_text(cls, tokenizer: Tokenizer, text: str | Mapping[str, str]) -> ParityTrace:
        """Rebuild the trace from the stored training text (``join_parallel``'s string) or the parallel texts."""
        check_tokenizer(tokenizer)
        record = training_record(tokenizer)
        texts = check_parallel(split_parallel(text, record) if isinstance(text, str) else text)
        groups = []
        for t in texts.values():
            counts = count_chunks(t, tokenizer.pattern, tokenizer.special_tokens)
            groups.append(([c.encode("utf-8") for c in counts], list(counts.values())))
        per_language = [lengths_by_replay(tokenizer, chunks, ws) for chunks, ws in groups]
        language_bytes = [sum(len(c) * w for c, w in zip(*grp)) for grp in groups]
        rows = [language_bytes] + [list(row) for row in zip(*per_language)]
        occurrences = [sum(ws) for _, ws in groups]
        g_merges = int(record.get("global_merges") or 0)
        served = [
            -1 if k < g_merges else _or_minus_one(worst_language(rows[k], occurrences)) for k in range(tokenizer.num_merges)
        ]
        return cls(
            [c for chunks, _ in groups for c in chunks],
            [w for _, ws in groups for w in ws],
            sum(language_bytes),
            [sum(row) for row in rows[1:]],
            0.0,
            languages=list(texts),
            bounds=_bounds(groups),
            served=served,
            language_lengths=rows,
            occurrences=occurrences,
        )

    def served_at(self, k: int) -> int | None:
        """The language index merge ``k + 1`` serves (after ``k`` merges); None for a plain merge over all texts.

        After the last merge: the language that would be served next (None when none has a pair left).
        """
        k = check_int(k, "k", 0, len(self.tokens_after))
        if k < len(self.served):
            return None if self.served[k] < 0 else self.served[k]
        return worst_language(self.language_lengths[k], self.occurrences)

    def language_tokens_at(self, k: int) -> dict[str, int]:
        """Every language's length in tokens after ``k`` merges."""
        k = check_int(k, "k", 0, len(self.tokens_after))
        return dict(zip(self.languages, self.language_lengths[k]))

    def pair_counts(self, tokenizer: Tokenizer, k: int, top: int | None = None) -> list[PairCount]:
        """The pair counts merge ``k + 1`` was chosen by: in the language it served (all texts for a plain merge)."""
        k = check_int(k, "k", 0, check_tokenizer(tokenizer).num_merges)
        if top is not None:
            top = check_int(top, "top", 0)
        g = self.served_at(k)
        lo, hi = (0, len(self.chunks)) if g is None else self.bounds[g]
        return count_pairs(tokenizer, self.chunks[lo:hi], self.weights[lo:hi], k, top, start=lo)


def _or_minus_one(g: int | None) -> int:
    return -1 if g is None else g
