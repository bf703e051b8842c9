"""GPT-2's original files: ``encoder.json`` (token -> id) and ``vocab.bpe`` (the merges), read and rebuilt.

Both spell each token with GPT-2's printable stand-in for every byte (``Ġthe`` is
`` the``; ``display.gpt2_form``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from ..core import Tokenizer
from ..display import from_gpt2_form, gpt2_form
from ..errors import MAX_ID, check_str, decode_utf8, read_file
from ..pretokenize.patterns import GPT2_PATTERN
from ..trace import Merge
from .json_input import read_json

ENDOFTEXT = "<|endoftext|>"


def load_gpt2_files(encoder_json: str | Path, vocab_bpe: str | Path, *, name: str = "gpt2") -> Tokenizer:
    """GPT-2's original ``encoder.json`` + ``vocab.bpe`` pair.

    ``encoder.json`` maps each token, spelled with GPT-2's byte characters (``Ġthe``),
    to its id; ``vocab.bpe`` lists the merges in order after a ``#version`` line.
    ValueError naming the file and the entry or line for anything else.
    """
    check_str(name, "name")
    enc_path, enc_data = read_file(encoder_json, "encoder.json file")
    bpe_path, bpe_data = read_file(vocab_bpe, "vocab.bpe file")
    encoder = read_json(enc_data, what=str(enc_path))
    if not isinstance(encoder, dict):
        raise ValueError(f"{enc_path}: expected a JSON object of token -> id")
    specials = {}
    by_bytes: dict[bytes, int] = {}
    for k, v in encoder.items():
        if type(v) is not int or not 0 <= v <= MAX_ID:
            raise ValueError(f"{enc_path}: the id of {k!r} should be a whole number from 0 to {MAX_ID}, got {v!r}")
        if k.startswith("<|") and k.endswith("|>"):
            specials[k] = v
            continue
        try:
            by_bytes[from_gpt2_form(k)] = v
        except ValueError as e:
            raise ValueError(f"{enc_path}: {e}") from None
    try:
        byte_ids = [by_bytes[bytes([b])] for b in range(256)]
    except KeyError as e:
        raise ValueError(f"{enc_path}: no entry for the single byte {e.args[0]!r}") from None
    merges: list[Merge] = []
    lines = decode_utf8(bpe_data, bpe_path.name).split("\n")
    for lineno, line in enumerate(lines, 1):
        if not line.strip() or (lineno == 1 and line.startswith("#")):
            continue
        parts = line.split()
        if len(parts) != 2:
            raise ValueError(f"{bpe_path}, line {lineno}: expected two tokens separated by a space, got {line!r}")
        try:
            a, b = (from_gpt2_form(p) for p in parts)
        except ValueError as e:
            raise ValueError(f"{bpe_path}, line {lineno}: {e}") from None
        try:
            pair = (by_bytes[a], by_bytes[b])
            new_id = by_bytes[a + b]
        except KeyError as e:
            raise ValueError(f"{bpe_path}, line {lineno}: {e.args[0]!r} is not in {enc_path.name}") from None
        merges.append(Merge(len(merges), pair, new_id))
    try:
        return Tokenizer(merges, pattern=GPT2_PATTERN, special_tokens=specials, byte_ids=byte_ids, name=name)
    except ValueError as e:
        raise ValueError(f"{enc_path.name} and {bpe_path.name} do not make a tokenizer: {e}") from None


def gpt2_files_from_ranks(ranks: Mapping[bytes, int]) -> dict[str, bytes]:
    """GPT-2's ``encoder.json`` and ``vocab.bpe``, byte for byte, from the r50k_base ranks.

    Both spell tokens with GPT-2's byte characters; ``vocab.bpe`` lists the merges in
    rank order after a ``#version: 0.2`` line.
    """
    merges = Tokenizer.from_ranks(ranks, pattern=None).merge_list
    by_id = {r: t for t, r in ranks.items()}
    encoder = {gpt2_form(t): r for t, r in sorted(ranks.items(), key=lambda kv: kv[1])}
    encoder[ENDOFTEXT] = len(ranks)
    lines = ["#version: 0.2"] + [f"{gpt2_form(by_id[a])} {gpt2_form(by_id[b])}" for (a, b) in (m.pair for m in merges)]
    return {
        "encoder.json": json.dumps(encoder).encode("utf-8"),
        "vocab.bpe": ("\n".join(lines) + "\n").encode("utf-8"),
    }
