"""BPE Lab JSON, BPE Lab's own file format: lossless, one merge per line.

BPE Lab JSON (``format: "bpe-lab/tokenizer"``, ``version: 1``) is lossless::

    {
      "format": "bpe-lab/tokenizer", "version": 1,
      "name": "my tokenizer",
      "pattern": "<regex>" | null,           # null: no pre-split
      "special_tokens": {"<|endoftext|>": 512},
      "byte_ids": null | [256 ids],          # null: byte b has id b
      "merges": [[left, right, new_id, count | null], ...],   # in merge order
      "whole_tokens": [[id, "<base64 bytes>"], ...],          # only if any: tokens no merge builds
      "metadata": {...},                     # training facts: corpus size, time, ...
      "pipeline": {...}                      # only for a tokenizer.json's own text handling (see hf.py)
    }

A damaged file is a ValueError naming the field that is wrong.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from typing import Any

from ..bpe.merges import MergeTable
from ..core import Tokenizer, check_tokenizer
from ..errors import check_str, parse_json
from .hf import pipeline_from_json, pipeline_to_json

FORMAT = "bpe-lab/tokenizer"
VERSION = 1


def to_json(tok: Tokenizer) -> dict[str, Any]:
    """The tokenizer as a JSON-ready dict (BPE Lab format)."""
    check_tokenizer(tok)
    return {
        "format": FORMAT,
        "version": VERSION,
        "name": tok.name,
        "pattern": tok.pattern,
        "special_tokens": dict(tok.special_tokens),
        "byte_ids": None if tok.byte_ids == tuple(range(256)) else list(tok.byte_ids),
        "merges": [[a, b, new_id, count] for (a, b), new_id, count in zip(*_table_with_counts(tok))],
        **(
            {"whole_tokens": [[i, base64.b64encode(b).decode()] for i, b in sorted(tok.whole_tokens.items())]}
            if tok.whole_tokens
            else {}
        ),
        "metadata": dict(tok.metadata),
        **({"pipeline": pipeline_to_json(tok.pipeline)} if tok.pipeline is not None else {}),
    }


def _table_with_counts(tok: Tokenizer):
    pairs, new_ids, counts = tok.merge_table
    return pairs, new_ids, counts if counts is not None else [None] * len(new_ids)


def dumps(tok: Tokenizer) -> str:
    """BPE Lab JSON text: one merge per line, so diffs and truncation errors are readable."""
    doc = to_json(tok)
    merges = doc.pop("merges")
    head = json.dumps(doc, ensure_ascii=False, indent=1)
    body = ",\n".join("  " + json.dumps(m) for m in merges)
    return head[:-2] + ',\n "merges": [\n' + body + ("\n ]\n}\n" if merges else " ]\n}\n")


def _field(doc: Mapping, key: str, kinds, where: str = ""):
    if key not in doc:
        raise ValueError(f"field '{where}{key}' is missing: the file is incomplete or not a BPE Lab tokenizer")
    value = doc[key]
    if not isinstance(value, kinds) or isinstance(value, bool):
        names = kinds.__name__ if isinstance(kinds, type) else " or ".join(k.__name__ for k in kinds)
        raise ValueError(f"field '{where}{key}' should be {names}, got {type(value).__name__}")
    return value


def _is_int(x: object) -> bool:
    return type(x) is int


def from_json(doc: Any) -> Tokenizer:
    """A Tokenizer from a BPE Lab JSON dict; ValueError naming the bad field."""
    if not isinstance(doc, dict):
        raise ValueError("a BPE Lab tokenizer file holds a JSON object; this one does not")
    if doc.get("format") != FORMAT:
        raise ValueError(f"field 'format' should be {FORMAT!r}, got {doc.get('format')!r}: this is not a BPE Lab tokenizer file")
    version = _field(doc, "version", int)
    if version < 1:
        raise ValueError(f"field 'version' should be 1, got {version}")
    if version > VERSION:
        raise ValueError(f"field 'version' is {version}, newer than this BPE Lab reads ({VERSION}); update BPE Lab")
    name = doc.get("name")
    if name is not None and not isinstance(name, str):
        raise ValueError(f"field 'name' should be a string or null, got {type(name).__name__}")
    pattern = doc.get("pattern")
    if pattern is not None and not isinstance(pattern, str):
        raise ValueError(f"field 'pattern' should be a string or null, got {type(pattern).__name__}")
    specials = _field(doc, "special_tokens", dict)
    for k, v in specials.items():
        if not _is_int(v):
            raise ValueError(f"field 'special_tokens.{k}' should be an integer id, got {v!r}")
    byte_ids = doc.get("byte_ids")
    if byte_ids is not None and (not isinstance(byte_ids, list) or len(byte_ids) != 256 or not all(map(_is_int, byte_ids))):
        raise ValueError("field 'byte_ids' should be null or a list of 256 integer ids")
    raw = _field(doc, "merges", list)
    pairs, new_ids, counts = [], [], []
    for i, m in enumerate(raw):
        if not (
            type(m) is list
            and len(m) == 4
            and _is_int(m[0])
            and _is_int(m[1])
            and _is_int(m[2])
            and (m[3] is None or _is_int(m[3]))
        ):
            raise ValueError(f"field 'merges[{i}]' should be [left, right, new_id, count or null], got {_short_json(m)}")
        pairs.append((m[0], m[1]))
        new_ids.append(m[2])
        counts.append(m[3])
    merges = MergeTable(pairs, new_ids, counts if any(c is not None for c in counts) else None)
    raw_whole = doc.get("whole_tokens")
    if raw_whole is not None and not isinstance(raw_whole, list):
        raise ValueError(f"field 'whole_tokens' should be a list of [id, base64 bytes] or absent, got {type(raw_whole).__name__}")
    whole: dict[int, bytes] = {}
    for i, w in enumerate(raw_whole or []):
        try:
            if not (type(w) is list and len(w) == 2 and _is_int(w[0]) and isinstance(w[1], str)):
                raise TypeError
            data = base64.b64decode(w[1], validate=True)
        except (TypeError, ValueError):  # binascii.Error is a ValueError; so is non-ASCII text
            raise ValueError(f"field 'whole_tokens[{i}]' should be [id, base64 bytes], got {_short_json(w)}") from None
        if w[0] in whole:
            raise ValueError(f"field 'whole_tokens[{i}]' repeats id {w[0]}; every whole token needs its own id")
        whole[w[0]] = data
    metadata = doc.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        raise ValueError(f"field 'metadata' should be an object or null, got {type(metadata).__name__}")
    pipeline = None
    if doc.get("pipeline") is not None:  # a tokenizer.json's text handling (hf.py)
        pipeline = pipeline_from_json(doc["pipeline"], set(byte_ids or range(256)) | set(new_ids))
        if pattern is not None:
            raise ValueError(
                "fields 'pattern' and 'pipeline' exclude each other: a tokenizer.json pipeline does its own splitting"
            )
        declared = {t.content: t.id for t in pipeline.added if t.special}
        if declared != specials:
            raise ValueError(
                "field 'special_tokens' should list the special tokens of field 'pipeline.added_tokens', with the same ids"
            )
    try:
        return Tokenizer(
            merges,
            pattern=pattern,
            special_tokens=specials,
            byte_ids=byte_ids,
            name=name or "",
            metadata=metadata,
            whole_tokens=whole,
            pipeline=pipeline,
        )
    except ValueError as e:
        raise ValueError(f"the file's tokenizer is inconsistent: {e}") from None


def _short_json(value: object) -> str:
    try:
        return json.dumps(value)[:80]
    except (ValueError, RecursionError):
        return type(value).__name__


def loads(text: str) -> Tokenizer:
    """Parse BPE Lab JSON text; a truncated or damaged file names the line."""
    return from_json(parse_json(check_str(text, "text")))
