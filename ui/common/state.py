"""Session state: every page's keys and defaults, declared the same way, and the values pages share.

The idiom, the same on every page:

* A page declares its keys once, at the top of its ``view.py``::

      STATE = PageState("vocab", {"kind": "all", "regex": ""}, widgets=("table",))

  Keys are ``"<page>.<name>"`` (``"vocab.kind"``). ``defaults`` are values the page
  starts with (a function, for a default that depends on the session, is called
  when the key is first set); ``widgets`` are keys of widgets that cannot be given a value
  (buttons, uploads, table selections) or whose value the page sets on every run.
  ``pages/<page>.py`` calls ``shell.open_page(__file__, view.STATE)``, which sets
  the missing keys to their defaults (``init``).
* A widget whose value a user expects to find again after visiting another page
  takes its key from ``STATE`` and ``persist_state="session"``: Streamlit then keeps
  its value while other pages run (without it, a widget's value is dropped as soon
  as a page without that widget runs, and ``init`` would bring back the default).
  Values that are not widgets (the step shown, the last training) are plain keys
  and survive anyway.
* Values that several pages share (the text, the tokenizer chosen last) are the
  keys of ``SHARED`` (``"shared.text"``, ``"shared.tokenizer"``), never widget keys.
  A page's widget for one starts from the shared value whenever it appears and
  writes back when the user changes it (``shared_text_area`` here,
  ``ui.common.tokenizers.select``), so a change on one page shows on every other.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

import streamlit as st

from ui.content.samples import DEFAULT_TEXT


class PageState:
    """The session-state keys of one page and their defaults, declared in one place.

    >>> S = PageState("demo", {"k": 0, "name": ""}, widgets=("go", "chat"))
    >>> S.key("k"), S.key("go"), S.key("chat", 3, "role")
    ('demo.k', 'demo.go', 'demo.chat.3.role')
    >>> S.key("typo")
    Traceback (most recent call last):
    ...
    KeyError: "'typo' is not a key of the demo page: declare it in its PageState"
    """

    def __init__(self, page: str, defaults: Mapping[str, Any], *, widgets: Iterable[str] = ()):
        self.page = page
        self.defaults = dict(defaults)
        self.widgets = tuple(widgets)

    def key(self, name: str, *parts: object) -> str:
        """The session-state key ``"<page>.<name>"`` (``parts`` appended, for widgets made per item)."""
        if name not in self.defaults and name not in self.widgets:
            raise KeyError(f"{name!r} is not a key of the {self.page} page: declare it in its PageState")
        return ".".join([self.page, name, *map(str, parts)])

    def init(self) -> None:
        """Give every key without a value its default (each run; idempotent). Defaults are copied, never shared."""
        ss = st.session_state
        for name, value in self.defaults.items():
            if f"{self.page}.{name}" not in ss:
                ss[f"{self.page}.{name}"] = value() if callable(value) else copy.deepcopy(value)

    def __getitem__(self, name: str) -> Any:
        return st.session_state[self.key(name)]

    def __setitem__(self, name: str, value: Any) -> None:
        st.session_state[self.key(name)] = value

    def get(self, name: str, default: Any = None) -> Any:
        return st.session_state.get(self.key(name), default)


#: What several pages share: the text (Tokenize, Compare, Step through; Vocabulary reads
#: it) and the tokenizer chosen last on any page (see ui.common.tokenizers).
SHARED = PageState("shared", {"text": DEFAULT_TEXT, "tokenizer": "cl100k_base"})
TEXT = SHARED.key("text")
TOKENIZER = SHARED.key("tokenizer")


def shared_text_area(label: str, page: PageState, *, height: int = 180, help: str | None = None) -> str:
    """A text area (key ``"<page>.text"``) bound to the shared text, so the text follows the user from page to page.

    When the widget appears it starts from the shared text; every change is written
    back to it.
    """
    wkey = page.key("text")
    if wkey not in st.session_state:
        st.session_state[wkey] = st.session_state[TEXT]

    def _sync() -> None:
        st.session_state[TEXT] = st.session_state[wkey]

    st.text_area(label, key=wkey, height=height, help=help, on_change=_sync)
    st.session_state[TEXT] = st.session_state[wkey]
    return st.session_state[wkey]


def set_text(text: str, page: PageState | None = None) -> None:
    """Replace the shared text (a sample, a link, a button); ``page``'s text area follows.

    Call it before the text area is drawn (or from a widget callback).
    """
    st.session_state[TEXT] = text
    if page is not None:
        st.session_state[page.key("text")] = text


def sample_menu(page: PageState, samples: Mapping[str, str]) -> None:
    """A menu of sample texts (key ``"<page>.sample"``): choosing one replaces the text, then the menu resets."""
    key = page.key("sample")

    def _load() -> None:
        name = st.session_state.get(key)
        if name:
            set_text(samples[name], page)
            st.session_state[key] = None

    st.selectbox(
        "Load a sample text",
        list(samples),
        index=None,
        key=key,
        on_change=_load,
        placeholder="Load a sample text…",
        label_visibility="collapsed",
    )
