"""classroom/identity.py: the browser key's cookie, minted once, HttpOnly, never for websockets or in local mode."""

from __future__ import annotations

import re

from classroom import identity
from classroom.identity import COOKIE, BrowserKeyMiddleware
from tests import aio


def run(scope, *, enabled=True) -> list[tuple[bytes, bytes]]:
    sent: list[dict] = []

    async def app(scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/html")]})
        await send({"type": "http.response.body", "body": b"ok"})

    async def receive():
        return {"type": "http.request"}

    async def send(message):
        sent.append(message)

    aio.run(BrowserKeyMiddleware(app, enabled=enabled)(scope, receive, send))
    return sent[0]["headers"]


def cookies_set(headers) -> list[str]:
    return [v.decode() for k, v in headers if k == b"set-cookie"]


def test_a_browser_without_a_key_gets_one():
    [cookie] = cookies_set(run({"type": "http", "scheme": "http", "headers": []}))
    m = re.fullmatch(rf"{COOKIE}=([0-9a-f]{{32}}); Path=/; Max-Age=34560000; HttpOnly; SameSite=Lax", cookie)
    assert m and identity.valid(m.group(1))


def test_keys_are_unguessable_and_distinct():
    keys = {identity.new_key() for _ in range(1000)}
    assert len(keys) == 1000 and all(identity.valid(k) for k in keys)


def test_a_browser_with_a_key_keeps_it():
    headers = [(b"cookie", f"other=1; {COOKIE}={'c' * 32}".encode())]
    assert cookies_set(run({"type": "http", "scheme": "http", "headers": headers})) == []


def test_an_invalid_key_is_replaced():
    headers = [(b"cookie", f"{COOKIE}=short".encode())]
    assert len(cookies_set(run({"type": "http", "scheme": "http", "headers": headers}))) == 1


def test_https_behind_a_proxy_makes_the_cookie_secure():
    [cookie] = cookies_set(run({"type": "http", "scheme": "http", "headers": [(b"x-forwarded-proto", b"https")]}))
    assert cookie.endswith("; Secure")


def test_local_mode_and_websockets_pass_through():
    assert cookies_set(run({"type": "http", "scheme": "http", "headers": []}, enabled=False)) == []
    seen = []

    async def app(scope, receive, send):
        seen.append(scope["type"])

    aio.run(BrowserKeyMiddleware(app)({"type": "websocket", "headers": []}, None, None))
    assert seen == ["websocket"]
