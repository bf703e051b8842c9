"""Reading and writing tokenizer files: ``load`` finds the format from the content, ``save`` writes BPE Lab JSON."""

from __future__ import annotations

from pathlib import Path

from ..core import Tokenizer
from ..errors import check_bytes, check_output_path, check_str, read_file
from .bpe_lab import dumps, from_json
from .hf import from_hf_json
from .json_input import decode_text, read_json
from .minbpe import loads_minbpe
from .spm_model import from_spm_model, looks_like_model
from .tiktoken import parse_tiktoken_ranks

#: The longest merged token a loaded file may build, in bytes: far longer than any real vocabulary's.
MAX_TOKEN_BYTES = 1024
#: The bytes of all merged tokens of a loaded file together: showing a file encodes every token once, so this bounds
#: that work (about twice the largest registered vocabulary).
MAX_VOCAB_BYTES = 4 * 1024 * 1024


def check_vocab_size(tok: Tokenizer) -> None:
    """ValueError naming the first merge to remove when the merges build tokens too long for BPE Lab to hold.

    Merges that each add a byte to the last token (``a a``, ``aa a``, ...) are a file of a
    few hundred kilobytes whose tokens hold gigabytes, and every token is encoded once to
    show the file: so a file is refused before any token is built.

    >>> from tokenizer import Tokenizer
    >>> check_vocab_size(Tokenizer({(97, 97): 256, **{(256 + k, 97): 257 + k for k in range(1100)}}, pattern=None))
    Traceback (most recent call last):
    ValueError: merge 1023 of this file builds a token of 1,025 bytes; BPE Lab takes tokens of at most 1,024 bytes (real vocabularies' longest are about 128): remove it and the merges after it that build on it
    """
    total = 0
    for rank, n in enumerate(tok.merged_lengths()):
        if n > MAX_TOKEN_BYTES:
            raise ValueError(
                f"merge {rank} of this file builds a token of {n:,} bytes; BPE Lab takes tokens of at most "
                f"{MAX_TOKEN_BYTES:,} bytes (real vocabularies' longest are about 128): "
                "remove it and the merges after it that build on it"
            )
        total += n
        if total > MAX_VOCAB_BYTES:
            raise ValueError(
                f"the tokens of this file's first {rank + 1:,} merges already hold {total / 2**20:.0f} MB; BPE Lab takes "
                f"at most {MAX_VOCAB_BYTES // 2**20} MB of merged tokens (real vocabularies hold 2 MB at most): "
                f"keep fewer merges (fewer than {rank:,}) or shorter tokens"
            )


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

    BPE Lab JSON, Hugging Face tokenizer.json (byte-level BPE), minbpe ``.model``, a SentencePiece
    ``.model`` (BPE with byte fallback: ``spm_model``) and tiktoken ranks (which carry no split
    pattern: ``pattern`` is used for them).
    """
    path, data = read_file(path, "tokenizer file")
    return load_bytes(data, name=path.stem, pattern=pattern)


def load_bytes(data: bytes, *, name: str = "", pattern: str | None = "gpt4") -> Tokenizer:
    """Like ``load`` but from the file's bytes (an upload). A byte-order mark is dropped in every format;
    JSON goes through ``json_input.read_json`` (size, nesting, duplicated keys)."""
    data = check_bytes(data, "data")
    name = check_str(name, "name")
    if looks_like_model(data):  # binary protobuf: told apart before the text formats, which it is not
        return from_spm_model(data, name=name)
    text = decode_text(data, "the file")
    stripped = text.lstrip()
    if stripped.startswith("{"):
        doc = read_json(text, what="the tokenizer file")
        hf_keys = ("model", "added_tokens", "pre_tokenizer", "normalizer", "decoder", "post_processor", "truncation", "padding")
        if isinstance(doc, dict) and "format" not in doc and any(k in doc for k in hf_keys):
            tok = from_hf_json(doc)
        else:
            tok = from_json(doc)
        check_vocab_size(tok)
        if name and not tok.name:
            tok.name = name
        return tok
    if stripped.startswith("minbpe v1"):
        tok = loads_minbpe(text, name=name)
        check_vocab_size(tok)
        return tok
    first = stripped.split("\n", 1)[0].split()
    if len(first) == 2 and first[1].isdigit():
        ranks = parse_tiktoken_ranks(text.encode("utf-8"), "tiktoken file")
        try:
            return Tokenizer.from_ranks(ranks, pattern=pattern, name=name)
        except ValueError as e:
            raise ValueError(f"the tiktoken file is inconsistent: {e}") from None
    raise ValueError(
        "unrecognised tokenizer file: expected BPE Lab JSON, a Hugging Face tokenizer.json, "
        "a minbpe .model, a SentencePiece .model or a tiktoken rank file"
    )


# ----------------------------------------------------------------------------- minbpe
