"""The registered encodings as our own Tokenizers: bytes in, Tokenizer out.

``load_encoding(name)`` is the entry point. The record (``registry.spec``) says
which file, pattern and special tokens; ``fetch.read_verified`` hands over the
file's checked bytes; a parser for the record's file format turns them into a
Tokenizer (``PARSERS``: tiktoken rank files, Mistral's Tekken JSON, a Hugging Face
tokenizer.json, llama.cpp's GGUFs, SentencePiece ``.model`` files; the formats
themselves are read in ``tokenizer.formats``). For rank files the merges are recovered from the ranks, as minbpe's ``gpt4.py`` does (each
multi-byte token, encoded with the merges ranked below it, comes out as exactly the
pair it was merged from; ``bpe.merges.recover_merges`` says what happens to the few
tokens of Llama 3 and Qwen 3.5 that do not), and kept on disk so the next process
skips the work. An encoding with a ``base`` (o200k_harmony) is its base's Tokenizer
with more special tokens: the same merges and encoder, loaded once.
"""

from __future__ import annotations

import array
import hashlib
import threading
from collections.abc import Callable, Mapping
from pathlib import Path

from ..bpe.merges import MergeTable
from ..bpe.sentencepiece import SentencePieceBPE
from ..core import Tokenizer
from ..formats.gguf import read_metadata as read_gguf_metadata
from ..formats.gguf import to_hf_json as gguf_to_hf_json
from ..formats.hf import from_hf_json
from ..formats.json_input import read_json
from ..formats.spm_model import parse_spm_model
from ..formats.tekken import parse_tekken
from ..formats.tiktoken import parse_tiktoken_ranks
from ..spm import SentencePieceTokenizer
from ..trace import Merge
from .disk_cache import cache_dir
from .fetch import read_verified, write_atomic
from .registry import EncodingSpec, spec, specs

#: ``{encoding: {chat token: id}}`` for the encodings whose chat models add tokens
#: (a view derived from the registry's ``chat_tokens``).
CHAT_SPECIAL_TOKENS: dict[str, dict[str, int]] = {s.name: dict(s.chat_tokens) for s in specs() if s.chat_tokens}


def merges_from_ranks(ranks: Mapping[bytes, int]) -> tuple[list[int], list[Merge]]:
    """Recover ``(byte_ids, merges)`` from tiktoken-style ``{token bytes: rank}``.

    >>> byte_ids, merges = merges_from_ranks({**{bytes([b]): b for b in range(256)}, b"ab": 256, b"abc": 257})
    >>> [(m.pair, m.new_id) for m in merges]
    [((97, 98), 256), ((256, 99), 257)]
    """
    tok = Tokenizer.from_ranks(ranks, pattern=None)
    return list(tok.byte_ids), list(tok.merge_list)


# ----------------------------------------------------------------------------- registered encodings


def merge_cache_path(s: EncodingSpec, data: bytes | None = None) -> Path | None:
    """Where the merges recovered from the file of ``s`` (or from ``data``, its verified bytes) are kept; None for an
    encoding that has no merge cache of its own (one built from its base, or from a tokenizer.json's merge list)."""
    if s.base is not None or s.source.format not in ("tiktoken", "whisper-tiktoken", "tekken"):
        return None
    digest = hashlib.sha256(data).hexdigest() if data is not None else s.source.sha256
    return cache_dir() / f"{s.name}-{digest[:16]}.merges"


def _from_ranks(s: EncodingSpec, ranks: dict[bytes, int], data: bytes, metadata: Mapping[str, object]) -> Tokenizer:
    """Our Tokenizer from ranks (``{token bytes: id}``), with the merges cached under data/cache."""
    cache = merge_cache_path(s, data)
    table = _read_merge_cache(cache, ranks)
    tok = Tokenizer.from_ranks(
        ranks,
        pattern=s.pattern,
        special_tokens=s.special_tokens,
        name=s.name,
        metadata=metadata,
        merges=table,
        normalizer=s.normalizer,
    )
    if table is None:
        _write_merge_cache(cache, tok.merge_table, ranks)
    return tok


def _from_tiktoken_file(s: EncodingSpec, data: bytes, metadata: Mapping[str, object]) -> Tokenizer:
    return _from_ranks(s, parse_tiktoken_ranks(data, s.source.filename), data, metadata)


