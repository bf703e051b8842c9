"""A token's merge tree drawn as nested HTML: the token on top, the two tokens it was
merged from below it, and so on down to single bytes.

Pure functions (no Streamlit): a ``MergeTree`` in, an escaped HTML string out. The
connecting lines are CSS on nested lists (``style.css``), so the drawing needs no
JavaScript and no Graphviz, and every label goes through ``html.escape`` (via
``spans.token_html``).
"""

from __future__ import annotations

import html
from collections.abc import Mapping

from tokenizer.display import hex_bytes, visible
from tokenizer.trace import MergeTree

from .spans import PALETTE, color_index, token_html

#: What a table's rank column holds (``rank_line`` says it of one token).
RANK_HELP = (
    "The merge's rank: its place in the merge list, counted from 0 (rank 0 was learned first). Where the 256 single "
    "bytes come first (OpenAI's encodings, your own tokenizers), the id is 256 + the rank."
)
#: Trees with more nodes than this are cut below the given depth (a note says so).
MAX_NODES = 511
#: A tree drawn wider than this (px, estimated: ``drawn_width``) may not fit its panel (Tokenize's at 1280 px is
#: about 790): it says it scrolls sideways, and the keyboard can scroll it.
WIDE_PX = 760


def drawn_width(tree: MergeTree) -> int:
    """About how wide the tree is drawn (px): each box as wide as its label, a node as wide as its children.

    >>> drawn_width(MergeTree(97, b"a")), drawn_width(MergeTree(256, b"ab", (MergeTree(97, b"a"), MergeTree(98, b"b"))))
    (70, 140)
    """
    own = max(len(visible(tree.bytes)) * 10, 52) + 18
    return max(own, sum(drawn_width(c) for c in tree.children)) if tree.children else own


def count_nodes(tree: MergeTree) -> int:
    """Nodes in the tree, leaves included.

    >>> count_nodes(MergeTree(256, b"ab", (MergeTree(97, b"a"), MergeTree(98, b"b"))))
    3
    """
    return 1 + sum(count_nodes(c) for c in tree.children)


def _node(tree: MergeTree, rank_of: Mapping[int, int], *, root: bool, depth_left: int) -> str:
    color = PALETTE[color_index(tree.id)]
    cls = "node" + (" root" if root else "") + ("" if tree.children else " leaf")
    if tree.children:
        meta = f"id {tree.id} · rank {rank_of[tree.id]:,}" if tree.id in rank_of else f"id {tree.id}"
    else:
        meta = f"byte {html.escape(hex_bytes(tree.bytes)[1:-1])}"  # the id is in the hover text
    label = (
        f'<div class="{cls}" style="background:{color}" title="{html.escape(f"id {tree.id}, {len(tree.bytes)} bytes", quote=True)}">'
        f'<span class="tok">{token_html(tree.bytes, show_whitespace=True)}</span><span class="meta">{meta}</span></div>'
    )
    if not tree.children:
        return f"<li>{label}</li>"
    if depth_left <= 0:
        return f'<li>{label}<div class="bpe-tree-note">…</div></li>'
    kids = "".join(_node(c, rank_of, root=False, depth_left=depth_left - 1) for c in tree.children)
    return f"<li>{label}<ul>{kids}</ul></li>"


