"""ui/common/tokenizers.py: ``get`` shows its loading spinner only until an official encoding is loaded."""

from __future__ import annotations

import contextlib

from streamlit.testing.v1 import AppTest

from ui.common import tokenizers as tk


def test_get_shows_the_loading_spinner_only_until_the_encoding_is_loaded(monkeypatch):
    shown = []

    @contextlib.contextmanager
    def spinner(text, **kwargs):
        shown.append(text)
        yield

    monkeypatch.setattr(tk.st, "spinner", spinner)
    monkeypatch.setattr(tk.st.runtime, "exists", lambda: True)  # a page's run
    monkeypatch.setattr(tk, "_LOADED", set())
    first = tk.get("r50k_base")
    assert len(shown) == 1 and shown[0].startswith(f"Loading {tk.OFFICIAL['r50k_base']}")
    assert tk.get("r50k_base") is first and tk.get("r50k_base") is tk.official("r50k_base")
    assert len(shown) == 1  # loaded: no spinner (and no timer thread) any more
    assert tk._LOADED == {"r50k_base"}


def test_the_servers_start_up_loads_without_a_spinner(monkeypatch):
    """Before any session exists (the server's start-up) a spinner has no page: none is made (Streamlit logged a
    "missing ScriptRunContext" warning for each)."""
    shown = []
    monkeypatch.setattr(tk.st, "spinner", lambda text, **kwargs: shown.append(text))
    monkeypatch.setattr(tk.st.runtime, "exists", lambda: False)
    monkeypatch.setattr(tk, "_LOADED", set())
    assert tk.get("r50k_base") is tk.official("r50k_base")
    assert shown == [] and tk._LOADED == {"r50k_base"}


def _encoded_script() -> None:
    import streamlit as st

    from ui.common import tokenizers as tk

    tok = tk.official("r50k_base")
    text = st.text_input("text", key="text")
    first = tk.encoded(tok, text, recognise=False)
    again = tk.encoded(tok, text, recognise=False)  # what Compare asks after Tokenize
    special = tk.encoded(tok, text, recognise=True)
    st.session_state.setdefault("seen", []).append(id(first))
    st.write(f"same: {first is again}; ids: {first[0]}; special: {special[0]}; spans: {[s.id for s in first[1]]}")
    st.session_state["result"] = first


def test_encoded_is_reused_within_a_session_keyed_by_text_and_mode_and_never_by_another_session():
    tok = tk.official("r50k_base")
    text = "a secret <|endoftext|>"
    first = AppTest.from_function(_encoded_script).run()
    first.text_input(key="text").input(text).run()
    ids = tok.encode(text, disallowed_special=())
    assert first.markdown[0].value == (
        f"same: True; ids: {ids}; special: {tok.encode(text, allowed_special='all')}; spans: {ids}"
    )
    mine = first.session_state["result"]
    first.run()
    assert first.session_state["result"] is mine  # the same text on the next rerun: computed once
    first.text_input(key="text").input("another text").run()
    assert first.session_state["result"] is not mine and first.session_state["result"][0] == tok.encode("another text")
    second = AppTest.from_function(_encoded_script).run()
    second.text_input(key="text").input(text).run()
    theirs = second.session_state["result"]
    assert theirs == mine and theirs is not mine  # the same text in another session: its own computation
    assert not first.exception and not second.exception
