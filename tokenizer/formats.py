"""Saving and loading tokenizers: BPE Lab JSON, minbpe ``.model``, tiktoken ranks, HF tokenizer.json.

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

Every loader raises ValueError naming the line or field that is wrong.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .bpe import MergeTable, Tokenizer
from .engine_py import tiktoken_last_merge
from .hf import HF_BYTELEVEL_PATTERN, from_hf_json, hf_pattern, pipeline_from_json, pipeline_to_json, to_hf_json

FORMAT = "bpe-lab/tokenizer"
VERSION = 1

_PIPELINE_EXPORT = (
    "this tokenizer came from a tokenizer.json whose text handling (normalizer, split stages or added tokens) "
    "is more than one split pattern, which {fmt} cannot hold: export it as HF tokenizer.json or BPE Lab JSON"
)

# tiktoken needs a split pattern; this one makes the whole text a single chunk
NO_SPLIT_PATTERN = r"[\s\S]+"


# ----------------------------------------------------------------------------- BPE Lab JSON


def to_json(tok: Tokenizer) -> dict[str, Any]:
    """The tokenizer as a JSON-ready dict (BPE Lab format)."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "name": tok.name,
        "pattern": tok.pattern,
        "special_tokens": dict(tok.special_tokens),
        "byte_ids": None if tok.byte_ids == tuple(range(256)) else list(tok.byte_ids),
        "merges": [[a, b, new_id, count] for (a, b), new_id, count in zip(*_table_with_counts(tok))],
        **({"whole_tokens": [[i, base64.b64encode(b).decode()] for i, b in sorted(tok.whole_tokens.items())]} if tok.whole_tokens else {}),
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
    return head[:-2] + ',\n "merges": [\n' + body + ("\n ]\n}\n" if merges else ' ]\n}\n')


def _field(doc: Mapping, key: str, kinds, where: str = ""):
    if key not in doc:
        raise ValueError(f"field '{where}{key}' is missing: the file is incomplete or not a BPE Lab tokenizer")
    value = doc[key]
    if not isinstance(value, kinds) or isinstance(value, bool):
        names = kinds.__name__ if isinstance(kinds, type) else " or ".join(k.__name__ for k in kinds)
        raise ValueError(f"field '{where}{key}' should be {names}, got {type(value).__name__}")
    return value


def from_json(doc: Any) -> Tokenizer:
    """A Tokenizer from a BPE Lab JSON dict; ValueError naming the bad field."""
    if not isinstance(doc, dict):
        raise ValueError("a BPE Lab tokenizer file holds a JSON object; this one does not")
    if doc.get("format") != FORMAT:
        raise ValueError(f"field 'format' should be {FORMAT!r}, got {doc.get('format')!r}: this is not a BPE Lab tokenizer file")
    version = _field(doc, "version", int)
    if version > VERSION:
        raise ValueError(f"field 'version' is {version}, newer than this BPE Lab reads ({VERSION}); update BPE Lab")
    pattern = doc.get("pattern")
    if pattern is not None and not isinstance(pattern, str):
        raise ValueError(f"field 'pattern' should be a string or null, got {type(pattern).__name__}")
    specials = _field(doc, "special_tokens", dict)
    for k, v in specials.items():
        if not isinstance(v, int) or isinstance(v, bool):
            raise ValueError(f"field 'special_tokens.{k}' should be an integer id, got {v!r}")
    byte_ids = doc.get("byte_ids")
    if byte_ids is not None and (not isinstance(byte_ids, list) or len(byte_ids) != 256 or not all(isinstance(i, int) for i in byte_ids)):
        raise ValueError("field 'byte_ids' should be null or a list of 256 integer ids")
    raw = _field(doc, "merges", list)
    pairs, new_ids, counts = [], [], []
    for i, m in enumerate(raw):
        if not (isinstance(m, list) and len(m) == 4 and all(isinstance(x, int) and not isinstance(x, bool) for x in m[:3]) and (m[3] is None or isinstance(m[3], int))):
            raise ValueError(f"field 'merges[{i}]' should be [left, right, new_id, count or null], got {json.dumps(m)[:80]}")
        pairs.append((m[0], m[1]))
        new_ids.append(m[2])
        counts.append(m[3])
    merges = MergeTable(pairs, new_ids, counts if any(c is not None for c in counts) else None)
    whole = {}
    for i, w in enumerate(doc.get("whole_tokens") or []):
        try:
            whole[w[0]] = base64.b64decode(w[1], validate=True)
        except (TypeError, IndexError, KeyError, binascii.Error):
            raise ValueError(f"field 'whole_tokens[{i}]' should be [id, base64 bytes], got {json.dumps(w)[:80]}") from None
    metadata = doc.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise ValueError("field 'metadata' should be an object")
    pipeline = None
    if doc.get("pipeline") is not None:  # a tokenizer.json's text handling (hf.py)
        pipeline = pipeline_from_json(doc["pipeline"], set(byte_ids or range(256)) | set(new_ids))
        if pattern is not None:
            raise ValueError("fields 'pattern' and 'pipeline' exclude each other: a tokenizer.json pipeline does its own splitting")
        declared = {t.content: t.id for t in pipeline.added if t.special}
        if declared != specials:
            raise ValueError("field 'special_tokens' should list the special tokens of field 'pipeline.added_tokens', with the same ids")
    try:
        return Tokenizer(
            merges, pattern=pattern, special_tokens=specials, byte_ids=byte_ids, name=str(doc.get("name") or ""), metadata=metadata,
            whole_tokens=whole,
            pipeline=pipeline,
        )
    except ValueError as e:
        raise ValueError(f"the file's tokenizer is inconsistent: {e}") from None


