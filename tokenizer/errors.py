"""Bad input: the exceptions BPE Lab raises and the checks its public functions run first.

Every bad input to a public function or loader raises ``ValueError`` with a message
that says what is wrong and what to do, at the boundary, before any work is done.
Where tiktoken raises ``TypeError`` (text that is not a str, an id that is not an int)
or ``KeyError`` (``encode_single_token``, ``decode_single_token_bytes``) for the same
mistake, the exception is also one of those: ``InvalidType`` is a TypeError and a
ValueError, ``UnknownToken`` a KeyError and a ValueError, so code written for either
library catches it.
"""

from __future__ import annotations

import codecs
import operator
from collections.abc import Iterable
from os import PathLike, fspath
from pathlib import Path

#: Token ids are stored as 32-bit signed integers in places (merge caches, tiktoken's u32
#: ranks); an id must be below this.
MAX_ID = 2**31 - 1


class InvalidType(TypeError, ValueError):
    """An argument of the wrong type (a ValueError; also the TypeError tiktoken raises)."""


class UnknownToken(KeyError, ValueError):
    """A token or id the tokenizer does not have (a ValueError; also the KeyError tiktoken raises)."""

    def __str__(self) -> str:  # KeyError would show the message in quotes
        return str(self.args[0]) if self.args else ""


def type_name(value: object) -> str:
    return type(value).__name__


def check_str(value: object, what: str) -> str:
    """``value`` if it is a str, else InvalidType naming ``what``.

    >>> check_str(b"hi", "text")
    Traceback (most recent call last):
    ...
    tokenizer.errors.InvalidType: text must be a str, not bytes; decode it first, e.g. data.decode('utf-8')
    """
    if isinstance(value, str):
        return value
    hint = "; decode it first, e.g. data.decode('utf-8')" if isinstance(value, (bytes, bytearray, memoryview)) else ""
    raise InvalidType(f"{what} must be a str, not {type_name(value)}{hint}")


def check_bytes(value: object, what: str) -> bytes:
    """``value`` as bytes if it is bytes-like, else InvalidType naming ``what``."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    hint = "; encode it first, e.g. text.encode('utf-8')" if isinstance(value, str) else ""
    raise InvalidType(f"{what} must be bytes, not {type_name(value)}{hint}")


def clean_text(text: str) -> str:
    """Replace lone surrogates with U+FFFD, exactly as tiktoken does before encoding.

    >>> clean_text("a\\ud800b")
    'a\\ufffdb'
    """
    check_str(text, "text")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def error_handler(errors) -> str:
    """A codec error handler name for ``bytes.decode`` ('replace', 'strict', 'ignore', ...)."""
    check_str(errors, "errors")
    try:
        codecs.lookup_error(errors)
    except LookupError:
        raise ValueError(
            f"errors={errors!r} is not a codec error handler; use 'replace', 'strict', 'ignore' or 'backslashreplace'"
        ) from None
    return errors


def check_utf8(text: str, what: str) -> str:
    """``text`` if it is valid Unicode (no lone surrogates, so it can be saved as UTF-8)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ValueError(
            f"{what} holds a lone surrogate ({text[e.start]!r} at index {e.start}), which is not text and cannot be saved as UTF-8; "
            "remove it or replace it with U+FFFD"
        ) from None
    return text


def check_int(value: object, what: str, low: int | None = None, high: int | None = None) -> int:
    """``value`` as an int (anything with ``__index__``, e.g. numpy integers; never a bool
    or a float), within ``[low, high]``; ValueError saying the allowed range otherwise."""
    span = _span(low, high)
    if isinstance(value, (bool, float)):
        raise InvalidType(f"{what} must be a whole number{span}, not {value!r}")
    try:
        number = operator.index(value)
    except TypeError:
        raise InvalidType(f"{what} must be a whole number{span}, not {type_name(value)}") from None
    if (low is not None and number < low) or (high is not None and number > high):
        raise ValueError(f"{what} must be a whole number{span}, got {number}")
    return number


def _span(low: int | None, high: int | None) -> str:
    if low is not None and high is not None:
        return f" from {low} to {high}"
    if low is not None:
        return f" of at least {low}"
    return ""


def check_ids(ids: object, what: str = "ids") -> list[int]:
    """Token ids as a list of ints: an iterable (a list, a tuple, a generator, a numpy
    array) of whole numbers, never a str, bytes, a bool or a float.

    >>> check_ids(iter([104, 105]))
    [104, 105]
    """
    if isinstance(ids, (str, bytes, bytearray)) or not isinstance(ids, Iterable):
        raise InvalidType(f"{what} must be a sequence of token ids (whole numbers), not {type_name(ids)}")
    out = []
    for i, x in enumerate(ids):
        if type(x) is int:  # the common case, kept fast
            out.append(x)
        elif isinstance(x, (bool, float)) or not hasattr(type(x), "__index__"):
            raise InvalidType(f"{what}[{i}] is {x!r}, not a token id: ids are whole numbers (ints)")
        else:
            out.append(operator.index(x))
    return out


def check_path(path: object, what: str = "path") -> Path:
    """``path`` as a Path (a str or an ``os.PathLike``; not empty)."""
    if isinstance(path, (str, PathLike)):
        text = fspath(path)
        if isinstance(text, str) and text and "\0" not in text:
            return Path(text)
    raise ValueError(f"{what} must be a file path (a non-empty str or pathlib.Path), not {path!r}")


def read_file(path: object, what: str = "file") -> tuple[Path, bytes]:
    """``(Path, contents)``, or ValueError saying why the file cannot be read."""
    p = check_path(path)
    try:
        return p, p.read_bytes()
    except IsADirectoryError:
        raise ValueError(f"{p} is a folder, not a {what}") from None
    except FileNotFoundError:
        raise ValueError(f"{p} does not exist: check the path") from None
    except OSError as e:
        raise ValueError(f"cannot read {p}: {e.strerror or e}") from None


def decode_utf8(data: bytes, what: str) -> str:
    """The bytes as UTF-8 text, or ValueError naming the offset of the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(
            f"{what} is not UTF-8 text (bad byte at offset {e.start}): it is not a tokenizer file or is damaged"
        ) from None


def check_output_path(path: object, what: str = "output file") -> Path:
    """``path`` as a Path whose folder exists and which is not a folder itself: checked
    before long work, so nothing is computed for a file that cannot be written."""
    p = check_path(path, what)
    if p.is_dir():
        raise ValueError(f"{what} {p} is a folder; give a file name, e.g. {p / 'out.json'}")
    parent = p.parent
    if not parent.is_dir():
        raise ValueError(f"cannot write {what} {p}: the folder {parent} does not exist; create it first")
    return p
