"""Turning token bytes into something a person can read. Pure functions, no HTML.

Bytes stay bytes until display: a token can hold half of a character (an emoji's
first two bytes), so it is never decoded on its own with ``errors="replace"``.
"""

from __future__ import annotations

import functools

from .errors import check_bytes, check_str

#: Glyphs for whitespace when it is made visible.
WHITESPACE_GLYPHS = {" ": "·", "\n": "↵", "\t": "→", "\r": "␍"}


def hex_bytes(data: bytes) -> str:
    """``b"\\xf0\\x9f"`` -> ``"<F0 9F>"``"""
    data = check_bytes(data, "data")
    return "<" + " ".join(f"{b:02X}" for b in data) + ">"


def decode_parts(data: bytes) -> list[tuple[str, bool]]:
    """Split token bytes into ``(text, is_text)`` runs: valid UTF-8, or raw bytes as hex.

    >>> decode_parts("a😄".encode()[:3])
    [('a', True), ('<F0 9F>', False)]
    """
    data = check_bytes(data, "data")
    parts: list[tuple[str, bool]] = []
    i = 0
    n = len(data)
    while i < n:
        try:
            parts.append((data[i:].decode("utf-8"), True))
            break
        except UnicodeDecodeError as e:
            if e.start:
                parts.append((data[i : i + e.start].decode("utf-8"), True))
            bad_end = i + max(e.end, e.start + 1)
            parts.append((hex_bytes(data[i + e.start : bad_end]), False))
            i = bad_end
    # merge neighbouring hex runs into one "<..>" group
    merged: list[tuple[str, bool]] = []
    for text, ok in parts:
        if merged and not ok and not merged[-1][1]:
            merged[-1] = (merged[-1][0][:-1] + " " + text[1:], False)
        else:
            merged.append((text, ok))
    return merged


def is_control(ch: str) -> bool:
    """A character drawn as nothing (or as an empty box) that is not a space, newline or tab: a control or format
    character, a separator other than the space, a private-use or unassigned code point (Python's ``isprintable``
    is False). Shown as its UTF-8 bytes, as a partial character's bytes are.

    >>> [is_control(c) for c in "\\r\\x0b\\u200b\\xa0 \\n\\ta"]
    [True, True, True, True, False, False, False, False]
    """
    return ch not in " \n\t" and not ch.isprintable()


def visible(data: bytes, *, whitespace: bool = True) -> str:
    """Token bytes as visible text: whitespace glyphs, hex for partial UTF-8 and for control characters.

    >>> visible(b" the\\n")
    '·the↵'
    >>> visible("😄".encode()[:2])
    '<F0 9F>'
    >>> visible(b"\\x00")
    '<00>'
    >>> visible(b"\\r\\n//"), visible(b"\\r\\n//", whitespace=False)
    ('␍↵//', '<0D>\\n//')
    """
    out = []
    for text, ok in decode_parts(data):
        if not ok:
            out.append(text)
            continue
        for ch in text:
            if whitespace and ch in WHITESPACE_GLYPHS:
                out.append(WHITESPACE_GLYPHS[ch])
            elif is_control(ch):
                out.append(hex_bytes(ch.encode("utf-8")))
            else:
                out.append(ch)
    return "".join(out)


def is_partial(data: bytes) -> bool:
    """True if the bytes are not a whole number of UTF-8 characters."""
    data = check_bytes(data, "data")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


@functools.lru_cache(maxsize=1)
def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's printable stand-in for every byte (space is ``Ġ``, newline ``Ċ``)."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


@functools.lru_cache(maxsize=1)
def unicode_to_bytes() -> dict[str, int]:
    return {c: b for b, c in bytes_to_unicode().items()}


def gpt2_form(data: bytes) -> str:
    """The token as it is spelled in GPT-2's ``encoder.json``/``vocab.bpe``.

    >>> gpt2_form(b" the")
    'Ġthe'
    """
    table = bytes_to_unicode()
    return "".join(table[b] for b in check_bytes(data, "data"))


def from_gpt2_form(text: str) -> bytes:
    """Inverse of ``gpt2_form``; ValueError for a character that is not in the table."""
    table = unicode_to_bytes()
    check_str(text, "text")
    try:
        return bytes(table[c] for c in text)
    except KeyError as e:
        raise ValueError(f"{text!r} holds {e.args[0]!r}, which is not a GPT-2 byte character") from None
