"""Caches: which tool for which result, and what may be kept for every session of the server (the policy).

Which tool (four, each where it fits; nothing else keeps results between reruns):

* ``st.cache_resource`` (Streamlit's own) for objects one per server process, shared by
  reference: the official encodings and the baselines (``ui.common.tokenizers``, each
  marked with ``share``), the start-up (``ui.common.shell``), and results about official
  encodings only, keyed by their names (Overlap's ``ui.overlap.view._for_everyone``).
  Streamlit's compute lock makes sessions that ask at once compute once.
* ``st.cache_data`` (Streamlit's own) for built-in data handed out as copies (the Train
  page's sample texts, ``ui.train.view``).
* ``functools.cache`` / ``lru_cache`` only in plain-Python modules (``tokenizer/``,
  ``ui/content``, ``model.py`` files: no Streamlit there) for pure functions of constants
  and small arguments (compiled patterns, the standard-library corpora).
* This module for the rest, where Streamlit's caches do not fit:

  - ``for_tokenizer`` and ``for_session``: a result about one tokenizer object, a user's
    or an official one. Streamlit's caches key on their arguments' hash, so a tokenizer
    would be pickled and hashed at every call (200,000 tokens) or left out of the key
    (``_tok``), and then nothing ties the entry to that object; here the owner is held
    weakly and its entries go with it, with a bound per kind of result.
  - ``for_builtin``: a tokenizer trained on a built-in corpus, as ``st.cache_data`` would
    keep it (pickled, a copy for every caller, one computation for callers at once), but
    the training draws the page's progress bar, created outside the computation, and
    ``st.cache_data`` refuses that (``CacheReplayClosureError``: it replays a cached
    function's elements; ``tests/ui/common/test_cache.py`` checks that this still holds).

Kept for every session (process-wide):

* the official encodings (r50k_base, cl100k_base, o200k_base, and cl100k/o200k with
  the chat tokens, the open models' when picked) and the two baselines;
* the built-in sample texts and training corpora;
* results that depend only on an official encoding and built-in data: its
  vocabulary table, longest tokens and length histogram, its counts on the
  built-in samples (``for_tokenizer`` with a shared encoding); and results about
  several official encodings (Overlap);
* a tokenizer trained on a built-in corpus with given settings (``for_builtin``:
  the same for everyone who picks that sample and those settings; each session gets
  its own copy). Never a pasted or uploaded text.

Kept per session (in ``st.session_state``: gone with the session, never seen by
another one):

* anything derived from what a user typed, pasted or uploaded, or from a tokenizer
  they trained or uploaded: encode traces, filtered tables, statistics and their
  chart specs, custom-regex checks, downloads (``for_session``, and
  ``for_tokenizer`` with one of their tokenizers).

Where the user's tokenizers live is ``ui.common.workspace``'s business: local mode
keeps them in a folder of the machine the server runs on, shared by every tab by
design; shared mode keeps each browser's in a database (``classroom.database``),
read through a store object kept in the session's state (its parsed tokenizers and
training texts are that session's). The one process-wide object there is the
database's connection pool, which holds no user data.

One cached value is changed by its reader, on purpose: Step through's
``PairCounter`` (the training text's pair counts, carried from one step to the
next), kept per session and tokenizer; a session runs one script at a time, so
nobody else reads it while it moves.

Bounds: every cache here keeps the ``maxsize`` most recent keys per kind and owner
(default 8); Streamlit's have ``max_entries``. A shared entry goes away with its owner
object (weak keys), a session entry with the session (or its owner). Thread safety:
each session's scripts run on their own thread, so each cache takes a lock around
every lookup and insertion. The value is computed outside the lock: two sessions
asking at once for the same missing value may both compute it (the later one is
kept). Cached values are shared by their readers and never changed by them
(DataFrames are filtered into new ones).
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

T = TypeVar("T")


class OwnerCache:
    """Bounded results per ``(owner, kind, key)``; an owner's entries go away with the owner.

    ``owner`` is the object the results are derived from (a tokenizer), held weakly;
    ``None`` for results that belong to no object.

    >>> class Tok: pass
    >>> cache, t, calls = OwnerCache(), Tok(), []
    >>> [cache.get(t, "double", 2, lambda: calls.append(1) or 4) for _ in range(3)], len(calls)
    ([4, 4, 4], 1)
    >>> [cache.get(None, "n", i, lambda i=i: i, maxsize=2) for i in range(3)], cache.get(None, "n", 0, lambda: "again", maxsize=2)
    ([0, 1, 2], 'again')
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_owner: weakref.WeakKeyDictionary[Any, dict[str, OrderedDict]] = weakref.WeakKeyDictionary()
        self._unowned: dict[str, OrderedDict] = {}

    def get(self, owner: Any, kind: str, key: Hashable, compute: Callable[[], T], *, maxsize: int = 8) -> T:
        """``compute()`` once per ``(owner, kind, key)``; later calls return the same object."""
        with self._lock:
            slots = self._unowned if owner is None else self._by_owner.setdefault(owner, {})
            slot = slots.setdefault(kind, OrderedDict())
            if key in slot:
                slot.move_to_end(key)
                return slot[key]
        value = compute()  # outside the lock: a slow computation never blocks another session
        with self._lock:
            slot[key] = value
            while len(slot) > maxsize:
                slot.popitem(last=False)
        return value

    def owners(self) -> int:
        """How many owners have entries (for tests)."""
        with self._lock:
            return len(self._by_owner)


