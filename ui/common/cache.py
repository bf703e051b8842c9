"""Caches that Streamlit's cannot be: results about one tokenizer object, and trainings on built-in corpora.

* ``for_tokenizer`` / ``for_session``: a result about one tokenizer (a user's or an official one), the owner held
  weakly so its entries go with it. ``st.cache_data`` would pickle and hash the tokenizer at every call, or leave it
  out of the key; ``tests/ui/common/test_cache.py`` shows both.
* ``for_builtin``: a tokenizer trained on a built-in corpus, kept pickled and copied for each caller; its training
  draws the page's progress bar, which ``st.cache_data`` refuses to replay (the same test module checks it).
* ``for_content``: a result about a copy of such a training (recognised by its content), kept for every session.

Everything else uses ``st.cache_resource`` or ``functools.cache``. Which result may be kept for every session and
which only for one, the bounds, and the locking: docs/caching.md.
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