def tree_html(tree: MergeTree, rank_of: Mapping[int, int], *, max_nodes: int = MAX_NODES) -> str:
    """The merge tree as HTML.

    >>> from tokenizer import train
    >>> tok = train("aaabdaaabac", 259, pattern=None)
    >>> h = tree_html(tok.merge_tree(258), tok.rank_of)
    >>> h.count('class="node'), "rank 2" in h
    (7, True)
    >>> "&lt;b&gt;" in tree_html(MergeTree(1, b"<b>"), {})
    True
    """
    depth = tree.depth
    note = ""
    if count_nodes(tree) > max_nodes:
        # a full binary tree of depth d has 2^d - 1 nodes: cut where it still fits
        depth = max(1, (max_nodes + 1).bit_length() - 1)
        note = f'<div class="bpe-tree-note">The tree is {tree.depth} levels deep; showing the top {depth}.</div>'
    wide = drawn_width(tree) > WIDE_PX
    head = ""
    attrs = ""
    if wide:  # a scrollbar that only shows on hover is no hint: say it, and let the keyboard scroll it
        head = '<div class="bpe-tree-note bpe-tree-wide">A wide tree: scroll it sideways to see all of it.</div>'
        attrs = f' tabindex="0" role="group" aria-label="Merge tree of id {tree.id}, scrolls sideways"'
    return f'{head}<div class="bpe-tree"{attrs}><ul>{_node(tree, rank_of, root=True, depth_left=depth - 1)}</ul></div>' + note


def build_order(tree: MergeTree, rank_of: Mapping[int, int]) -> list[tuple[int, int, int, int]]:
    """The merges that build the token, in the order they were learned: ``[(rank, left, right, new), ...]``.

    >>> from tokenizer import train
    >>> tok = train("aaabdaaabac", 259, pattern=None)
    >>> build_order(tok.merge_tree(258), tok.rank_of)
    [(0, 97, 97, 256), (1, 256, 97, 257), (2, 257, 98, 258)]
    """
    seen: dict[int, tuple[int, int, int, int]] = {}

    def walk(t: MergeTree) -> None:
        if not t.children:
            return
        for c in t.children:
            walk(c)
        seen[t.id] = (rank_of.get(t.id, -1), t.children[0].id, t.children[1].id, t.id)

    walk(tree)
    return sorted(seen.values())


def _chip(tid: int, data: bytes) -> str:
    color = PALETTE[color_index(tid)]
    return f'<span class="chip" style="background:{color}" title="id {tid}">{token_html(data, show_whitespace=True)}</span>'


def _labels(tree: MergeTree) -> dict[int, bytes]:
    """``{id: bytes}`` of every node in the tree."""
    out = {tree.id: tree.bytes}
    for c in tree.children:
        out.update(_labels(c))
    return out


def panel_html(tree: MergeTree, rank_of: Mapping[int, int], *, where: str = "", special: bool = False) -> str:
    """How one token was built, as a self-contained block: a line that says what it shows, the merge tree down to
    bytes (``tree_html``, each merge's rank and id on its box), and the merges in the order they were learned.

    Pages call it with a tokenizer's ``merge_tree(id)`` and ``rank_of``: Compare under a clicked token, and any
    page that shows spans. ``where`` names the tokenizer in the heading; ``special`` says the token is a special
    token (it was added whole, not merged). A box's "rank r" is the merge's place in the merge list, from 0
    (``rank_line``).

    >>> from tokenizer import train
    >>> tok = train("aaabdaaabac", 259, pattern=None)
    >>> h = panel_html(tok.merge_tree(258), tok.rank_of, where="<mine>")
    >>> h.count("node leaf"), h.count('class="step"'), "&lt;mine&gt;" in h, "rank 2" in h
    (4, 3, True, True)
    >>> "special token" in panel_html(MergeTree(5, b"<|x|>"), {}, special=True)
    True
    """
    name = token_html(tree.bytes, show_whitespace=True)
    under = f" under {html.escape(where)}" if where else ""
    n = len(tree.bytes)
    size = f"id {tree.id} · {n:,} byte{'s' if n != 1 else ''}"
    order = build_order(tree, rank_of) if tree.children else []
    head = f'<div class="bpe-built-head"><b>How <span class="tok">{name}</span> was built{under}</b><span class="meta">{size}</span></div>'
    if special:
        line = "A special token: the tokenizer adds it whole and never builds it from merges, so it has no tree."
    elif not tree.children and n == 1:
        line = "A single byte: every token is built up from bytes like this one, so there is nothing below it."
    elif not tree.children:
        line = "A whole token of the vocabulary: it is not built by any merge, so it has no tree of merges."
    else:
        merges = f"{len(order)} merge{'s' if len(order) != 1 else ''}"
        line = (
            f"Its merge tree, down to its {n:,} bytes: {merges}, each box a token with its id and its merge's rank. "
            "Read it from the bottom up: the tokenizer applied the lower merges first. "
            + html.escape(rank_line(tree.id, rank_of[tree.id]))
        )
    # a wide tree scrolls sideways in a box the keyboard can focus and scroll (axe: scrollable-region-focusable)
    box = f'<div class="bpe-built-tree" tabindex="0" role="group" aria-label="Merge tree of id {tree.id}">{tree_html(tree, rank_of)}</div>'
    out = [f'<div class="bpe-built">{head}<div class="bpe-built-line">{line}</div>', box]
    if tree.children:
        labels = _labels(tree)
        steps = "".join(
            f'<li class="step"><span class="rank">rank {rank:,}</span>{_chip(a, labels[a])}<span class="op">+</span>'
            f'{_chip(b, labels[b])}<span class="op">→</span>{_chip(new, labels[new])}</li>'
            for rank, a, b, new in order
        )
        out.append(
            f'<details class="bpe-built-order"><summary>The merges in the order they were learned</summary><ol>{steps}</ol></details>'
        )
    out.append("</div>")
    return "".join(out)


