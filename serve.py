"""BPE Lab as an ASGI app: ``app.py`` behind the middleware that gives each browser its key.

``streamlit run serve.py`` (what ``make run`` and every app process of ``make serve``
start) finds ``app`` below, a public ``st.App``, and serves ``app.py`` exactly as
``streamlit run app.py`` would, with one addition in shared mode
(``BPE_LAB_SHARED=1``): an HTTP response to a browser that has no key sets one in an
HttpOnly cookie (``ui.common.identity``), so a class can use a single server with
no proxy in front. Behind ``make serve``'s nginx the proxy mints the key first and
this passes everything through.

In shared mode the database is opened before the server starts: if it cannot be
reached, the process prints one line and exits with status 2.
"""

import sys

import streamlit as st
from starlette.middleware import Middleware

from ui.common import identity, workspace


def _check_database() -> None:
    from ui.common import database

    url = database.database_url()
    try:
        database.Limits.from_env()
        database.Database(url).close()
    except ValueError as e:  # DatabaseUnavailable, or a bad limit
        print(f"BPE Lab: {e}", file=sys.stderr)
        raise SystemExit(2) from None


if workspace.shared_mode():
    _check_database()

app = st.App("app.py", middleware=[Middleware(identity.BrowserKeyMiddleware, enabled=workspace.shared_mode())])
