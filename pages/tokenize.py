"""Tokenize: paste text, pick a tokenizer, see its tokens (a Tiktokenizer-style playground)."""

import streamlit as st

from ui.common import present, shell
from ui.tokenize import pieces_view, view

shell.open_page(__file__, view.STATE)
st.title("Tokenize")
st.caption(
    "Type or paste text and pick a tokenizer: each coloured box is one token. "
    "Compare OpenAI's GPT-2 to GPT-4o, open models (Llama, Qwen, Mistral, gpt-oss), your own tokenizers, and the two baselines "
    "(one token per byte or per character)."
)
view.restore_link()

left, right = st.columns([5, 6], gap="large")
with left:
    key = view.choose_tokenizer()
    inp = view.input_panel(key)
view.publish_link(inp)

with right:
    if not inp.text:
        view.empty_state(inp)
        st.stop()
    res = view.tokenize(inp)
    if res is None:
        st.stop()
    view.show_counts(inp, res)
    view.show_spans(inp, res)
    view.show_ids(res)
    view.show_chat_text(inp)

with present.fold("Token table, ids and bytes"):  # secondary: folded away in presenter mode
    view.show_details(inp, res)

pieces_view.section(inp, res)
