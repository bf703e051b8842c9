"""The ways BPE Lab trains a tokenizer, by name, and what they share.

``train_with(method, text, vocab_size, ...)`` runs one of ``METHODS``:

- ``"bpe"``: plain byte-level BPE (``trainer.train``);
- ``"parity"``: parity-aware merges over parallel texts (``parity.train_parity``);
- ``"superwords"``: a second stage whose tokens may cross words (``superwords.train_superwords``);
- ``"continued"``: more merges on top of an existing tokenizer (``continued.train_continued``).

A tokenizer trained by a variant records how in ``metadata["training"]`` (its
``"method"`` and the settings), which ``TrainingTrace.from_text`` reads to rebuild what
training saw from the stored text. Plain training records nothing there.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..core import Tokenizer
from ..pretokenize.patterns import pattern_name

#: Method name -> (module, function) under ``tokenizer.bpe``; imported when first used.
METHODS: dict[str, tuple[str, str]] = {
    "bpe": ("trainer", "train"),
    "parity": ("parity", "train_parity"),
    "superwords": ("superwords", "train_superwords"),
    "continued": ("continued", "train_continued"),
}
#: Trace class per variant, for ``TrainingTrace.from_text``.
TRACES: dict[str, tuple[str, str]] = {
    "parity": ("parity", "ParityTrace"),
    "superwords": ("superwords", "SuperwordTrace"),
    "continued": ("continued", "ContinuedTrace"),
}


def _load(where: tuple[str, str]):
    import importlib

    module, name = where
    return getattr(importlib.import_module(f"{__package__}.{module}"), name)


def trainer_for(method: str) -> Callable[..., Tokenizer]:
    """The training function of ``method``; ValueError listing the methods for an unknown one."""
    if method not in METHODS:
        raise ValueError(f"unknown training method {method!r}: use one of {', '.join(METHODS)}")
    return _load(METHODS[method])


def train_with(method: str, text, vocab_size: int, *, seconds: float | None = None, **kwargs) -> Tokenizer:
    """``trainer_for(method)(text, vocab_size, **kwargs)``: what a worker process runs for any method.

    ``seconds``: a ValueError at the first progress call after that long (a training in the
    page's own thread cannot be stopped from outside; a worker process is killed instead).

    >>> train_with("bpe", "aaabdaaabac", 259, pattern=None).encode("aaabdaaabac")
    [258, 100, 258, 97, 99]
    """
    if seconds is not None:
        deadline, progress = time.monotonic() + seconds, kwargs.get("progress")

        def checked(done: int, total: int) -> object:
            if time.monotonic() > deadline:
                raise ValueError(
                    f"the training took longer than {seconds:g} s and was stopped: train on a shorter text or to a smaller vocabulary"
                )
            return progress(done, total) if progress is not None else None

        kwargs["progress"] = checked
    return trainer_for(method)(text, vocab_size, **kwargs)


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


def trace_class(method: str):
    """The ``TrainingTrace`` subclass that rebuilds a ``method`` training; ValueError for an unknown one."""
    if method not in TRACES:
        raise ValueError(f"this tokenizer says it was trained by {method!r}, which this BPE Lab does not know: update BPE Lab")
    return _load(TRACES[method])


# ----------------------------------------------------------------------------- shared by the variants


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
