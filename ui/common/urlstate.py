"""The address bar as a link to what is on screen: one module for Tokenize, Compare and Step through.

    /?tokenizer=cl100k_base&text=Hello                       Tokenize
    /compare?tokenizers=r50k_base,o200k_base&text=Hello      Compare
    /step?mode=training&tokenizer=user:…&step=12&text=…      Step through

Every page uses it the same way:

1. ``incoming(page, names)``, before the page draws its widgets: the link's parameters when they
   are new to the page (a link just opened, the first page of a session included; a link from
   another page, such as Train's ``st.page_link`` to Step through; an edited address bar). The
   page applies them to its state. What the page wrote itself never comes back as new, so a
   user's next change is not undone by the old address; nor does the address the page wrote
   before that: a rerun the browser asked for before it heard the page's last write carries the
   old address (every rerun brings the browser's address), and taking it as a link would undo
   the user's text (a long paste back to the short text of the link that opened the page).
2. ``publish(page, names, wanted)``, after the widgets: writes the page's current choice (only
   what changed), so the address bar is always a link to this view.

Text goes into a link only up to ``MAX_TEXT`` characters and ``MAX_TEXT_BYTES`` bytes of
address, on every page (a longer text is left out, and the page says so): chats, slides and
e-mails cut long links, and servers refuse long addresses (a CJK character is ``%E4%BD%A0``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from urllib.parse import urlencode, urlsplit

import streamlit as st

#: Longest text put into a link, in characters (every page).
MAX_TEXT = 2_000
#: ... and in bytes of address, percent-encoded: with the rest well within nginx's 16 KB (classroom/nginx.conf.in).
MAX_TEXT_BYTES = 6_000
_AS_IS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._ ")
TEXT = "text"
_WRITTEN = "._url_written"  # after the page's name: the session state key of what it wrote last


def incoming(page: str, names: Sequence[str]) -> dict[str, str]:
    """The URL's parameters among ``names`` when they differ from the last two ``page`` wrote there, else ``{}``."""
    qp = st.query_params
    asked = {k: qp[k] for k in names if k in qp}
    if not asked or asked in st.session_state.get(page + _WRITTEN, ()):
        return {}
    st.session_state[page + _WRITTEN] = (asked,)
    return asked


def publish(page: str, names: Iterable[str], wanted: Mapping[str, str]) -> None:
    """Make the URL's parameters among ``names`` equal ``wanted`` (writes only what changed; others are left alone)."""
    qp = st.query_params
    for k in [k for k in names if k in qp and k not in wanted]:
        del qp[k]
    for k, v in wanted.items():
        if qp.get(k) != v:
            qp[k] = v
    written = st.session_state.get(page + _WRITTEN, ())
    if not written or written[-1] != wanted:
        # the last two writes: the browser may still send the one before the last (see the module's docstring)
        st.session_state[page + _WRITTEN] = (*written[-1:], dict(wanted))


def params(text: str | None = None, **values: str) -> dict[str, str]:
    """The query parameters for a view: ``values``, then the text when it is short enough for a link.

    >>> params("Hi", tokenizer="r50k_base")
    {'tokenizer': 'r50k_base', 'text': 'Hi'}
    >>> params("x" * 5000, tokenizers="r50k_base,o200k_base")
    {'tokenizers': 'r50k_base,o200k_base'}
    """
    out = dict(values)
    if text and fits(text):
        out[TEXT] = text
    return out


def encoded_length(text: str) -> int:
    """Bytes of ``text`` in an address: three a byte (``%E4``) but for ``_AS_IS`` (at least what a browser writes)."""
    return sum(1 if b in _AS_IS else 3 for b in text.encode("utf-8", "surrogatepass"))


def fits(text: str) -> bool:
    """Whether a text is short enough to go into a link: ``MAX_TEXT`` characters, ``MAX_TEXT_BYTES`` in the address.

    >>> fits("x" * MAX_TEXT), fits("x" * (MAX_TEXT + 1)), fits("你" * 666), fits("你" * 667)
    (True, False, True, False)
    """
    return len(text) <= MAX_TEXT and encoded_length(text) <= MAX_TEXT_BYTES


def link(wanted: Mapping[str, str]) -> str | None:
    """The full shareable address, when the browser told us the page's URL."""
    try:
        base = st.context.url
    except Exception:  # not running in a browser session (AppTest, bare mode)
        return None
    return join(base, wanted) if base else None


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
