"""Every JSON document BPE Lab reads goes through ``read_json``: one boundary for BPE Lab JSON, tokenizer.json,
Tekken, GPT-2's encoder.json, the Compare page's parallel texts and every upload.

What a damaged or hostile document meets here, before any reader sees it:

- **too big**: more than ``MAX_BYTES`` (256 MB; the largest model file BPE Lab knows is
  19 MB): a ValueError, before anything is decoded.
- **a byte-order mark**: a UTF-8 one is dropped; UTF-16 and UTF-32 text with its mark is
  read as meant. Other bytes must be UTF-8: the first bad byte is named.
- **nested too deeply**: more than ``MAX_DEPTH`` (128, the limit of ``serde_json``, which
  Hugging Face tokenizers reads with; real files nest under 10) levels of arrays and objects:
  a ValueError naming the line, found by counting brackets outside strings (numpy, no
  recursion, linear in the size), so no reader ever recurses into a document deep enough
  for a RecursionError.
- **duplicated keys**: ``{"a": 1, "a": 2}`` is refused, naming the key (Python's ``json``
  would silently keep the last).
- **not standard JSON**: ``NaN``, ``Infinity``; numbers of more than 4,300 digits.
- **damaged**: the line and column where parsing stopped.

>>> read_json(b'\\xef\\xbb\\xbf{"a": [1, 2]}')
{'a': [1, 2]}
>>> read_json('{"a": 1, "a": 2}', what="the tokenizer file")
Traceback (most recent call last):
...
ValueError: the tokenizer file holds the key "a" twice in one object (with keys "a"); JSON keys must differ: keep one
"""

from __future__ import annotations

import codecs
import json
from typing import Any

import numpy as np

#: The largest JSON document read, in bytes.
MAX_BYTES = 256 * 1024 * 1024
#: The deepest nesting of arrays and objects read (serde_json's limit, which Hugging Face tokenizers uses).
MAX_DEPTH = 128

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


#: the bytes that matter for nesting: " \ [ ] { }
_STRUCTURE = np.zeros(256, dtype=bool)
_STRUCTURE[[34, 92, 91, 93, 123, 125]] = True


class _DuplicateKey(Exception):
    def __init__(self, key: str, keys: list[str]):
        self.key, self.keys = key, keys


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for k, _ in pairs:
            if k in seen:
                raise _DuplicateKey(k, [k for k, _ in pairs])
            seen.add(k)
    return out


def _not_standard(name: str):
    raise ValueError(f"{name} is not a JSON number")


def decode_text(data: bytes | str, what: str = "the file") -> str:
    """The document as text: a UTF-8 byte-order mark dropped, UTF-16/32 read by theirs, otherwise strict UTF-8.

    >>> decode_text("English: Hi".encode("utf-16"))  # with its byte-order mark
    'English: Hi'
    """
    if isinstance(data, str):
        return data[1:] if data.startswith("\ufeff") else data
    for bom, codec in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(codec)
            except UnicodeDecodeError as e:
                raise ValueError(
                    f"{what} is not UTF-8 text: it starts with a {codec} byte-order mark but is damaged at byte {e.start}; "
                    "save it as UTF-8, or it is not a text file"
                ) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(
            f"{what} is not UTF-8 text (bad byte at offset {e.start}): save it as UTF-8, or it is not a text file"
        ) from None


