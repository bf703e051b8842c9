"""ui/render/trees.py: merge trees as escaped HTML."""

from __future__ import annotations

from tokenizer import load_encoding, train
from tokenizer.trace import MergeTree
from ui.render import trees


def test_tree_of_a_gpt2_word():
    tok = load_encoding("r50k_base")
    tid = tok.encode_single_token(" information")
    tree = tok.merge_tree(tid)
    html = trees.tree_html(tree, tok.rank_of)
    assert html.count('class="node') == trees.count_nodes(tree) == 2 * len(b" information") - 1
    assert html.count("node leaf") == len(b" information")
    order = trees.build_order(tree, tok.rank_of)
    assert order[-1][3] == tid and [r for r, *_ in order] == sorted(r for r, *_ in order)


def test_labels_are_escaped():
    tok = train('<img src=x onerror="alert(1)">' * 5, 300, pattern=None)
    tid = max(tok.vocab, key=lambda i: len(tok.vocab[i]))
    html = trees.tree_html(tok.merge_tree(tid), tok.rank_of)
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
    html = trees.tree_html(level[0], {}, max_nodes=63)
    assert "showing the top 6" in html
    assert html.count('class="node') < 80
