"""Where a training runs: in the page's own thread, unless the server installed a runner at start-up.

On a shared server the ``classroom`` package installs one that trains in worker
processes (``classroom.workers``), so one student's training never stalls the other
sessions of the process; the page sees the same tokenizer and the same progress.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import tokenizer
from tokenizer import Tokenizer

Progress = Callable[[int, int], object]
#: ``runner(text, vocab_size, *, pattern, special_tokens, name, progress)``, as ``tokenizer.train`` takes them
Runner = Callable[..., Tokenizer]

# Set once at start-up (``use``) and only read afterwards: safe to share between sessions.
_runner: Runner = tokenizer.train


def use(runner: Runner | None) -> None:
    """Install the server's runner (None: train in the page's own thread)."""
    global _runner
    _runner = runner or tokenizer.train


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