def _from_whisper_file(s: EncodingSpec, data: bytes, metadata: Mapping[str, object]) -> Tokenizer:
    """Whisper's multilingual rank file: a tiktoken file whose last line, ``= 50256``, is an empty token.

    whisper/tokenizer.py decodes ``=`` to ``b""`` and hands it to tiktoken, which never produces it (no text encodes
    to nothing); a token must have bytes here, so the id is left empty, as id 100256 of cl100k_base is.
    """
    lines = data.split(b"\n")
    kept = [line for line in lines if not (line.startswith(b"= ") and line[2:].isdigit())]
    if len(lines) - len(kept) != 1:
        raise ValueError(f"{s.source.filename}: expected exactly one empty token ('= <rank>'), found {len(lines) - len(kept)}")
    return _from_ranks(s, parse_tiktoken_ranks(b"\n".join(kept), s.source.filename), data, metadata)


def _from_tekken_file(s: EncodingSpec, data: bytes, metadata: Mapping[str, object]) -> Tokenizer:
    ranks, pattern, names = parse_tekken(data, s.source.filename)
    if pattern != s.pattern:
        raise ValueError(f"{s.source.filename}: its split pattern differs from the one registered for {s.name}")
    if names is not None and {t: i for i, t in enumerate(names)} != dict(s.special_tokens):
        raise ValueError(f"{s.source.filename}: its special tokens differ from the ones registered for {s.name}")
    return _from_ranks(s, ranks, data, metadata)


def _from_hf_json_file(s: EncodingSpec, data: bytes, metadata: Mapping[str, object]) -> Tokenizer:
    """A Hugging Face tokenizer.json: the file's own pipeline and special tokens (the record's must be among them)."""
    doc = read_json(data, what=s.source.filename)
    tok = from_hf_json(doc, name=s.name, trusted=True)  # provisioned and checked by its sha256
    for text, tid in s.special_tokens.items():
        if tok.special_tokens.get(text) != tid:
            raise ValueError(
                f"{s.source.filename}: the registry says special token {text!r} has id {tid}, the file says {tok.special_tokens.get(text)}"
            )
    tok.metadata.update(metadata)
    return tok


def _from_gguf_file(s: EncodingSpec, data: bytes, metadata: Mapping[str, object]) -> Tokenizer:
    """A llama.cpp GGUF's byte-level BPE vocabulary, read as the tokenizer.json that encodes as llama.cpp does
    (``formats.gguf.to_hf_json``: its pre-tokenizer's regexes as stages, its control tokens special)."""
    doc = gguf_to_hf_json(read_gguf_metadata(data, s.source.filename), s.source.filename)
    tok = from_hf_json(doc, name=s.name, trusted=True)  # the regexes are llama.cpp's own, for a file checked by its sha256
    if tok.pattern != s.pattern:
        raise ValueError(f"{s.source.filename}: its split differs from the one registered for {s.name}")
    for text, tid in s.special_tokens.items():
        if tok.special_tokens.get(text) != tid:
            raise ValueError(
                f"{s.source.filename}: the registry says special token {text!r} has id {tid}, the file says {tok.special_tokens.get(text)}"
            )
    tok.metadata.update(metadata)
    return tok


def _from_gguf_spm_file(s: EncodingSpec, data: bytes, metadata: Mapping[str, object]) -> Tokenizer:
    """A llama.cpp GGUF's SentencePiece-style vocabulary (``tokenizer.ggml.model`` "llama"): ``tokenizer.spm``."""
    model = SentencePieceBPE.from_gguf(read_gguf_metadata(data, s.source.filename))
    tok = SentencePieceTokenizer(model, name=s.name, metadata=metadata)
    for text, tid in s.special_tokens.items():
        if tok.special_tokens.get(text) != tid:
            raise ValueError(
                f"{s.source.filename}: the registry says special token {text!r} has id {tid}, the file says {tok.special_tokens.get(text)}"
            )
    return tok


def _from_spm_model_file(s: EncodingSpec, data: bytes, metadata: Mapping[str, object]) -> Tokenizer:
    """A SentencePiece ``.model`` file (``formats.spm_model``): ``tokenizer.spm`` with the sentencepiece package's rules."""
    tok = SentencePieceTokenizer(parse_spm_model(data, s.source.filename), name=s.name, metadata=metadata)
    for text, tid in s.special_tokens.items():
        if tok.special_tokens.get(text) != tid:
            raise ValueError(
                f"{s.source.filename}: the registry says special token {text!r} has id {tid}, the file says {tok.special_tokens.get(text)}"
            )
    return tok


