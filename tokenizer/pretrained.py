"""The official encodings as our own Tokenizers, built from OpenAI's rank files.

Loaders here are pure (bytes in, Tokenizer out); fetching the files is
``provision.py``'s job. Merges are recovered from the ranks as in minbpe's
``gpt4.py``: each multi-byte token is encoded with the merges ranked below it, and
must come out as exactly two tokens, which form its merge pair.
"""

from __future__ import annotations

import array
import base64
import binascii
import functools
import hashlib
import json
from collections.abc import Mapping
from pathlib import Path

from . import engine_py
from .bpe import MergeTable, Tokenizer
from .display import from_gpt2_form, gpt2_form
from .patterns import GPT2_PATTERN, GPT4_PATTERN, O200K_PATTERN
from .provision import data_dir, read_ranks_file
from .trace import Merge

ENDOFTEXT = "<|endoftext|>"
FIM_PREFIX = "<|fim_prefix|>"
FIM_MIDDLE = "<|fim_middle|>"
FIM_SUFFIX = "<|fim_suffix|>"
ENDOFPROMPT = "<|endofprompt|>"

#: name -> (rank file, pattern, special tokens, label)
ENCODINGS = {
    "r50k_base": ("r50k_base", GPT2_PATTERN, {ENDOFTEXT: 50256}, "GPT-2 / GPT-3 (r50k_base)"),
    "cl100k_base": (
        "cl100k_base",
        GPT4_PATTERN,
        {ENDOFTEXT: 100257, FIM_PREFIX: 100258, FIM_MIDDLE: 100259, FIM_SUFFIX: 100260, ENDOFPROMPT: 100276},
        "GPT-4 / GPT-3.5 (cl100k_base)",
    ),
    "o200k_base": ("o200k_base", O200K_PATTERN, {ENDOFTEXT: 199999, ENDOFPROMPT: 200018}, "GPT-4o (o200k_base)"),
}
#: The chat-format tokens that OpenAI's chat models add to these encodings (as Tiktokenizer shows them).
CHAT_SPECIAL_TOKENS = {
    "cl100k_base": {"<|im_start|>": 100264, "<|im_end|>": 100265, "<|im_sep|>": 100266},
    "o200k_base": {"<|im_start|>": 200264, "<|im_end|>": 200265, "<|im_sep|>": 200266},
}
ALIASES = {"gpt2": "r50k_base", "r50k": "r50k_base", "gpt4": "cl100k_base", "cl100k": "cl100k_base", "o200k": "o200k_base", "gpt4o": "o200k_base"}


def parse_tiktoken_ranks(data: bytes, source: str = "rank file") -> dict[bytes, int]:
    """Parse a ``.tiktoken`` file (``base64-token rank`` per line)."""
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


def merges_from_ranks(ranks: Mapping[bytes, int]) -> tuple[list[int], list[Merge]]:
    """Recover ``(byte_ids, merges)`` from tiktoken-style ``{token bytes: rank}``.

    >>> byte_ids, merges = merges_from_ranks({**{bytes([b]): b for b in range(256)}, b"ab": 256, b"abc": 257})
    >>> [(m.pair, m.new_id) for m in merges]
    [((97, 98), 256), ((256, 99), 257)]
    """
    byte_ids = _byte_ids(ranks)
    table = _recover(ranks, byte_ids)
    return byte_ids, list(Tokenizer(table, byte_ids=byte_ids).merge_list)


def _recover(ranks: Mapping[bytes, int], byte_ids: list[int]) -> MergeTable:
    enc = engine_py.PyEncoder(byte_ids)
    pairs: list[tuple[int, int]] = []
    new_ids: list[int] = []
    for tok, r in sorted(ranks.items(), key=lambda kv: kv[1]):
        if len(tok) == 1:
            continue
        ids = enc.encode_bytes(tok)
        if len(ids) != 2:
            raise ValueError(f"token {tok!r} (rank {r}) is not made of two lower-ranked tokens (got {len(ids)} parts), so its merge cannot be recovered")
        pair = (ids[0], ids[1])
        enc.ranks[pair] = (len(pairs), r)
        pairs.append(pair)
        new_ids.append(r)
    return MergeTable(pairs, new_ids)


def _byte_ids(ranks: Mapping[bytes, int]) -> list[int]:
    try:
        return [ranks[bytes([b])] for b in range(256)]
    except KeyError as e:
        raise ValueError(f"the ranks lack the single byte {e.args[0]!r}: a byte-level BPE needs all 256") from None


def from_ranks(ranks: Mapping[bytes, int], *, pattern: str | None, special_tokens: Mapping[str, int] | None = None, name: str = "") -> Tokenizer:
    """A Tokenizer from tiktoken-style mergeable ranks."""
    byte_ids = _byte_ids(ranks)
    table = _recover(ranks, byte_ids)
    tok = Tokenizer(table, pattern=pattern, special_tokens=special_tokens, byte_ids=byte_ids, name=name)
    # recovery encoded every token's bytes to exactly its pair, so each encodes to itself
    tok._self_encoding = frozenset(table.new_ids)
    return tok


def canonical_name(name: str) -> str:
    key = name.strip().lower()
    key = ALIASES.get(key, key)
    if key not in ENCODINGS:
        raise ValueError(f"unknown encoding {name!r}; choose one of gpt2, r50k_base, cl100k_base, o200k_base")
    return key


