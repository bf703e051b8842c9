"""ui/render/colours.py and the browser's palette (ui/web/spans.js, the one renderer): colours anyone can read."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

from ui.render import STYLESHEET
from ui.render.colours import CVD_MATRICES, MIN_TEXT_CONTRAST, TEXT_COLOURS, confusable, contrast, seen_as

SPANS_JS = (Path(__file__).resolve().parents[3] / "ui" / "web" / "spans.js").read_text(encoding="utf-8")
PALETTE = json.loads(re.search(r"export const PALETTE = (\[[^\]]*\]);", SPANS_JS).group(1))
#: spans.js's table: for each palette slot, the slots that may stand right of it
CLEAR = json.loads(re.search(r"export const CLEAR = (\[.*?\]);\n", SPANS_JS, re.S).group(1).replace(",\n]", "\n]"))


def test_contrast_matches_wcag_known_values():
    assert round(contrast("#000000", "#ffffff"), 2) == 21.0
    assert round(contrast("#767676", "#ffffff"), 2) == 4.54  # the classic lightest AA grey on white
    assert contrast("#123456", "#abcdef") == contrast("#abcdef", "#123456")


def test_the_simulations_keep_greys_grey_and_merge_red_and_green_for_deuteranopes():
    for kind in CVD_MATRICES:
        lab = seen_as("#808080", kind)
        assert abs(lab[1]) < 2 and abs(lab[2]) < 2
    # a red and a green of equal lightness: far apart normally, close for a deuteranope
    red, green = "#d55e00", "#6c8d00"
    import math

    assert math.dist(seen_as(red), seen_as(green)) > 3 * math.dist(seen_as(red, "deuteranopia"), seen_as(green, "deuteranopia"))


def test_every_text_colour_has_aaa_contrast_on_every_token_colour():
    for bg, fg in itertools.product(PALETTE, TEXT_COLOURS):
        assert contrast(bg, fg) >= MIN_TEXT_CONTRAST - 1.8, (bg, fg)  # glyphs and hex bytes: at least 5.2:1 (AA)
    for bg in PALETTE:
        assert contrast(bg, TEXT_COLOURS[0]) >= MIN_TEXT_CONTRAST, bg  # the text itself: AAA


def test_the_stylesheet_uses_exactly_those_text_colours_on_tokens():
    css = STYLESHEET.read_text(encoding="utf-8")
    for cls in ("bpe-spans .t", "bpe-spans .ws", "bpe-spans .hx", "bpe-card .chip", "bpe-ladder .t", "bpe-tree .node"):
        rule = re.search(re.escape("." + cls) + r"\{([^}]*)\}", css).group(1)
        colour = re.search(r"(?<![-\w])color:(#[0-9a-fA-F]{6})", rule).group(1)
        assert colour in TEXT_COLOURS, (cls, colour)


def test_every_palette_colour_has_several_clear_neighbours():
    for a in PALETTE:
        assert sum(not confusable(a, b) for b in PALETTE) >= len(PALETTE) - 2


def test_the_browsers_neighbour_table_is_exactly_the_clearly_different_slots():
    """colorsFor puts a token right of slot k only in CLEAR[k] (tests/web/spans.test.mjs): those are the slots no
    reader with a colour-vision deficiency confuses with k, and all of them."""
    assert CLEAR == [[j for j, b in enumerate(PALETTE) if not confusable(a, b)] for a in PALETTE]
