"""What the Step through page shows at step k, as plain data (no Streamlit here).

Training mode replays a tokenizer's own training: the training text after k merges,
the pair that merge k+1 takes (highlighted wherever it occurs), the top pairs and
the sequence length at k. Encoding mode replays ``encode`` on a typed text: step j
applies the j-th merge rank that occurs in the text, everywhere at once.

Both use one ``EncodeTrace`` of the shown text (``tok.encode_trace``), computed once
and replayed to any step: the state after k merges is the trace's steps with rank
below k, which is exactly ``tok.truncated(k).encode(text)`` (a test checks it).
The cards are drawn in the page (``ui/web/cards.js``), the ladder by ``ui.common.draw``, the curves by
``ui.render.charts``.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left
from collections.abc import Sequence

import pandas as pd

from tokenizer import Tokenizer, TrainingTrace
from tokenizer.bpe.continued import ContinuedTrace
from tokenizer.bpe.parity import ParityTrace
from tokenizer.bpe.superwords import SuperwordTrace
from tokenizer.display import visible
from tokenizer.trace import EncodeStep, EncodeTrace, PairCount, Span

#: Characters of the training text shown in training mode (choices offered).
EXCERPT_CHOICES = (1_000, 3_000, 5_000, 10_000)
EXCERPT_DEFAULT = 3_000
#: Rows in the top-pairs table and chart.
TOP_PAIRS = 10


def excerpt_trace(tok: Tokenizer, text: str) -> EncodeTrace:
    """The trace of ``text``; special-token strings are cut out as training does."""
    return tok.encode_trace(text, allowed_special="all" if tok.special_tokens else frozenset())


def steps_below(trace: EncodeTrace, k: int) -> int:
    """How many trace steps use a merge rank below ``k`` (the state after k merges).

    >>> from tokenizer import train
    >>> tok = train("aaabdaaabac", 259, pattern=None)
    >>> steps_below(tok.encode_trace("aaabdaaabac"), 2)
    2
    """
    ranks = [s.rank for s in trace.steps]
    return bisect_left(ranks, k)


def new_token_highlight(spans: Sequence[Span], step: EncodeStep | None) -> set[int]:
    """Span indices of the tokens ``step`` has just created."""
    if step is None:
        return set()
    starts = set(step.positions)
    return {s.index for s in spans if s.byte_start in starts}


def chunk_cuts(spans: Sequence[Span], trace: EncodeTrace) -> set[int]:
    """Span indices where a regex chunk starts (none when the whole text is one chunk)."""
    if len(trace.chunk_bytes) <= 1:
        return set()
    starts = {a for a, _ in trace.chunk_bytes}
    return {s.index for s in spans if s.index and s.byte_start in starts}


# ----------------------------------------------------------------------------- training mode


def pair_label(tok: Tokenizer, pair: tuple[int, int]) -> str:
    """A pair as visible text.

    >>> pair_label(Tokenizer(), (32, 116))
    '· + t'
    """
    return f"{visible(tok.vocab[pair[0]])} + {visible(tok.vocab[pair[1]])}"


class PairCounter:
    """The training text's pair counts after k merges, carried from one step to the next.

    ``TrainingTrace.pair_counts(tok, k)`` encodes every unique chunk of the training
    text again with the first k merges, too slow to do at every step of a large
    training text. Going from step k to k+1 changes
    only the chunks that hold the pair merge k+1 takes, so this keeps every chunk's
    ids, the counts, and which chunks hold each pair, and applies one merge at a time.
    ``top(n)`` after ``advance(k)`` equals ``trace.pair_counts(tok, k, top=n)``, order
    and first occurrences included (a hypothesis test checks it). It only moves
    forward; ``top_pairs_frame`` asks the trace for a step behind it.

    Mutable: one per session and tokenizer (``ui.common.cache``), used by one script
    run at a time.

    >>> from tokenizer import train
    >>> tok = train("aaabdaaabac", 259, pattern=None)
    >>> c = PairCounter(tok, tok.training)
    >>> c.advance(1); [(p.pair, p.count) for p in c.top(2)]
    [((256, 97), 2), ((97, 98), 2)]
    """

    def __init__(self, tok: Tokenizer, trace: TrainingTrace):
        merges = tok.merge_list
        self._pairs = [m.pair for m in merges]
        self._new = [m.new_id for m in merges]
        self._length = {i: len(b) for i, b in tok.vocab.items()}
        self._weights = trace.weights
        self.k = 0
        byte_id = [tok.encode_bytes(bytes([b]), 0)[0] for b in range(256)]  # with no merge, each byte is its own token
        identity = byte_id == list(range(256))
        self._seqs = [list(c) if identity else [byte_id[b] for b in c] for c in trace.chunks]
        self._counts: dict[tuple[int, int], int] = {}
        self._where: dict[tuple[int, int], set[int]] = {}
        for ci, ids in enumerate(self._seqs):
            self._add(ci, ids)

    def _add(self, ci: int, ids: list[int]) -> None:
        w, counts, where = self._weights[ci], self._counts, self._where
        pairs = list(zip(ids, ids[1:]))
        for p in pairs:
            counts[p] = counts.get(p, 0) + w
        for p in set(pairs):
            held = where.get(p)
            if held is None:
                where[p] = {ci}
            else:
                held.add(ci)

    def _remove(self, ci: int, ids: list[int]) -> None:
        w, counts, where = self._weights[ci], self._counts, self._where
        for p in zip(ids, ids[1:]):
            c = counts[p] - w
            if c:
                counts[p] = c
            else:
                del counts[p]
            held = where.get(p)
            if held is not None:
                held.discard(ci)
                if not held:
                    del where[p]

    def advance(self, k: int) -> None:
        """Apply merges until ``k`` of them are applied (``k`` at least the current step)."""
        if k < self.k:
            raise ValueError(f"a PairCounter only moves forward: it is at step {self.k}, asked for {k}")
        while self.k < k:
            a, b = pair = self._pairs[self.k]
            new = self._new[self.k]
            for ci in sorted(self._where.get(pair, ())):
                old = self._seqs[ci]
                out: list[int] = []
                i, n = 0, len(old)
                while i < n:
                    if i + 1 < n and old[i] == a and old[i + 1] == b:
                        out.append(new)
                        i += 2
                    else:
                        out.append(old[i])
                        i += 1
                self._remove(ci, old)
                self._add(ci, out)
                self._seqs[ci] = out
            self.k += 1

    def _first(self, pair: tuple[int, int]) -> tuple[int, int]:
        ci = min(self._where[pair])
        ids, off = self._seqs[ci], 0
        for p in zip(ids, ids[1:]):
            if p == pair:
                return ci, off
            off += self._length[p[0]]
        raise AssertionError(f"pair {pair} is not in chunk {ci}")

    def top(self, n: int) -> list[PairCount]:
        """The ``n`` most frequent pairs now, in training's order (highest count, then earliest first occurrence)."""
        counts = self._counts
        if not counts:
            return []
        floor = heapq.nlargest(n, counts.values())[-1]
        candidates = [p for p, c in counts.items() if c >= floor]  # ties at the floor are decided by first occurrence
        firsts = {p: self._first(p) for p in candidates}
        ordered = sorted(candidates, key=lambda p: (-counts[p], firsts[p]))[:n]
        return [PairCount(p, counts[p], firsts[p]) for p in ordered]


