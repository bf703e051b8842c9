"""The tokenizers a user can pick on any page: official encodings, baselines, their own.

Keys are strings that fit in a URL: ``"r50k_base"``, ``"cl100k_base"``,
``"o200k_base"``, ``"bytes"``, ``"chars"``, or ``"user:<key>"`` for a tokenizer in
the workspace. Official encodings and the baselines are one object each per
server process (``st.cache_resource``), marked as shared for ``ui.common.cache``.
"""

from __future__ import annotations

import streamlit as st

from tokenizer import Tokenizer, load_encoding, registry
from tokenizer.baselines import CharTokenizer, bytes_tokenizer

from . import cache, state, workspace

#: ``{name: label}`` of the registry's encodings, in menu order
OFFICIAL = {s.name: s.label for s in registry.specs()}
BASELINES = {"bytes": "UTF-8 bytes", "chars": "Characters"}
USER = "user:"


@st.cache_resource(show_spinner="Loading the official encoding (once per server)…")
def official(name: str) -> Tokenizer:
    """An official encoding, loaded once per server process and shared by every session."""
    tok = load_encoding(name)
    tok.encode_ordinary("warm up")  # build the lookup tables now, not in a user's first rerun
    tok.decode_tokens_bytes([0])
    return cache.share(tok)


def chat_capable(key: str) -> bool:
    """Only the encodings of OpenAI's chat models have the chat tokens.

    >>> chat_capable("cl100k_base"), chat_capable("r50k_base"), chat_capable("user:x")
    (True, False, False)
    """
    return key in OFFICIAL and bool(registry.spec(key).chat_tokens)


@st.cache_resource(show_spinner=False)
def chat(key: str) -> Tokenizer:
    """The official encoding plus its three chat tokens (``<|im_start|>`` …), once per server process."""
    tok = official(key).with_special_tokens(registry.spec(key).chat_tokens)
    tok.encode_ordinary("warm up")
    return cache.share(tok)


@st.cache_resource(show_spinner=False)
def _baseline(key: str):
    return cache.share(bytes_tokenizer() if key == "bytes" else CharTokenizer())


def user_options() -> dict[str, str]:
    """``{key: label}`` of this session's own tokenizers, newest last."""
    return {USER + e.key: f"{e.name} (yours, {e.vocab_size:,} tokens)" for e in workspace.store().entries()}


def options(*, baselines: bool = True, user: bool = True) -> dict[str, str]:
    """Every choice with its label, in menu order."""
    out = dict(OFFICIAL)
    if user:
        out.update(user_options())
    if baselines:
        out.update(BASELINES)
    return out


def get(key: str):
    """The tokenizer for a key; ValueError (shown with st.error) when it is gone."""
    if key in OFFICIAL:
        return official(key)
    if key in BASELINES:
        return _baseline(key)
    if key.startswith(USER):
        return workspace.store().get(key[len(USER):])
    raise ValueError(f"unknown tokenizer {key!r}: pick one from the list")


def latest_user_key() -> str | None:
    keys = list(user_options())
    return keys[-1] if keys else None


def select(label_text: str, wkey: str, *, choices: dict[str, str] | None = None, help: str | None = None) -> str:
    """A selectbox of tokenizers (widget key ``wkey``) bound to the tokenizer chosen last on any page.

    When it appears it shows the page's own choice if it still has one, else the
    shared choice (``state.TOKENIZER``: the last one picked on any page, or the one
    just trained), else the first; when the user picks one, it becomes the shared
    choice.
    """
    choices = choices or options()
    current = st.session_state.get(wkey) or st.session_state.get(state.TOKENIZER)
    if current not in choices:
        current = next(iter(choices))
    st.session_state[wkey] = current

    def _sync() -> None:
        st.session_state[state.TOKENIZER] = st.session_state[wkey]

    return st.selectbox(label_text, list(choices), format_func=lambda k: choices.get(k, k), key=wkey, on_change=_sync, help=help)
