"""BPE Lab JSON, BPE Lab's own file format: lossless, one merge per line.

BPE Lab JSON (``format: "bpe-lab/tokenizer"``, ``version: 1``) is lossless::

    {
      "format": "bpe-lab/tokenizer", "version": 1,
      "name": "my tokenizer",
      "pattern": "<regex>" | null,           # null: no pre-split
      "normalizer": "NFC",                   # only if the model normalizes text first (Qwen's NFC)
      "special_tokens": {"<|endoftext|>": 512},
      "byte_ids": null | [256 ids],          # null: byte b has id b
      "merges": [[left, right, new_id, count | null], ...],   # in merge order
      "whole_tokens": [[id, "<base64 bytes>"], ...],          # only if any: tokens no merge builds
      "metadata": {...},                     # training facts: corpus size, time, ...
      "pipeline": {...}                      # only for a tokenizer.json's own text handling (see hf.py)
    }

The format is stated once, as a JSON Schema: ``bpe_lab.schema.json`` beside this module
(``schema()``), the documentation of the format. The loader checks every file against it
with ``jsonschema``; a damaged file is a ValueError naming the path of what is wrong
(``merges[12][2]``) and what it should be.
"""

from __future__ import annotations

import base64
import functools
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..bpe.merges import MergeTable
from ..core import Tokenizer, check_tokenizer
from ..errors import MAX_ID, check_str
from .hf import pipeline_from_json, pipeline_to_json
from .json_input import read_json

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
        **({"normalizer": tok.normalizer} if tok.normalizer is not None else {}),
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


# ----------------------------------------------------------------------------- the schema

#: The format, stated once: a JSON Schema (draft 2020-12) that is also its documentation.
SCHEMA_PATH = Path(__file__).with_name("bpe_lab.schema.json")


@functools.cache
def schema() -> dict[str, Any]:
    """BPE Lab JSON's schema (``bpe_lab.schema.json``), read on first use."""
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


@functools.cache
def _validator():
    import jsonschema

    # a JSON integer is an int: Python's json reads 3.0 as a float, which is no token id
    # (the draft's "integer" would take it)
    checker = jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _, x: isinstance(x, int) and not isinstance(x, bool)
    )
    strict = jsonschema.validators.extend(jsonschema.Draft202012Validator, type_checker=checker)
    return strict(schema())


def _ok_id(x: object) -> bool:
    return type(x) is int and 0 <= x <= MAX_ID


def _ok_merges(merges: list) -> bool:
    return all(
        type(m) is list and len(m) == 4 and _ok_id(m[0]) and _ok_id(m[1]) and _ok_id(m[2]) and (m[3] is None or (type(m[3]) is int and m[3] >= 0))
        for m in merges
    )  # fmt: skip


def _ok_whole_tokens(whole: list) -> bool:
    b64 = re.compile(schema()["$defs"]["whole_token"]["prefixItems"][1]["pattern"])
    return all(type(w) is list and len(w) == 2 and _ok_id(w[0]) and type(w[1]) is str and b64.fullmatch(w[1]) for w in whole)


#: the long lists, checked in a plain loop that accepts only what the schema accepts, since jsonschema would take
#: seconds over a large model's merges; it looks at a list only when the loop finds a fault
_BULK = {"merges": _ok_merges, "whole_tokens": _ok_whole_tokens}


def check_schema(doc: Mapping[str, Any]) -> None:
    """ValueError naming the path of the first thing in ``doc`` that ``bpe_lab.schema.json`` refuses, and the fix.

    >>> check_schema({"format": "bpe-lab/tokenizer", "version": 1, "special_tokens": {}, "merges": [[1, 2, "x", None]]})
    Traceback (most recent call last):
    ...
    ValueError: field 'merges[0][2]' should be a token id, a whole number from 0 to 2147483647, got "x"
    >>> check_schema({"format": "bpe-lab/tokenizer", "version": 1, "special_tokens": {}, "merges": [], " merges": []})
    Traceback (most recent call last):
    ...
    ValueError: field ' merges' is not part of BPE Lab JSON: did you mean 'merges' (the name has spaces around it or other capitals)? Remove or rename it
    """
    light = dict(doc)
    for key, ok in _BULK.items():
        if isinstance(doc.get(key), list) and ok(doc[key]):
            light[key] = []
    error = next(_validator().iter_errors(light), None)
    if error is not None:
        raise ValueError(_message(error))


