"""Compare: the same text under several tokenizers, side by side."""

import streamlit as st

from ui.common import presenter, shell
from ui.compare import token_tax_view, view

shell.open_page(__file__, view.STATE)
st.title("⚖️ Compare")
presenter.intro(
    "One text, several tokenizers, one row each: see how many tokens each needs, "
    "where they cut the text differently, and how well they compress our sample texts."
)
view.restore_link()

text, dropped = view.input_panel(menu=not presenter.on())
keys = view.choose_tokenizers()
recognise, ws, highlight = view.options_row()
rows = presenter.slot()  # in presenter mode the rows come right under the controls, the sample menu and link below
if presenter.on():
    view.sample_menu()
view.publish_link(keys, text, dropped)
view.show_share(keys, text, dropped)
chosen = view.resolve(keys)  # once per run: every section below reads these records

if dropped:
    view.show_too_long(len(text) + dropped)
if not keys:
    with rows:
        st.info("Choose one or more tokenizers above to compare them.", icon="⚖️")
    st.stop()
if not text:
    with rows:
        st.info("Nothing to compare yet. Type or paste some text above, or load a sample text.", icon="✍️")
else:
    results = view.tokenize_all(chosen, text, recognise=recognise)
    view.kind_note(chosen)
    diff = view.boundary_diff(results)
    with rows:
        view.show_rows(results, show_whitespace=ws, diff=diff if highlight else None)
    view.show_stats(text, results)
    if diff is not None:
        view.show_diff(diff, results)

token_tax_view.show_token_tax(chosen)

with presenter.fold("Sample set: compression per tokenizer"):  # secondary: folded away in presenter mode
    view.show_leaderboard(chosen)
    view.show_samples_preview()
