"""Tokens across words: SuperBPE's second stage, where merges may cross the split pattern's word boundaries.

Liu, Hayase, Hofmann, Oh, Smith and Choi (2025), "SuperBPE: Space Travel for Language
Models", arXiv:2503.13423. Plain BPE never merges across a chunk of the split pattern, so
no token holds two words. SuperBPE trains in two stages:

1. plain BPE under the split pattern up to the *transition point* ``transition`` (a
   vocabulary size): subwords;
2. then the text is cut by a coarser pattern (``SUPERBPE_PATTERN``, the one SuperBPE's
   scripts use: it keeps digits in groups of three, runs of punctuation and runs of
   spaces apart, and lets everything else run on across words), each of those chunks is
   encoded by stage 1's merges, and training goes on from there up to ``vocab_size``:
   superwords such as `` of the`` or ``, and``.

The tokenizer splits text with the coarser pattern and applies every merge in rank
order, which on each chunk gives exactly stage 2's starting point and then its merges.
Stage 1's merges then also apply where two of its old chunks meet; so the length of the
training text at the transition is that of stage 1 (``length_at``) and, cut again,
``stage2_start``. A merge's ``count`` is its count in the stage that took it.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from ..core import Tokenizer, check_tokenizer
from ..errors import check_int, check_str
from ..pretokenize.count import count_chunks, count_stream, special_names, text_stream
from ..pretokenize.patterns import DEFAULT_PATTERN, pattern_name, resolve_pattern
from ..pretokenize.splitter import Splitter
from ..trace import Merge, PairCount
from .common import StagedProgress, metadata, special_ids_after, training_record
from .trainer import Progress, TrainingTrace, check_vocab_size, count_pairs, train_merges

REFERENCE = "Liu et al. 2025, SuperBPE: Space Travel for Language Models, arXiv:2503.13423"
#: SuperBPE's stage-2 split (its scripts/extend_tokenizer.sh): numbers in groups of at
#: most three digits, runs of two or more punctuation marks (with the newlines after
#: them), and runs of spaces not followed by a word are chunks of their own; the text
#: between them, words and the single spaces and marks between words, is one chunk.
SUPERBPE_PATTERN = r"\p{N}{1,3}| ?[^\s\p{L}\p{N}]{2,}[\r\n/]*| +(?!\S)"
#: Seconds of wall-clock time SuperBPE's pattern may take in one training or rebuild. It is
#: ours and linear (no nested quantifiers; each alternative fails within a character or
#: two), but it runs as a custom pattern, and the 2 s a user's regex gets covers only
#: about 3 MB of text; this covers the largest corpus the app takes many times over.
#: A user's own superword pattern keeps the 2 s of every custom pattern.
SUPERBPE_SECONDS = 120.0
#: Where stage 2 begins unless told: after this share of the merges (SuperBPE's best
#: 200k-token tokenizer switched at 180k; with BPE Lab's small vocabularies a larger
#: second stage shows more superwords).
DEFAULT_SHARE = 0.8


def default_transition(vocab_size: int) -> int:
    """The transition point for ``vocab_size``: ``DEFAULT_SHARE`` of the merges, in stage 1.

    >>> default_transition(1256)
    1056
    """
    return 256 + round((vocab_size - 256) * DEFAULT_SHARE)


def superword_splitter(pattern: str | None) -> Splitter:
    """The stage-2 splitter: SuperBPE's pattern with its own time limit (``SUPERBPE_SECONDS``), any other as usual."""
    return Splitter(pattern, timeout=SUPERBPE_SECONDS if resolve_pattern(pattern) == SUPERBPE_PATTERN else None)


def superword_name(pattern: str | None) -> str:
    """``"superbpe"`` for SuperBPE's pattern, else the usual pattern name.

    >>> superword_name(SUPERBPE_PATTERN), superword_name(None)
    ('superbpe', 'none')
    """
    return "superbpe" if pattern == SUPERBPE_PATTERN else pattern_name(pattern)