def _path(parts) -> str:
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


def _message(error) -> str:
    """A jsonschema ValidationError as BPE Lab says it: the field's path, what it should be, what it is."""
    path = _path(error.absolute_path)
    if error.validator == "additionalProperties":
        known = list(error.schema.get("properties", {}))
        key = next(k for k in error.instance if k not in known)
        where = f"{path}.{key}" if path else key
        near = [k for k in known if k == key.strip().lower().replace(" ", "_")]
        if near:
            hint = f": did you mean '{near[0]}' (the name has spaces around it or other capitals)? Remove or rename it"
        else:
            hint = "; remove it" + ("" if path else ", or keep free-form facts in 'metadata'")
        return f"field '{where}' is not part of BPE Lab JSON{hint}"
    if error.validator == "required":
        missing = next(k for k in error.validator_value if k not in error.instance)
        where = f"{path}.{missing}" if path else missing
        return f"field '{where}' is missing: the file is incomplete or not a BPE Lab tokenizer"
    what = error.schema.get("description") or error.message
    return f"field '{path}' should be {what}, got {_short_json(error.instance)}"


# ----------------------------------------------------------------------------- reading


def from_json(doc: Any) -> Tokenizer:
    """A Tokenizer from a BPE Lab JSON dict; ValueError naming the bad field's path and the fix.

    The format and version come first (they say whether the rest can be read at all), then
    the schema (``bpe_lab.schema.json``), then what a schema cannot say: ids consistent,
    merges that use existing ids, a pipeline's special tokens.
    """
    if not isinstance(doc, dict):
        raise ValueError("a BPE Lab tokenizer file holds a JSON object; this one does not")
    if doc.get("format") != FORMAT:
        raise ValueError(f"field 'format' should be {FORMAT!r}, got {doc.get('format')!r}: this is not a BPE Lab tokenizer file")
    version = doc.get("version")
    if type(version) is int and version > VERSION:
        raise ValueError(f"field 'version' is {version}, newer than this BPE Lab reads ({VERSION}); update BPE Lab")
    check_schema(doc)
    pattern, normalizer, specials, byte_ids = (
        doc.get("pattern"),
        doc.get("normalizer"),
        doc["special_tokens"],
        doc.get("byte_ids"),
    )
    raw = doc["merges"]
    pairs = [(m[0], m[1]) for m in raw]
    new_ids = [m[2] for m in raw]
    counts = [m[3] for m in raw]
    merges = MergeTable(pairs, new_ids, counts if any(c is not None for c in counts) else None)
    whole: dict[int, bytes] = {}
    for i, (tid, data) in enumerate(doc.get("whole_tokens") or []):
        try:
            token = base64.b64decode(data, validate=True)
        except ValueError:  # binascii.Error; the schema's pattern lets a final newline through
            raise ValueError(
                f"field 'whole_tokens[{i}][1]' should be the token's bytes in base64, got {_short_json(data)}"
            ) from None
        if tid in whole:
            raise ValueError(f"field 'whole_tokens[{i}]' repeats id {tid}; every whole token needs its own id")
        whole[tid] = token
    pipeline = None
    if doc.get("pipeline") is not None:  # a tokenizer.json's text handling (hf.py)
        pipeline = pipeline_from_json(doc["pipeline"], set(byte_ids or range(256)) | set(new_ids))
        if pattern is not None or normalizer is not None:
            raise ValueError(
                "field 'pipeline' excludes fields 'pattern' and 'normalizer': a tokenizer.json pipeline does its own splitting"
            )
        declared = {a["content"]: a["id"] for a in pipeline.spec["added_tokens"] if a["special"]}
        if declared != specials:
            raise ValueError(
                "field 'special_tokens' should list the special tokens of field 'pipeline.added_tokens', with the same ids"
            )
    try:
        return Tokenizer(
            merges,
            pattern=pattern,
            normalizer=normalizer,
            special_tokens=specials,
            byte_ids=byte_ids,
            name=doc.get("name") or "",
            metadata=doc.get("metadata"),
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
    """Parse BPE Lab JSON text; a truncated or damaged file names the line (``json_input.read_json``)."""
    return from_json(read_json(check_str(text, "text"), what="the tokenizer file"))
