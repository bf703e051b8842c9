"""Results derived from one tokenizer object, cached for as long as that object lives.

Why not ``st.cache_data`` keyed by the tokenizer's key: in shared mode two sessions
could hold different tokenizers under the same key, and hashing a 200k-merge
tokenizer (or a 2 MB corpus) on every rerun costs more than the work it saves.
A tokenizer object is immutable once built; the official encodings are one object
per server process (``ui.tokenizers.official``) and a workspace tokenizer is one
object until its file changes, so "this object" is the right cache key. Entries go
away with the object (weak keys), and each kind of result keeps only the
``maxsize`` most recent arguments.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

T = TypeVar("T")

_lock = threading.Lock()
_cache: weakref.WeakKeyDictionary[Any, dict[str, OrderedDict]] = weakref.WeakKeyDictionary()


def memo(owner: Any, kind: str, key: Hashable, compute: Callable[[], T], *, maxsize: int = 8) -> T:
    """``compute()`` once per ``(owner, kind, key)``; later calls return the same object.

    >>> class Tok: pass
    >>> t = Tok(); calls = []
    >>> memo(t, "double", 2, lambda: calls.append(1) or 4), memo(t, "double", 2, lambda: calls.append(1) or 4), len(calls)
    (4, 4, 1)
    """
    with _lock:
        slots = _cache.setdefault(owner, {})
        slot = slots.setdefault(kind, OrderedDict())
        if key in slot:
            slot.move_to_end(key)
            return slot[key]
    value = compute()  # outside the lock: two sessions may compute the same thing once each
    with _lock:
        slot[key] = value
        while len(slot) > maxsize:
            slot.popitem(last=False)
    return value


def forget(owner: Any) -> None:
    """Drop everything cached for ``owner`` (used by tests)."""
    with _lock:
        _cache.pop(owner, None)
