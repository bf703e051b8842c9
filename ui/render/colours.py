"""Colour arithmetic for readable token colours: WCAG contrast and colour-vision-deficiency simulation.

Pure functions (no Streamlit). The browser's palette (``ui/web/spans.js`` ``PALETTE``) is checked with them
(tests/ui/render/test_colours.py): every token background gives the page's text colours a contrast of at least
``MIN_TEXT_CONTRAST`` (WCAG AAA is 7:1), and ``spans.js`` ``colorsFor`` never gives two
neighbouring tokens colours that a reader with protanopia, deuteranopia or
tritanopia would see as alike (``confusable``). Token boundaries never depend on
colour alone: every token also has a thin border (``style.css``).

The simulation uses the matrices of Machado, Oliveira and Fernandes (2009) at
severity 1.0, applied to linear RGB; "alike" is a CIE76 distance in CIE Lab below
``MIN_DELTA_E``.
"""

from __future__ import annotations

import functools
import math

#: Machado et al. (2009), severity 1.0: linear RGB -> linear RGB as the viewer sees it.
CVD_MATRICES: dict[str, tuple[tuple[float, float, float], ...]] = {
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216), (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413), (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602), (0.004733, 0.691367, 0.303900)),
}
#: Two colours closer than this (CIE76 ΔE) under any simulation are "alike".
MIN_DELTA_E = 12.0
#: The least contrast a token background gives the text drawn on it.
MIN_TEXT_CONTRAST = 7.0
#: The colours of text drawn on a token: the text, whitespace glyphs, hex bytes (``style.css``).
TEXT_COLOURS = ("#111111", "#303036", "#5c1010")


def rgb(hex_colour: str) -> tuple[int, int, int]:
    """``"#77aadd"`` -> ``(119, 170, 221)``.

    >>> rgb("#77AADD")
    (119, 170, 221)
    """
    h = hex_colour.lstrip("#")
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)


def _linear(c: float) -> float:
    c /= 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def luminance(hex_colour: str) -> float:
    """WCAG relative luminance, 0 (black) to 1 (white).

    >>> round(luminance("#ffffff"), 3), round(luminance("#000000"), 3)
    (1.0, 0.0)
    """
    r, g, b = (_linear(c) for c in rgb(hex_colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two colours, 1 to 21.

    >>> round(contrast("#000000", "#ffffff"), 1), round(contrast("#777777", "#ffffff"), 2)
    (21.0, 4.48)
    """
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def _lab(lin: tuple[float, float, float]) -> tuple[float, float, float]:
    r, g, b = (min(1.0, max(0.0, c)) for c in lin)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    fx, fy, fz = f(x), f(y), f(z)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def seen_as(hex_colour: str, kind: str | None = None) -> tuple[float, float, float]:
    """The colour in CIE Lab, as a viewer with ``kind`` (a key of ``CVD_MATRICES``, or None) sees it."""
    lin = tuple(_linear(c) for c in rgb(hex_colour))
    if kind is not None:
        m = CVD_MATRICES[kind]
        lin = tuple(sum(m[i][j] * lin[j] for j in range(3)) for i in range(3))
    return _lab(lin)


@functools.cache
def delta_e(a: str, b: str) -> float:
    """The smallest CIE76 distance between two colours over normal vision and the three simulations.

    >>> delta_e("#ff0000", "#ff0000")
    0.0
    >>> delta_e("#77AADD", "#EE8866") > MIN_DELTA_E
    True
    """
    return min(math.dist(seen_as(a, k), seen_as(b, k)) for k in (None, *CVD_MATRICES))


def confusable(a: str, b: str) -> bool:
    """Whether two colours look alike to someone with normal vision or a colour-vision deficiency.

    >>> confusable("#EEDD88", "#EEDD88"), confusable("#77AADD", "#EE8866")
    (True, False)
    """
    return delta_e(a, b) < MIN_DELTA_E
