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
from collections.abc import Callable

from ..core import Tokenizer
from ..errors import InvalidType
from .common import training_method, training_record
from .continued import train_continued
from .parity import train_parity
from .superwords import train_superwords
from .trainer import train

__all__ = ["METHODS", "train_with", "trainer_for", "training_method", "training_record"]

#: Method name -> its training function.
METHODS: dict[str, Callable[..., Tokenizer]] = {
    "bpe": train,
    "parity": train_parity,
    "superwords": train_superwords,
    "continued": train_continued,
}


def trainer_for(method: str) -> Callable[..., Tokenizer]:
    """The training function of ``method``; ValueError listing the methods for an unknown one."""
    if not isinstance(method, str) or method not in METHODS:
        raise InvalidType(f"unknown training method {method!r}: use one of {', '.join(METHODS)}")
    return METHODS[method]


def train_with(method: str, text, vocab_size: int, *, seconds: float | None = None, **kwargs) -> Tokenizer:
    """``trainer_for(method)(text, vocab_size, **kwargs)``: what a worker process runs for any method.

    ``seconds``: a ValueError at the first progress call after that long (a training in the
    page's own thread cannot be stopped from outside; a worker process is killed instead).

    >>> train_with("bpe", "aaabdaaabac", 259, pattern=None).encode("aaabdaaabac")
    [258, 100, 258, 97, 99]
    """
    trainer = trainer_for(method)
    if seconds is not None:
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not seconds >= 0:
            raise InvalidType(f"seconds must be a number of seconds (0 or more) or None, not {seconds!r}")
        deadline, progress = time.monotonic() + seconds, kwargs.get("progress")

        def checked(done: int, total: int) -> object:
            if time.monotonic() > deadline:
                raise ValueError(
                    f"the training took longer than {seconds:g} s and was stopped: train on a shorter text or to a smaller vocabulary"
                )
            return progress(done, total) if progress is not None else None

        kwargs["progress"] = checked
    return trainer(text, vocab_size, **kwargs)