@functools.lru_cache(maxsize=None)
def load_encoding(name: str) -> Tokenizer:
    """``"gpt2" | "r50k_base" | "cl100k_base" | "o200k_base"`` as our own Tokenizer.

    Built from the official ranks, split pattern and special tokens; its ids equal
    tiktoken's. The result is cached per process; do not modify it.
    """
    key = canonical_name(name)
    file, pattern, specials, label = ENCODINGS[key]
    data = read_ranks_file(file)
    ranks = parse_tiktoken_ranks(data, f"{file}.tiktoken")
    cache = data_dir() / "cache" / f"{file}-{hashlib.sha256(data).hexdigest()[:16]}.merges"
    table = _read_merge_cache(cache, ranks)
    if table is None:
        tok = from_ranks(ranks, pattern=pattern, special_tokens=specials, name=key)
        _write_merge_cache(cache, tok)
    else:
        tok = Tokenizer(table, pattern=pattern, special_tokens=specials, byte_ids=_byte_ids(ranks), name=key)
        tok._self_encoding = frozenset(table.new_ids)
    tok.metadata.update({"official": True, "label": label, "encoding": key})
    return tok


# Recovering the merges of o200k_base takes a few seconds; the result is kept next to the
# rank files (never committed) as int32 (left, right) pairs in rank order, and checked on
# every load: each pair's bytes must join to its token's bytes.


def _write_merge_cache(path: Path, tok: Tokenizer) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        flat = array.array("i", [x for pair in tok.merge_table.pairs for x in pair])
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_bytes(flat.tobytes())
        tmp.replace(path)
    except OSError:
        pass  # a read-only data folder only costs speed


def _read_merge_cache(path: Path, ranks: Mapping[bytes, int]) -> MergeTable | None:
    try:
        flat = array.array("i")
        flat.frombytes(path.read_bytes())
    except (OSError, ValueError):
        return None
    tokens = sorted((r, t) for t, r in ranks.items() if len(t) > 1)
    if len(flat) != 2 * len(tokens):
        return None
    by_id = {r: t for t, r in ranks.items()}
    pairs = list(zip(flat[0::2], flat[1::2]))
    new_ids = [r for r, _ in tokens]
    for (a, b), (r, t) in zip(pairs, tokens):
        if by_id.get(a, b"") + by_id.get(b, b"") != t or a >= r or b >= r:
            return None
    return MergeTable(pairs, new_ids)


def load_gpt2_files(encoder_json: str | Path, vocab_bpe: str | Path, *, name: str = "gpt2") -> Tokenizer:
    """GPT-2's original ``encoder.json`` + ``vocab.bpe`` pair (seed 001's format).

    ``encoder.json`` maps each token, spelled with GPT-2's byte characters (``Ġthe``),
    to its id; ``vocab.bpe`` lists the merges in order after a ``#version`` line.
    """
    try:
        encoder = json.loads(Path(encoder_json).read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise ValueError(f"{encoder_json}: not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})") from None
    if not isinstance(encoder, dict):
        raise ValueError(f"{encoder_json}: expected a JSON object of token -> id")
    specials = {k: v for k, v in encoder.items() if k.startswith("<|") and k.endswith("|>")}
    by_bytes: dict[bytes, int] = {}
    for k, v in encoder.items():
        if k in specials:
            continue
        by_bytes[from_gpt2_form(k)] = v
    try:
        byte_ids = [by_bytes[bytes([b])] for b in range(256)]
    except KeyError as e:
        raise ValueError(f"{encoder_json}: no entry for the single byte {e.args[0]!r}") from None
    merges: list[Merge] = []
    lines = Path(vocab_bpe).read_text(encoding="utf-8").split("\n")
    for lineno, line in enumerate(lines, 1):
        if not line.strip() or (lineno == 1 and line.startswith("#")):
            continue
        parts = line.split()
        if len(parts) != 2:
            raise ValueError(f"{vocab_bpe}, line {lineno}: expected two tokens separated by a space, got {line!r}")
        a, b = (from_gpt2_form(p) for p in parts)
        try:
            pair = (by_bytes[a], by_bytes[b])
            new_id = by_bytes[a + b]
        except KeyError as e:
            raise ValueError(f"{vocab_bpe}, line {lineno}: {e.args[0]!r} is not in {Path(encoder_json).name}") from None
        merges.append(Merge(len(merges), pair, new_id))
    return Tokenizer(merges, pattern=GPT2_PATTERN, special_tokens=specials, byte_ids=byte_ids, name=name)


def gpt2_files_from_ranks(ranks: Mapping[bytes, int]) -> dict[str, bytes]:
    """GPT-2's ``encoder.json`` and ``vocab.bpe``, byte for byte, from the r50k_base ranks.

    Both spell tokens with GPT-2's byte characters; ``vocab.bpe`` lists the merges in
    rank order after a ``#version: 0.2`` line.
    """
    byte_ids, merges = merges_from_ranks(ranks)
    by_id = {r: t for t, r in ranks.items()}
    encoder = {gpt2_form(t): r for t, r in sorted(ranks.items(), key=lambda kv: kv[1])}
    encoder[ENDOFTEXT] = len(ranks)
    lines = ["#version: 0.2"] + [f"{gpt2_form(by_id[a])} {gpt2_form(by_id[b])}" for (a, b) in (m.pair for m in merges)]
    return {
        "encoder.json": json.dumps(encoder).encode("utf-8"),
        "vocab.bpe": ("\n".join(lines) + "\n").encode("utf-8"),
    }


def official_names() -> list[str]:
    return list(ENCODINGS)
