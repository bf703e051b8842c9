import streamlit as st

from ui import state

state.init()
st.title("Compare")
st.info("This page is coming soon.")
