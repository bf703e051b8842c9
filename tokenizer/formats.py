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
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .bpe import MergeTable, Tokenizer
from .engine_py import tiktoken_last_merge
from .errors import MAX_ID, InvalidType, check_bytes, check_output_path, check_str, decode_utf8, read_file, type_name
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


def _check_tokenizer(tok: object) -> Tokenizer:
    if not isinstance(tok, Tokenizer):
        raise InvalidType(f"expected a Tokenizer (from train, load_encoding or load), not {type_name(tok)}")
    return tok


def to_json(tok: Tokenizer) -> dict[str, Any]:
    """The tokenizer as a JSON-ready dict (BPE Lab format)."""
    _check_tokenizer(tok)
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


def _parse_json(text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(
            f"the file is not complete JSON (line {e.lineno}, column {e.colno}: {e.msg}); "
            "it may have been cut off: save or download the tokenizer again"
        ) from None
    except RecursionError:
        raise ValueError(
            "the file's JSON is nested too deeply to read (thousands of levels): it is damaged or not a tokenizer file"
        ) from None


def loads(text: str) -> Tokenizer:
    """Parse BPE Lab JSON text; a truncated or damaged file names the line."""
    return from_json(_parse_json(check_str(text, "text")))


def save(tok: Tokenizer, path: str | Path) -> Path:
    """Write BPE Lab JSON to ``path`` (atomically) and return it.

    ValueError, before anything is written, when the folder does not exist or the path
    is a folder; ValueError when the file cannot be written.
    """
    text = dumps(tok)
    path = check_output_path(path, "tokenizer file")
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    except OSError as e:
        raise ValueError(f"cannot write {path}: {e.strerror or e}") from None
    return path


def load(path: str | Path, *, pattern: str | None = "gpt4") -> Tokenizer:
    """Load a tokenizer file, whatever its format (detected from the content).

    BPE Lab JSON, Hugging Face tokenizer.json (byte-level BPE), minbpe ``.model`` and
    tiktoken ranks (which carry no split pattern: ``pattern`` is used for them).
    """
    path, data = read_file(path, "tokenizer file")
    return load_bytes(data, name=path.stem, pattern=pattern)


def load_bytes(data: bytes, *, name: str = "", pattern: str | None = "gpt4") -> Tokenizer:
    """Like ``load`` but from the file's bytes (an upload)."""
    data = check_bytes(data, "data")
    name = check_str(name, "name")
    text = decode_utf8(data, "the file")
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
        try:
            return Tokenizer.from_ranks(ranks, pattern=pattern, name=name)
        except ValueError as e:
            raise ValueError(f"the tiktoken file is inconsistent: {e}") from None
    raise ValueError(
        "unrecognised tokenizer file: expected BPE Lab JSON, a Hugging Face tokenizer.json, "
        "a minbpe .model or a tiktoken rank file"
    )


# ----------------------------------------------------------------------------- minbpe


_ASCII_INT = re.compile(r"[0-9]+")


def loads_minbpe(text: str, *, name: str = "") -> Tokenizer:
    """minbpe's ``.model``: version line, pattern line, special count, specials, merges.

    Lines end in ``\n``, ``\r\n`` or ``\r`` (minbpe reads them with universal newlines).
    """
    check_str(text, "a minbpe .model's text")
    check_str(name, "name")
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines[0].strip() != "minbpe v1":
        raise ValueError("line 1: expected 'minbpe v1': not a minbpe .model file")
    if len(lines) < 3:
        raise ValueError("the file ends before the special-token count (line 3): it is truncated")
    pattern = lines[1] or None
    count = lines[2].strip()
    if not _ASCII_INT.fullmatch(count):
        raise ValueError(f"line 3: expected the number of special tokens (a whole number), got {lines[2]!r}")
    n_special = int(count)
    if 3 + n_special > len(lines):
        raise ValueError(
            f"line 3 announces {n_special} special tokens, but the file ends after {len(lines) - 3} more lines: it is truncated"
        )
    specials = {}
    for i in range(n_special):
        lineno = 4 + i
        parts = lines[lineno - 1].rsplit(" ", 1)
        if len(parts) != 2 or not parts[0] or not _ASCII_INT.fullmatch(parts[1].strip()):
            raise ValueError(f"line {lineno}: expected '<special token> <id>', got {lines[lineno - 1]!r}")
        if parts[0] in specials:
            raise ValueError(f"line {lineno}: special token {parts[0]!r} is listed twice")
        specials[parts[0]] = int(parts[1])
    merges = {}
    for lineno in range(4 + n_special, len(lines) + 1):
        line = lines[lineno - 1].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 2 or not all(_ASCII_INT.fullmatch(p) for p in parts):
            raise ValueError(f"line {lineno}: expected two token ids, got {line!r}")
        pair = (int(parts[0]), int(parts[1]))
        if pair in merges:
            raise ValueError(f"line {lineno}: the merge {pair} is listed twice")
        merges[pair] = 256 + len(merges)
    try:
        return Tokenizer(merges, pattern=pattern, special_tokens=specials, name=name)
    except ValueError as e:
        raise ValueError(f"the .model file is inconsistent: {e}") from None


def load_minbpe(path: str | Path) -> Tokenizer:
    """Load a minbpe ``.model`` file; ValueError naming the line, or saying why it cannot be read."""
    path, data = read_file(path, "minbpe .model file")
    return loads_minbpe(decode_utf8(data, f"{path.name}"), name=path.stem)


def dumps_minbpe(tok: Tokenizer) -> str:
    """minbpe's ``.model`` text, which minbpe and ``load_minbpe`` read back to the same tokenizer.

    Refused (ValueError, with the reason) when the format cannot hold the tokenizer: byte
    ids other than 0..255 or merge ids other than 256 + rank; a line break in the pattern
    or a special token (one item per line); whitespace in a special token (minbpe splits
    those lines on whitespace) or around the pattern (minbpe strips that line).
    """
    _check_tokenizer(tok)
    if tok.pipeline is not None:
        raise ValueError(_PIPELINE_EXPORT.format(fmt="minbpe's .model"))
    if tok.byte_ids != tuple(range(256)) or any(new_id != 256 + rank for rank, new_id in enumerate(tok.merge_table.new_ids)):
        raise ValueError("minbpe's .model needs byte ids 0..255 and merge i -> 256 + i; export this one as BPE Lab JSON instead")
    pattern = tok.pattern or ""
    if "\n" in pattern or "\r" in pattern:
        raise ValueError(
            "the split pattern contains a line break, but a minbpe .model keeps the pattern on one line; "
            "write the line break as \\n or \\r in the regex, or export as BPE Lab JSON"
        )
    if pattern != pattern.strip():
        raise ValueError(
            "the split pattern starts or ends with whitespace, which minbpe strips when it reads the file; "
            "write it escaped (e.g. '\\ ' or '[ ]'), or export as BPE Lab JSON"
        )
    for s in tok.special_tokens:
        if any(c.isspace() for c in s):
            raise ValueError(
                f"special token {s!r} contains whitespace or a line break, which a minbpe .model cannot hold "
                "(minbpe splits each special-token line on whitespace); export as BPE Lab JSON instead"
            )
    lines = ["minbpe v1", pattern, str(len(tok.special_tokens))]
    lines += [f"{s} {i}" for s, i in tok.special_tokens.items()]
    lines += [f"{a} {b}" for (a, b) in tok.merge_table.pairs]
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- tiktoken


_RANK_LINE = re.compile(rb"([A-Za-z0-9+/=]+) ([0-9]+)")


def parse_tiktoken_ranks(data: bytes, source: str = "rank file") -> dict[bytes, int]:
    """Parse a ``.tiktoken`` file (``base64-token rank`` per line).

    ValueError naming the line for anything else: a malformed line, an empty token, a
    token or a rank listed twice, a rank beyond 2^31 - 1.

    >>> parse_tiktoken_ranks(b"YQ== 0\\nYWI= 1\\n")
    {b'a': 0, b'ab': 1}
    """
    data = check_bytes(data, "data")
    ranks: dict[bytes, int] = {}
    line_of: dict[bytes, int] = {}
    rank_line: dict[int, int] = {}
    for lineno, line in enumerate(data.splitlines(), 1):
        if not line.strip():
            continue
        m = _RANK_LINE.fullmatch(line.strip())
        try:
            if m is None:
                raise ValueError
            token = base64.b64decode(m.group(1), validate=True)
        except (ValueError, binascii.Error):
            raise ValueError(
                f"{source}, line {lineno}: expected '<base64 token> <rank>', got {line[:60]!r}; the file is not a tiktoken rank file or is damaged"
            ) from None
        rank = int(m.group(2))
        if not token:
            raise ValueError(f"{source}, line {lineno}: the token is empty; every token needs at least one byte")
        if rank > MAX_ID:
            raise ValueError(f"{source}, line {lineno}: rank {rank} is too large (ranks go up to {MAX_ID})")
        if token in ranks:
            raise ValueError(f"{source}, line {lineno}: token {token!r} was already given a rank on line {line_of[token]}")
        if rank in rank_line:
            raise ValueError(f"{source}, line {lineno}: rank {rank} was already given to another token on line {rank_line[rank]}")
        ranks[token] = rank
        line_of[token] = lineno
        rank_line[rank] = lineno
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
    vocab = _check_tokenizer(tok).vocab
    if tok.pipeline is not None:
        raise ValueError(_PIPELINE_EXPORT.format(fmt="tiktoken"))
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

    ranks = to_tiktoken_ranks(tok)
    try:
        return tiktoken.Encoding(
            name=tok.name or "bpe-lab",
            pat_str=tok.pattern or NO_SPLIT_PATTERN,
            mergeable_ranks=ranks,
            special_tokens=dict(tok.special_tokens),
        )
    except ValueError as e:  # tiktoken's Rust regex engine refuses some patterns regex accepts
        raise ValueError(f"tiktoken cannot use this tokenizer's split pattern ({e}); export as BPE Lab JSON instead") from None


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