def top_pairs_frame(
    tok: Tokenizer, trace: TrainingTrace, k: int, top: int = TOP_PAIRS, counter: PairCounter | None = None
) -> pd.DataFrame:
    """The most frequent pairs in the training text after k merges, in training's order.

    Row 0 is the pair merge k+1 takes (``next`` is True for it). With a ``counter``
    at or before step k, the counts come from it (one merge per step); else from the trace.
    """
    if counter is not None and counter.k <= k:
        counter.advance(k)
        counts = counter.top(top)
    else:
        counts = trace.pair_counts(tok, k, top=top)
    vocab = tok.vocab
    labels = []
    for pc in counts:
        label = pair_label(tok, pc.pair)
        while label in labels:  # two pairs that look alike: keep both bars
            label += " "
        labels.append(label)
    return pd.DataFrame(
        {
            "pair": labels,
            "count": [pc.count for pc in counts],
            "merges into": [visible(vocab[pc.pair[0]] + vocab[pc.pair[1]]) for pc in counts],
            # the pair merge k+1 takes: the top one, except before a continued training's own merges
            "next": [k < tok.num_merges and pc.pair == tok.merge_list[k].pair for pc in counts],
        }
    )


# ----------------------------------------------------------------------------- training variants


def language_frame(trace: TrainingTrace, k: int) -> pd.DataFrame:
    """A parity-aware training after ``k`` merges: every language's tokens, and which one merge k+1 serves.

    >>> from tokenizer.bpe.parity import train_parity
    >>> tok = train_parity({"en": "aaaa", "xx": "bcbcbc"}, 258, pattern=None)
    >>> language_frame(tok.training, 0).values.tolist(), language_frame(tok.training, 1).values.tolist()
    ([['en', 4, False], ['xx', 6, True]], [['en', 4, True], ['xx', 3, False]])
    """
    tokens = trace.language_tokens_at(k)
    served = trace.served_at(k)
    return pd.DataFrame(
        {"language": list(tokens), "tokens": list(tokens.values()), "served": [i == served for i in range(len(tokens))]}
    )


