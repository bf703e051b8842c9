"""Tokenize's Ids mode: token ids pasted in any of the usual forms decode to the text their tokenizer's reference
decodes them to, under every kind of tokenizer (OpenAI's against tiktoken, an open model's, one of yours, the two
baselines), with its tokens drawn and tabled; what is not an id, and an id the vocabulary lacks, is named in an error."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import tiktoken
from drawn import drawn
from reading import read
from streamlit.testing.v1 import AppTest

from tokenizer import load_encoding
from ui.common import tokenizers as tk

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "tokenize.py")
MIXED = "Hello 你好 — tokenization! 🤚🏾 x = 1234567890\n\tdef f():  return 'ok'\n"
FORMS = {
    "list": lambda ids: str(ids),
    "spaces": lambda ids: " ".join(map(str, ids)),
    "commas and lines": lambda ids: ",\n".join(map(str, ids)),
    "a tensor's repr": lambda ids: "(" + ", ".join(map(str, ids)) + ",)",
}


def ids_mode(tokenizer_key: str) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.run()
    at.selectbox(key="tokenize.tokenizer").set_value(tokenizer_key).run()
    at.segmented_control(key="tokenize.mode").set_value("ids").run()
    assert not at.exception, at.exception
    return at


def decode(at: AppTest, pasted: str) -> AppTest:
    at.text_area(key="tokenize.ids").input(pasted).run()
    assert not at.exception, at.exception
    return at


def decoded(at: AppTest) -> str:
    import html

    [pre] = [h.value for h in at.html if 'class="bpe-decoded"' in h.value]
    return html.unescape(re.fullmatch(r'<pre class="bpe-decoded"[^>]*>(.*)</pre>', pre, flags=re.S).group(1))


def drawn_ids(at: AppTest) -> list[int]:
    """The ids of the spans drawn (each span carries its id)."""
    [html] = [h for h in drawn(at) if "The decoded tokens" in h]
    return [int(i) for i in re.findall(r'data-id="(\d+)"', html)]


@pytest.mark.parametrize("name", ["r50k_base", "cl100k_base", "o200k_base"])
@pytest.mark.parametrize("form", list(FORMS))
def test_ids_decode_as_tiktoken_decodes_them(name, form):
    ids = tiktoken.get_encoding(name).encode(MIXED)
    at = decode(ids_mode(name), FORMS[form](ids))
    assert not at.error
    assert decoded(at) == tiktoken.get_encoding(name).decode(ids) == MIXED
    assert drawn_ids(at) == ids
    assert list(at.dataframe[0].value["id"]) == ids  # the token table is the decoded tokens'


def test_every_kind_of_tokenizer_decodes(workspace):
    from classroom.stores import FolderStore
    from tokenizer import train

    mine = train(MIXED * 3, 300, name="mine")
    user = "user:" + FolderStore(workspace).add(mine)
    for key, tok in [("llama3", tk.get("llama3")), (user, mine), ("bytes", tk.get("bytes")), ("chars", tk.get("chars"))]:
        ids = tok.encode(MIXED)
        at = decode(ids_mode(key), str(ids))
        assert not at.error, key
        assert decoded(at) == MIXED, key
        assert drawn_ids(at) == ids, key


def test_a_special_token_decodes_to_its_name():
    tok = load_encoding("cl100k_base")
    ids = [*tok.encode("Hi"), tok.special_tokens["<|endoftext|>"]]
    at = decode(ids_mode("cl100k_base"), str(ids))
    assert decoded(at) == "Hi<|endoftext|>"


@pytest.mark.parametrize("name", ["r50k_base", "cl100k_base", "llama3", "bytes"])
def test_an_id_the_vocabulary_lacks_is_named_with_the_vocabulary_size(name):
    tok = tk.choose(name).tokenizer(with_chat=True)
    top = tok.max_token_value
    at = decode(ids_mode(name), f"[9, {top + 1}, 10, {top + 1}, {10**9}]")
    [error] = [read(e.value) for e in at.error]
    size = len(tok.vocab)
    assert f"Token ids {top + 1}, {10**9} are not in the vocabulary" in error
    assert f"{size:,} tokens" in error and f"0 to {top:,}" in error
    assert not [h for h in at.html if 'class="bpe-decoded"' in h.value]  # nothing decoded


def test_an_unused_id_inside_the_range_is_named_too():
    tok = load_encoding("cl100k_base")  # 100,256 is between the last ordinary token and <|endoftext|>
    assert 100256 not in tok.vocab
    at = decode(ids_mode("cl100k_base"), "9906 100256")
    [error] = [read(e.value) for e in at.error]
    assert "Token id 100256 is not in the vocabulary of GPT-4 (cl100k_base)" in error


@pytest.mark.parametrize("bad", ["9906, hello", "1.5 2", "-3", "[9906, 1917", "１２"])
def test_what_is_not_an_id_is_named(bad):
    at = decode(ids_mode("cl100k_base"), bad)
    [error] = [read(e.value) for e in at.error]
    assert "is not a token id" in error and "[9906, 1917]" in error
    assert not [h for h in at.html if 'class="bpe-decoded"' in h.value]


def test_ids_mode_is_offered_for_every_tokenizer_and_hands_the_text_to_text_mode():
    at = ids_mode("r50k_base")  # no chat format: Text and Ids
    [mode] = [w for w in at.segmented_control if w.key == "tokenize.mode"]
    assert mode.options == ["Text", "Ids"]
    decode(at, "[15496, 995]")
    assert decoded(at) == "Hello world"
    at.button(key="tokenize.use_decoded").click().run()
    assert at.segmented_control(key="tokenize.mode").value == "text"
    assert at.session_state["shared.text"] == "Hello world"
