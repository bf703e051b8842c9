"""Continued BPE training: more merges on top of an existing tokenizer, learned on a new text.

Domain adaptation of a vocabulary (Purason, Chizhov, Yamshchikov and Fishel 2025,
"Teaching Old Tokenizers New Words: Efficient Tokenizer Adaptation for Pre-trained
Models", arXiv:2512.03989, call it continued BPE training): start from a base tokenizer's
merges (GPT-2's, cl100k's, one's own), encode the new text's chunks with them, and go on
merging the most frequent pair, exactly as plain training would have gone on had the
base been trained on this text.

- Every id of the base keeps its meaning: its bytes, merges, whole tokens and special
  tokens are kept as they are; the new merges mint ids after the largest id the base
  uses (special tokens included), so nothing collides; new special tokens come after
  the new merges, and a special token the base has keeps its id.
- The split pattern is the base's. A different pattern is refused: the base's merges
  were learned on its own chunks, and the ids a model was trained with mean what that
  pattern makes of text; another pattern would change how text the base already handled
  is tokenized, which is not adapting a vocabulary but changing it. (Letting tokens cross
  word boundaries on purpose is the second stage of ``superwords``.)
- A tokenizer.json whose own pipeline splits text (normalizers, prefix spaces) cannot be
  a base: continue from its merges under a split pattern instead (export it as tiktoken).
  A base that puts text in a Unicode normal form first (Qwen's NFC) keeps it, and the new
  text is normalized the same way before it is counted.

Training state after the base's merges is the base's encoding of each chunk; from there
on the merges, counts and tie-break are ``trainer.train_merges``'s. The tokenizer encodes
with all merges in rank order, base first, which gives exactly that state and then the
new merges (the base's ranks are all lower, and no base merge uses a new token).
"""

from __future__ import annotations

import time
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from ..core import Tokenizer, check_tokenizer
from ..errors import MAX_ID, InvalidType, check_str
from ..pretokenize.count import count_chunks, count_stream, special_names, text_stream
from ..pretokenize.patterns import pattern_name, resolve_pattern
from ..pretokenize.splitter import Splitter
from .common import StagedProgress, metadata, training_record
from .trainer import Progress, TrainingTrace, check_vocab_size, lengths_by_replay, train_merges

REFERENCE = "Purason et al. 2025, Teaching Old Tokenizers New Words, arXiv:2512.03989"
#: ``pattern=BASE`` (the default): the base tokenizer's own split pattern.
BASE = "base"


def check_base(base: object, pattern: str | None = BASE) -> Tokenizer:
    """``base`` if training can go on from it under ``pattern``; ValueError saying why not otherwise."""
    if not isinstance(base, Tokenizer):
        raise InvalidType(
            f"base must be a Tokenizer to continue from (load_encoding('gpt2'), a saved one), not {type(base).__name__}"
        )
    if base.pipeline is not None:
        raise ValueError(
            f"{base.name or 'this tokenizer'} splits text with its own tokenizer.json pipeline, so training cannot go on "
            "from it here: continue from a tokenizer that splits text with a pattern (GPT-2's, cl100k's, one trained in BPE Lab)"
        )
    if pattern != BASE and resolve_pattern(pattern) != base.pattern:
        raise ValueError(
            f"continued training keeps the base's split pattern ({pattern_name(base.pattern)}): its merges were learned on "
            "the chunks that pattern makes, and a different pattern would change how text the base already handles is "
            "tokenized. Leave the pattern as the base's (to let tokens cross words on purpose, use the tokens-across-words "
            "training)"
        )
    return base