def nesting(data: bytes, limit: int = MAX_DEPTH) -> tuple[int, int | None]:
    """``(deepest nesting of arrays and objects, byte offset where it first exceeds limit or None)``.

    Brackets inside strings do not count; a quote after an odd run of backslashes is inside
    its string. Linear numpy passes, no recursion, so a hostile document costs no more than
    its length.

    >>> nesting(b'{"a": [[1], "]]][[["], "b\\\\"[": {}}')
    (3, None)
    >>> nesting(b"[" * 5, limit=3)
    (5, 3)
    """
    arr = np.frombuffer(data, dtype=np.uint8)
    at = np.flatnonzero(_STRUCTURE[arr])  # one pass over the bytes; the rest works on these positions
    kinds = arr[at]
    quotes = at[kinds == 34]
    slashes = at[kinds == 92]
    if slashes.size and quotes.size:  # drop the quotes an odd run of backslashes escapes
        starts = np.ones(slashes.size, dtype=bool)
        starts[1:] = slashes[1:] != slashes[:-1] + 1
        run_start = slashes[np.maximum.accumulate(np.where(starts, np.arange(slashes.size), 0))]
        k = np.searchsorted(slashes, quotes - 1)
        k_in = np.minimum(k, slashes.size - 1)
        after_slash = (k < slashes.size) & (slashes[k_in] == quotes - 1)
        escaped = after_slash & ((quotes - 1 - run_start[k_in] + 1) % 2 == 1)
        quotes = quotes[~escaped]
    opens = at[(kinds == 91) | (kinds == 123)]
    closes = at[(kinds == 93) | (kinds == 125)]
    opens = opens[np.searchsorted(quotes, opens) % 2 == 0]  # outside strings: an even number of quotes before
    closes = closes[np.searchsorted(quotes, closes) % 2 == 0]
    if not opens.size:
        return 0, None
    where = np.concatenate([opens, closes])
    order = np.argsort(where, kind="stable")
    depth = np.cumsum(np.concatenate([np.ones(opens.size, np.int64), -np.ones(closes.size, np.int64)])[order])
    deepest = int(depth.max())
    over = None
    if deepest > limit:
        over = int(where[order][int(np.argmax(depth > limit))])
    return deepest, over


def read_json(data: bytes | str, *, what: str = "the file", max_bytes: int | None = None, max_depth: int | None = None) -> Any:
    """A JSON document as Python values, or a ValueError that says what is wrong with it (see the module).

    ``what`` names the document in messages ("the tokenizer file", "tekken_240911.json").
    """
    max_bytes = MAX_BYTES if max_bytes is None else max_bytes
    max_depth = MAX_DEPTH if max_depth is None else max_depth
    if not isinstance(data, (bytes, bytearray, memoryview, str)):
        raise ValueError(f"{what} must be JSON text or bytes, not {type(data).__name__}")
    size = len(data) if not isinstance(data, str) else len(data.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise ValueError(
            f"{what} is {size / 1024 / 1024:,.1f} MB of JSON, more than the {max_bytes / 1024 / 1024:,.0f} MB BPE Lab reads: "
            "it is not a tokenizer or text file it can use"
        )
    data = bytes(data) if isinstance(data, (bytearray, memoryview)) else data
    text = decode_text(data, what)
    # the bracket count runs on UTF-8 bytes: the file's own when it is UTF-8 without a mark
    plain = isinstance(data, bytes) and not data.startswith(tuple(bom for bom, _ in _BOMS))
    raw = data if plain else text.encode("utf-8", "surrogatepass")
    deepest, over = nesting(raw, max_depth)
    if over is not None:
        line = raw.count(b"\n", 0, over) + 1
        raise ValueError(
            f"{what} is nested too deeply: arrays and objects {deepest:,} levels deep (line {line} passes {max_depth}); "
            "no tokenizer or text file nests that deep: it is damaged or not such a file"
        )
    try:
        return json.loads(text, object_pairs_hook=_unique, parse_constant=_not_standard)
    except _DuplicateKey as e:
        shown = ", ".join(f'"{k}"' for k in list(dict.fromkeys(e.keys))[:5])
        raise ValueError(
            f'{what} holds the key "{e.key}" twice in one object (with keys {shown}); JSON keys must differ: keep one'
        ) from None
    except json.JSONDecodeError as e:
        raise ValueError(
            f"{what} is not valid JSON (line {e.lineno}, column {e.colno}: {e.msg}); it may have been cut off or edited by hand"
        ) from None
    except RecursionError:  # below MAX_DEPTH json never recurses this far; kept for a caller's larger max_depth
        raise ValueError(f"{what} is nested too deeply to read: it is damaged or not such a file") from None
    except ValueError as e:  # NaN and Infinity; integers longer than Python's int digit limit
        raise ValueError(f"{what} is not standard JSON: {e}") from None
