"""BPE Lab as an ASGI app: ``app.py`` behind the middleware that gives each browser its key.

``streamlit run serve.py`` (what ``make run`` and every app process of ``make serve``
start) finds ``serve.app``, a public ``st.App`` with the middleware ``start()`` returns, and serves
``app.py`` exactly as ``streamlit run app.py`` would, with one addition in shared mode
(``BPE_LAB_SHARED=1``): an HTTP response to a browser that has no key sets one in an
HttpOnly cookie (``classroom.identity``), so a class can use a single server with
no proxy in front. Behind ``make serve``'s nginx the proxy mints the key first and
this passes everything through.

``start()`` is the start-up: it reads every setting (``classroom.settings``) and chooses
the stores and the training runner (``classroom.workspaces.configure``). In shared mode
the database is opened and checked before the server starts. A bad setting, a database
that cannot be used, or a static or data folder it cannot write (full, read-only) is one
line on stderr and exit status 2, never a traceback. In both
modes the official encodings are loaded before it answers, so no student waits for them,
and the first visit after ``make run`` does not wait on "Loading the official encodings".
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import NoReturn

from ui.common import workspace

from . import database, identity, teacher, workers, workspaces


def fail(problem: BaseException) -> NoReturn:
    """What a start-up check found, as one line on stderr, and exit status 2 (no traceback)."""
    print(f"BPE Lab: {problem}", file=sys.stderr)
    raise SystemExit(2) from None


def check_settings() -> bool:
    """Read every setting of an app process once (a bad one: ``fail``); returns whether the server is shared."""
    try:
        shared = workspaces.shared_mode()
        workers.configured_workers(shared)
        if shared:
            database.Limits.from_env()
            teacher.teacher_secret()
    except ValueError as e:
        fail(e)
    return shared


def check_database() -> str:
    """Open the database and check it can be read and written (a problem: ``fail``). Returns its URL without password."""
    url = database.database_url()
    try:
        db = database.Database(url)
        try:
            db.check()
        finally:
            db.close()
    except ValueError as e:  # DatabaseUnavailable
        fail(e)
    return database.describe_url(url)


def check_static() -> None:
    """Write the browser modules to the static folder and a probe file next to them (a full or read-only disk: ``fail``).

    Every page's live view loads those modules, and each user tokenizer on the Tokenize page becomes a file there;
    a folder that cannot take them is said once, now, rather than as a traceback in a student's page."""
    from ui.web import model as web

    folder = web.static_dir() / web.FOLDER
    try:
        web.publish_assets()
        web.write_once(folder / f".probe-{os.getpid()}", b"BPE Lab can write here\n").unlink()
    except OSError as e:
        fail(
            f"cannot write the static folder {folder} ({e.strerror or e}): free some space on its disk, or let this user "
            "write it (BPE Lab puts the browser's copies of the tokenizers there)"
        )


def announce_teacher_link() -> None:
    """Shared mode without ``make serve`` (which makes one for all its app processes): a teacher secret of this
    process's own when none is set, and its link on stderr."""
    import streamlit as st

    if teacher.teacher_secret() is not None:
        return
    os.environ[teacher.SECRET_ENV] = secret = teacher.new_secret()
    link = teacher.teacher_link(f"http://localhost:{st.get_option('server.port')}", secret)
    print(f"BPE Lab: the teacher leads the lesson from {link}", file=sys.stderr)


def warm_up(shared: bool = True) -> None:
    """Load the official encodings and the default training corpus, then freeze the heap, so the process answers its
    health check ready for students (not one of them waits for a load). Local mode (``make run``, one person watching
    the terminal until the address appears) says so on stderr, and how long it took."""
    import tokenizer
    from ui.common import shell, tokenizers
    from ui.compare import view as compare
    from ui.content import corpora
    from ui.tokenize import live

    t0 = time.perf_counter()
    if not shared:
        print("BPE Lab: loading the official encodings before the first page opens…", file=sys.stderr, flush=True)
    tokenizer.configure()
    # the Train page's default sample, parsed from .py files or read from the data folder's cache
    corpora.text("stdlib-docstrings")
    compare.warm_up()  # the models Compare opens with (OpenAI's three and Llama 3) and their leaderboard counts
    live.warm_up()  # Tokenize's in-browser copies of OpenAI's three: their patterns as JavaScript, their model files
    # Tokenize's special-token help reads each OpenAI encoding with its chat tokens (a second or so to derive, once
    # per process): the class's first students switching tokenizer were waiting for it
    for name in ("cl100k_base", "o200k_base"):
        if tokenizers.available(name) and tokenizers.chat_capable(name):
            tokenizers.chat(name)
    shell.start_up()  # last: its gc.freeze() then covers all of the above
    size = workers.configured_workers(shared)
    if size:
        workers.pool(size).start()  # the training processes, started now rather than by the first student's Train
    if not shared:
        print(f"BPE Lab: ready in {time.perf_counter() - t0:.1f} s.", file=sys.stderr, flush=True)


def trim_memory_every(seconds: float = 15.0) -> None:
    """Every ``seconds``: collect garbage, then hand freed memory back to the system (glibc's ``malloc_trim``).

    Streamlit drops a closed session after its time-to-live; its objects are often in
    reference cycles, which only a full collection frees (rare on an idle server, more
    so with the heap frozen at start-up), and freed memory stays with the process until
    it is trimmed. Without this a server's memory stays near its peak after a class.
    It also stands in for Streamlit's collection after every rerun, which BPE Lab turns
    off (``runner.postScriptGC`` in .streamlit/config.toml): the same collection, every
    ``seconds`` rather than in each student's wait for a page. A daemon thread; without
    glibc only the collection runs.
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


def start() -> list:
    """Start up (once, from ``serve.py``) and return the middleware of the app's ``st.App``."""
    from starlette.middleware import Middleware

    shared = check_settings()
    if shared:
        check_database()
    check_static()
    if shared:
        announce_teacher_link()
    try:
        workspaces.configure(shared)  # local mode makes the workspace folder
        warm_up(shared)
    except OSError as e:  # a folder of the data or static files filled up or turned read-only just now
        fail(f"cannot write {e.filename or 'a file'} ({e.strerror or e}): free some space on its disk, or let this user write it")
    trim_memory_every()  # in every mode: Streamlit's collection after every rerun is off (.streamlit/config.toml)
    return [Middleware(identity.BrowserKeyMiddleware, enabled=shared)]


_local = threading.Lock()
_trimming = threading.Event()  # one trimming thread per process, however often the store is chosen again (tests)


def start_local() -> None:
    """app.py's start-up when nothing chose a store before it (``streamlit run app.py``, ``AppTest.from_file``): local
    mode, once per process. Shared mode needs serve.py, whose middleware gives each browser its key."""
    with _local:  # the first runs of several sessions may arrive at once
        if workspace.chosen():
            return
        workspaces.configure(shared=False)
        if not _trimming.is_set():
            _trimming.set()
            trim_memory_every()
