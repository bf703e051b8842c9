"""tiktoken's rank files (``.tiktoken``: a base64 token and its rank per line), read and written.

A rank file has no merges: tiktoken merges by bytes (two adjacent parts join whenever
their bytes make a token, lowest rank first). ``parse_tiktoken_ranks`` reads one;
``Tokenizer.from_ranks`` recovers the merges. Writing checks that tiktoken's rule
rebuilds every token from the very pair it was merged from, or refuses with the reason.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from functools import partial

from ..bpe.merges import tiktoken_last_merge
from ..core import Tokenizer, check_tokenizer
from ..errors import MAX_ID, check_bytes
from .hf import PIPELINE_EXPORT

_RANK_LINE = re.compile(rb"([A-Za-z0-9+/=]+) ([0-9]+)")

# tiktoken needs a split pattern; this one makes the whole text a single chunk
NO_SPLIT_PATTERN = r"[\s\S]+"


def parse_tiktoken_ranks(data: bytes, source: str = "rank file") -> dict[bytes, int]:
    """Parse a ``.tiktoken`` file (``base64-token rank`` per line).

    ValueError naming the line for anything else: a malformed line, an empty token, a
    token or a rank listed twice, a rank beyond 2^31 - 1.

    >>> parse_tiktoken_ranks(b"YQ== 0\\nYWI= 1\\n")
    {b'a': 0, b'ab': 1}
    """
    data = check_bytes(data, "data")
    ranks = _parse_plain(data)
    return ranks if ranks is not None else _parse_lines(data, source)


#: A rank file as tiktoken writes it: ``<base64> <rank>`` lines ended by ``\n``, nothing else.
_PLAIN_FILE = re.compile(rb"(?:(?:[A-Za-z0-9+/]+={0,2}|={1,2}) [0-9]+\n)*(?:(?:[A-Za-z0-9+/]+={0,2}|={1,2}) [0-9]+)?")


def _parse_plain(data: bytes) -> dict[bytes, int] | None:
    """The ranks of a file in tiktoken's own layout, read in C (about twice as fast as the line-by-line
    reader, for the rank files an app process loads at start-up), or None for anything else: another layout, or a line ``_parse_lines`` would refuse,
    which it then names."""
    if not _PLAIN_FILE.fullmatch(data):
        return None
    fields = data.split()
    try:
        tokens = list(map(partial(binascii.a2b_base64, strict_mode=True), fields[0::2]))  # what b64decode(validate=True) does
    except binascii.Error:
        return None
    ranks = list(map(int, fields[1::2]))
    out = dict(zip(tokens, ranks))
    if len(out) < len(tokens) or len(set(ranks)) < len(ranks) or not all(tokens) or max(ranks, default=0) > MAX_ID:
        return None
    return out


def _parse_lines(data: bytes, source: str) -> dict[bytes, int]:
    """``parse_tiktoken_ranks`` line by line: any layout ``splitlines`` reads, and the line of whatever is wrong."""
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
    vocab = check_tokenizer(tok).vocab
    if tok.pipeline is not None:
        raise ValueError(PIPELINE_EXPORT.format(fmt="tiktoken"))
    ranks: dict[bytes, int] = {}
    special = tok.special_ids
    for tid in sorted(vocab):
        if tid in special:
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
    """A ``tiktoken.Encoding`` that gives this tokenizer's ids.

    tiktoken does not normalize text: for a tokenizer that does (``tok.normalizer``, Qwen's
    NFC), put the text in that form first, as the model's own package does
    (``unicodedata.normalize("NFC", text)``).
    """
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
