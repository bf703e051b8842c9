"""What the pages say of a token's merge tree: the merges that build it in the order they were learned, what a
merge's rank is, and one line of explanation. The tree itself is drawn in the browser (``ui/web/trees.js``, from
``ui.render.records.tree``).

Pure functions (no Streamlit).
"""

from __future__ import annotations

from collections.abc import Mapping

from tokenizer.display import visible
from tokenizer.trace import MergeTree

#: What a table's rank column holds (``rank_line`` says it of one token).
RANK_HELP = (
    "The merge's rank: its place in the merge list, counted from 0 (rank 0 was learned first). Where the 256 single "
    "bytes come first (OpenAI's encodings, your own tokenizers), the id is 256 + the rank."
)


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