def variant_note(tok: Tokenizer, trace: TrainingTrace, k: int) -> str | None:
    """What step ``k + 1`` of a training variant does differently, in a sentence (None for plain BPE).

    Parity-aware: which language it serves (the pairs shown are counted in that
    language's text); tokens across words: which stage; continued: whether the merge
    came with the base or was learned on this text. Plain text: the page
    (``ui/step/stepper.js``'s ``variantNote``) writes the same sentence from the payload.

    >>> from tokenizer.bpe.parity import train_parity
    >>> tok = train_parity({"en": "aaaa", "xx": "bcbcbc"}, 258, pattern=None)
    >>> variant_note(tok, tok.training, 0)
    'Step 1 serves xx, the worst-compressed language now (6 tokens; en 4): its most frequent pair is merged in every text. The pairs below are counted in the xx text.'
    """
    n = tok.num_merges
    if isinstance(trace, ParityTrace):
        if k >= n:
            return None
        served = trace.served_at(k)
        if served is None:
            return f"Step {k + 1:,} is one of the plain merges made first: the pairs are counted in every text."
        tokens = trace.language_tokens_at(k)
        lang = trace.languages[served]
        others = sorted(((n_, lg) for lg, n_ in tokens.items() if lg != lang), reverse=True)[:2]
        rest = "; ".join(f"{lg} {n_:,}" for n_, lg in others)
        return (
            f"Step {k + 1:,} serves {lang}, the worst-compressed language now ({tokens[lang]:,} tokens; {rest}): "
            f"its most frequent pair is merged in every text. The pairs below are counted in the {lang} text."
        )
    if isinstance(trace, SuperwordTrace):
        t = trace.stage1_merges
        if k < t:
            return f"Stage 1 (merges 1 to {t:,}): plain BPE, within the chunks of the split pattern."
        if k == t:
            return (
                f"Stage 2 starts: the text is cut again by the superword pattern, so merges may cross words "
                f"({trace.length_at(t):,} tokens at the end of stage 1; {trace.stage2_start:,} cut again)."
            )
        return f"Stage 2 (merges {t + 1:,} to {n:,}): the chunks hold several words, so tokens may cross them."
    if isinstance(trace, ContinuedTrace):
        b = trace.first_learned
        base = str((tok.metadata.get("training") or {}).get("base") or "the base")
        if k < b:
            return (
                f"Merge {k + 1:,} comes with {base}, learned on other text: here it is replayed on yours, "
                f"so it need not be the top pair. This text's own merges start at step {b + 1:,}."
            )
        return f"Merge {k + 1:,} was learned on this text, on top of {base}'s {b:,} merges."
    return None


def counted_in(trace: TrainingTrace, k: int) -> str:
    """Where the count of merge ``k + 1``'s pair was taken: the training text, or the language it served.

    >>> from tokenizer.bpe.parity import train_parity
    >>> tok = train_parity({"en": "aaaa", "xx": "bcbcbc"}, 258, pattern=None)
    >>> counted_in(tok.training, 0), counted_in(tok.training, 2)
    ('the xx text', 'the training text')
    """
    if isinstance(trace, ParityTrace) and k < len(trace.served):
        served = trace.served_at(k)
        return "the training text" if served is None else f"the {trace.languages[served]} text"
    return "the training text"


def stage_tokenizer(tok: Tokenizer, trace: TrainingTrace, k: int) -> Tokenizer:
    """The tokenizer whose split pattern cut the training text when merge ``k + 1`` was chosen (for the text shown).

    The same merges; only a two-stage training's first stage had another pattern.
    """
    pattern = trace.pattern_at(tok, k)
    if pattern == tok.pattern:
        return tok
    return Tokenizer(tok.merge_table, pattern=pattern, special_tokens=tok.special_tokens, byte_ids=tok.byte_ids, name=tok.name)


# ----------------------------------------------------------------------------- encoding mode


def steps_frame(tok: Tokenizer, trace: EncodeTrace) -> pd.DataFrame:
    """One row per encode step: rank, pair, new token, how many places, tokens after."""
    vocab = tok.vocab
    return pd.DataFrame(
        {
            "step": [s.step for s in trace.steps],
            "rank": [s.rank for s in trace.steps],
            "left": [visible(vocab[s.pair[0]]) for s in trace.steps],
            "right": [visible(vocab[s.pair[1]]) for s in trace.steps],
            "new token": [visible(s.token) for s in trace.steps],
            "id": [s.new_id for s in trace.steps],
            "places": [s.count for s in trace.steps],
            "tokens after": [s.n_tokens for s in trace.steps],
        }
    )


def word_ladder(tok: Tokenizer, word: str) -> list[tuple[str, list[Span], set[int]]]:
    """How one word is built, from its bytes to its tokens: ``(what happened, spans after it, new spans)`` per step.

    The rows ``ui.common.draw.ladder`` draws.

    >>> from tokenizer import train
    >>> [(what, len(spans), new) for what, spans, new in word_ladder(train("aaabdaaabac", 259, pattern=None), "aaab")]
    [('bytes', 4, set()), ('rank 0: a + a', 3, {0}), ('rank 1: aa + a', 2, {0}), ('rank 2: aaa + b', 1, {0})]
    """
    trace = tok.encode_trace(word)
    vocab = tok.vocab
    out: list[tuple[str, list[Span], set[int]]] = [("bytes", trace.spans_at(0), set())]
    for j, step in enumerate(trace.steps, 1):
        spans = trace.spans_at(j)
        what = f"rank {step.rank:,}: {visible(vocab[step.pair[0]])} + {visible(vocab[step.pair[1]])}"
        out.append((what, spans, new_token_highlight(spans, step)))
    return out
