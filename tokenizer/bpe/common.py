"""What the training variants share: the record of how a tokenizer was trained, its special ids, one progress bar.

Below the trainer and every variant (``methods`` is above them all), so each imports it plainly.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..core import Tokenizer
from ..pretokenize.patterns import pattern_name


def training_record(tok: Tokenizer) -> dict[str, Any]:
    """What ``metadata["training"]`` says about how ``tok`` was trained (``{}`` for plain BPE or none)."""
    record = tok.metadata.get("training")
    return record if isinstance(record, dict) else {}


def training_method(tok: Tokenizer) -> str:
    """``"bpe"`` unless the tokenizer's metadata names a variant.

    >>> training_method(Tokenizer(metadata={"training": {"method": "parity"}}))
    'parity'
    """
    return str(training_record(tok).get("method") or "bpe")


def special_ids_after(
    special_tokens: Sequence[str] | Mapping[str, int] | None, names: Sequence[str], first_free: int
) -> dict[str, int]:
    """Special-token ids: as given in a mapping, else one after another from ``first_free``.

    >>> special_ids_after(["<|a|>", "<|b|>", "<|a|>"], ["<|a|>", "<|b|>", "<|a|>"], 300)
    {'<|a|>': 300, '<|b|>': 301}
    """
    if isinstance(special_tokens, Mapping):
        return dict(special_tokens)
    return {s: first_free + i for i, s in enumerate(dict.fromkeys(names))}


def metadata(
    *,
    vocab_size: int,
    merges: int,
    asked: int,
    pattern: str | None,
    chars: int,
    before: int,
    after: int,
    unique_chunks: int,
    seconds: float,
    record: dict[str, Any],
) -> dict[str, Any]:
    """The metadata every trained tokenizer carries (as ``train`` writes it), with the method's ``record``."""
    return {
        "vocab_size": vocab_size,
        "merges_learned": merges,
        "stopped_early": merges < asked,
        "pattern_name": pattern_name(pattern),
        "corpus_chars": chars,
        "corpus_bytes": before,
        "unique_chunks": unique_chunks,
        "tokens_before": before,
        "tokens_after": after,
        "seconds": round(seconds, 4),
        "trained_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "training": record,
    }


class StagedProgress:
    """One ``progress(done, total)`` over several stages of merges, so a page's bar runs once from 0 to the end.

    >>> seen = []
    >>> p = StagedProgress(lambda d, t: seen.append((d, t)), 10)
    >>> p.stage(4)(2, 4); p.stage(6)(6, 6)
    >>> seen
    [(2, 10), (10, 10)]
    """

    def __init__(self, progress: Callable[[int, int], object] | None, total: int):
        self.progress = progress
        self.total = total
        self.offset = 0

    def stage(self, size: int) -> Callable[[int, int], object] | None:
        """The callback for the next stage of ``size`` merges (None without a progress function)."""
        if self.progress is None:
            return None
        offset = self.offset
        self.offset += size

        def report(done: int, total: int) -> None:
            self.progress(min(self.total, offset + done), self.total)

        return report