def rank_line(token_id: int, rank: int) -> str:
    """What a merge's rank is and how it relates to the token's id: the one line every page that shows a rank uses.

    >>> rank_line(5963, 5707)  # cl100k_base's "token"
    "Rank 5,707: the merge's place in the merge list, counted from 0 (rank 0 was learned first). Its id, 5,963, is 256 + the rank (the 256 single bytes come first); tiktoken counts the bytes too, so its rank for this token is the id."
    >>> rank_line(70, 3)
    "Rank 3: the merge's place in the merge list, counted from 0 (rank 0 was learned first). Its id, 70, is this tokenizer's own number for the token, not 256 + the rank."
    """
    head = f"Rank {rank:,}: the merge's place in the merge list, counted from 0 (rank 0 was learned first)."
    if token_id == rank + 256:
        return (
            f"{head} Its id, {token_id:,}, is 256 + the rank (the 256 single bytes come first); tiktoken counts the "
            "bytes too, so its rank for this token is the id."
        )
    return f"{head} Its id, {token_id:,}, is this tokenizer's own number for the token, not 256 + the rank."


def explain(tok, token_id: int) -> str:
    """One line under a token's tree: the merges that built it in the order they were learned, or why it has none.

    >>> from tokenizer import train
    >>> tok = train("aaabdaaabac", 259, pattern=None, special_tokens=["<|end|>"])
    >>> explain(tok, 258).split(". Rank")[0]
    'Built in 3 merges, in the order they were learned: aa → aaa → aaab'
    >>> explain(tok, 97)
    'A single byte: every byte-level BPE vocabulary starts with all 256 of them.'
    >>> explain(tok, tok.special_tokens["<|end|>"])
    'A special token: added whole, never merged from smaller tokens.'
    """
    order = build_order(tok.merge_tree(token_id), tok.rank_of)
    if order:
        steps = " → ".join(visible(tok.vocab[new]) for _, _, _, new in order)
        return (
            f"Built in {len(order)} merge{'s' if len(order) != 1 else ''}, in the order they were learned: {steps}. "
            + rank_line(token_id, tok.rank_of[token_id])
        )
    if token_id in tok.special_ids:
        return "A special token: added whole, never merged from smaller tokens."
    if token_id in tok.whole_tokens:
        return (
            "A whole-chunk token: no merge of this vocabulary builds it, so BPE never reaches it; the encoder gives it "
            "only for a regex chunk that equals it, as tiktoken does."
        )
    return "A single byte: every byte-level BPE vocabulary starts with all 256 of them."
