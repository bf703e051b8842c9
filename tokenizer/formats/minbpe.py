"""minbpe's ``.model``: a version line, the pattern, the special tokens, then one merge per line.

What ``dumps_minbpe`` writes, minbpe (and ``loads_minbpe``) reads back to the same
tokenizer; what the format cannot hold is refused with the reason.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..core import Tokenizer, check_tokenizer
from ..errors import check_str, decode_utf8, read_file
from .hf import PIPELINE_EXPORT

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
    check_tokenizer(tok)
    if tok.pipeline is not None:
        raise ValueError(PIPELINE_EXPORT.format(fmt="minbpe's .model"))
    if tok.normalizer is not None:
        raise ValueError(
            f"this tokenizer puts text in {tok.normalizer} form before splitting it, which a minbpe .model cannot say: "
            "export as BPE Lab JSON or HF tokenizer.json instead"
        )
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
