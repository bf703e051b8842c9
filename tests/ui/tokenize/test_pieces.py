"""ui/tokenize/pieces.py: a text's tokens in pieces of N, against the definition (hypothesis) and tiktoken."""

from __future__ import annotations

import functools
import json
import math

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st
from tier import examples

from tokenizer import load_encoding, train
from ui.tokenize import pieces


# built when a test first needs them, not when the module is collected (every pytest process collects it)
def gpt4():
    return load_encoding("cl100k_base")


@functools.cache
def small():
    return train("Hello 你好 😄 world, hello again " * 20, 300, pattern="gpt4")


texts = st.text(alphabet=st.sampled_from(list("ab c\n你好😄é🤚🏾<|>endoftx")), max_size=80)


def char_starts(text: str) -> set[int]:
    """Byte offsets where a character begins (and the end): the only places a cut keeps characters whole."""
    out, pos = {0}, 0
    for ch in text:
        pos += len(ch.encode("utf-8"))
        out.add(pos)
    return out


@settings(max_examples=examples(200))
@given(texts, st.integers(1, 40), st.sampled_from([gpt4, small]).map(lambda made: made()))
def test_pieces_are_the_ids_cut_every_n(text, n, tok):
    ids = tok.encode(text, disallowed_special=())
    spans = tok.spans(ids)
    cut = pieces.cut(spans, n)
    assert len(cut) == math.ceil(len(ids) / n)
    assert [i for p in cut for i in p.ids] == ids  # joined again: the text's ids
    assert b"".join(p.data for p in cut) == text.encode("utf-8")  # and its bytes
    assert all(len(p.spans) == n for p in cut[:-1]) and all(1 <= len(p.spans) <= n for p in cut)
    starts = char_starts(text)
    offset = 0
    for k, p in enumerate(cut):
        assert p.index == k and p.first == k * n
        assert p.starts_inside == (offset not in starts)  # a cut inside a character, by the text's own offsets
        offset += len(p.data)
        assert p.ends_inside == (offset not in starts)
        assert p.text == p.data.decode("utf-8", "replace")
        assert p.whole_characters == (not p.starts_inside and not p.ends_inside)
    assert [k for k, _ in pieces.broken_characters(cut)] == [p.index for p in cut if p.starts_inside]
    for _, ch in pieces.broken_characters(cut):
        assert ch in text and len(ch) == 1


@settings(max_examples=examples(100))
@given(texts, st.integers(1, 40))
def test_json_lines_hold_each_piece(text, n):
    ids = gpt4().encode(text, disallowed_special=())
    cut = pieces.cut(gpt4().spans(ids), n)
    lines = pieces.jsonl(cut).splitlines()
    assert len(lines) == len(cut)
    records = [json.loads(line) for line in lines]
    assert [r["index"] for r in records] == list(range(len(cut)))
    assert [i for r in records for i in r["ids"]] == ids
    for r, p in zip(records, cut):
        assert set(r) == {"index", "text", "ids", "tokens", "whole_characters"}
        assert len(r["tokens"]) == len(r["ids"])
        assert r["text"] == gpt4().decode(r["ids"])  # tiktoken's decode, errors replaced
        assert r["whole_characters"] == p.whole_characters
        if r["whole_characters"]:
            assert r["text"].encode("utf-8") == gpt4().decode_bytes(r["ids"])  # exact when no cut broke a character


def test_the_default_texts_emoji_is_broken_between_two_pieces_of_16_under_gpt4():
    """A known answer from tiktoken: cl100k writes 🤚 as two tokens, and the 32nd token boundary falls between them."""
    from ui.content.samples import DEFAULT_TEXT

    enc = tiktoken.get_encoding("cl100k_base")
    ids = enc.encode(DEFAULT_TEXT)
    cut = pieces.cut(gpt4().spans(gpt4().encode(DEFAULT_TEXT)), 16)
    assert len(cut) == math.ceil(len(ids) / 16)

    def splits_a_character(k: int) -> bool:  # tiktoken's bytes of the first k tokens end inside a character
        try:
            b"".join(enc.decode_single_token_bytes(t) for t in ids[:k]).decode("utf-8")
        except UnicodeDecodeError:
            return True
        return False

    assert [k for k in range(16, len(ids), 16) if splits_a_character(k)] == [32]
    assert pieces.broken_characters(cut) == [(2, "🤚")]
    assert "\ufffd" in cut[1].text and "\ufffd" in cut[2].text


def test_a_recognised_special_token_is_one_token_never_split():
    text = "a<|endoftext|>b"
    recognised = gpt4().encode(text, allowed_special="all")
    cut = pieces.cut(gpt4().spans(recognised), 1)
    assert [p.text for p in cut] == ["a", "<|endoftext|>", "b"]
    assert cut[1].spans[0].special
    as_text = gpt4().encode(text, disallowed_special=())
    cut = pieces.cut(gpt4().spans(as_text), 2)
    assert len(as_text) > 3 and any("<|endoftext|>" not in p.text and "|" in p.text for p in cut)  # its string is cut


def test_n_larger_than_the_text_gives_one_piece_and_bad_n_says_what_to_give():
    spans = gpt4().spans(gpt4().encode("Hello world"))
    [one] = pieces.cut(spans, 10_000)
    assert one.ids == [s.id for s in spans] and one.whole_characters
    assert pieces.cut([], 5) == []
    for bad in (0, -3, 2.5, True, "16"):
        with pytest.raises(ValueError, match="whole number from 1 up"):
            pieces.cut(spans, bad)


def test_the_table_counts_every_piece():
    spans = gpt4().spans(gpt4().encode("Hello 你好 😄 world " * 10))
    cut = pieces.cut(spans, 7)
    table = pieces.table(cut).to_pandas()
    assert table["tokens"].sum() == len(spans)
    assert table["bytes"].sum() == len(("Hello 你好 😄 world " * 10).encode())
    assert table["piece"].tolist() == list(range(1, len(cut) + 1))
    assert (~table["whole characters"]).sum() == sum(1 for p in cut if not p.whole_characters)
