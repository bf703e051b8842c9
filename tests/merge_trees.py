"""What a drawn merge tree must say, from the core (the Compare, Tokenize and render tests share it)."""

from __future__ import annotations

import re


def tree_labels(html_text: str) -> tuple[list[str], list[str]]:
    """The merged boxes' labels (id and merge rank) and the leaves' (bytes) of a drawn tree, in order."""
    nodes = re.findall(r'<div class="node( root)?( leaf)?"[^>]*>.*?<span class="meta">([^<]*)</span></div>', html_text, re.S)
    return [m for _, leaf, m in nodes if not leaf], [m for _, leaf, m in nodes if leaf]


def core_labels(tok, tid: int) -> tuple[list[str], list[str]]:
    """The same from the core: every merged node in the tree's order (a node, then its left and right), and the bytes."""
    merged = []

    def walk(t) -> None:
        if t.children:
            merged.append(f"id {t.id} · rank {tok.rank_of[t.id]:,}")
            for c in t.children:
                walk(c)

    walk(tok.merge_tree(tid))
    return merged, [f"byte {b:02X}" for b in tok.decode_single_token_bytes(tid)]
