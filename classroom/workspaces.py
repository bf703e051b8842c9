"""Which store each session gets, and where trainings run: chosen once, at start-up (``configure``).

Local mode (default): one folder store for every session of the process
(``$BPE_LAB_WORKSPACE``, default ``data/workspace``), trainings in the page's own
thread. Shared mode (``BPE_LAB_SHARED=1``, several people on one server): each
browser's tokenizers in the database (``classroom.database``), found by the
browser's key (``classroom.identity``), trainings in worker processes
(``classroom.workers``), and the lesson's class (``classroom.lesson``) in the same
database. A browser that sends no key gets a store of its own in memory, and the page says so.

A database that does not answer (or cannot be read) never costs a student their
work: ``SharedStore`` keeps what is trained meanwhile in the session, says so on
the page, and tries the database again after ``RETRY_AFTER`` seconds.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from tokenizer import Tokenizer, TrainingTrace
from tokenizer.models.fetch import data_dir
from ui.common import training, workspace
from ui.common.workspace import Damaged, Entry, Notice
from ui.lesson import seat
from ui.render.markdown import md

from . import database, identity, lesson, settings, teacher, workers
from .stores import BaseStore, FolderStore, MemoryStore

SHARED_ENV = "BPE_LAB_SHARED"
WORKSPACE_ENV = "BPE_LAB_WORKSPACE"
#: Seconds a session waits before trying an unavailable database again.
RETRY_AFTER = 30.0
_SESSION_KEY = "classroom.store"

NO_COOKIE = Notice(
    "warning",
    "Your browser sent no BPE Lab cookie (are cookies blocked for this site?), so what you train is "
    "kept in this tab only and is lost on reload: download what you want to keep.",
)
TAB_ONLY = "Shared server: your tokenizers live in this browser tab only."


def shared_mode(env: Mapping[str, str] | None = None) -> bool:
    """``$BPE_LAB_SHARED`` (1, true, yes, on; a ValueError for anything it cannot read as on or off)."""
    return settings.flag(SHARED_ENV, env)


def workspace_dir() -> Path:
    env = os.environ.get(WORKSPACE_ENV)
    return Path(env) if env else data_dir() / "workspace"


def configure(shared: bool | None = None) -> None:
    """Choose the stores and the training runner for this process (``shared`` defaults to ``$BPE_LAB_SHARED``)."""
    global _mode
    shared = shared_mode() if shared is None else shared
    size = workers.configured_workers(shared)
    unconfigure()
    training.use(workers.runner(size) if size else None)
    if shared:
        _mode = SharedMode(database.database_url())
        workspace.use(_mode.store)
        seat.use(lesson.provider(_mode.database, teacher.teacher_secret()))  # the lesson's class, in the same database
    else:
        folder = FolderStore(workspace_dir())
        workspace.use(lambda: folder)


def unconfigure() -> None:
    """Forget the choice and close the database's connections (tests): no store until ``configure`` runs again."""
    global _mode
    workspace.use(None)
    training.use(None)
    seat.use(None)
    if _mode is not None:
        _mode.close()
        _mode = None


# The process's shared mode, set by ``configure`` at start-up (tests configure again and again: the old one is closed).
_mode: SharedMode | None = None


class SharedMode:
    """Shared mode's choice of store, per session: the browser's workspace in the database, or the tab's memory."""

    def __init__(self, url: str):
        self.url = url
        self._db: database.Database | None = None
        self._lock = threading.Lock()
        # the SQLite file start-up checked (``classroom.asgi.check_database``): opened later, it must still be that one
        path = database.sqlite_path(url)
        self._file = database.file_id(path) if path else None

    def database(self) -> database.Database:
        """The process's connection pool, opened on first use (``DatabaseUnavailable`` when it cannot be, or when the
        SQLite file start-up found was removed or replaced since: opening would make a new, empty one unnoticed)."""
        with self._lock:
            if self._db is None:
                path = database.sqlite_path(self.url)
                if self._file is not None and database.file_id(path) != self._file:
                    raise database.DatabaseUnavailable(database.removed(path))
                self._db = database.Database(self.url)
            return self._db

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    def store(self) -> workspace.Store:
        import streamlit as st

        key = identity.browser_key()
        owner = database.owner_of(key) if key else None
        held = st.session_state.get(_SESSION_KEY)
        if held is not None and held[0] == owner:
            store = held[1]
        else:
            store = SharedStore(self.database, owner) if owner else MemoryStore([NO_COOKIE], TAB_ONLY)
            st.session_state[_SESSION_KEY] = (owner, store)
        if isinstance(store, SharedStore):
            store.begin_run()
        return store


