"""ui/web/trees.js: merge trees and the panel of how a token was built, drawn from ui/render/records.py's records (in
node, tests/drawn.py); and ui/render/trees.py's build order."""

from __future__ import annotations

import re

import pytest
from drawn import render
from hypothesis import given, settings
from hypothesis import strategies as st
from merge_trees import core_labels, tree_labels
from tier import examples

from tokenizer import load_encoding, train
from tokenizer.trace import MergeTree
from ui.render import records, trees


def tree_html(tree, rank_of) -> str:
    return render([{"kind": "tree", "tree": records.tree(tree, rank_of)}])[0]


def panels(*args: tuple) -> list[str]:
    """The panel of each ``(tree, rank_of, where, special)``."""
    return render([{"kind": "panel", "panel": records.panel(t, r, where=w, special=sp)} for t, r, w, sp in args])


def test_tree_of_a_gpt2_word():
    tok = load_encoding("r50k_base")
    tid = tok.encode_single_token(" information")
    tree = tok.merge_tree(tid)
    html = tree_html(tree, tok.rank_of)
    assert html.count('class="node') == 2 * len(b" information") - 1
    assert html.count("node leaf") == len(b" information")
    order = trees.build_order(tree, tok.rank_of)
    assert order[-1][3] == tid and [r for r, *_ in order] == sorted(r for r, *_ in order)


def test_labels_are_escaped():
    tok = train('<img src=x onerror="alert(1)">' * 5, 300, pattern=None)
    tid = max(tok.vocab, key=lambda i: len(tok.vocab[i]))
    html = tree_html(tok.merge_tree(tid), tok.rank_of)
    assert "<img" not in html and "&lt;img" in html


def test_deep_trees_are_cut_with_a_note():
    leaves = [MergeTree(i, bytes([97])) for i in range(600)]
    level = leaves
    nid = 1000
    while len(level) > 1:
        nxt = []
        for a, b in zip(level[::2], level[1::2]):
            nxt.append(MergeTree(nid, a.bytes + b.bytes, (a, b)))
            nid += 1
        if len(level) % 2:
            nxt.append(level[-1])
        level = nxt
    html = tree_html(level[0], {})
    assert "The tree is 11 levels deep; showing the top 9." in html  # 600 leaves: 1,203 nodes, more than 511
    assert html.count('class="node') < 600


TEXT = "Tokenization of internationalization: 你好世界, Привет, नमस्ते, 🤚🏾 x = 1234567890;\r\n\tdef f():  return 'ok'"


@pytest.mark.parametrize("name", ["r50k_base", "o200k_base", "llama3", "qwen2.5", "tekken", "deepseek_v4"])
def test_the_panel_of_every_token_of_a_model(name):
    """Each token of a multilingual text: the leaves are its bytes, each merge named by the core's rank (from 0), and the
    merges listed in the order learned are the tree's different merges (one merge can build two of its parts), by rank."""
    tok = load_encoding(name)
    ids = sorted(set(tok.encode(TEXT)))
    for tid, html in zip(ids, panels(*[(tok.merge_tree(t), tok.rank_of, name, False) for t in ids])):
        merged, leaves = tree_labels(html)
        assert (merged, leaves) == core_labels(tok, tid), tid
        ranks = [int(r.replace(",", "")) for r in re.findall(r'<span class="rank">rank ([\d,]+)</span>', html)]
        assert ranks == sorted({tok.rank_of[int(m.split()[1])] for m in merged})


@settings(max_examples=examples(15), deadline=None)
@given(st.text(min_size=1, max_size=60))
def test_the_panel_of_every_token_of_a_trained_tokenizer(text):
    tok = train("the theory of the thermal thesis; 你好你好 " * 8, 300, pattern="gpt4")
    ids = sorted(set(tok.encode_ordinary(text)))
    for tid, html in zip(ids, panels(*[(tok.merge_tree(t), tok.rank_of, "", False) for t in ids])):
        assert tree_labels(html) == core_labels(tok, tid)
        assert html.count('class="step"') == len(set(tree_labels(html)[0]))
        if len(tok.decode_single_token_bytes(tid)) == 1:
            assert "A single byte" in html


def test_special_and_whole_tokens_say_why_they_have_no_tree():
    tok = load_encoding("cl100k_base")
    html, whole = panels((tok.merge_tree(tok.eot_token), tok.rank_of, "", True), (MergeTree(9, b"whole"), {}, "", False))
    assert "A special token" in html and 'class="step"' not in html
    assert "A whole token of the vocabulary" in whole
