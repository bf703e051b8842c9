"""Step through: replay training merge by merge, or encoding one merge rank at a time."""

import streamlit as st

from ui.common import shell
from ui.step import view

shell.open_page(__file__, view.STATE)
view.restore_link()

st.title("👣 Step through")
view.intro()
view.page()
