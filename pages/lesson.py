"""Lesson: the BPE story in nine chapters, each with its live figure and a question the app checks."""

import streamlit as st

from ui.common import shell
from ui.lesson import view

shell.open_page(__file__, view.STATE)
view.restore_link()

st.title("🎓 Lesson")
view.page()