# A POSIX path of two or more parts (not inside a URL's host part): its folders are the server's business.
_PATH = re.compile(r"(?<![\w.:/])/(?:[^\s/()'\"]+/)+([^\s/()'\"]+)")


def for_students(message: str) -> str:
    """A server-side problem as a student may read it: files named without the folders they are in.

    >>> for_students("the database file /srv/bpe/data/workspaces.sqlite3 is damaged (file is not a database)")
    'the database file workspaces.sqlite3 is damaged (file is not a database)'
    >>> for_students("the database sqlite:///x is not answering: disk I/O error")
    'the database sqlite:///x is not answering: disk I/O error'
    """
    return _PATH.sub(r"\1", message)


class SharedStore(BaseStore):
    """One browser's workspace on a shared server: the database, and the session while the database fails.

    Every database call goes through ``_db``: a ``DatabaseUnavailable`` (it does not
    answer, or its file cannot be read) is turned into ``notices`` for the page, and
    what is added meanwhile goes to ``self.session``. Both are listed together, so
    nothing the student made is lost from view when the database comes back.
    """

    def __init__(self, open_db: Callable[[], database.Database], owner: str, *, clock: Callable[[], float] = time.monotonic):
        super().__init__()
        self.owner = owner
        self.session = MemoryStore()
        self._open_db = open_db
        self._clock = clock
        self._store: database.DatabaseStore | None = None
        self._failed_at: float | None = None
        self.problem: str | None = None
        self._why = "the database cannot be reached"
        # what this script run read already (``_this_run``), and the run's thread
        self._run: threading.Thread | None = None
        self._read: dict[str, object] = {}
        # what could not be saved, by key in ``session``: why (the page's message when it was trained)
        self._unsaved: dict[str, str] = {}

    def _failed(self, e: database.DatabaseUnavailable, doing: str = "read") -> None:
        self._store = None
        self._failed_at = self._clock()
        self._why = for_students(str(e))
        self.problem = self._said(doing)

    def _said(self, doing: str) -> str:
        """What the page says while the database fails: reading (the saved ones are out of reach) or saving."""
        if doing == "read":
            return (
                f"Your saved tokenizers cannot be read right now ({self._why}). What you train meanwhile is kept "
                "for this session only: download it to keep it."
            )
        return (
            f"Your tokenizers cannot be saved right now ({self._why}); the saved ones are back when it works again. "
            "What you train meanwhile is kept for this session only: download it to keep it."
        )

    def _database(self) -> database.DatabaseStore | None:
        if self._store is None and (self._failed_at is None or self._clock() - self._failed_at >= RETRY_AFTER):
            try:
                self._store = database.DatabaseStore(self._open_db(), self.owner, database.Limits.from_env())
                self.problem = None
            except database.DatabaseUnavailable as e:
                self._failed(e)
        return self._store

    def _db(self, call: Callable[[database.DatabaseStore], object], fallback: Callable[[], object], doing: str = "read"):
        """``call(store)`` on the database; ``fallback()`` when it is down (and the failure noted for the page)."""
        store = self._database()
        if store is None:
            return fallback()
        try:
            return call(store)
        except database.DatabaseUnavailable as e:
            self._failed(e, doing)
            return fallback()

    def begin_run(self) -> None:
        """A page's script run starts using this store (``SharedMode.store``, on the run's own thread)."""
        thread = threading.current_thread()
        if self._run is not thread:
            self._run, self._read = thread, {}

    def _this_run(self, what: str, read: Callable[[], object]):
        """``read()`` once per script run: every page lists the workspace two or three times a run (its notices, the
        sidebar, a tokenizer menu), a database query each, a visible share of a class's server CPU (docs/performance.md).
        Streamlit runs each script run on a thread of its own, so a run is the thread ``begin_run`` saw
        (a caller that never began one reads afresh every time); a change made through this store forgets what was
        read (``_changed``); another tab's change shows on the next run."""
        if self._run is not threading.current_thread():
            return read()
        if what not in self._read:
            self._read[what] = read()
        return self._read[what]

    def _changed(self, result=None):
        self._read = {}
        return result

    def _unreachable(self, key: str):
        raise ValueError(f"the tokenizer {key!r} is in your saved workspace, which cannot be read right now: {self.problem}")

    # -- queries
    def entries(self) -> list[Entry]:
        return self._this_run("entries", lambda: self._db(lambda s: s.entries(), list)) + self.session.entries()

    def damaged(self) -> list[Damaged]:
        return self._db(lambda s: s.damaged(), list)

    def get(self, key: str) -> Tokenizer:
        if key in self.session:
            return self.session.get(key)
        return self._db(lambda s: s.get(key), lambda: self._unreachable(key))

    def corpus(self, key: str) -> str | None:
        if key in self.session:
            return self.session.corpus(key)
        return self._db(lambda s: s.corpus(key), lambda: self._unreachable(key))

    def training_trace(self, key: str) -> TrainingTrace | None:
        if key in self.session:
            return self.session.training_trace(key)
        return self._db(lambda s: s.training_trace(key), lambda: self._unreachable(key))

    # -- changes
    def check_room(self, extra_bytes: int = 0, *, adding: int = 1) -> None:
        self._db(lambda s: s.check_room(extra_bytes, adding=adding), lambda: None)

    def add(self, tok: Tokenizer, *, corpus: str | None = None, source: str = "trained") -> str:
        def in_session() -> str:
            key = self.session.add(tok, corpus=corpus, source=source)
            self._unsaved[key] = self._said("saved")
            self.problem = self._unsaved[key]  # the notice says what it cost: this one is not saved
            return key

        return self._changed(self._db(lambda s: s.add(tok, corpus=corpus, source=source), in_session, "saved"))

    def _get_training(self) -> str | None:
        return self._db(lambda s: s._get_training(), lambda: self.session._get_training())

    def _put_training(self, record: str | None) -> None:
        self._db(lambda s: s._put_training(record), lambda: self.session._put_training(record), "save")

    def unsaved(self, key: str) -> str | None:
        """Why ``key`` is kept in this session only (its save failed), or None when it is in the database."""
        return self._unsaved.get(key) if key in self.session else None

    def attach(self, key: str, name: str, size: int) -> None:
        self._changed()  # the sidebar's count follows
        if key in self.session:
            return self.session.attach(key, name, size)
        return self._db(lambda s: s.attach(key, name, size), lambda: None)  # a file not counted: prune removes it in time

    def rename(self, key: str, name: str) -> None:
        self._changed()
        if key in self.session:
            return self.session.rename(key, name)
        return self._db(lambda s: s.rename(key, name), lambda: self._unreachable(key))

    def delete(self, key: str) -> None:
        self._changed()
        if key in self.session:
            return self.session.delete(key)
        return self._db(lambda s: s.delete(key), lambda: self._unreachable(key))

    # -- what the page says
    def notices(self) -> list[Notice]:
        self.entries()  # the listing every page reads anyway: a database that fails is said first, on this run
        out = [Notice("error", self.problem)] if self.problem else []
        names = [e.name for e in self.session.entries()]
        if names and not self.problem:  # the database is back, but these were made while it was not
            out.append(
                Notice(
                    "warning",
                    f"Not saved: {', '.join(md(n) for n in names)} could not be saved when "
                    f"{'it was' if len(names) == 1 else 'they were'} made, so {'it is' if len(names) == 1 else 'they are'} "
                    "kept in this tab only until you reload or close it: download what you want to keep (Train page).",
                )
            )
        return out + (self._store.notices() if self._store is not None else [])

    def describe(self) -> str:
        return self._this_run("describe", lambda: self._db(lambda s: s.describe(), lambda: TAB_ONLY))
