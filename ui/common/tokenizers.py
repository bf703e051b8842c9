"""The tokenizers a user can pick on any page: official encodings, baselines, their own.

Keys are strings that fit in a URL: ``"r50k_base"``, ``"cl100k_base"``,
``"o200k_base"``, ``"bytes"``, ``"chars"``, or ``"user:<key>"`` for a tokenizer in
the workspace. Official encodings are loaded once per server process.
"""

from __future__ import annotations

import gc

import streamlit as st

from tokenizer import Tokenizer, load_encoding
from tokenizer.baselines import CharTokenizer, bytes_tokenizer

from ui.common import state
from ui.common import workspace

OFFICIAL = {
    "r50k_base": "GPT-2 (r50k_base)",
    "cl100k_base": "GPT-4 (cl100k_base)",
    "o200k_base": "GPT-4o (o200k_base)",
}
BASELINES = {"bytes": "UTF-8 bytes", "chars": "Characters"}
USER = "user:"
CHAT_CAPABLE = ("cl100k_base", "o200k_base")


@st.cache_resource(show_spinner="Loading the official encoding (once per server)…")
def official(name: str) -> Tokenizer:
    tok = load_encoding(name)
    settle(tok)
    return tok


def settle(tok) -> None:
    """Build a loaded tokenizer's lookup tables now and take them out of the garbage collector's scans.

    The core keeps merges as untracked tuples of ints, but a server still holds many
    long-lived objects (Streamlit, pandas, altair, the loaded tables); ``gc.freeze``
    moves everything alive now to a permanent generation, so full collections during
    a rerun stop walking them (measured with bench/bench_pages.py: the Compare page's
    cold median drops by about a third).
    """
    tok.encode_ordinary("warm up")
    tok.decode_tokens_bytes([0])
    gc.freeze()


@st.cache_resource(show_spinner=False)
def _baseline(key: str):
    return bytes_tokenizer() if key == "bytes" else CharTokenizer()


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


def label(key: str) -> str:
    return options().get(key, key)


def latest_user_key() -> str | None:
    keys = list(user_options())
    return keys[-1] if keys else None


def select(label_text: str, page: str, *, choices: dict[str, str] | None = None, default: str | None = None, help: str | None = None) -> str:
    """A selectbox of tokenizers that remembers the last choice across pages."""
    choices = choices or options()
    wkey = f"{page}.tokenizer"
    current = st.session_state.get(wkey) or default or st.session_state.get(state.TOKENIZER)
    if current not in choices:
        current = next(iter(choices))
    st.session_state[wkey] = current

    def _sync() -> None:
        st.session_state[state.TOKENIZER] = st.session_state[wkey]

    key = st.selectbox(label_text, list(choices), format_func=lambda k: choices.get(k, k), key=wkey, on_change=_sync, help=help)
    return key
