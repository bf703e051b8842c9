import streamlit as st

from ui import state

state.init()
st.title("Vocabulary")
st.info("This page is coming soon.")
