"""BPE Lab as an ASGI app: ``app.py`` behind the middleware that gives each browser its key.

``streamlit run serve.py`` (what ``make run`` and every app process of ``make serve``
start) finds ``app`` below, a public ``st.App``, and serves ``app.py`` exactly as
``streamlit run app.py`` would, with one addition in shared mode
(``BPE_LAB_SHARED=1``): an HTTP response to a browser that has no key sets one in an
HttpOnly cookie (``ui.common.identity``), so a class can use a single server with
no proxy in front. Behind ``make serve``'s nginx the proxy mints the key first and
this passes everything through.

In shared mode the database is opened before the server starts (if it cannot be
reached, the process prints one line and exits with status 2). In both modes the
official encodings are loaded before the server answers (``make run`` prints a line
while it loads them), so nobody's first visit waits for them.
"""

import sys
import time

import streamlit as st
from starlette.middleware import Middleware

from ui.common import identity, workers, workspace


def _check_database() -> None:
    from ui.common import database

    url = database.database_url()
    try:
        database.Limits.from_env()
        database.Database(url).close()
    except ValueError as e:  # DatabaseUnavailable, or a bad limit
        print(f"BPE Lab: {e}", file=sys.stderr)
        raise SystemExit(2) from None


def _warm_up(shared: bool) -> None:
    """Load the official encodings and the default training corpus, then freeze the heap, so the process answers its
    health check ready for students (not one of them waits for a load), and the first visit after ``make run`` does
    not wait on "Loading the official encodings" either (about 5-10 s on a busy 2-core machine)."""
    import tokenizer
    from ui.common import corpora, shell
    from ui.compare import view as compare

    t0 = time.perf_counter()
    if not shared:  # make run: one person, watching the terminal until the address appears
        print("BPE Lab: loading the official encodings before the first page opens…", file=sys.stderr, flush=True)
    tokenizer.configure()
    corpora.text("stdlib-docstrings")  # the Train page's default sample: a second or two of reading .py files
    compare.warm_up()  # the models Compare opens with (OpenAI's three and Llama 3) and their leaderboard counts
    shell.start_up()  # last: its gc.freeze() then covers all of the above
    size = workers.configured_workers(shared)
    if size:
        workers.pool(size).start()  # the training processes, started now rather than by the first student's Train
    if not shared:
        print(f"BPE Lab: ready in {time.perf_counter() - t0:.1f} s.", file=sys.stderr, flush=True)


def _trim_memory_every(seconds: float = 15.0) -> None:
    """Every ``seconds``: collect garbage, then hand freed memory back to the system (glibc's ``malloc_trim``).

    Streamlit drops a closed session after its time-to-live; its objects are often in
    reference cycles, which only a full collection frees (rare on an idle server, more
    so with the heap frozen at start-up), and freed memory stays with the process until
    it is trimmed. Without this a server's memory stays near its peak after a class.
    A full collection over the unfrozen heap takes a few milliseconds. A daemon
    thread; without glibc only the collection runs.
    """
    import ctypes
    import gc
    import threading

    try:
        trim = ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        trim = None

    def loop() -> None:
        while True:
            time.sleep(seconds)
            gc.collect()
            if trim is not None:
                trim(0)

    threading.Thread(target=loop, name="bpe-lab-memory", daemon=True).start()


if workspace.shared_mode():
    _check_database()
    _warm_up(shared=True)
    _trim_memory_every()
else:
    _warm_up(shared=False)

app = st.App("app.py", middleware=[Middleware(identity.BrowserKeyMiddleware, enabled=workspace.shared_mode())])
