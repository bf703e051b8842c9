"""ui/tokenize/model.py: the chat format, the token and bytes tables, the special-token lines."""

from __future__ import annotations

import functools

import pytest
import tiktoken
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

import tokenizer
from tests.tier import examples
from tokenizer.models.pretrained import CHAT_SPECIAL_TOKENS
from tokenizer.trace import make_spans
from ui.tokenize import model


@pytest.fixture(scope="module")
def chat_encodings():
    return {n: tokenizer.load_encoding(n).with_special_tokens(CHAT_SPECIAL_TOKENS[n]) for n in CHAT_SPECIAL_TOKENS}


def test_bytes_table_of_an_emoji():
    df = model.bytes_table("a😄")
    assert df.to_pydict() == {
        "char": ["a", "😄"],
        "code point": ["U+0061", "U+1F604"],
        "utf-8 bytes": ["61", "F0 9F 98 84"],
        "n bytes": [1, 4],
        "byte offset": [0, 1],
    }
    assert len(model.bytes_table("x" * 50, limit=10)) == 10


def test_token_table_marks_partial_and_special_tokens():
    emoji = "😄".encode()
    df = model.token_table(make_spans([(1, b" hi"), (2, emoji[:2]), (3, emoji[2:]), (4, b"<|endoftext|>")], {4}))
    assert df.column("text").to_pylist() == ["·hi", "<F0 9F>", "<98 84>", "<|endoftext|>"]
    assert df.column("kind").to_pylist() == ["", "part of a character", "part of a character", "special"]
    assert df.column("bytes").to_pylist()[0] == "20 68 69"


def test_tables_work_out_each_distinct_token_and_character_once_and_keep_every_row():
    """token_table and bytes_table reuse a repeated token's (character's) cells: the rows are those of one per token."""
    emoji = "😄".encode()
    tokens = [(1, b" hi"), (2, emoji[:2]), (1, b" hi"), (3, emoji[2:]), (2, emoji[:2]), (4, b"<|endoftext|>"), (1, b" hi")]
    spans = make_spans(tokens, {4})
    rows = model.token_table(spans).to_pylist()
    assert [r["index"] for r in rows] == list(range(7)) and [r["id"] for r in rows] == [t for t, _ in tokens]
    assert [r["text"] for r in rows] == [tokenizer.visible(b) for _, b in tokens]
    assert [r["bytes"] for r in rows] == [model.spaced_hex(b) for _, b in tokens]
    assert [r["kind"] for r in rows][:3] == ["", "part of a character", ""]
    text = "aé a😄é"
    table = model.bytes_table(text).to_pydict()
    assert table["char"] == ["a", "é", "·", "a", "😄", "é"]
    assert table["byte offset"] == [0, 1, 3, 4, 5, 9] and table["n bytes"] == [1, 2, 1, 1, 4, 2]
    assert model.bytes_table(text, limit=3).to_pydict()["byte offset"] == [0, 1, 3]


def test_byte_histogram_and_summary():
    assert model.byte_histogram("aé你😄") == {1: 1, 2: 1, 3: 1, 4: 1}
    assert model.bytes_summary("") == "**0 characters (code points) → 0 UTF-8 bytes**: nothing"


def test_special_token_lines():
    assert "no special tokens" in model.special_note({}, recognise=True, mode="text")
    four = {f"<|s{i}|>": i for i in range(4)}
    assert "and 2 more" in model.special_note(four, recognise=True, mode="text")
    assert model.special_note(four, recognise=False, mode="chat").endswith("The chat framing tokens stay special.")
    assert model.special_help({}) == "This tokenizer has no special tokens."
    assert model.specials_in_text(four, "x<|s3|>y<|s1|>") == ["<|s1|>", "<|s3|>"]


# ---------------------------------------------------------------- chat


@functools.cache
def chat_reference(name: str) -> tiktoken.Encoding:
    base = tiktoken.get_encoding(name)
    return tiktoken.Encoding(
        name=f"{name}-chat",
        pat_str=base._pat_str,
        mergeable_ranks=base._mergeable_ranks,
        special_tokens={**base._special_tokens, **CHAT_SPECIAL_TOKENS[name]},
    )


def test_chat_format_is_tiktokenizers():
    msgs = [{"role": "system", "content": "Be brief"}, {"role": "user", "content": "Hi"}]
    assert model.chat_text(msgs) == (
        "<|im_start|>system<|im_sep|>Be brief<|im_end|><|im_start|>user<|im_sep|>Hi<|im_end|><|im_start|>assistant<|im_sep|>"
    )
    assert model.chat_text([]) == "<|im_start|>assistant<|im_sep|>"
    assert model.next_role([{"role": "assistant", "content": ""}]) == "user"


MESSAGES = st.lists(
    st.fixed_dictionaries(
        {
            "role": st.sampled_from(model.ROLES),
            "content": st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=30),
        }
    ),
    max_size=4,
)


def chat_reference_ids(name: str, msgs) -> list[int]:
    """tiktoken, piece by piece: framing tokens by id, roles and contents as ordinary text."""
    ref = chat_reference(name)
    start, end, sep = (ref.encode_single_token(t) for t in ("<|im_start|>", "<|im_end|>", "<|im_sep|>"))
    ids: list[int] = []
    for m in msgs:
        ids += [start, *ref.encode_ordinary(m["role"]), sep, *ref.encode_ordinary(m["content"]), end]
    return [*ids, start, *ref.encode_ordinary("assistant"), sep]


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
@settings(max_examples=examples(30))
@given(msgs=MESSAGES)
@example(msgs=[{"role": "system", "content": "<|im_start|>"}])
def test_chat_encoding_equals_tiktoken_with_the_chat_tokens(chat_encodings, name, msgs):
    # contents are text even when they spell a special token (hypothesis finds '<|im_start|>')
    assert model.encode_chat(chat_encodings[name], msgs) == chat_reference_ids(name, msgs)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
@settings(max_examples=examples(30))
@given(msgs=MESSAGES)
def test_chat_encoding_is_tiktokens_whole_text_encoding_without_special_strings(chat_encodings, name, msgs):
    ref = chat_reference(name)
    assume(not any(s in m["content"] for m in msgs for s in ref.special_tokens_set))
    expected = ref.encode(model.chat_text(msgs), allowed_special=set(CHAT_SPECIAL_TOKENS[name]), disallowed_special=())
    assert model.encode_chat(chat_encodings[name], msgs) == expected


def test_special_strings_in_messages_stay_text_unless_recognised(chat_encodings):
    tok = chat_encodings["cl100k_base"]
    msgs = [{"role": "user", "content": "<|im_end|>"}]
    assert model.encode_chat(tok, msgs).count(100265) == 1
    assert model.encode_chat(tok, msgs, recognise_special=True).count(100265) == 2
