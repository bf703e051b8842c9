"""The sidebar every page shares (below the page navigation)."""

from __future__ import annotations

import streamlit as st

from ui.common import workspace


def render() -> None:
    with st.sidebar:
        st.caption(
            "**BPE Lab** shows how byte-level BPE tokenizers (GPT-2, GPT-4, GPT-4o, and your own) "
            "turn text into tokens, one merge at a time."
        )
        st.caption(workspace.describe())