def _parse_json(text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(
            f"the file is not complete JSON (line {e.lineno}, column {e.colno}: {e.msg}); "
            "it may have been cut off: save or download the tokenizer again"
        ) from None


def loads(text: str) -> Tokenizer:
    """Parse BPE Lab JSON text; a truncated or damaged file names the line."""
    return from_json(_parse_json(text))


def save(tok: Tokenizer, path: str | Path) -> Path:
    """Write BPE Lab JSON to ``path`` (atomically) and return it."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(dumps(tok), encoding="utf-8")
    tmp.replace(path)
    return path


def load(path: str | Path, *, pattern: str | None = "gpt4") -> Tokenizer:
    """Load a tokenizer file, whatever its format (detected from the content).

    BPE Lab JSON, Hugging Face tokenizer.json (byte-level BPE), minbpe ``.model`` and
    tiktoken ranks (which carry no split pattern: ``pattern`` is used for them).
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise ValueError(f"cannot read {path}: {e.strerror}") from None
    return load_bytes(data, name=path.stem, pattern=pattern)


def load_bytes(data: bytes, *, name: str = "", pattern: str | None = "gpt4") -> Tokenizer:
    """Like ``load`` but from the file's bytes (an upload)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"the file is not UTF-8 text (byte {e.start}): it is not a tokenizer file") from None
    stripped = text.lstrip()
    if stripped.startswith("{"):
        doc = _parse_json(text)
        hf_keys = ("model", "added_tokens", "pre_tokenizer", "normalizer", "decoder", "post_processor", "truncation", "padding")
        if isinstance(doc, dict) and "format" not in doc and any(k in doc for k in hf_keys):
            tok = from_hf_json(doc)
        else:
            tok = from_json(doc)
        if name and not tok.name:
            tok.name = name
        return tok
    if stripped.startswith("minbpe v1"):
        return loads_minbpe(text, name=name)
    first = stripped.split("\n", 1)[0].split()
    if len(first) == 2 and first[1].isdigit():
        ranks = parse_tiktoken_ranks(data, "tiktoken file")
        return Tokenizer.from_ranks(ranks, pattern=pattern, name=name)
    raise ValueError(
        "unrecognised tokenizer file: expected BPE Lab JSON, a Hugging Face tokenizer.json, "
        "a minbpe .model or a tiktoken rank file"
    )


# ----------------------------------------------------------------------------- minbpe


def loads_minbpe(text: str, *, name: str = "") -> Tokenizer:
    """minbpe's ``.model``: version line, pattern line, special count, specials, merges."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "minbpe v1":
        raise ValueError("line 1: expected 'minbpe v1': not a minbpe .model file")
    if len(lines) < 3:
        raise ValueError("the file ends before the special-token count (line 3): it is truncated")
    pattern = lines[1].rstrip("\r") or None
    try:
        n_special = int(lines[2])
    except ValueError:
        raise ValueError(f"line 3: expected the number of special tokens, got {lines[2]!r}") from None
    specials = {}
    for i in range(n_special):
        lineno = 4 + i
        if lineno > len(lines):
            raise ValueError(f"line {lineno}: missing special token (the file is truncated)")
        parts = lines[lineno - 1].rsplit(" ", 1)
        if len(parts) != 2 or not parts[1].strip().isdigit():
            raise ValueError(f"line {lineno}: expected '<special token> <id>', got {lines[lineno - 1]!r}")
        specials[parts[0]] = int(parts[1])
    merges = {}
    for lineno in range(4 + n_special, len(lines) + 1):
        line = lines[lineno - 1].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            raise ValueError(f"line {lineno}: expected two token ids, got {line!r}")
        merges[(int(parts[0]), int(parts[1]))] = 256 + len(merges)
    try:
        return Tokenizer(merges, pattern=pattern, special_tokens=specials, name=name)
    except ValueError as e:
        raise ValueError(f"the .model file is inconsistent: {e}") from None


def load_minbpe(path: str | Path) -> Tokenizer:
    path = Path(path)
    return loads_minbpe(path.read_text(encoding="utf-8"), name=path.stem)


def dumps_minbpe(tok: Tokenizer) -> str:
    """minbpe's ``.model`` text (only for tokenizers whose bytes are ids 0..255)."""
    if tok.pipeline is not None:
        raise ValueError(_PIPELINE_EXPORT.format(fmt="minbpe's .model"))
    if tok.byte_ids != tuple(range(256)) or any(new_id != 256 + rank for rank, new_id in enumerate(tok.merge_table.new_ids)):
        raise ValueError("minbpe's .model needs byte ids 0..255 and merge i -> 256 + i; export this one as BPE Lab JSON instead")
    lines = ["minbpe v1", tok.pattern or "", str(len(tok.special_tokens))]
    lines += [f"{s} {i}" for s, i in tok.special_tokens.items()]
    lines += [f"{a} {b}" for (a, b) in tok.merges]
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- tiktoken


def parse_tiktoken_ranks(data: bytes, source: str = "rank file") -> dict[bytes, int]:
    """Parse a ``.tiktoken`` file (``base64-token rank`` per line).

    >>> parse_tiktoken_ranks(b"YQ== 0\\nYWI= 1\\n")
    {b'a': 0, b'ab': 1}
    """
    ranks: dict[bytes, int] = {}
    for lineno, line in enumerate(data.splitlines(), 1):
        if not line.strip():
            continue
        try:
            tok, rank = line.split()
            ranks[base64.b64decode(tok, validate=True)] = int(rank)
        except (ValueError, binascii.Error):
            raise ValueError(
                f"{source}, line {lineno}: expected '<base64 token> <rank>', got {line[:60]!r}; the file is not a tiktoken rank file or is damaged"
            ) from None
    return ranks


def _tiktoken_parts(token: bytes, ranks: Mapping[bytes, int], max_rank: int) -> list[bytes]:
    """tiktoken's rule on one token: merge the adjacent parts whose join ranks lowest."""
    parts = [bytes([b]) for b in token]
    while True:
        best = None
        for i in range(len(parts) - 1):
            r = ranks.get(parts[i] + parts[i + 1])
            if r is not None and r < max_rank and (best is None or r < best[0]):
                best = (r, i)
        if best is None:
            return parts
        i = best[1]
        parts[i : i + 2] = [parts[i] + parts[i + 1]]


def to_tiktoken_ranks(tok: Tokenizer) -> dict[bytes, int]:
    """``{token bytes: id}`` for ``tiktoken.Encoding``; ValueError if tiktoken cannot express it.

    tiktoken merges by the bytes of the joined token, not by the pair of ids, so
    every token's bytes must be unique, and tiktoken's rule applied to each token
    must rebuild it from exactly the pair it was merged from.
    """
    if tok.pipeline is not None:
        raise ValueError(_PIPELINE_EXPORT.format(fmt="tiktoken"))
    vocab = tok.vocab
    ranks: dict[bytes, int] = {}
    for tid in sorted(vocab):
        if tid in tok.special_ids:
            continue
        b = vocab[tid]
        if b in ranks:
            raise ValueError(
                f"tokens {ranks[b]} and {tid} have the same bytes {b!r} (BPE can mint a token twice by different merges); "
                "tiktoken needs unique bytes per token: export as BPE Lab JSON instead"
            )
        ranks[b] = tid
    for (a, b), new_id in zip(*tok.merge_table[:2]):
        left, right = vocab[a], vocab[b]
        if tiktoken_last_merge(left + right, ranks) != (left, right):
            parts = _tiktoken_parts(left + right, ranks, new_id)
            raise ValueError(
                f"token {new_id} ({left + right!r}) was merged from {left!r} + {right!r}, but tiktoken's rule would build it "
                f"from {' + '.join(map(repr, parts))}: export as BPE Lab JSON instead"
            )
    return ranks


def dumps_tiktoken(tok: Tokenizer) -> bytes:
    """A ``.tiktoken`` rank file (base64 token, space, rank, per line)."""
    ranks = to_tiktoken_ranks(tok)
    return b"".join(base64.b64encode(t) + b" " + str(r).encode() + b"\n" for t, r in sorted(ranks.items(), key=lambda kv: kv[1]))


def to_tiktoken(tok: Tokenizer):
    """A ``tiktoken.Encoding`` that gives this tokenizer's ids."""
    import tiktoken

    return tiktoken.Encoding(
        name=tok.name or "bpe-lab",
        pat_str=tok.pattern or NO_SPLIT_PATTERN,
        mergeable_ranks=to_tiktoken_ranks(tok),
        special_tokens=dict(tok.special_tokens),
    )


# Hugging Face tokenizer.json lives in hf.py; from_hf_json, to_hf_json, hf_pattern and
# HF_BYTELEVEL_PATTERN stay importable from here.

__all__ = [
    "to_json",
    "from_json",
    "dumps",
    "loads",
    "save",
    "load",
    "load_bytes",
    "load_minbpe",
    "loads_minbpe",
    "dumps_minbpe",
    "to_tiktoken_ranks",
    "parse_tiktoken_ranks",
    "dumps_tiktoken",
    "to_tiktoken",
    "to_hf_json",
    "from_hf_json",
    "hf_pattern",
    "HF_BYTELEVEL_PATTERN",
]
