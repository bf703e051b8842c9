"""Step through: replay training merge by merge, or encoding one merge rank at a time."""

import streamlit as st

from ui.common import shell
from ui.step import view

shell.open_page(__file__, view.STATE)
view.restore_link()

st.title("👣 Step through")
st.caption(
    "Every step is one merge. In **training** mode you see how your tokenizer learned its vocabulary; "
    "in **encoding** mode you see how a tokenizer turns a text into tokens, lowest merge rank first. "
    "The address bar keeps the mode, tokenizer and step: copy it to share this exact step."
)
view.page()
