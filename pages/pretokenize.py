"""Pre-tokenize: what the split regex does to a text before BPE merges anything."""

import streamlit as st

from ui.common import presenter, shell
from ui.pretokenize import view

shell.open_page(__file__, view.STATE)
st.title("✂️ Pre-tokenize")
presenter.intro(
    "The first step of every GPT-style tokenizer: a regex cuts the text into chunks. Compare the patterns of GPT-2, "
    "GPT-4, GPT-4o, Llama, Qwen and Mistral (and your own) on one text, and see exactly where they cut differently.",
    more=view.EXPLANATION,
)
view.page()
