"""Compare: the same text under several tokenizers, side by side."""

import streamlit as st

from ui.compare import view as cmp

cmp.init()
st.title("Compare")
st.caption(
    "One text, several tokenizers, one row each: see how many tokens each needs, "
    "where they cut the text differently, and how well they compress our sample texts."
)
cmp.restore_link()

text, dropped = cmp.input_panel()
keys = cmp.choose_tokenizers()
recognise, ws, highlight = cmp.options_row()
cmp.publish_link(keys, text, dropped)

if dropped:
    cmp.show_too_long(len(text) + dropped)
if not keys:
    st.info("Choose one or more tokenizers above to compare them.", icon="⚖️")
    st.stop()
if not text:
    st.info("Nothing to compare yet. Type or paste some text above, or load a sample text.", icon="✍️")
else:
    results = cmp.tokenize_all(keys, text, recognise=recognise)
    diff = cmp.boundary_diff(results) if len(results) > 1 else None
    cmp.show_rows(results, show_whitespace=ws, diff=diff if highlight else None)
    cmp.show_stats(text, results)
    if diff is not None:
        cmp.show_diff(diff, results)

cmp.show_leaderboard(keys)
cmp.show_samples_preview()
