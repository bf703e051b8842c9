"""ui/web/draw.js, the one renderer of token spans, rows, chunks, pieces and the word ladder, from the records of
ui/render/records.py: run in node (tests/drawn.py), a batch of drawings per call."""

from __future__ import annotations

import html
import re
import unicodedata

from drawn import render
from hypothesis import given, settings
from hypothesis import strategies as st
from tier import examples

from tokenizer import Tokenizer, visible
from tokenizer.baselines import CharTokenizer
from tokenizer.trace import make_spans
from ui.render import records
from ui.render.records import PieceRow, Row

BYTES = Tokenizer()  # ids are the byte values: one span per byte


def spans_of(*pieces: bytes, specials=frozenset()):
    return make_spans([(i, p) for i, p in enumerate(pieces)], specials)


def spans_msg(spans, limit=None, **options) -> dict:
    return {"kind": "spans", "tokens": records.tokens(spans, limit), "options": {"limit": limit, **options}}


def draw_spans(spans, limit=None, **options) -> str:
    [out] = render([spans_msg(spans, limit, **options)])
    return out


def text_of(html_text: str) -> str:
    """What a reader sees: tags (with the tooltips inside them) removed, entities decoded; the
    visually hidden screen-reader table left out."""
    body = re.sub(r'<div class="bpe-more">.*?</div>|<div class="bpe-sr"><table>.*?</table></div>', "", html_text, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", body))


TAGS = {"div", "span", "table", "caption", "tr", "th", "td"}


def test_user_text_is_escaped():
    evil = "<script>alert(1)</script><img src=x onerror=\"alert(2)\"> & 'q'"
    out = draw_spans(spans_of(evil.encode()[:10], evil.encode()[10:]))
    assert "<script" not in out and "<img" not in out
    assert text_of(out) == evil


PRINTABLE = st.characters(blacklist_categories=("Cs", "Cc", "Cf", "Co", "Cn", "Zs", "Zl", "Zp")) | st.sampled_from(" \n\t")


@settings(max_examples=examples(10), deadline=None)
@given(st.lists(st.text(alphabet=PRINTABLE, max_size=60), min_size=20, max_size=20))
def test_printable_text_is_shown_as_itself(texts):
    drawn = render([spans_msg(CharTokenizer().encode_spans(t)) for t in texts])
    for text, out in zip(texts, drawn):
        assert text_of(out) == text if text else "Nothing to show" in out


@settings(max_examples=examples(10), deadline=None)
@given(st.lists(st.text(max_size=60), min_size=20, max_size=20), st.booleans())
def test_any_text_draws_without_live_markup(texts, ws):
    drawn = render([spans_msg(BYTES.spans(BYTES.encode(t)), showWhitespace=ws) for t in texts])
    for out in drawn:
        assert {t.lstrip("/") for t in re.findall(r"<(/?[a-z]+)", out)} <= TAGS


def test_tooltip_has_id_bytes_and_text_and_is_attribute_safe():
    out = draw_spans(spans_of(b'a"<b>'))
    [tip] = re.findall(r'title="([^"]*)"', out)
    assert "id 0" in tip and "61 22 3C 62 3E" in tip and "<" not in tip
    assert html.unescape(tip).endswith("text: 'a\"<b>'")


def test_partial_characters_show_hex_not_replacement_characters():
    emoji = "😄".encode()
    out = draw_spans(spans_of(emoji[:2], emoji[2:]))
    assert "&lt;F0 9F&gt;" in out and "&lt;98 84&gt;" in out
    assert "\ufffd" not in out and "partial character" in out


def test_whitespace_glyphs_and_real_line_breaks():
    sp = spans_of(b"a b", b"\n", b"\t")
    plain, shown = render([spans_msg(sp), spans_msg(sp, showWhitespace=True)])
    assert 'class="ws"' not in plain and text_of(plain) == "a b\n\t"
    assert '<span class="ws">·</span>' in shown
    assert '<span class="ws">↵</span>\n' in shown  # glyph, then a real line break
    assert '<span class="ws">→</span>' in shown


def test_highlight_cuts_and_specials():
    sp = spans_of(b"<|endoftext|>", b"ab", b"cd", specials=frozenset({0}))
    out = draw_spans(sp, highlight=[1])
    assert 'class="t sp"' in out and 'class="t hl"' in out
    [rows] = render([{"kind": "rows", "rows": records.rows([Row("A", sp, dim=[2], cuts=[0, 2])])}])
    assert 'class="t dim"' in rows
    assert rows.count('class="cut"') == 1  # never before the first token


def test_limit_sends_and_draws_only_the_first_spans_and_says_so():
    sp = BYTES.spans(BYTES.encode("abcdefghij"))
    msg = spans_msg(sp, limit=3)
    assert msg["tokens"]["ids"] == [97, 98, 99] and msg["tokens"]["total"] == 10
    cut, whole = render([msg, spans_msg(sp, limit=10)])
    assert cut.count('class="t') == 3 and "Showing the first 3 of 10 tokens." in cut
    assert "Showing" not in whole


def test_empty_state():
    assert draw_spans([]) == '<div class="bpe-empty">Nothing to show yet: type or paste some text.</div>'


def test_rows_escape_labels_and_keep_each_rows_marks():
    a, b = spans_of(b"un", b"do"), spans_of(b"und", b"o")
    [out] = render(
        [
            {
                "kind": "rows",
                "rows": records.rows([Row("<img src=x>", a, dim=[0]), Row("B", b, cuts=[1])], 1),
                "options": {"limit": 1},
            }
        ]
    )
    assert "<img" not in out and "&lt;img src=x&gt;" in out
    assert out.count('class="bpe-row"') == 2 and out.count('class="t dim"') == 1
    assert out.count("Showing the first 1 of 2 tokens.") == 2
    assert '<span class="n">2 tokens</span>' in out


def test_each_row_has_its_own_screen_reader_table_named_after_the_tokenizer():
    [out] = render([{"kind": "rows", "rows": records.rows([Row("GPT-2 <x>", spans_of(b"a", b"b")), Row("B", spans_of(b"ab"))])}])
    assert out.count('<div class="bpe-sr"><table>') == 2
    assert "<caption>GPT-2 &lt;x&gt;: 2 tokens</caption>" in out and "<caption>B: 1 token</caption>" in out


def test_no_character_of_a_token_draws_as_nothing():
    """o200k's id 125141 is "\\r\\n\\r\\n//": its carriage returns drew as empty boxes with whitespace hidden. Every
    character that would draw as nothing (a control or format character, a separator other than space, private
    use, unassigned in Python's tables) is its UTF-8 bytes in the hex style, with or without whitespace glyphs."""
    cps = [*range(0x00, 0x250), *range(0x2000, 0x2070), 0x3000, 0xFEFF, 0xE000, 0x10FFFF, 0x0378]
    for ws in (False, True):
        drawn = render([spans_msg(spans_of(chr(cp).encode()), showWhitespace=ws, tooltips=False) for cp in cps])
        for cp, out in zip(cps, drawn):
            ch = chr(cp)
            body = re.search(r'title="id \d+">(.*)</span></div><div class="bpe-sr">', out, re.S).group(1)
            hidden = unicodedata.category(ch)[0] in "CZ" and ch not in " \n\t"
            if ws and ch == "\r":
                assert body == '<span class="ws">␍</span>'
            elif hidden:
                assert body == '<span class="hx">&lt;' + ch.encode().hex(" ").upper() + "&gt;</span>", hex(cp)
            else:
                assert "hx" not in body, hex(cp)


def sr_rows(html_text: str) -> list[list[str]]:
    """The screen-reader table's body rows, as cell texts."""
    [table] = re.findall(r'<div class="bpe-sr"><table>(.*?)</table></div>', html_text, flags=re.S)
    rows = re.findall(r"<tr>(.*?)</tr>", table)
    return [[html.unescape(c) for c in re.findall(r"<td>(.*?)</td>", r)] for r in rows[1:]]


@settings(max_examples=examples(10), deadline=None)
@given(st.lists(st.text(min_size=1, max_size=40), min_size=20, max_size=20))
def test_screen_readers_get_every_drawn_token_with_its_id_text_and_bytes(texts):
    """The coloured spans are aria-hidden; a hidden table names each one: position, id, visible text, hex bytes."""
    spans = [BYTES.spans(BYTES.encode(t)) for t in texts]
    for sp, out in zip(spans, render([spans_msg(sp, limit=25) for sp in spans])):
        assert out.startswith('<div class="bpe-spans" aria-hidden="true">')
        rows = sr_rows(out)
        assert len(rows) == min(25, len(sp))
        for row, s in zip(rows, sp):
            assert row == [str(s.index + 1), str(s.id), visible(s.bytes), s.bytes.hex(" ").upper()]


def test_chunks_speak_of_chunks_and_escape_their_text():
    sp = spans_of(b"I", b"'M", b"<b>")
    [out, empty] = render(
        [
            {"kind": "chunks", "rows": records.rows([Row("<GPT-2>", sp, dim=[0], cuts={1})])},
            {"kind": "chunks", "rows": records.rows([Row("none", [])])},
        ]
    )
    assert "<b>&lt;GPT-2&gt;</b>" in out and out.count('class="t') == 3 and out.count('class="cut"') == 1
    assert "<caption>&lt;GPT-2&gt;: 3 chunks</caption>" in out and "&lt;b&gt;" in out and "<b><" not in out
    assert 'title="chunk 1 · 1 byte' in out and 'class="t dim"' in out
    assert "No chunks: the text is empty." in empty


def test_pieces_alternate_bands_cut_at_the_limit_and_say_how_many_are_left():
    rows = [PieceRow("Piece 1", "2 tokens", spans_of(b"a", b"<b>")), PieceRow("Piece 2", "1 token", spans_of(b"c", b"d"), "😄")]
    rows.append(PieceRow("Piece 3", "", spans_of(b"e")))
    drawn, left = records.pieces(rows, 3)
    assert left == 1 and [len(d["tokens"]["ids"]) for d in drawn] == [2, 1]
    [out] = render([{"kind": "pieces", "rows": drawn, "options": {"tooltips": False, "left": left}}])
    assert out.count('class="bpe-piece"') == 1 and out.count('class="bpe-piece alt"') == 1
    assert "&lt;b&gt;" in out and "falls inside 😄" in out and "Showing the first 1 of 2 tokens." in out
    assert "1 more piece: see the table." in out and 'title="id 0"' in out


def test_the_ladder_outlines_each_rungs_new_tokens():
    rungs = [("bytes <0>", spans_of(b"a", b"b"), set()), ("rank 0", make_spans([(256, b"ab")]), {0})]
    [out] = render([{"kind": "ladder", "rungs": records.ladder(rungs)}])
    assert out.count("<tr>") == 2 and out.count('class="t hl"') == 1 and "bytes &lt;0&gt;" in out
    assert out.endswith("1 tokens</td></tr></table></div>")


def test_a_scroll_box_is_named_and_reachable_by_the_keyboard():
    msg = spans_msg(spans_of(b"a")) | {"scroll": {"height": 420, "label": "Tokens & more"}}
    [out] = render([msg])
    assert out.startswith(
        '<div class="bpe-scroll" tabindex="0" role="region" aria-label="Tokens &amp; more" style="max-height:420px">'
    )


def test_an_unknown_kind_draws_nothing():
    assert render([{"kind": "<script>"}]) == [""]
