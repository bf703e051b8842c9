"""ui/render/cards.py: Step through's merge cards and word ladder, escaped."""

from __future__ import annotations

from tokenizer import load_encoding, train
from ui.render import cards
from ui.step.model import word_ladder


def test_html_is_escaped():
    tok = train("<b>x</b><b>x</b><b>x</b>", 262, pattern=None)
    m = tok.merge_list[-1]
    card = cards.merge_card(tok.vocab, m.pair, m.new_id, label="Step <1>", meta="<script>")
    assert "<script>" not in card and "&lt;script&gt;" in card and "Step &lt;1&gt;" in card
    ladder = cards.ladder_html(word_ladder(tok, "<b>x</b>"))
    assert "<b>x" not in ladder and "&lt;" in ladder
    assert "&lt;" in cards.note_card("<i>")


def test_ladder_has_a_row_per_step_and_outlines_the_new_tokens():
    tok = load_encoding("r50k_base")
    ladder = word_ladder(tok, "tokenization")
    html = cards.ladder_html(ladder)
    assert html.count("<tr>") == len(ladder)
    assert html.count('class="t hl"') == sum(len(new) for _, _, new in ladder)
    assert html.endswith(f"{len(tok.encode('tokenization'))} tokens</td></tr></table></div>")


def test_merge_card_shows_both_halves_and_the_new_token():
    tok = load_encoding("r50k_base")
    tid = tok.encode_single_token(" the")
    left, right = tok.parents[tid]
    card = cards.merge_card(tok.vocab, (left, right), tid, label="Step 1")
    assert card.count('class="chip') == 3 and 'class="chip new"' in card
    assert f"id {tid} · 4 bytes &lt;20 74 68 65&gt;" in card
