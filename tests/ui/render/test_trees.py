"""ui/render/trees.py: merge trees as escaped HTML."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from merge_trees import core_labels, tree_labels
from tier import examples

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


TEXT = "Tokenization of internationalization: 你好世界, Привет, नमस्ते, 🤚🏾 x = 1234567890;\r\n\tdef f():  return 'ok'"


@pytest.mark.parametrize("name", ["r50k_base", "o200k_base", "llama3", "qwen2.5", "tekken", "deepseek_v4"])
def test_the_panel_of_every_token_of_a_model(name):
    """Each token of a multilingual text: the leaves are its bytes, each merge named by the core's rank (from 0), and the
    merges listed in the order learned are the tree's different merges (one merge can build two of its parts), by rank."""
    tok = load_encoding(name)
    for tid in set(tok.encode(TEXT)):
        html = trees.panel_html(tok.merge_tree(tid), tok.rank_of, where=name)
        merged, leaves = tree_labels(html)
        assert (merged, leaves) == core_labels(tok, tid), tid
        ranks = [int(r.replace(",", "")) for r in re.findall(r'<span class="rank">rank ([\d,]+)</span>', html)]
        assert ranks == sorted({tok.rank_of[int(m.split()[1])] for m in merged})


@settings(max_examples=examples(50), deadline=None)
@given(st.text(min_size=1, max_size=60))
def test_the_panel_of_every_token_of_a_trained_tokenizer(text):
    tok = train("the theory of the thermal thesis; 你好你好 " * 8, 300, pattern="gpt4")
    for tid in set(tok.encode_ordinary(text)):
        html = trees.panel_html(tok.merge_tree(tid), tok.rank_of)
        assert tree_labels(html) == core_labels(tok, tid)
        assert html.count('class="step"') == len(set(tree_labels(html)[0]))
        if len(tok.decode_single_token_bytes(tid)) == 1:
            assert "A single byte" in html


def test_special_and_whole_tokens_say_why_they_have_no_tree():
    tok = load_encoding("cl100k_base")
    html = trees.panel_html(tok.merge_tree(tok.eot_token), tok.rank_of, special=True)
    assert "A special token" in html and 'class="step"' not in html
    whole = trees.panel_html(MergeTree(9, b"whole"), {})
    assert "A whole token of the vocabulary" in whole
