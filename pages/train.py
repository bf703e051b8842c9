"""Train: learn a byte-level BPE tokenizer on your own text and watch the merges appear."""

import streamlit as st

from ui.common import presenter, shell
from ui.train import heldout_view, variants_view, view

shell.open_page(__file__, view.STATE)
view.recover_interrupted()
st.title("🏋️ Train")
view.interrupted_note()
presenter.intro(
    "Byte-level BPE starts from the 256 byte values and repeatedly merges the most frequent neighbouring pair "
    "into a new token. Pick a corpus, choose how many tokens you want, and train."
)

method = variants_view.method_picker()
if method == "bpe":
    corpus_col, settings_col = st.columns([3, 2], gap="large")
    with corpus_col:
        text, title = view.corpus_section()
    with settings_col:
        settings = view.settings_section(text, title)
    view.train_section(text, settings)
else:
    variants_view.section(method)
st.divider()
key = view.workspace_section()
if key is not None:
    view.results_section(key)
    variants_view.results(key)
    heldout_view.section(key)
