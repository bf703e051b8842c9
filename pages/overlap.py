"""Overlap: where two or more vocabularies meet, and how one tokenizer's tokens split under another's."""

import streamlit as st

from ui.common import presenter, shell
from ui.overlap import view

shell.open_page(__file__, view.STATE)
st.title("🔀 Overlap")
presenter.intro(
    "Two or more vocabularies side by side: the tokens they share and those only one has, how alike they are, "
    "and how one tokenizer's tokens come out under another's (GPT-4o's tokens as Llama 3 pieces, and back)."
)
view.restore_link()

keys = view.choose_tokenizers()
view.publish_link(keys)
chosen = view.load(keys)
if len(chosen) < 2:
    view.empty_state(len(chosen))
    st.stop()

ov = view.compute_overlap(chosen)
view.show_summary(ov)
view.show_longest(chosen, ov)
view.show_split_under(chosen)  # after the sections that show at once: the first time, it encodes every token
with presenter.fold("Every token, searchable"):  # secondary: folded away in presenter mode
    view.show_table(chosen, ov)
view.show_special(chosen)
