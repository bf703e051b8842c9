"""Session state: one place that names every shared key and its default.

Keys shared across pages are plain session-state entries (never widget keys,
which Streamlit drops when a page without that widget runs); page-local keys are
namespaced ``"<page>.<name>"``.
"""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st

#: The text the user is working on; the same on Tokenize, Compare and Step.
TEXT = "shared.text"
#: The tokenizer key last chosen on any page (see ui.tokenizers).
TOKENIZER = "shared.tokenizer"

DEFAULT_TEXT = (
    "Many words map to one token, but some don't: indivisible.\n\n"
    "Unicode characters like emojis may be split into many tokens containing the underlying bytes: 🤚🏾\n\n"
    "Sequences of characters commonly found next to each other may be grouped together: 1234567890\n\n"
    "Hello 你好 — tokenization, aaabdaaabac, Honolulu.\n"
)

DEFAULTS = {
    TEXT: DEFAULT_TEXT,
    TOKENIZER: "cl100k_base",
}


def init() -> None:
    """Initialise shared state once per session (every page calls it; it is idempotent)."""
    _run_through_app()
    for key, value in DEFAULTS.items():
        st.session_state.setdefault(key, value)


def _run_through_app() -> None:
    """Make a deep link (``/step?step=12``) opened first on a fresh server go through app.py.

    Streamlit starts in its old "pages/ folder" mode whenever a ``pages/`` folder
    sits next to the main script, and leaves it only when some session runs
    ``st.navigation``. Until then a link straight to a page runs that page file
    alone: no wide layout, no sidebar, the folder's file names as navigation.
    Leaving that mode and rerunning runs app.py, which opens the linked page
    (same URL path, same query parameters). Private Streamlit API, so guarded:
    at worst the page runs on its own, as it did before.
    """
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:  # pragma: no cover - a Streamlit without it has no such mode
        return
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()


def shared_text_area(label: str, page: str, *, height: int = 180, help: str | None = None, max_chars: int | None = None) -> str:
    """A text area bound to the shared text, so it survives switching pages.

    The widget has a page-local key; its value is copied from the shared key when
    the widget is (re)created and copied back on every change.
    """
    wkey = f"{page}.text"
    if wkey not in st.session_state:
        st.session_state[wkey] = st.session_state.get(TEXT, DEFAULT_TEXT)

    def _sync() -> None:
        st.session_state[TEXT] = st.session_state[wkey]

    st.text_area(label, key=wkey, height=height, help=help, on_change=_sync, max_chars=max_chars)
    st.session_state[TEXT] = st.session_state[wkey]
    return st.session_state[wkey]


def sample_menu(page: str, samples: Mapping[str, str]) -> None:
    """A menu of sample texts (key ``"<page>.sample"``): choosing one replaces the text, then the menu resets."""
    key = f"{page}.sample"

    def _load() -> None:
        name = st.session_state.get(key)
        if name:
            set_text(samples[name], page)
            st.session_state[key] = None

    st.selectbox(
        "Load a sample text", list(samples), index=None, key=key, on_change=_load,
        placeholder="Load a sample text…", label_visibility="collapsed",
    )


def set_text(text: str, page: str | None = None) -> None:
    """Replace the shared text (e.g. a sample button); the page's widget follows."""
    st.session_state[TEXT] = text
    if page is not None:
        st.session_state[f"{page}.text"] = text
