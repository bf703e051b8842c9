"""Tokenize's "Cut into pieces of N tokens" in AppTest: the default, N larger than the text, special tokens, a
user's tokenizer, chat mode, bad N. Texts come in by link (``?tokenizer=…&text=…``), as a person would share them."""

from __future__ import annotations

import math
from pathlib import Path

import tiktoken
from live_view import payload
from streamlit.testing.v1 import AppTest

from classroom.stores import FolderStore
from tokenizer import train
from ui.content.samples import DEFAULT_TEXT

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "tokenize.py")


def app(query: dict | None = None, n: int | None = None) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params.update(query or {})
    at.run()
    assert not at.exception, at.exception
    if n is not None:
        at.number_input(key="pieces.n").set_value(n).run()
        assert not at.exception, at.exception
    return at


def pieces_table(at):
    [df] = [d.value for d in at.dataframe if "whole characters" in d.value.columns]
    return df


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_the_default_text_in_pieces_of_16_with_the_broken_emoji_named():
    at = app(query={"tokenizer": "cl100k_base"})
    assert "Cut into pieces of N tokens" in [s.value for s in at.subheader]
    assert at.number_input(key="pieces.n").value == 16
    ids = tiktoken.get_encoding("cl100k_base").encode(DEFAULT_TEXT)
    table = pieces_table(at)
    n_pieces = math.ceil(len(ids) / 16)
    assert len(table) == n_pieces and metrics(at)["Pieces"] == f"{n_pieces}"
    assert table["tokens"].tolist() == [16] * (len(table) - 1) + [len(ids) - 16 * (len(table) - 1)]
    assert table["bytes"].sum() == len(DEFAULT_TEXT.encode())
    assert metrics(at)["Cuts inside a character"] == "1"
    assert any("before piece 3 (🤚)" in w.value for w in at.warning)
    assert table["whole characters"].tolist()[1:3] == [False, False]
    assert len(at.get("download_button")) == 1


def test_n_larger_than_the_text_is_one_piece():
    at = app(query={"tokenizer": "r50k_base", "text": "Hello world"}, n=4096)
    assert metrics(at)["Pieces"] == "1"
    assert any("one piece holds them all" in i.value for i in at.info)
    assert pieces_table(at)["tokens"].tolist() == [2]


def test_special_tokens_recognised_are_one_token_and_as_text_several():
    text = "a<|endoftext|>b"
    at = app(query={"tokenizer": "cl100k_base", "text": text}, n=1)
    as_text = len(tiktoken.get_encoding("cl100k_base").encode(text, disallowed_special=()))
    assert metrics(at)["Pieces"] == f"{as_text}"  # the page's default: special tokens are text
    at.segmented_control(key="tokenize.special").set_value("recognise").run()
    assert metrics(at)["Pieces"] == "3"
    assert pieces_table(at)["starts with"].tolist() == ["a", "<|endoftext|>", "b"]


def test_a_users_tokenizer_and_chat_mode(workspace):
    mine = train("low lower lowest newer newest " * 30, 280, pattern="gpt4", name="mine")
    key = FolderStore(workspace).add(mine, corpus="x")
    at = app(query={"tokenizer": "user:" + key, "text": "lowest newest low"}, n=2)
    ids = mine.encode("lowest newest low")
    assert pieces_table(at)["tokens"].sum() == len(ids)
    assert metrics(at)["Pieces"] == f"{math.ceil(len(ids) / 2)}"
    chat = app(query={"tokenizer": "o200k_base"})
    chat.segmented_control(key="tokenize.mode").set_value("chat").run()
    assert not chat.exception
    shown = payload(chat)["server"]["ids"]  # the live view's tokens: the chat's, framing included
    assert len(shown) > 8 and pieces_table(chat)["tokens"].sum() == len(shown)


def test_a_bad_n_is_refused_by_the_box():
    at = app(query={"tokenizer": "r50k_base", "text": "Hello"})
    at.number_input(key="pieces.n").set_value(0).run()  # below its minimum: the widget keeps a valid value
    assert not at.exception
    assert at.number_input(key="pieces.n").value >= 1
