"""Tokenize: paste text, pick a tokenizer, see its tokens (a Tiktokenizer-style playground)."""

import streamlit as st

from ui.tokenize import view as pg

pg.init()
st.title("Tokenize")
st.caption(
    "Type or paste text and pick a tokenizer: each coloured box is one token. "
    "Compare GPT-2, GPT-4 and GPT-4o, your own tokenizers, and the two baselines (one token per byte or per character)."
)
pg.restore_link()

left, right = st.columns([5, 6], gap="large")
with left:
    key = pg.choose_tokenizer()
    inp = pg.input_panel(key)
pg.publish_link(inp)

with right:
    if not inp.text:
        pg.empty_state()
        st.stop()
    res = pg.tokenize(inp)
    if res is None:
        st.stop()
    pg.show_counts(inp, res)
    pg.show_spans(inp, res)
    pg.show_ids(res)
    pg.show_chat_text(inp)

pg.show_details(inp, res)
