"""ui/render/style.css: the one stylesheet styles every class the HTML builders use, and only those."""

from __future__ import annotations

import re
from pathlib import Path

from drawn import render

from tokenizer import train
from tokenizer.trace import MergeTree, make_spans
from ui.common.presenter import MARKER
from ui.render import STYLESHEET, records
from ui.render.records import PieceRow, Row
from ui.step.model import word_ladder

ROOT = Path(__file__).resolve().parents[3]


def every_kind_of_html() -> str:
    from ui.tokenize.view import decoded_html

    tok = train("aaabdaaabac <|x|> 😄😄 \t\n", 262, pattern=None, special_tokens=["<|x|>"])
    emoji = "😄".encode()
    sp = make_spans([(1, b"a b\n\t"), (2, emoji[:2]), (3, emoji[2:]), (4, b"<|x|>")], {4})
    m = tok.merge_list[0]
    deep = MergeTree(1000, b"ab", (MergeTree(97, b"a"), MergeTree(98, b"b")))
    wide = MergeTree(1001, b"abab" * 60, (deep, deep))
    deepest = deep
    for k in range(10):
        deepest = MergeTree(2000 + k, deepest.bytes * 2, (deepest, deepest))  # 2,047 nodes: cut, with a note
    full = {"showWhitespace": True, "highlight": [0], "limit": 3}
    drawn = render(
        [
            {"kind": "spans", "tokens": records.tokens(sp, 3), "options": full, "scroll": {"height": 100, "label": "x"}},
            {"kind": "spans", "tokens": records.tokens([])},
            {"kind": "rows", "rows": records.rows([Row("A", sp, dim=[1], cuts=[2])])},
            {"kind": "chunks", "rows": records.rows([Row("A", sp, dim=[1], cuts=[2]), Row("B", [])])},
            {"kind": "ladder", "rungs": records.ladder(word_ladder(tok, "aaab"))},
            {"kind": "ladder", "rungs": records.ladder([("bytes", sp, {0})])},
            {"kind": "tree", "tree": records.tree(tok.merge_tree(m.new_id), tok.rank_of)},
            {"kind": "tree", "tree": records.tree(wide, {1000: 0, 1001: 1})},
            {"kind": "tree", "tree": records.tree(deepest, {})},
            {
                "kind": "pieces",
                "rows": records.pieces([PieceRow("1", "a", sp), PieceRow("2", "b", sp, "😄")], 6)[0],
                "options": {"left": 1},
            },
            {"kind": "panel", "panel": records.panel(tok.merge_tree(m.new_id), tok.rank_of, where="mine")},
            {"kind": "panel", "panel": records.panel(MergeTree(4, b"<|x|>"), {}, special=True)},
        ]
    )
    # the stepper's cards (ui/web/cards.js) are drawn in the page only: their classes are those of this card
    card = '<div class="bpe-card"><span class="lbl"></span><span class="chip new"></span><span class="op"></span><span class="meta"></span></div>'
    return "".join([*drawn, card, MARKER, decoded_html("decoded")])  # MARKER: presenter mode's; decoded: Tokenize's Ids mode


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
