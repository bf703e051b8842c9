"""ui/render/colours.py and the palette: colours anyone can read."""

from __future__ import annotations

import itertools
import re

from hypothesis import given
from hypothesis import strategies as st

from ui.render import STYLESHEET
from ui.render.colours import CVD_MATRICES, MIN_TEXT_CONTRAST, confusable, contrast, delta_e, seen_as
from ui.render.spans import PALETTE, TEXT_COLOURS, colors_for


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


@given(st.lists(st.integers(0, 300_000), max_size=300))
def test_neighbouring_tokens_look_different_to_every_kind_of_reader(ids):
    colors = colors_for(ids)
    for a, b in zip(colors, colors[1:]):
        assert not confusable(a, b), (a, b, delta_e(a, b))
