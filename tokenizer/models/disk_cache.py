"""Results derived from fixed inputs, kept in the data folder so the next process skips the work.

``<data>/cache`` (``cache_dir()``) holds what a process would otherwise compute again
at every start: the merges recovered from a rank file (``pretrained.py``), and JSON
documents written here: the standard-library docstring corpus (``ui.content.corpora``)
and the built-in split patterns as JavaScript RegExp data (``ui.web.jsregex``).

A JSON document is ``{"key": digest, "value": value}``. The caller's ``digest(inputs)``
covers everything the value depends on (the input files' bytes, library versions, the
source of the code that computes it), so a stale document is never read as current:
its key differs, and it is computed and written again. A document is written to a
temporary file of its own and moved into place (``os.replace``), so several processes
starting at once never see a half-written one. Whatever goes wrong costs only speed:
a missing, unreadable, truncated or foreign document is a miss; a data folder that
cannot be written is not written.

>>> key = digest({"pattern": "a+", "version": 1})
>>> key == digest({"version": 1, "pattern": "a+"}), len(key)
(True, 64)
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from .fetch import data_dir, write_atomic

#: What ``read_json`` returns when there is no current document (a value may be None).
MISSING = object()


def cache_dir() -> Path:
    """The data folder's cache: ``<data>/cache``."""
    return data_dir() / "cache"


def digest(inputs: object) -> str:
    """The sha256 of ``inputs`` (JSON data) written canonically: the key of what they determine."""
    text = json.dumps(inputs, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def file_digest(path: str | Path) -> str | None:
    """The sha256 of a file's bytes (None when it cannot be read), for a key."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def read_json(name: str, key: str) -> object:
    """The value stored as ``name`` under ``key``, or ``MISSING`` (no document, another key, or a damaged one)."""
    try:
        doc = json.loads((cache_dir() / name).read_bytes())
    except (OSError, ValueError, RecursionError):  # unreadable, not UTF-8, not JSON, absurdly nested
        return MISSING
    if not isinstance(doc, dict) or doc.get("key") != key or "value" not in doc:
        return MISSING
    return doc["value"]


def write_json(name: str, key: str, value: object) -> None:
    """Store ``value`` (JSON data) as ``name`` under ``key``, atomically; a data folder that cannot be written is left alone."""
    data = json.dumps({"key": key, "value": value}, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    folder = cache_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write_atomic(folder / name, data)
    except OSError:  # a read-only data folder, a full disk: the next process computes it again
        pass
