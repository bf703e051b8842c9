"""Where a training runs: in the page's own thread, unless the server installed a runner at start-up.

On a shared server the ``classroom`` package installs one that trains in worker
processes (``classroom.workers``), so one student's training never stalls the other
sessions of the process; the page sees the same tokenizer and the same progress.
Every training method goes the same way (``tokenizer.bpe.methods``): plain BPE and its variants.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tokenizer import Tokenizer, load_encoding
from tokenizer.bpe.methods import train_with

Progress = Callable[[int, int], object]
HERE_SECONDS = 300.0  # how long a training in the page's own thread may run, in seconds
#: ``runner(text, vocab_size, *, method, progress, **settings)``: ``train_with(method, text, vocab_size, ...)`` somewhere
Runner = Callable[..., Tokenizer]


def here(text, vocab_size: int, *, method: str = "bpe", **kwargs) -> Tokenizer:
    """The default runner: the training in this thread, for at most ``HERE_SECONDS`` (``train_with``'s ``seconds``)."""
    return train_with(method, text, vocab_size, seconds=HERE_SECONDS, **resolved(kwargs))


def resolved(settings: dict) -> dict:
    """The settings with a continued training's base given by name (a registered encoding) loaded.

    A worker process gets the name rather than the pickled encoding (5 MB for cl100k,
    with every chunk its cache holds); ``load_encoding`` keeps one per process.
    """
    base = settings.get("base")
    return {**settings, "base": load_encoding(base)} if isinstance(base, str) else settings


# Set once at start-up (``use``) and only read afterwards: safe to share between sessions.
_runner: Runner = here


def use(runner: Runner | None) -> None:
    """Install the server's runner (None: train in the page's own thread)."""
    global _runner
    _runner = runner or here


def train(
    text: str,
    vocab_size: int,
    *,
    pattern: str | None,
    special_tokens: Sequence[str] | None = None,
    name: str | None = None,
    progress: Progress | None = None,
) -> Tokenizer:
    """``tokenizer.train`` wherever the server runs trainings; a ValueError (bad settings) comes back with its message."""
    specials = list(special_tokens) if special_tokens else None
    return _runner(text, vocab_size, pattern=pattern, special_tokens=specials, name=name or "", progress=progress)


def train_variant(
    method: str,
    text,
    vocab_size: int,
    *,
    progress: Progress | None = None,
    **settings,
) -> Tokenizer:
    """A variant's training (``tokenizer.bpe.methods``: parity, superwords, continued) wherever the server runs trainings.

    ``text`` is what the method takes (parallel texts for parity); ``settings`` its keyword
    arguments (a base Tokenizer for continued training travels to the worker too).
    """
    return _runner(text, vocab_size, method=method, progress=progress, **settings)
