"""Caches: which tool for which result, and what may be kept for every session of the server (the policy).

Which tool (four, each where it fits; nothing else keeps results between reruns):

* ``st.cache_resource`` (Streamlit's own) for objects one per server process, shared by
  reference: the official encodings and the baselines (``ui.common.tokenizers``, each
  marked with ``share``), the start-up (``ui.common.shell``), results about official
  encodings only, keyed by their names (Overlap's ``ui.overlap.view._for_everyone``), and
  the Train page's built-in sample texts (``ui.train.view``: strings, which no reader can
  change). Streamlit's compute lock makes sessions that ask at once compute once.
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
  - ``for_content``: a result about a copy of such a training, kept for every session (below), else as ``for_tokenizer``.

Kept for every session (process-wide):

* the official encodings (r50k_base, cl100k_base, o200k_base, and cl100k/o200k with
  the chat tokens, the open models' when picked) and the two baselines;
* the built-in sample texts and training corpora;
* results that depend only on an official encoding and built-in data: its
  vocabulary table, longest tokens and length histogram, its counts on the
  built-in samples (``for_tokenizer`` with a shared encoding); and results about
  several official encodings (Overlap, Compare's token tax on our own passages, the
  Lesson's chapter 9, computed ahead in a class: ``ui.lesson.view.warm_up``);
* a tokenizer trained on a built-in corpus with given settings (``for_builtin``:
  the same for everyone who picks that sample and those settings; kept pickled,
  each session gets its own copy). Never a pasted or uploaded text.
* results about such a copy (its *built-in twins*: the tokenizer ``for_builtin``
  made, whoever holds a copy of it), through ``for_content``: its charts and
  tables on Train, its curve on a built-in held-out text, its replay on Step
  through, its vocabulary table. A class that trains the same sample with the same
  settings then builds each of them once per process instead of once per student.
  Safe because a twin is recognised by its content, not by a mark it carries: its
  merges (with their counts), byte ids, pattern, special tokens and training
  metadata (corpus size, token counts, training time and moment, so in practice only
  copies of that one computation match, and anything that matches computes the same)
  must equal those of the tokenizer ``for_builtin`` made in this process, and
  it must say it was trained, not uploaded. Two things a student may change are
  left out of that content and therefore never part of a shared result unless in
  its key: the tokenizer's name (``key`` holds it where a result shows it) and the
  moment it was saved. Whatever a student did with their copy (renamed it, stepped
  through it) stays in their session; a twin's training text is the built-in
  corpus it was trained on (the only callers of ``for_builtin`` that train keep
  it with exactly that text), so results about its training text are built-in
  data too. Everything that is changed by its reader stays per session (Step
  through's ``PairCounter``).

Kept per session (in ``st.session_state``: gone with the session, never seen by
another one):

* anything derived from what a user typed, pasted or uploaded, or from a tokenizer
  they trained or uploaded: a text's ids and spans (``tokenizers.encoded``, which
  Tokenize and Compare share), encode traces, filtered tables, statistics and their
  chart specs, custom-regex checks, downloads (``for_session``, and
  ``for_tokenizer`` with one of their tokenizers).

The one process-wide object of ``ui.common.workspace`` is the database's connection pool, which holds no user
data. One cached value is changed by its reader: Step through's ``PairCounter`` (per session and tokenizer).

Bounds: every cache here keeps the ``maxsize`` most recent keys per kind and owner
(default 8); Streamlit's have ``max_entries``. A shared entry goes away with its owner
object (weak keys), a session entry with the session (or its owner). Thread safety:
each session's scripts run on their own thread, so each cache takes a lock around
every lookup and insertion. The value is computed outside that lock, under one of its
own: sessions asking at once for the same missing value wait for the first one's
computation instead of repeating it. Cached values are shared by their readers and
never changed by them (DataFrames are filtered into new ones).
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from tokenizer import Tokenizer

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
        self._flights: dict[tuple, threading.RLock] = {}  # one lock per value being computed

    def get(self, owner: Any, kind: str, key: Hashable, compute: Callable[[], T], *, maxsize: int = 8) -> T:
        """``compute()`` once per ``(owner, kind, key)``; later calls return the same object.

        Callers that ask for the same missing value at once wait for the first one's
        computation (a class opening the same chart within a second computes it once);
        other values are computed meanwhile, outside the cache's lock. A computation may
        ask for other values (a chart for its reference lines), never for a value that
        asks for it in turn.
        """
        flight_key = (id(owner), kind, key)
        with self._lock:
            slots = self._unowned if owner is None else self._by_owner.setdefault(owner, {})
            slot = slots.setdefault(kind, OrderedDict())
            if key in slot:
                slot.move_to_end(key)
                return slot[key]
            flight = self._flights.setdefault(flight_key, threading.RLock())
        with flight:
            with self._lock:
                if key in slot:  # computed by the caller we waited for
                    slot.move_to_end(key)
                    return slot[key]
            try:
                value = compute()
            except BaseException:
                with self._lock:
                    self._flights.pop(flight_key, None)  # the next caller tries again
                raise
            with self._lock:
                slot[key] = value
                while len(slot) > maxsize:
                    slot.popitem(last=False)
                self._flights.pop(flight_key, None)
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


def for_content(tok: Any, kind: str, key: Hashable, compute: Callable[[], T], *, maxsize: int = 8) -> T:
    """A result that depends only on ``tok``'s content and built-in data (``key`` never holds user input).

    Kept for every session when ``tok`` is a shared official encoding or a built-in
    twin (a copy of a tokenizer ``for_builtin`` trained, see the policy above), in
    this session only when it is anything else of the user's.
    """
    origin = builtin_twin(tok)
    if origin is not None:  # room for the results of a few built-in trainings at once
        return _SHARED.get(None, ("twin", kind), (origin, key), compute, maxsize=maxsize * _TWIN_ORIGINS)
    return for_tokenizer(tok, kind, key, compute, maxsize=maxsize)


def for_session(kind: str, key: Hashable, compute: Callable[[], T], *, owner: Any = None, maxsize: int = 8) -> T:
    """A result derived from this session's input (a text, a regex, a user's tokenizer): this session only.

    ``owner`` (a tokenizer) ties the entry to that object's life as well.
    """
    return session_cache().get(owner, kind, key, compute, maxsize=maxsize)


_BUILTIN: OrderedDict = OrderedDict()
_BUILTIN_LOCK = threading.Lock()
_BUILTIN_FLIGHTS: dict[Hashable, threading.Lock] = {}
#: content signature of each tokenizer ``for_builtin`` made -> its ``(kind, key)``, the last ``_TWINS_KEPT``
_TWINS: OrderedDict[str, Hashable] = OrderedDict()
_TWINS_KEPT = 32
#: ``for_content`` keeps ``maxsize`` results per kind for this many built-in trainings
_TWIN_ORIGINS = 4
#: a signature per tokenizer object, computed once (a tokenizer's merges never change; its name may)
_SIGNATURES: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
#: metadata a copy gets when it is kept, which says nothing about what it computes
_STAMPS = frozenset({"saved_at", "source"})


def signature(tok: Any) -> str | None:
    """A digest of what a tokenizer computes with, its name and save stamps left out; None for one that is not BPE Lab's.

    >>> from tokenizer import train
    >>> a, b = train("aaabdaaabac", 259, pattern=None), train("aaabdaaabac", 258, pattern=None)
    >>> signature(a) == signature(a.with_special_tokens({}, name="renamed")), signature(a) == signature(b)
    (True, False)
    """
    if not isinstance(tok, Tokenizer) or tok.pipeline is not None:
        return None
    try:
        return _SIGNATURES[tok]
    except (KeyError, TypeError):
        pass
    import hashlib

    table = tok.merge_table
    content = (
        tuple(table.pairs),
        tuple(table.new_ids),
        tuple(table.counts) if table.counts is not None else None,
        tuple(tok.byte_ids),
        sorted(tok.special_tokens.items()),
        sorted(tok.whole_tokens.items()),
        tok.pattern,
        tok.normalizer,
        sorted((k, repr(v)) for k, v in tok.metadata.items() if k not in _STAMPS),
    )
    digest = hashlib.sha256(repr(content).encode("utf-8")).hexdigest()
    try:
        _SIGNATURES[tok] = digest
    except TypeError:  # an object that cannot be weakly referenced: computed again next time
        pass
    return digest


def builtin_twin(tok: Any) -> Hashable | None:
    """The ``(kind, key)`` of the ``for_builtin`` result ``tok`` is a copy of, or None (see the policy above)."""
    if is_shared(tok) or not _TWINS or not isinstance(tok, Tokenizer) or tok.metadata.get("source", "trained") != "trained":
        return None
    sig = signature(tok)
    with _BUILTIN_LOCK:
        return _TWINS.get(sig) if sig is not None else None


def _remember_twin(full: Hashable, value: Any) -> None:
    sig = signature(value)
    if sig is None:
        return
    with _BUILTIN_LOCK:
        _TWINS[sig] = full
        _TWINS.move_to_end(sig)
        while len(_TWINS) > _TWINS_KEPT:
            _TWINS.popitem(last=False)


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
        _remember_twin(full, value)
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