def train_continued(
    text: str | Iterable[str],
    vocab_size: int,
    special_tokens: Sequence[str] | Mapping[str, int] | None = None,
    progress: Progress = None,
    *,
    base: Tokenizer,
    pattern: str | None = BASE,
    name: str = "",
    workers: int | None = None,
) -> Tokenizer:
    """Learn merges on ``text`` on top of ``base``'s, up to a vocabulary of ``vocab_size`` ids.

    ``base`` is the tokenizer to go on from. ``vocab_size`` counts every id, the base's
    included: one more than the largest id after training (``n_vocab``), so
    ``vocab_size - base.n_vocab`` merges are learned (fewer if no pair is left). ``text``, ``special_tokens``, ``progress``, ``name`` and
    ``workers`` as in ``train``; ``pattern`` must be the base's (``BASE``, the default).

    >>> from tokenizer import train
    >>> base = train("aaabdaaabac", 258, pattern=None)
    >>> tok = train_continued("abab cdcd cd", 259, base=base)
    >>> tok.merges == {**base.merges, (99, 100): 258}, tok.encode("aaab cd")
    (True, [257, 98, 32, 258])
    """
    base = check_base(base, pattern)
    vocab_size = check_vocab_size(vocab_size)
    first_id = base.n_vocab
    if vocab_size <= first_id:
        raise ValueError(
            f"{base.name or 'the base tokenizer'} already uses ids up to {first_id - 1:,}: give a vocab_size above "
            f"{first_id:,}, e.g. {first_id + 1000:,} for 1,000 new merges"
        )
    if vocab_size > MAX_ID:
        raise ValueError(f"vocab_size must be at most {MAX_ID}, got {vocab_size}")
    names = list(special_names(special_tokens))
    if progress is not None and not callable(progress):
        raise ValueError(f"progress must be a function progress(done, total) or None, not {type(progress).__name__}")
    check_str(name, "name")
    if base.normalizer is not None:  # the base sees text in a normal form (Qwen's NFC): so does its training
        text = _normalized(text, base.normalizer)
    text = text_stream(text, names)
    t0 = time.perf_counter()
    num_merges = vocab_size - first_id
    staged = StagedProgress(progress, num_merges)
    if progress is not None:
        progress(0, num_merges)
    counts = count_stream(Splitter(base.pattern), text, workers=workers)
    chunks = [c.encode("utf-8") for c in counts]
    weights = list(counts.values())
    n_chars = sum(len(c) * w for c, w in counts.items())
    del counts
    start = [base.encode_bytes(c) for c in chunks]
    vocab = base.vocab
    token_lengths = [len(vocab.get(i, b"")) for i in range(first_id)]
    raw = train_merges(
        start, weights, num_merges, staged.stage(num_merges), every=max(1, num_merges // 200), token_lengths=token_lengths
    )
    initial = sum(len(c) * w for c, w in zip(chunks, weights))
    base_tokens = sum(len(ids) * w for ids, w in zip(start, weights))
    after = base_tokens - sum(r for *_, r in raw)
    specials = dict(base.special_tokens)  # the base's keep their ids
    if isinstance(special_tokens, Mapping):
        specials.update(special_tokens)
    else:
        free = first_id + len(raw)
        for s in dict.fromkeys(names):
            if s not in specials:
                specials[s] = free
                free += 1
    record = {
        "method": "continued",
        "reference": REFERENCE,
        "base": base.name,
        "base_merges": base.num_merges,
        "base_vocab": first_id,
        "new_merges": len(raw),
        "base_tokens": base_tokens,
    }
    seconds = time.perf_counter() - t0
    md = metadata(
        vocab_size=vocab_size,
        merges=base.num_merges + len(raw),
        asked=base.num_merges + num_merges,
        pattern=base.pattern,
        chars=n_chars,
        before=initial,
        after=after,
        unique_chunks=len(chunks),
        seconds=seconds,
        record=record,
    )
    tok = base.extended(
        [(a, b) for a, b, _, _ in raw], [c for _, _, c, _ in raw], special_tokens=specials, name=name, metadata=md
    )
    tok.training = ContinuedTrace(
        chunks, weights, initial, lengths_by_replay(tok, chunks, weights), seconds, base_merges=base.num_merges
    )
    if progress is not None:
        progress(num_merges, num_merges)
    return tok


def _normalized(text, form: str):
    """``text`` (a str, or documents of str or of str blocks) in the Unicode normal form ``form``.

    A block is normalized on its own: a character and a combining mark split between two
    blocks of a document stay apart (read whole documents to avoid it).
    """
    if isinstance(text, str):
        return unicodedata.normalize(form, text)
    return [
        unicodedata.normalize(form, doc) if isinstance(doc, str) else (unicodedata.normalize(form, b) for b in doc)
        for doc in text
    ]


@dataclass
class ContinuedTrace(TrainingTrace):
    """What a continued training saw: the new text's chunks. Its first ``base_merges`` merges are the base's.

    Lengths and pair counts are defined for every step (the base's merges replayed on the
    new text, then the new ones), but only from ``first_learned`` on is the top pair the
    merge that step takes: the base learned its merges on other text.
    """

    method: ClassVar[str] = "continued"

    base_merges: int = 0

    incremental: ClassVar[bool] = False

    @property
    def first_learned(self) -> int:
        return self.base_merges

    @classmethod
    def from_text(cls, tokenizer: Tokenizer, text: str | Iterable[str]) -> ContinuedTrace:
        """Rebuild the trace from the new text it was trained on."""
        check_tokenizer(tokenizer)
        if tokenizer.normalizer is not None:
            text = _normalized(text, tokenizer.normalizer)
        counts = count_chunks(text, tokenizer.pattern, tokenizer.special_tokens)
        chunks = [c.encode("utf-8") for c in counts]
        weights = list(counts.values())
        initial = sum(len(c) * w for c, w in zip(chunks, weights))
        base_merges = int(training_record(tokenizer).get("base_merges") or 0)
        return cls(chunks, weights, initial, lengths_by_replay(tokenizer, chunks, weights), base_merges=base_merges)
