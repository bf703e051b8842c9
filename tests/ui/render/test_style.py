"""ui/render/style.css: the one stylesheet styles every class the HTML builders use, and only those."""

from __future__ import annotations

import re
from pathlib import Path

from tokenizer import train
from tokenizer.trace import MergeTree, make_spans
from ui.common.presenter import MARKER
from ui.render import STYLESHEET, cards, pieces, spans, trees
from ui.step.model import word_ladder

ROOT = Path(__file__).resolve().parents[3]


def every_kind_of_html() -> str:
    from ui.tokenize.view import decoded_html

    tok = train("aaabdaaabac <|x|> 😄😄 \t\n", 262, pattern=None, special_tokens=["<|x|>"])
    emoji = "😄".encode()
    sp = make_spans([(1, b"a b\n\t"), (2, emoji[:2]), (3, emoji[2:]), (4, b"<|x|>")], {4})
    m = tok.merge_list[0]
    deep = MergeTree(1000, b"ab", (MergeTree(97, b"a"), MergeTree(98, b"b")))
    wide = MergeTree(1001, b"abab", (deep, deep))
    return "".join(
        [
            spans.render_spans(sp, show_whitespace=True, highlight=[0], dim=[1], cuts=[2], limit=3),
            spans.render_spans([]),
            spans.render_rows([spans.Row("A", sp)]),
            cards.merge_card(tok.vocab, m.pair, m.new_id, label="Step 1", meta="count 4"),
            cards.note_card("note"),
            cards.ladder_html(word_ladder(tok, "aaab")),
            cards.ladder_html([("bytes", sp, {0})]),
            trees.tree_html(tok.merge_tree(m.new_id), tok.rank_of),
            trees.tree_html(wide, {1000: 0, 1001: 1}, max_nodes=2),
            MARKER,  # presenter mode's marker (ui.common.presenter)
            spans.scroll_box("", height=100, label="x"),
            pieces.render_pieces([pieces.PieceRow("1", "a", sp), pieces.PieceRow("2", "b", sp, "😄")]),
            trees.panel_html(tok.merge_tree(m.new_id), tok.rank_of, where="mine"),
            trees.panel_html(MergeTree(4, b"<|x|>"), {}, special=True),
            trees.tree_html(MergeTree(1002, b"x" * 90, (MergeTree(120, b"x"), MergeTree(1003, b"x" * 89))), {1002: 5}),
            decoded_html("decoded"),  # Tokenize's Ids mode
        ]
    )


def used_classes(html: str) -> set[str]:
    return {c for attr in re.findall(r'class="([^"]*)"', html) for c in attr.split()}


def browser_classes() -> set[str]:
    """Classes the browser modules (ui/**/*.js: the live Tokenize view) set themselves: ``class: "…"`` in the
    element builder, ``class="…"`` in markup, ``classList.add/remove/toggle("…")``."""
    js = "".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "ui").rglob("*.js")))
    found = re.findall(r'class(?:Name)?\s*[:=]\s*"([^"$]*)"', js) + re.findall(r'class=\\?"([^"\\$]*)', js)
    found += re.findall(r'classList\.(?:add|remove|toggle)\(\s*"([^"]+)"', js)
    found += re.findall(r'\bmake\(\s*"[a-z]+"\s*,\s*"([^"$]*)"', js)  # ui/tokenize/live.js's make(tag, classes, text)
    return {c for attr in found for c in attr.split()}


def styled_classes() -> set[str]:
    css = re.sub(r"/\*.*?\*/", "", STYLESHEET.read_text(encoding="utf-8"), flags=re.S)
    return set(re.findall(r"\.([a-zA-Z][\w-]*)", css))


def test_every_class_in_the_html_has_a_rule():
    assert used_classes(every_kind_of_html()) - styled_classes() == set()


def test_every_rule_is_for_a_class_the_html_uses():
    assert styled_classes() - used_classes(every_kind_of_html()) - browser_classes() == set()
    assert {"bpe-live", "picked", "hov"} <= browser_classes()  # the live view's, found in ui/web/tokenize.js
    assert {"bpe-pickable", "picked", "bpe-built-close", "bpe-built-slot"} <= browser_classes()  # ui/compare/rows.js


def test_no_css_in_python_strings():
    offenders = [str(p.relative_to(ROOT)) for p in (ROOT / "ui").rglob("*.py") if "<style" in p.read_text(encoding="utf-8")]
    assert offenders == []


def test_no_angle_bracket_in_the_stylesheet():
    """Streamlit's HTML sanitiser drops a style element whose text holds a tag-like "<div": the whole sheet would vanish."""
    assert "<" not in STYLESHEET.read_text(encoding="utf-8")


def test_presenter_rules_only_apply_under_the_marker():
    css = re.sub(r"/\*.*?\*/", "", STYLESHEET.read_text(encoding="utf-8"), flags=re.S)
    rules = [r.strip() for r in re.findall(r"([^{}]+)\{", css)]
    presenter = [r for r in rules if "bpe-present" in r]
    assert len(presenter) >= 10
    assert all(sel.strip().startswith("html:has(.bpe-present)") for r in presenter for sel in r.split(","))
    assert "font-size:22px" in css  # the root size: every rem of the page grows 1.375x
