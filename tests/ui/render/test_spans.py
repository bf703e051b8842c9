"""ui/render/spans.py: coloured spans as escaped HTML (pure functions, no Streamlit)."""

from __future__ import annotations

import html
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tokenizer import Tokenizer, visible
from tokenizer.baselines import CharTokenizer
from tokenizer.trace import make_spans
from ui.render.spans import PALETTE, Row, color_index, colors_for, render_rows, render_spans, token_html, tooltip

BYTES = Tokenizer()  # ids are the byte values: one span per byte


def spans_of(*pieces: bytes, specials=frozenset()):
    return make_spans([(i, p) for i, p in enumerate(pieces)], specials)


def text_of(html_text: str) -> str:
    """What a reader sees: tags (with the tooltips inside them) removed, entities decoded; the
    visually hidden screen-reader table left out."""
    body = re.sub(r'<div class="bpe-more">.*?</div>|<div class="bpe-sr"><table>.*?</table></div>', "", html_text, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", body))


def test_user_text_is_escaped():
    evil = "<script>alert(1)</script><img src=x onerror=\"alert(2)\"> & 'q'"
    out = render_spans(spans_of(evil.encode()[:10], evil.encode()[10:]))
    assert "<script" not in out and "<img" not in out
    assert text_of(out) == evil


PRINTABLE = st.characters(blacklist_categories=("Cs", "Cc", "Cf", "Co", "Cn", "Zs", "Zl", "Zp")) | st.sampled_from(" \n\t")


@given(st.text(alphabet=PRINTABLE, max_size=60))
def test_printable_text_is_shown_as_itself(text):
    out = render_spans(CharTokenizer().encode_spans(text))
    assert text_of(out) == text if text else "Nothing to show" in out


@given(st.text(max_size=60))
def test_any_text_renders_without_live_markup(text):
    out = render_spans(BYTES.spans(BYTES.encode(text)), show_whitespace=True)
    tags = re.findall(r"<(/?[a-z]+)", out)
    assert set(tags) <= {
        "div",
        "/div",
        "span",
        "/span",
        "table",
        "/table",
        "caption",
        "/caption",
        "tr",
        "/tr",
        "th",
        "/th",
        "td",
        "/td",
    }


def test_tooltip_has_id_bytes_and_text_and_is_attribute_safe():
    s = spans_of(b'a"<b>')[0]
    tip = tooltip(s)
    assert "id 0" in tip and "61 22 3C 62 3E" in tip
    assert '"' not in tip and "<" not in tip
    assert html.unescape(tip).endswith("text: 'a\"<b>'")


def test_partial_characters_show_hex_not_replacement_characters():
    emoji = "😄".encode()
    out = render_spans(spans_of(emoji[:2], emoji[2:]))
    assert "&lt;F0 9F&gt;" in out and "&lt;98 84&gt;" in out
    assert "\ufffd" not in out
    assert "partial character" in out


def test_whitespace_glyphs_and_real_line_breaks():
    sp = spans_of(b"a b", b"\n", b"\t")
    plain = render_spans(sp)
    assert 'class="ws"' not in plain and text_of(plain) == "a b\n\t"
    shown = render_spans(sp, show_whitespace=True)
    assert '<span class="ws">·</span>' in shown
    assert '<span class="ws">↵</span>\n' in shown  # glyph, then a real line break
    assert '<span class="ws">→</span>' in shown


def test_colour_is_stable_per_id_and_neighbours_differ():
    ids = [5, 5, 5, 7, 7, 300, 5]
    colors = colors_for(ids)
    assert all(a != b for a, b in zip(colors, colors[1:]))
    assert colors_for([42])[0] == PALETTE[color_index(42)]
    # the same id keeps its colour wherever its neighbour does not force a change
    assert colors_for([1, 42])[1] == colors_for([42])[0] or color_index(1) == color_index(42)


@given(st.lists(st.integers(0, 300_000), max_size=200))
def test_neighbours_never_share_a_colour(ids):
    colors = colors_for(ids)
    assert len(colors) == len(ids)
    assert all(a != b for a, b in zip(colors, colors[1:]))


def test_highlight_dim_cuts_and_specials():
    sp = spans_of(b"<|endoftext|>", b"ab", b"cd", specials=frozenset({0}))
    out = render_spans(sp, highlight=[1], dim=[2], cuts=[0, 2])
    assert 'class="t sp"' in out
    assert 'class="t hl"' in out
    assert 'class="t dim"' in out
    assert out.count('class="cut"') == 1  # never before the first token


def test_limit_draws_only_the_first_spans_and_says_so():
    sp = BYTES.spans(BYTES.encode("abcdefghij"))
    out = render_spans(sp, limit=3)
    assert out.count('class="t') == 3
    assert "Showing the first 3 of 10 tokens." in out
    assert "Showing" not in render_spans(sp, limit=10)


def test_empty_state():
    out = render_spans([], empty="Nothing <here>")
    assert out == '<div class="bpe-empty">Nothing &lt;here&gt;</div>'


def test_rows_escape_labels_and_keep_each_rows_marks():
    a, b = spans_of(b"un", b"do"), spans_of(b"und", b"o")
    out = render_rows([Row("<img src=x>", a, dim=[0]), Row("B", b, cuts=[1])], limit=1)
    assert "<img" not in out and "&lt;img src=x&gt;" in out
    assert out.count('class="bpe-row"') == 2 and out.count('class="t dim"') == 1
    assert out.count("Showing the first 1 of 2 tokens.") == 2
    assert '<span class="n">2 tokens</span>' in out


def test_token_html_of_control_characters_is_hex():
    assert token_html(b"\x00", show_whitespace=False) == '<span class="hx">&lt;00&gt;</span>'
    assert token_html(b"\x1b[0m", show_whitespace=True).startswith('<span class="hx">&lt;1B&gt;</span>')


@pytest.mark.parametrize("show_whitespace", [False, True])
def test_no_character_of_a_token_draws_as_nothing(show_whitespace):
    """o200k's id 125141 is "\\r\\n\\r\\n//": its carriage returns drew as empty boxes with whitespace hidden. Every
    character that would draw as nothing (a control or format character, a separator other than space, private
    use, unassigned) is its UTF-8 bytes in the hex style, with or without whitespace glyphs; nothing else is."""
    import unicodedata

    for cp in [*range(0x00, 0x250), *range(0x2000, 0x2070), 0x3000, 0xFEFF, 0xE000, 0x10FFFF, 0x0378]:
        ch = chr(cp)
        out = token_html(ch.encode(), show_whitespace=show_whitespace)
        hidden = unicodedata.category(ch)[0] in "CZ" and ch not in " \n\t"
        if show_whitespace and ch in "\r":
            assert out == '<span class="ws">␍</span>'
        elif hidden:
            assert out == '<span class="hx">&lt;' + ch.encode().hex(" ").upper() + "&gt;</span>", hex(cp)
        else:
            assert "hx" not in out, hex(cp)


def sr_rows(html_text: str) -> list[list[str]]:
    """The screen-reader table's body rows, as cell texts."""
    [table] = re.findall(r'<div class="bpe-sr"><table>(.*?)</table></div>', html_text, flags=re.S)
    rows = re.findall(r"<tr>(.*?)</tr>", table)
    return [[html.unescape(c) for c in re.findall(r"<td>(.*?)</td>", r)] for r in rows[1:]]


@given(st.text(max_size=40))
def test_screen_readers_get_every_drawn_token_with_its_id_text_and_bytes(text):
    """The coloured spans are aria-hidden; a hidden table names each one: position, id, visible text, hex bytes."""
    sp = BYTES.spans(BYTES.encode(text))
    out = render_spans(sp, limit=25)
    if not sp:
        return
    assert out.startswith('<div class="bpe-spans" aria-hidden="true">')
    rows = sr_rows(out)
    assert len(rows) == min(25, len(sp))
    for row, s in zip(rows, sp):
        assert row == [str(s.index + 1), str(s.id), visible(s.bytes), s.bytes.hex(" ").upper()]


def test_each_compare_row_has_its_own_table_named_after_the_tokenizer():
    out = render_rows([Row("GPT-2 <x>", spans_of(b"a", b"b")), Row("B", spans_of(b"ab"))])
    assert out.count('<div class="bpe-sr"><table>') == 2
    assert "<caption>GPT-2 &lt;x&gt;: 2 tokens</caption>" in out and "<caption>B: 1 token</caption>" in out


@given(st.text(max_size=60), st.booleans())
def test_a_shared_memo_draws_what_separate_calls_draw(text, ws):
    """render_pieces hands one memo to every piece's render_spans: the HTML is what each piece drawn alone gives."""
    from ui.render.pieces import PieceRow, render_pieces

    spans = make_spans([(i, text[k : k + 2].encode()) for i, k in enumerate(range(0, len(text), 2))])
    rows = [PieceRow(f"P{k}", "", spans[k : k + 3]) for k in range(0, len(spans), 3)]
    memo: dict = {}
    for r in rows:
        alone = render_spans(r.spans, show_whitespace=ws, caption=r.label, tooltips=False)
        assert render_spans(r.spans, show_whitespace=ws, caption=r.label, tooltips=False, memo=memo) == alone
    joined = render_pieces(rows, show_whitespace=ws, tooltips=False)
    for r in rows:
        assert render_spans(r.spans, show_whitespace=ws, caption=r.label, tooltips=False) in joined


@given(st.text(max_size=40), st.booleans())
def test_rows_share_a_memo_and_draw_what_each_row_alone_draws(text, ws):
    """render_rows hands one memo to every row (tooltips included): each row's spans are drawn as alone."""
    one = make_spans([(i, text[k : k + 2].encode()) for i, k in enumerate(range(0, len(text), 2))])
    two = make_spans([(i + 1, text[k : k + 1].encode()) for i, k in enumerate(range(len(text)))])
    joined = render_rows([Row("A", one), Row("B", two)], show_whitespace=ws)
    for label, spans in (("A", one), ("B", two)):
        assert render_spans(spans, show_whitespace=ws, caption=label) in joined
