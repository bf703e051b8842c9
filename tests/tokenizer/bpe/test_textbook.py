"""bpe/textbook.py: the reference itself, on known answers (the seeds', Wikipedia's) and round trips.

The fast engine is tested against the textbook everywhere else; these check that the
textbook is right on its own.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tokenizer.bpe import textbook


def test_merge_left_to_right():
    assert textbook.merge([1, 1, 1, 1, 2], (1, 1), 9) == [9, 9, 2]
    assert textbook.merge([1, 2, 1, 2], (1, 2), 7) == [7, 7]


def test_get_stats_counts_overlapping_pairs_in_order_of_first_meeting():
    assert textbook.get_stats([97, 97, 97, 98]) == {(97, 97): 2, (97, 98): 1}
    assert list(textbook.get_stats([3, 1, 2, 3, 1])) == [(3, 1), (1, 2), (2, 3)]


def test_wikipedia_example():
    # en.wikipedia.org/wiki/Byte_pair_encoding: aaabdaaabac -> ZabdZabac -> ZYdZYac -> XdXac
    merges = textbook.train("aaabdaaabac", 259)
    assert merges == [((97, 97), 256, 4), ((256, 97), 257, 2), ((257, 98), 258, 2)]
    assert textbook.encode("aaabdaaabac", {p: i for p, i, _ in merges}) == [258, 100, 258, 97, 99]


def test_ties_go_to_the_pair_met_first():
    # every pair occurs once: merged in the order they appear
    assert [p for p, _, _ in textbook.train("abcd", 259)] == [(97, 98), (256, 99), (257, 100)]


def test_training_stops_when_every_chunk_is_one_token():
    assert len(textbook.train("ab ab", 300, r"\w+| ")) == 1


def test_split_keeps_every_character():
    assert textbook.split("a, b", r"\w+") == ["a", ", ", "b"]
    assert textbook.split("", r"\w+") == [] and textbook.split("xy") == ["xy"]


@given(st.text(max_size=60), st.text(max_size=60))
def test_decode_inverts_encode(train_text, text):
    merges = {p: i for p, i, _ in textbook.train(train_text, 280)}
    assert textbook.decode(textbook.encode(text, merges), merges) == text
