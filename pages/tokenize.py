"""Tokenize: type or paste text, pick a tokenizer, see its tokens as you type (a Tiktokenizer-style playground)."""

import streamlit as st

from ui.common import presenter, shell
from ui.tokenize import live, pieces_view, view

shell.open_page(__file__, view.STATE)
st.title("🔤 Tokenize")
presenter.intro(
    "Type or paste text and pick a tokenizer: each coloured box is one token, and they follow your typing. "
    "Compare OpenAI's GPT-2 to GPT-4o, open models (Llama, Qwen, Mistral, DeepSeek, gpt-oss), your own tokenizers, and the two baselines "
    "(one token per byte or per character)."
)
view.restore_link()
inp = view.controls()
view.publish_link(inp)

if inp.mode == "chat":
    left, right = st.columns([5, 6], gap="large")
    with left:
        inp = view.chat_input(inp)
    res = view.tokenize(inp) if not inp.problem else None
    with right:
        live.show(lambda: inp, res)
        view.show_chat_text(inp)
elif inp.mode == "ids":
    inp, res = view.decode_ids(inp)
else:
    live.show(view.controls_again)
    res = view.tokenize(inp) if inp.text else None

if res is not None:
    with presenter.fold("Token table, bytes and link"):  # secondary: folded away in presenter mode
        view.show_details(inp, res)
    if inp.mode != "ids":
        pieces_view.section(inp, res)  # the text the server last heard (the box tells it when typing stops)
