"""pretokenize/count.py: chunk counts of a text stream equal the whole text's, however it is read or counted."""

from __future__ import annotations

from collections import Counter

import pytest
import regex
from texts import OPEN_MODEL_PATTERNS, code_and_prose

from tokenizer import GPT4_PATTERN, count_chunks, train
from tokenizer.bpe import textbook
from tokenizer.pretokenize import count, splitter
from tokenizer.pretokenize.patterns import BUILTIN_PATTERNS


def _reference_counts(pattern, text, specials):
    """Chunk counts of the whole text, split with no cut at all (specials cut out)."""
    counts = Counter()
    pieces = regex.split("|".join(map(regex.escape, specials)), text) if specials else [text]
    for piece in pieces:
        counts.update(textbook.split(piece, pattern))
    return counts


@pytest.mark.parametrize(
    "pattern",
    dict.fromkeys(
        [
            *BUILTIN_PATTERNS.values(),
            *OPEN_MODEL_PATTERNS.values(),
            r"\p{L}+",
            r"[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s+",
        ]
    ),
)
def test_counts_of_a_text_read_in_blocks_are_those_of_the_whole_text(pattern, monkeypatch):
    monkeypatch.setattr(splitter, "WINDOW", 3_000)  # many pieces
    specials = ["<|endoftext|>", "<|fim_prefix|>"]
    text = code_and_prose(250_000)
    text = "<|endoftext|>".join(text[i : i + 40_000] for i in range(0, len(text), 40_000)) + "<|fim_prefix|>tail"
    blocks = [text[i : i + 977] for i in range(0, len(text), 977)]  # special tokens fall across blocks
    streamed = count_chunks([iter(blocks)], pattern, specials)
    assert list(streamed.items()) == list(_reference_counts(pattern, text, specials).items())


def test_count_chunks_keeps_first_appearance_order_and_streams_long_text():
    text = "word\nWord " * 200_000  # 2 MB, cut into windows internally
    counts = count_chunks(text, "gpt4")
    assert list(counts) == ["word", "\n", "Word", " word", " "]
    assert counts[" word"] == 199_999
    assert counts == Counter(regex.findall(GPT4_PATTERN, text))


def test_counting_in_worker_processes_changes_nothing(monkeypatch):
    monkeypatch.setattr(count, "PARALLEL_CHARS", 10_000)  # hand pieces to workers early
    monkeypatch.setattr(splitter, "WINDOW", 7_000)
    text = code_and_prose(200_000)
    docs = [text[:90_000], [text[90_000:150_000], text[150_000:]]]
    one = count_chunks(docs, "o200k", ["<|endoftext|>"], workers=1)
    two = count_chunks(docs, "o200k", ["<|endoftext|>"], workers=2)
    assert list(two.items()) == list(one.items())  # the order of first appearance too
    assert train(text, 600, workers=2).merge_list == train(text, 600, workers=1).merge_list
    with pytest.raises(ValueError, match="workers must be a whole number of at least 1"):
        count_chunks(text, workers=0)
