"""Which browser a session belongs to, on a shared server: an unguessable key in an HttpOnly cookie.

Shared mode keeps each browser's tokenizers in a database (``classroom.database``)
under the SHA-256 of this key. The key

* is 128 random bits, minted by the server: by the proxy of ``make serve``
  (nginx's ``$request_id`` on the first page it serves, see ``classroom/nginx.conf.in``)
  or, without a proxy, by ``BrowserKeyMiddleware`` (``classroom.asgi``'s ``st.App``
  runs it in front of Streamlit, for ``make run`` in shared mode);
* lives only in the cookie ``bpe_lab_browser``: ``HttpOnly`` (page scripts cannot read
  it), ``SameSite=Lax``, ``Path=/``, kept for 400 days (browsers cap cookies there);
* never appears in a URL: share links carry the tokenizer's workspace key
  (``user:name-1a2b3c``), which means nothing in another browser's workspace.

The app reads it with ``st.context.cookies`` (public, read-only; what the browser
sent when the session's websocket opened). A browser that sends no key (cookies
blocked) gets a workspace for the session only, and the page says so.
"""

from __future__ import annotations

import re
import secrets

COOKIE = "bpe_lab_browser"
#: Browsers keep a cookie at most 400 days (Chrome's cap, adopted by the others).
MAX_AGE = 400 * 24 * 3600
_VALID = re.compile(r"[A-Za-z0-9_-]{32,128}")


def valid(key: str | None) -> bool:
    """Whether a cookie value looks like a key we minted (at least 32 URL-safe characters).

    >>> valid("0123456789abcdef" * 2), valid("short"), valid(None), valid("x" * 31 + ";"), valid(42)
    (True, False, False, False, False)
    """
    return isinstance(key, str) and _VALID.fullmatch(key) is not None


def new_key() -> str:
    """A fresh key: 128 random bits, 32 hex digits (the form nginx's ``$request_id`` has).

    >>> valid(new_key()), len(new_key())
    (True, 32)
    """
    return secrets.token_hex(16)


def cookie_header(key: str, *, secure: bool = False) -> str:
    """The ``Set-Cookie`` value for a key.

    >>> cookie_header("ab" * 16)
    'bpe_lab_browser=abababababababababababababababab; Path=/; Max-Age=34560000; HttpOnly; SameSite=Lax'
    """
    return f"{COOKIE}={key}; Path=/; Max-Age={MAX_AGE}; HttpOnly; SameSite=Lax" + ("; Secure" if secure else "")


def browser_key() -> str | None:
    """This session's browser key, or None when the browser sent none (or not in a browser session)."""
    import streamlit as st

    try:
        key = st.context.cookies.get(COOKIE)
    except Exception:  # no session context (bare mode)
        return None
    return key if valid(key) else None


def _cookie_from_headers(headers: list[tuple[bytes, bytes]]) -> str | None:
    """The key in an ASGI request's Cookie headers.

    >>> _cookie_from_headers([(b"cookie", b"a=1; bpe_lab_browser=" + b"f" * 32 + b"; b=2")]) == "f" * 32
    True
    """
    for name, value in headers:
        if name.lower() != b"cookie":
            continue
        for part in value.decode("latin-1").split(";"):
            k, _, v = part.strip().partition("=")
            if k == COOKIE and valid(v):
                return v
    return None


class BrowserKeyMiddleware:
    """ASGI middleware: an HTTP response to a browser without a key gets one (``Set-Cookie``).

    Only HTTP: the websocket that follows the first page carries the cookie. With
    ``enabled=False`` (local mode) it passes everything through untouched.
    """

    def __init__(self, app, enabled: bool = True):
        self.app = app
        self.enabled = enabled

    async def __call__(self, scope, receive, send):
        if not self.enabled or scope["type"] != "http" or _cookie_from_headers(scope.get("headers", [])):
            await self.app(scope, receive, send)
            return
        forwarded = dict(scope.get("headers", [])).get(b"x-forwarded-proto", b"").decode("latin-1")
        header = cookie_header(new_key(), secure=scope.get("scheme") == "https" or forwarded == "https").encode("latin-1")

        async def send_with_cookie(message):
            if message["type"] == "http.response.start":
                message = dict(message)
                message["headers"] = [*message.get("headers", []), (b"set-cookie", header)]
            await send(message)

        await self.app(scope, receive, send_with_cookie)
