"""Shareable links: the tokenizer choice and a short text in the URL's query parameters.

``?tokenizer=cl100k_base&text=Hello`` (Tokenize) and
``?tokenizers=r50k_base,o200k_base&text=Hello`` (Compare). A link is read once,
when a session opens the page; after that the page writes its current choice back
on every run, so the address bar is always a link to what is on screen. Texts
longer than ``MAX_URL_TEXT`` characters stay out of the URL (browsers and chat
apps cut long links); the page says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from urllib.parse import urlencode, urlsplit

import streamlit as st

from ui.common import state

TEXT = "text"
TOKENIZER = "tokenizer"
TOKENIZERS = "tokenizers"
#: Longest text put into a link, in characters.
MAX_URL_TEXT = 2_000


def restore(page: str, choices: Mapping[str, str], *, multi: bool = False) -> list[str]:
    """Copy the link's text and tokenizer(s) into the page's state, once per session.

    Returns notes for the user about parts of the link that could not be used
    (e.g. a tokenizer that is not on this server).
    """
    flag = f"{page}.url_restored"
    if st.session_state.get(flag):
        return []
    st.session_state[flag] = True
    qp = st.query_params
    notes: list[str] = []
    text = qp.get(TEXT)
    if text is not None:
        state.set_text(text, page)
    if multi:
        raw = qp.get(TOKENIZERS)
        if raw is not None:
            keys = [k for k in raw.split(",") if k]
            known = [k for k in keys if k in choices]
            unknown = [k for k in keys if k not in choices]
            if known:
                st.session_state[f"{page}.tokenizers"] = known
            if unknown:
                notes.append(f"The link names tokenizers that are not available here: {', '.join(unknown)}.")
    else:
        key = qp.get(TOKENIZER)
        if key is not None:
            if key in choices:
                st.session_state[f"{page}.tokenizer"] = key
                st.session_state[state.TOKENIZER] = key
            else:
                notes.append(f"The link names tokenizer {key!r}, which is not available here; pick another one.")
    return notes


def params(text: str, *, tokenizer: str | None = None, tokenizers: Iterable[str] | None = None) -> dict[str, str]:
    """The query parameters for a choice (the text only when it is short enough).

    >>> params("Hi", tokenizer="r50k_base")
    {'tokenizer': 'r50k_base', 'text': 'Hi'}
    >>> params("x" * 5000, tokenizers=["r50k_base", "o200k_base"])
    {'tokenizers': 'r50k_base,o200k_base'}
    """
    out: dict[str, str] = {}
    if tokenizer is not None:
        out[TOKENIZER] = tokenizer
    if tokenizers is not None:
        out[TOKENIZERS] = ",".join(tokenizers)
    if text and len(text) <= MAX_URL_TEXT:
        out[TEXT] = text
    return out


def publish(wanted: Mapping[str, str]) -> None:
    """Set this module's query parameters to ``wanted`` (writes only what changed; others are left alone)."""
    qp = st.query_params
    for k in [k for k in (TEXT, TOKENIZER, TOKENIZERS) if k in qp and k not in wanted]:
        del qp[k]
    for k, v in wanted.items():
        if qp.get(k) != v:
            qp[k] = v


def link(wanted: Mapping[str, str]) -> str | None:
    """The full shareable address, when the browser told us the page's URL."""
    try:
        base = st.context.url
    except Exception:  # not running in a browser session (AppTest, bare mode)
        base = None
    if not base:
        return None
    return join(base, wanted)


def join(base: str, wanted: Mapping[str, str]) -> str:
    """``base`` with ``wanted`` as its query.

    >>> join("http://localhost:8501", {"tokenizer": "r50k_base", "text": "Hi there"})
    'http://localhost:8501/?tokenizer=r50k_base&text=Hi+there'
    >>> join("http://localhost:8501/compare", {})
    'http://localhost:8501/compare'
    """
    if not urlsplit(base).path:
        base += "/"
    return f"{base}?{urlencode(wanted)}" if wanted else base
