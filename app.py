"""BPE Lab: see how byte-level BPE tokenizers work.

Navigation only: the one list of pages (order, titles, icons, URL paths). Each
page opens at its file's name (``/compare``, ``/train``), so a link to a page opened
before the app has run once still lands on it (ui/common/shell.py). Tokenize is the
default page, served at ``/``; Streamlit reserves but does not serve a default page's
own ``url_path``, so ``/tokenize`` is a hidden page that moves to ``/`` with the same
query parameters (``shell.alias``). ``shell.run`` puts the shared parts around the
chosen page. Start it with `make run`.
"""

import streamlit as st

from ui.common import presenter, shell

st.set_page_config(page_title="BPE Lab", page_icon="🧩", layout="wide")

TOKENIZE = st.Page("pages/tokenize.py", title="Tokenize", icon="🔤", url_path="tokenize-home", default=True)
PAGES = [
    TOKENIZE,
    st.Page("pages/pretokenize.py", title="Pre-tokenize", icon="✂️", url_path="pretokenize"),
    st.Page("pages/compare.py", title="Compare", icon="⚖️", url_path="compare"),
    st.Page("pages/overlap.py", title="Overlap", icon="🔀", url_path="overlap"),
    st.Page("pages/train.py", title="Train", icon="🏋️", url_path="train"),
    st.Page("pages/step.py", title="Step through", icon="👣", url_path="step"),
    st.Page("pages/vocabulary.py", title="Vocabulary", icon="📖", url_path="vocabulary"),
    st.Page("pages/lesson.py", title="Lesson", icon="🎓", url_path="lesson"),
    shell.alias(TOKENIZE, "tokenize"),  # hidden: /tokenize opens Tokenize at /
]

# presenter mode (?present=1) puts the page list on top, where a projector shows it
shell.run(st.navigation(PAGES, position=presenter.nav_position()))
