"""bpe/merges.py: the merge table's checks and order, and merges recovered from tiktoken-style ranks."""

from __future__ import annotations

import pytest

from tokenizer.bpe.merges import MergeTable, check_order, recover_merges, without_missing_inputs


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
