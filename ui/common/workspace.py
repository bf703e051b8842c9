"""Where the user's trained and uploaded tokenizers live, as the pages see them: the ``Store`` protocol.

The pages only ask ``store()`` for this session's store and call the methods below. Which store that is, the
start-up decides once (``use``): serve.py's, or app.py's own when it runs without serve.py (local mode). The
``classroom`` package provides a folder (local mode, ``make run``), a database per browser (shared mode,
``make serve``) and a store in memory (a browser without a cookie, a database
that stopped answering). Nothing here knows which: ``ui`` never imports ``classroom``.

A store's failure modes are part of the protocol: a ValueError with the message for the page (a missing key, a
full workspace, a database that cannot be read), ``damaged()`` for saved tokenizers that cannot be read,
``unsaved(key)`` for one kept in the session because saving it failed (never reported as saved), and
``notices()`` for what the page must say first (no cookie, an expired workspace, saved tokenizers out of reach).
Plain Python but for ``notices``, which remembers in the session what it said once.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from tokenizer import Tokenizer, TrainingTrace


@dataclass(frozen=True)
class Entry:
    key: str
    name: str
    created: str
    vocab_size: int
    pattern: str
    source: str  # "trained" or "uploaded"
    has_corpus: bool


@dataclass(frozen=True)
class Damaged:
    """A saved tokenizer that cannot be read, and why."""

    key: str
    file: str
    message: str


@dataclass(frozen=True)
class Notice:
    """What a page says about the workspace before anything else: ``kind`` is "error", "warning" or "info"."""

    kind: str
    message: str
    once: bool = False  # said on the first page of a session only


class Store(Protocol):
    """Tokenizers by key. Every method may raise a ValueError whose message the page shows as it is."""

    def entries(self) -> list[Entry]: ...  # every readable tokenizer, oldest first

    def damaged(self) -> list[Damaged]:
        """Saved tokenizers that cannot be read (a Delete button each on the Train page)."""

    def get(self, key: str) -> Tokenizer: ...

    def corpus(self, key: str) -> str | None: ...  # the text it was trained on, as kept, or None

    def training_trace(self, key: str) -> TrainingTrace | None:
        """What training saw (for Step through), rebuilt from the kept text when needed; None without one."""

    def add(self, tok: Tokenizer, *, corpus: str | None = None, source: str = "trained") -> str:
        """Keep ``tok`` itself (and its training text); return its new key."""

    def unsaved(self, key: str) -> str | None: ...  # why ``key`` is kept in this session only (saving it failed), or None

    def check_room(self, extra_bytes: int = 0, *, adding: int = 1) -> None:
        """A ValueError saying what to delete when ``adding`` tokenizers of ``extra_bytes`` would not fit."""

    def attach(self, key: str, name: str, size: int) -> None: ...  # a browser model file of ``key``: counted, deleted with it

    def import_bytes(self, data: bytes, file_name: str, *, pattern: str | None = "gpt4") -> str:
        """Keep an uploaded tokenizer file (``pattern`` for tiktoken files, which carry none); return its key."""

    def rename(self, key: str, name: str) -> None: ...

    def delete(self, key: str) -> None: ...

    def notices(self) -> list[Notice]: ...

    def describe(self) -> str:
        """One sentence for the sidebar: where the tokenizers are kept and for how long."""

    def training_started(self, draft: dict) -> None:
        """Keep the Train page's text and settings (JSON values) while its training runs: they outlive the process."""

    def training_ended(self) -> None: ...  # the training finished, failed or was stopped by its page: forget its draft

    def interrupted_training(self) -> dict | None:
        """The draft of a training this browser started whose app process died before it ended, or None."""


def slug(name: str) -> str:
    """A name as a short file-safe word.

    >>> slug("My tokenizer: GPT-4 style!"), slug("日本")
    ('my-tokenizer-gpt-4-style', 'tokenizer')
    """
    s = re.sub(r"[^a-zA-Z0-9]+", "-", name).strip("-").lower()
    return (s or "tokenizer")[:40]


# Set once at start-up (``use``), before any session runs, and only read afterwards: safe to share.
_provider: Callable[[], Store] | None = None
_SHOWN = "workspace.notices_shown"


def use(provider: Callable[[], Store] | None) -> None:
    """Install the function that gives each session its store (the server does this once, at start-up)."""
    global _provider
    _provider = provider


def chosen() -> bool:
    """Whether a start-up has chosen the store already."""
    return _provider is not None


def store() -> Store:
    """This session's store."""
    if _provider is None:
        raise RuntimeError("no workspace was chosen at start-up: start BPE Lab with `streamlit run app.py` or `make run`")
    return _provider()


def notices() -> list[Notice]:
    """What the page must say first; a notice marked ``once`` only on the first page of the session."""
    import streamlit as st  # here only: the protocol above is plain Python, for the stores and ``ui.train.downloads``

    shown = st.session_state.setdefault(_SHOWN, set())
    out = [n for n in store().notices() if not (n.once and n.message in shown)]
    shown.update(n.message for n in out if n.once)
    return out


def describe() -> str:
    return store().describe()
