"""Does our split see every character as the reference does? The code-point scans of the model tests.

Each code point goes into ``probe``'s six contexts, where a letter, number, mark or space
class decides the split, and a batch of probes is encoded by us and by the reference: the
ids agree only if both split alike (and merge alike). A batch that differs is retried one
code point at a time, so a failure names the characters.

Which code points (``code_points``): every one of planes 0-3 and 14 (all the characters
Unicode has encoded but private use), and every ``STRIDE``-th one of planes 4-13, which
Unicode leaves empty, and of planes 15-16, which are private use: inside those planes no
property varies from one code point to the next (``uniform_planes`` checks it under
``regex``'s tables), so a sample sees what the whole plane would, at a fifth of the time
(the scans were the suite's longest tests).
"""

from __future__ import annotations

from collections.abc import Callable

import regex

#: Planes scanned in full.
FULL_PLANES = (0, 1, 2, 3, 14)
#: Planes 4-13 (empty) and 15-16 (private use) are scanned every STRIDE-th code point.
STRIDE = 61
#: What every code point of a sampled plane is.
UNIFORM = {**{p: r"\p{Cn}" for p in range(4, 14)}, 15: r"[\p{Co}\p{Cn}]", 16: r"[\p{Co}\p{Cn}]"}
BATCH = 512


def code_points() -> list[int]:
    """Every code point of ``FULL_PLANES`` (surrogates aside), and every ``STRIDE``-th of the others with each plane's
    first and last.

    >>> cps = code_points()
    >>> 0x41 in cps and 0x4E00 in cps and 0xE0001 in cps and 0x40000 in cps and 0x10FFFF in cps
    True
    >>> 0xD800 in cps, 0x40001 in cps, len(cps) < 0x110000 // 3
    (False, False, True)
    """
    out = []
    for plane in range(17):
        lo, hi = plane << 16, (plane << 16) | 0xFFFF
        if plane in FULL_PLANES:
            out += [cp for cp in range(lo, hi + 1) if not 0xD800 <= cp <= 0xDFFF]
        else:
            out += sorted({*range(lo, hi + 1, STRIDE), hi})
    return out


def uniform_planes() -> list[int]:
    """The sampled planes in which some code point is not what ``UNIFORM`` says (empty when the sampling is sound).

    >>> uniform_planes()
    []
    """
    return [
        plane
        for plane, cls in UNIFORM.items()
        if not regex.fullmatch(f"{cls}*", "".join(map(chr, range(plane << 16, (plane << 16) + 0x10000))))
    ]


def probe(c: str) -> str:
    """One character in contexts where each class decides the split: after a letter, between letters and between
    digits, before a contraction, doubled, and before a newline."""
    return f"{c}:A a{c}b 1{c}2 {c}'s A{c} {c}{c}\n"


def mismatches(ours: Callable[[str], list[int]], ref: Callable[[str], list[int]]) -> list[str]:
    """The code points (hex) whose probe ``ours`` encodes otherwise than ``ref``."""
    cps = code_points()
    bad = []
    for i in range(0, len(cps), BATCH):
        batch = cps[i : i + BATCH]
        text = "".join(probe(chr(cp)) for cp in batch)
        if ours(text) != ref(text):
            bad += [hex(cp) for cp in batch if ours(probe(chr(cp))) != ref(probe(chr(cp)))]
    return bad
