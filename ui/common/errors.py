"""Expected failures become a message on the page, never a traceback."""

from __future__ import annotations

from contextlib import contextmanager

import streamlit as st

from ui.render.markdown import md


@contextmanager
def shown(stop: bool = False, prefix: str = ""):
    """Show a ValueError from the core with ``st.error``; optionally stop the page there.

    The message and ``prefix`` are shown literally (``md``): both may quote a name or text a user chose.

    >>> # with shown(): tok.encode(text)   # a bad input becomes a red box, the page goes on
    """
    try:
        yield
    except ValueError as e:
        st.error(md(f"{prefix}{e}"), icon="⚠️")
        if stop:
            st.stop()
