"""bpe/merges.py: the merge table's checks and order, and merges recovered from tiktoken-style ranks."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.tier import examples
from tokenizer.bpe.merges import MergeTable, check_order, recover_merges, tiktoken_last_merge, without_missing_inputs


def test_recovery_names_the_token_it_cannot_build():
    with pytest.raises(ValueError, match=r"b'abc' \(rank 256\) is not made of two lower-ranked tokens"):
        recover_merges([(b"abc", 256)], range(256))


def test_merges_listed_before_what_they_build_on_get_a_building_order():
    # merge 0 uses id 257, which merge 1 mints: build 1 first
    known, order = check_order(MergeTable([(97, 257), (98, 99)], [256, 257]), range(256))
    assert order == [1, 0] and {256, 257} <= known
    assert check_order(MergeTable([(97, 98), (256, 99)], [256, 257]), range(256))[1] is None  # already in order


@pytest.mark.parametrize(
    "pairs, new_ids, message",
    [
        ([(97, 98), (97, 99)], [256, 256], "mints id 256, which is already taken"),
        ([(97, 300)], [256], "uses id 300, which no byte or merge defines"),
        ([(97, 257), (98, 256)], [256, 257], "builds on itself through other merges"),
    ],
)
def test_merges_that_cannot_be_built_are_refused_with_the_reason(pairs, new_ids, message):
    with pytest.raises(ValueError, match=message):
        check_order(MergeTable(pairs, new_ids), range(256))


def test_truncated_merges_keep_only_what_they_can_build():
    table = MergeTable([(97, 257), (98, 99), (256, 100)], [256, 257, 258])
    kept = without_missing_inputs(MergeTable(table.pairs[:1] + table.pairs[2:], [256, 258]), range(256))
    assert kept.pairs == []  # 256 needs 257, which the cut removed; 258 needs 256


def rule_on_bytes(token: bytes, ranks: dict[bytes, int]) -> tuple[bytes, bytes] | None:
    """tiktoken's rule as its docstring says it, every joined pair looked up again at every step: the reference."""
    parts = [bytes([b]) for b in token]
    last = None
    while len(parts) > 1:
        joined = [(ranks[parts[i] + parts[i + 1]], i) for i in range(len(parts) - 1) if parts[i] + parts[i + 1] in ranks]
        if not joined:
            return None
        _, i = min(joined)
        last = (parts[i], parts[i + 1])
        parts[i : i + 2] = [parts[i] + parts[i + 1]]
    return last if parts == [token] else None


def abc(least: int, most: int):
    """Bytes over a three-letter alphabet, so that joined parts are often tokens."""
    return st.lists(st.sampled_from(b"abc"), min_size=least, max_size=most).map(bytes)


@settings(max_examples=examples(400), deadline=None)
@given(
    st.dictionaries(abc(2, 5), st.integers(0, 40), max_size=30),
    abc(0, 9),
)
def test_tiktoken_last_merge_follows_the_rule(ranks, token):
    """Ties of rank included (the leftmost wins), tokens that the rule never reaches, the empty and one-byte token."""
    assert tiktoken_last_merge(token, ranks) == rule_on_bytes(token, ranks)


def test_tiktoken_last_merge_of_cl100k_tokens():
    import tiktoken

    enc = tiktoken.get_encoding("cl100k_base")
    ranks = {t: enc.encode_single_token(t) for t in enc.token_byte_values()}
    tokens = sorted(ranks, key=ranks.get)[::7]  # every 7th: the reference is quadratic
    assert [tiktoken_last_merge(t, ranks) for t in tokens] == [rule_on_bytes(t, ranks) for t in tokens]