_SHARED = OwnerCache()
_SHARED_OWNERS: weakref.WeakSet = weakref.WeakSet()
_SESSION_KEY = "cache.session"


def share(obj: T) -> T:
    """Mark ``obj`` as one of the process-wide objects (an official encoding, a baseline) and return it."""
    _SHARED_OWNERS.add(obj)
    return obj


def is_shared(obj: Any) -> bool:
    """Whether ``obj`` was marked with ``share``.

    >>> class Tok: pass
    >>> a, b = share(Tok()), Tok()
    >>> is_shared(a), is_shared(b)
    (True, False)
    """
    return obj in _SHARED_OWNERS


def for_tokenizer(tok: Any, kind: str, key: Hashable, compute: Callable[[], T], *, maxsize: int = 8) -> T:
    """A result that depends only on ``tok`` (``key`` never holds user input).

    Kept for every session when ``tok`` is a shared official encoding, in this
    session only when it is one of the user's own tokenizers.
    """
    cache = _SHARED if is_shared(tok) else session_cache()
    return cache.get(tok, kind, key, compute, maxsize=maxsize)


def for_session(kind: str, key: Hashable, compute: Callable[[], T], *, owner: Any = None, maxsize: int = 8) -> T:
    """A result derived from this session's input (a text, a regex, a user's tokenizer): this session only.

    ``owner`` (a tokenizer) ties the entry to that object's life as well.
    """
    return session_cache().get(owner, kind, key, compute, maxsize=maxsize)


_BUILTIN: OrderedDict = OrderedDict()
_BUILTIN_LOCK = threading.Lock()
_BUILTIN_FLIGHTS: dict[Hashable, threading.Lock] = {}


def for_builtin(kind: str, key: Hashable, compute: Callable[[], T], *, maxsize: int = 8) -> tuple[T, bool]:
    """A result computed from built-in data only (a built-in corpus and settings, never a user's text), for every session.

    Returns ``(a copy of the value, whether it was reused)``: the value is kept
    pickled and every caller gets its own copy, so a caller may change it (the
    workspace stamps a tokenizer's name and times). Callers that ask for the same
    missing key at once wait for the first one's computation instead of repeating it
    (a class pressing Train on the same sample within seconds trains once per process).
    Keeps the ``maxsize`` most recent keys.
    """
    import pickle

    full = (kind, key)
    with _BUILTIN_LOCK:
        if full in _BUILTIN:
            _BUILTIN.move_to_end(full)
            return pickle.loads(_BUILTIN[full]), True
        flight = _BUILTIN_FLIGHTS.setdefault(full, threading.Lock())
    with flight:  # one computation per key at a time; the others wait here
        with _BUILTIN_LOCK:
            if full in _BUILTIN:
                return pickle.loads(_BUILTIN[full]), True
        value = compute()
        data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        with _BUILTIN_LOCK:
            _BUILTIN[full] = data
            while len(_BUILTIN) > maxsize:
                _BUILTIN.popitem(last=False)
            _BUILTIN_FLIGHTS.pop(full, None)
    return pickle.loads(data), False


def session_cache() -> OwnerCache:
    """This session's cache, kept in ``st.session_state``."""
    import streamlit as st

    ss = st.session_state
    if _SESSION_KEY not in ss:
        ss[_SESSION_KEY] = OwnerCache()
    return ss[_SESSION_KEY]