#: file format -> parser(record, verified file bytes, metadata) -> Tokenizer
PARSERS: dict[str, Callable[[EncodingSpec, bytes, Mapping[str, object]], Tokenizer]] = {
    "tiktoken": _from_tiktoken_file,
    "whisper-tiktoken": _from_whisper_file,
    "tekken": _from_tekken_file,
    "hf-json": _from_hf_json_file,
    "gguf": _from_gguf_file,
    "gguf-spm": _from_gguf_spm_file,
    "spm-model": _from_spm_model_file,
}


def _metadata(s: EncodingSpec) -> dict[str, object]:
    return {"official": True, "label": s.label, "family": s.family, "encoding": s.name}


def build_encoding(name: str) -> Tokenizer:
    """A registered encoding built afresh (``load_encoding`` builds each once per process).

    An encoding with a ``base`` is built from the base's (loaded) Tokenizer and shares
    its merges and encoder.
    """
    s = spec(name)
    if s.base is not None:
        base = load_encoding(s.base)
        if base.pattern != s.pattern:
            raise ValueError(f"{s.name}: its pattern differs from its base {s.base}'s, so it cannot share its encoder")
        tok = base.with_special_tokens(s.special_tokens, name=s.name)
        tok.metadata = _metadata(s)  # a new Tokenizer nobody else holds yet
        return tok
    parse = PARSERS.get(s.source.format)
    if parse is None:
        raise ValueError(f"{s.name}: no parser for file format {s.source.format!r} (known: {', '.join(PARSERS)})")
    return parse(s, read_verified(s), _metadata(s))


_loaded: dict[str, Tokenizer] = {}
_load_lock = threading.RLock()  # re-entered when an encoding is built from its base


def load_encoding(name: str) -> Tokenizer:
    """A registered encoding (``registry.names()``, or an alias such as ``"gpt2"``) as our own Tokenizer.

    Built from the official file, split pattern and special tokens; its ids equal
    tiktoken's. Built once per process (under a lock) and cached by canonical name,
    so every caller, in every thread, gets the same object: treat it as immutable
    (derive with ``with_special_tokens`` or ``truncated`` instead of changing it).
    ValueError for an unknown name (listing the known ones) or a file that is not
    provisioned (saying how to provision it).
    """
    key = spec(name).name
    tok = _loaded.get(key)
    if tok is None:
        with _load_lock:
            tok = _loaded.get(key)
            if tok is None:
                tok = _loaded[key] = build_encoding(key)
    return tok


# Recovering the merges of o200k_base takes a few seconds; the result is kept in the
# data folder (never committed) as int32 (left, right) pairs, one per multi-byte token
# in rank order, (-1, -1) for a token no merge builds (a whole token), and checked on
# every load: each pair's bytes must join to its token's bytes.


def _write_merge_cache(path: Path, table: MergeTable, ranks: Mapping[bytes, int]) -> None:
    pair_of = dict(zip(table.new_ids, table.pairs))
    flat = array.array("i")
    for r in sorted(r for t, r in ranks.items() if len(t) > 1):
        flat.extend(pair_of.get(r, (-1, -1)))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, flat.tobytes())
    except OSError:
        pass  # a read-only data folder only costs speed


def _read_merge_cache(path: Path, ranks: Mapping[bytes, int]) -> MergeTable | None:
    """The merges from the cache (whole tokens are the ranks it gives none), or None when it is missing or does not fit the ranks."""
    try:
        flat = array.array("i")
        flat.frombytes(path.read_bytes())
    except (OSError, ValueError):
        return None
    tokens = sorted((r, t) for t, r in ranks.items() if len(t) > 1)
    if len(flat) != 2 * len(tokens):
        return None
    by_id = {r: t for t, r in ranks.items()}
    pairs, new_ids = [], []
    for a, b, (r, t) in zip(flat[0::2], flat[1::2], tokens):
        if a == b == -1:
            continue  # a whole token
        if by_id.get(a, b"") + by_id.get(b, b"") != t or r in (a, b):
            return None
        pairs.append((a, b))
        new_ids.append(r)
    return MergeTable(pairs, new_ids)
