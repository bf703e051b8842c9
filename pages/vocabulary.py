"""Vocabulary: browse any tokenizer's tokens, see how each was built, find the unused and unreachable ones."""

import streamlit as st

from ui.common import presenter, shell
from ui.vocabulary import unreachable_view, view

shell.open_page(__file__, view.STATE)
st.title("📖 Vocabulary")
presenter.intro(
    "Every token of a byte-level BPE vocabulary is either one of the 256 bytes, a merge of two earlier tokens, or a special token. "
    "Filter the table, click a token to see its merge tree, and find the tokens a text never uses."
)
choice = view.page()
st.divider()
unreachable_view.section(choice)
