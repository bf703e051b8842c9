"""Run a coroutine to completion from a test, whatever else the test session is running.

Playwright's sync API (the browser tests' session-scoped fixture) keeps an event loop
running in the main thread until the session ends, so a plain ``asyncio.run`` in any
test collected after the browser tests fails with "cannot be called from a running
event loop". A fresh thread has no running loop, so the coroutine gets its own.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor


def run(coro):
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()
