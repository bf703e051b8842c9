"""Keyboard stepping on Step through: → / ← one step, Home / End the ends, space play and pause.

A small JavaScript component (``keyboard.js``, Streamlit's public
``st.components.v2.component``) listens for those keys anywhere on the page, except
while the focus is in a text field, a menu or the slider, and presses the page's own
buttons (First, Prev, Next, Last, Play/Pause). So a key does exactly what a click
does: the same callbacks, a rerun of only the stepping fragment, the step written to
the address bar, nothing while a button is disabled (during play, at either end).
"""

from __future__ import annotations

import functools
from pathlib import Path

import streamlit as st

JS = Path(__file__).with_name("keyboard.js")
HINT = "Keys: → next step · ← previous · Home first · End last · space play / pause (when the cursor is not in a text box)."


@functools.cache
def _component():
    """Registered once per process, on first use (never at import)."""
    return st.components.v2.component("bpe_lab_step_keys", js=JS.read_text(encoding="utf-8"))


def install(key: str) -> None:
    """Listen for the stepping keys while this page is shown (renders nothing visible)."""
    _component()(key=key, height=0)
    st.caption(HINT)