def train_superwords(
    text: str | Iterable[str],
    vocab_size: int,
    pattern: str | None = DEFAULT_PATTERN,
    special_tokens: Sequence[str] | Mapping[str, int] | None = None,
    progress: Progress = None,
    *,
    transition: int | None = None,
    superword_pattern: str | None = SUPERBPE_PATTERN,
    baseline: bool = False,
    name: str = "",
    workers: int | None = None,
) -> Tokenizer:
    """Train BPE under ``pattern`` up to ``transition``, then under ``superword_pattern`` up to ``vocab_size``.

    ``text``, ``vocab_size``, ``pattern``, ``special_tokens``, ``progress``, ``name``
    and ``workers`` as in ``train``. ``transition`` is a vocabulary size from 256 to
    ``vocab_size`` (default ``default_transition``); ``superword_pattern`` a coarser
    split (``None``: the whole text, or each document, is one chunk). If stage 1 runs out
    of pairs early, stage 2 starts there and fills the vocabulary. With ``baseline`` a
    plain tokenizer of the same size is trained too (stage 1 is its start): its length of
    the training text is recorded (``metadata["training"]["plain_tokens"]``) and the
    tokenizer kept in the trace (``SuperwordTrace.baseline``), for comparison.

    >>> tok = train_superwords("I think of the cat and of the dog; of the end.", 263, pattern="gpt2", transition=261)
    >>> [tok.decode([i]) for i in range(256, 263)]  # five merges within words, then two across them
    [' t', ' th', ' o', ' of', ' the', ' of the', ' of the ']
    """
    vocab_size = check_vocab_size(vocab_size)
    transition = default_transition(vocab_size) if transition is None else check_int(transition, "transition", 0)
    if not 256 <= transition <= vocab_size:
        raise ValueError(
            f"transition must be a vocab size from 256 to vocab_size ({vocab_size}), got {transition}: "
            f"stage 1 learns merges up to it, stage 2 the rest (e.g. {default_transition(vocab_size)})"
        )
    names = list(special_names(special_tokens))
    if progress is not None and not callable(progress):
        raise ValueError(f"progress must be a function progress(done, total) or None, not {type(progress).__name__}")
    check_str(name, "name")
    splitter = Splitter(pattern)  # bad patterns fail here, before any work
    coarse = superword_splitter(superword_pattern)
    if coarse.pattern == splitter.pattern:
        raise ValueError(
            "the superword pattern is the split pattern itself, so stage 2 would learn what plain BPE learns: "
            "give a coarser one (SuperBPE's, the default) or none at all"
        )
    if not isinstance(text, str):
        text = list(text)  # read twice: once per stage
    t0 = time.perf_counter()
    num_merges = vocab_size - 256
    stage1 = transition - 256
    plain_extra = num_merges - stage1 if baseline else 0
    staged = StagedProgress(progress, num_merges + plain_extra)
    if progress is not None:
        progress(0, staged.total)
    counts = count_stream(splitter, text_stream(text, names), workers=workers)
    chunks = [c.encode("utf-8") for c in counts]
    weights = list(counts.values())
    n_chars = sum(len(c) * w for c, w in counts.items())
    del counts
    initial = sum(len(c) * w for c, w in zip(chunks, weights))
    # stage 1 is plain BPE; with a baseline, the plain training goes on to the full size and stage 1 is its start
    raw1 = train_merges(
        chunks, weights, stage1 + plain_extra, staged.stage(stage1 + plain_extra), every=max(1, num_merges // 200)
    )
    plain = None
    if baseline:
        plain = Tokenizer(
            [Merge(i, (a, b), 256 + i, c) for i, (a, b, c, _) in enumerate(raw1)],
            pattern=splitter.pattern,
            special_tokens=special_ids_after(special_tokens, names, 256 + len(raw1)),
            name=f"{name} · plain BPE" if name else "plain BPE",
            training=TrainingTrace(chunks, weights, initial, _running(initial, raw1)),
        )
    raw1 = raw1[:stage1]
    lengths1 = _running(initial, raw1)
    counts2 = count_stream(coarse, text_stream(text, names), workers=workers)
    chunks2 = [c.encode("utf-8") for c in counts2]
    weights2 = list(counts2.values())
    first = Tokenizer([Merge(i, (a, b), 256 + i, c) for i, (a, b, c, _) in enumerate(raw1)], pattern=None)
    start = [first.encode_bytes(c) for c in chunks2]  # stage 1's merges may apply where its chunks meet, as in encoding
    vocab = first.vocab
    token_lengths = [len(vocab[i]) for i in range(256 + len(raw1))]
    stage2_start = sum(len(ids) * w for ids, w in zip(start, weights2))
    raw2 = train_merges(
        start,
        weights2,
        num_merges - len(raw1),
        staged.stage(num_merges - stage1),
        every=max(1, num_merges // 200),
        token_lengths=token_lengths,
    )
    lengths2 = _running(stage2_start, raw2)
    raw = raw1 + raw2
    merges = [Merge(i, (a, b), 256 + i, c) for i, (a, b, c, _) in enumerate(raw)]
    specials = special_ids_after(special_tokens, names, 256 + len(merges))
    record = {
        "method": "superwords",
        "reference": REFERENCE,
        "transition": transition,
        "stage1_merges": len(raw1),
        "pattern": splitter.pattern,
        "pattern_name": pattern_name(splitter.pattern),
        "superword_pattern_name": superword_name(coarse.pattern),
        "stage1_tokens": lengths1[-1] if lengths1 else initial,
        "stage2_start": stage2_start,
    }
    if plain is not None:
        record["plain_tokens"] = plain.training.length_at(plain.num_merges)
    seconds = time.perf_counter() - t0
    after = lengths2[-1] if lengths2 else stage2_start
    md = metadata(
        vocab_size=vocab_size,
        merges=len(merges),
        asked=num_merges,
        pattern=coarse.pattern,
        chars=n_chars,
        before=initial,
        after=after,
        unique_chunks=len(chunks2),
        seconds=seconds,
        record=record,
    )
    md["pattern_name"] = superword_name(coarse.pattern)
    trace = SuperwordTrace(
        chunks,
        weights,
        initial,
        lengths1 + lengths2,
        seconds,
        stage1_merges=len(raw1),
        stage1_pattern=splitter.pattern,
        chunks2=chunks2,
        weights2=weights2,
        stage2_start=stage2_start,
        baseline=plain,
    )
    tok = Tokenizer(merges, pattern=coarse.pattern, special_tokens=specials, name=name, metadata=md, training=trace)
    if progress is not None:
        progress(staged.total, staged.total)
    return tok


def _running(start: int, raw: Sequence[tuple[int, int, int, int]]) -> list[int]:
    """The length after each merge, from the occurrences each one replaced."""
    out, n = [], start
    for *_, replaced in raw:
        n -= replaced
        out.append(n)
    return out


@dataclass
class SuperwordTrace(TrainingTrace):
    """What a two-stage training saw: the chunks of each stage.

    ``chunks``/``weights`` are stage 1's (under ``stage1_pattern``), ``chunks2``/``weights2``
    stage 2's. Merges up to ``stage1_merges`` were chosen on stage 1's chunks, the rest
    on stage 2's; ``length_at(k)`` is the stage's own length (stage 1's up to the
    transition, where ``stage2_start`` is the same text cut again). ``baseline``: plain BPE
    of the same size on the same text (with its own trace), when one was trained for comparison.
    """

    method: ClassVar[str] = "superwords"

    stage1_merges: int = 0
    stage1_pattern: str | None = None
    chunks2: list[bytes] | None = None
    weights2: list[int] | None = None
    stage2_start: int = 0
    baseline: Tokenizer | None = None

    incremental: ClassVar[bool] = False

    @classmethod
    def from_text(cls, tokenizer: Tokenizer, text: str | Iterable[str]) -> SuperwordTrace:
        """Rebuild the trace from the training text (both stages; the plain comparison is not kept)."""
        check_tokenizer(tokenizer)
        record = training_record(tokenizer)
        if not isinstance(text, str):
            text = list(text)
        m1 = check_int(record.get("stage1_merges", 0), "the record's stage1_merges", 0, tokenizer.num_merges)
        pattern1 = resolve_pattern(record.get("pattern"))
        c1 = count_chunks(text, pattern1, tokenizer.special_tokens)
        c2 = count_stream(superword_splitter(tokenizer.pattern), text_stream(text, tokenizer.special_tokens))
        chunks, weights = [c.encode("utf-8") for c in c1], list(c1.values())
        chunks2, weights2 = [c.encode("utf-8") for c in c2], list(c2.values())
        initial = sum(len(c) * w for c, w in zip(chunks, weights))
        saved = [0] * tokenizer.num_merges
        for c, w in zip(chunks, weights):
            for r, _, _ in tokenizer.merge_events(c):
                if r < m1:
                    saved[r] += w
        start = sum(len(tokenizer.encode_bytes(c, m1)) * w for c, w in zip(chunks2, weights2))
        for c, w in zip(chunks2, weights2):
            for r, _, _ in tokenizer.merge_events(c):
                if r >= m1:
                    saved[r] += w
        lengths, n = [], initial
        for k, s in enumerate(saved):
            if k == m1:
                n = start
            n -= s
            lengths.append(n)
        return cls(
            chunks,
            weights,
            initial,
            lengths,
            0.0,
            stage1_merges=m1,
            stage1_pattern=pattern1,
            chunks2=chunks2,
            weights2=weights2,
            stage2_start=start,
        )

    def stage_at(self, k: int) -> int:
        """The stage merge ``k + 1`` belongs to (1 or 2): the chunks its pair counts come from."""
        return 1 if k < self.stage1_merges else 2

    def pattern_at(self, tokenizer: Tokenizer, k: int) -> str | None:
        """The split pattern training used when it chose merge ``k + 1``."""
        return self.stage1_pattern if self.stage_at(k) == 1 else tokenizer.pattern

    def tokens_at(self, tokenizer: Tokenizer, k: int) -> int:
        """Tokens after ``k`` merges, recomputed: stage 1's chunks up to the transition, stage 2's after."""
        k = check_int(k, "k", 0, check_tokenizer(tokenizer).num_merges)
        chunks, weights = (self.chunks, self.weights) if k <= self.stage1_merges else (self.chunks2, self.weights2)
        return sum(len(tokenizer.encode_bytes(c, k)) * w for c, w in zip(chunks, weights))

    def pair_counts(self, tokenizer: Tokenizer, k: int, top: int | None = None) -> list[PairCount]:
        """The pair counts merge ``k + 1`` was chosen by: in stage 1's chunks before the transition, stage 2's from it."""
        k = check_int(k, "k", 0, check_tokenizer(tokenizer).num_merges)
        if top is not None:
            top = check_int(top, "top", 0)
        if self.stage_at(k) == 1:
            return count_pairs(tokenizer, self.chunks, self.weights, k, top)
        return count_pairs(tokenizer, self.chunks2, self.weights2, k, top)
