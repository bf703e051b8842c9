"""Shared mode's workspaces in a database: SQLite (embedded, the default) or PostgreSQL.

Plain Python (no Streamlit), tested against both. One ``Database`` per server
process (``connect``), one ``DatabaseStore`` per browser session: it sees only
the rows of its *owner*, the SHA-256 of the browser's key (``classroom.identity``),
so the key itself is never stored and one browser can never name another's rows.

Schema (``SCHEMA``, SQLAlchemy Core tables: the same in both, created at start-up)::

    workspaces  owner PK · created · last_seen · expired (when its tokenizers were
                deleted for being idle, else 0: the page says so when the browser is back)
    tokenizers  owner + key PK · name · created (ISO time, the listing order) ·
                vocab_size · pattern · source · has_corpus · version (a counter:
                every change makes a new one, so caches know) · bytes (what the
                limit counts: the JSON plus the training text, uncompressed) ·
                doc (BPE Lab JSON, zlib) · corpus (UTF-8 training text, zlib, or NULL)
    browser_files  owner + key + name PK · bytes: the model files the browser was sent for
                a tokenizer (``ui.web.payload``), counted in the limit and removed with it
    lesson_teachers  owner PK (a browser that opened the teacher link) · secret_id · since
    lesson_position  lesson PK · chapter · step · updated_at (where the teacher is)
    lesson_answers   question_id + owner PK (one answer per browser, the latest) · answer · correct · answered_at

Limits per browser (``Limits``, from the environment): how many tokenizers and how
many megabytes; ``add`` checks both inside one transaction (two tabs adding at
once cannot overshoot) and raises ``LimitReached`` (a ValueError whose message
says what to delete). Idle workspaces expire: ``purge_expired`` deletes the
tokenizers of workspaces not seen for ``ttl_days`` and marks them expired; the
next visit from that browser gets a message once (``notice``).

A row that cannot be read (a damaged document) is listed by ``damaged`` with the
reason, never raised on a page's listing; the user can delete it and keeps the rest.

Connections and dialects are SQLAlchemy Core's: one engine per process (its pool
serves the script threads), statements written once with named parameters
(``text``), and ``pool_pre_ping``, so a connection a database restart broke is
replaced before it is used (a restart costs no error page). Every error of the
driver becomes ``DatabaseUnavailable``, one line that says what to do.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import sys
import threading
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import sqlalchemy as sa
from sqlalchemy import exc

from tokenizer import Tokenizer, formats
from tokenizer.models.fetch import data_dir
from ui.common.workspace import Damaged, Entry, Notice
from ui.web import payload

from . import settings
from .stores import BaseStore, new_key

DATABASE_ENV = ("BPE_LAB_DATABASE_URL", "DATABASE_URL")
MAX_TOKENIZERS_ENV = "BPE_LAB_MAX_TOKENIZERS"
MAX_MB_ENV = "BPE_LAB_MAX_MB"
TTL_ENV = "BPE_LAB_WORKSPACE_TTL_DAYS"

SCHEMA_VERSION = 1
SCHEMA = sa.MetaData()
sa.Table("bpe_lab_schema", SCHEMA, sa.Column("version", sa.Integer, nullable=False))
sa.Table(
    "workspaces",
    SCHEMA,
    sa.Column("owner", sa.Text, primary_key=True),
    sa.Column("created", sa.Double, nullable=False),
    sa.Column("last_seen", sa.Double, nullable=False),
    sa.Column("expired", sa.Double, nullable=False, server_default="0"),
    sa.Index("workspaces_last_seen", "last_seen"),
)
sa.Table(
    "tokenizers",
    SCHEMA,
    sa.Column("owner", sa.Text, sa.ForeignKey("workspaces.owner", ondelete="CASCADE"), primary_key=True),
    sa.Column("key", sa.Text, primary_key=True),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("created", sa.Text, nullable=False),
    sa.Column("vocab_size", sa.Integer, nullable=False),
    sa.Column("pattern", sa.Text, nullable=False),
    sa.Column("source", sa.Text, nullable=False),
    sa.Column("has_corpus", sa.Integer, nullable=False),
    sa.Column("added", sa.BigInteger, nullable=False),
    sa.Column("version", sa.BigInteger, nullable=False),
    sa.Column("bytes", sa.BigInteger, nullable=False),
    sa.Column("doc", sa.LargeBinary, nullable=False),
    sa.Column("corpus", sa.LargeBinary),
)
sa.Table(
    "browser_files",
    SCHEMA,
    sa.Column("owner", sa.Text, primary_key=True),
    sa.Column("key", sa.Text, primary_key=True),
    sa.Column("name", sa.Text, primary_key=True),
    sa.Column("bytes", sa.BigInteger, nullable=False),
    sa.Index("browser_files_name", "name"),
)
# the draft of a training while it runs (the Train page's text and settings), for when its app process dies
sa.Table(
    "trainings",
    SCHEMA,
    sa.Column("owner", sa.Text, sa.ForeignKey("workspaces.owner", ondelete="CASCADE"), primary_key=True),
    sa.Column("started", sa.Double, nullable=False),
    sa.Column("record", sa.LargeBinary, nullable=False),
)
# the lesson in a class (classroom/lesson.py): who leads, where the teacher is, what the class answered
sa.Table(
    "lesson_teachers",
    SCHEMA,
    sa.Column("owner", sa.Text, primary_key=True),
    sa.Column("secret_id", sa.Text, nullable=False),
    sa.Column("since", sa.Double, nullable=False),
)
sa.Table(
    "lesson_position",
    SCHEMA,
    sa.Column("lesson", sa.Text, primary_key=True),
    sa.Column("chapter", sa.Integer, nullable=False),
    sa.Column("step", sa.Integer, nullable=False),
    sa.Column("updated_at", sa.Double, nullable=False),
)
sa.Table(
    "lesson_answers",
    SCHEMA,
    sa.Column("question_id", sa.Text, primary_key=True),
    sa.Column("owner", sa.Text, primary_key=True),
    sa.Column("answer", sa.Text, nullable=False),
    sa.Column("correct", sa.Integer, nullable=False),
    sa.Column("answered_at", sa.Double, nullable=False),
)


#: What SQLite's error codes mean for the person who runs the server, and what to do (the first matching prefix).
SQLITE_PROBLEMS = [
    (
        "SQLITE_CORRUPT",
        "the database file {path} is damaged ({why}): restore it from a backup, or move it away "
        "(BPE Lab then starts with an empty one)",
    ),
    (
        "SQLITE_NOTADB",
        "{path} is not a SQLite database ({why}): move it away (BPE Lab then starts with an empty one), "
        "or set BPE_LAB_DATABASE_URL to the right file",
    ),
    (
        "SQLITE_READONLY",
        "the database file {path} cannot be written ({why}): let this user write it and its folder, "
        "or set BPE_LAB_DATABASE_URL to a file it can write",
    ),
    (
        "SQLITE_FULL",
        "the disk that holds the database file {path} is full ({why}): free some space, "
        "or set BPE_LAB_DATABASE_URL to a file on another disk",
    ),
    ("SQLITE_CANTOPEN", "cannot open the SQLite database {path} ({why}): check that this user may read and write its folder"),
    ("SQLITE_IOERR", "the database file {path} cannot be read or written ({why}): check the disk it is on"),
]


class DatabaseUnavailable(ValueError):
    """The database cannot be reached or opened; ``str()`` is one line that says what to check."""


class LimitReached(ValueError):
    """A browser's workspace is full (too many tokenizers or megabytes); the message says what to do."""


@dataclass(frozen=True)
class Limits:
    """What one browser may keep on a shared server, and for how long without a visit."""

    max_tokenizers: int = 20
    max_bytes: int = 50 * 1024 * 1024
    ttl_days: float = 30.0

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Limits:
        """``BPE_LAB_MAX_TOKENIZERS``, ``BPE_LAB_MAX_MB``, ``BPE_LAB_WORKSPACE_TTL_DAYS`` (defaults 20, 50, 30).

        >>> Limits.from_env({"BPE_LAB_MAX_MB": "1.5", "BPE_LAB_MAX_TOKENIZERS": "3"})
        Limits(max_tokenizers=3, max_bytes=1572864, ttl_days=30.0)
        >>> Limits.from_env({"BPE_LAB_MAX_TOKENIZERS": "lots"})
        Traceback (most recent call last):
        ...
        ValueError: BPE_LAB_MAX_TOKENIZERS must be a whole number from 1 to 100000 (tokenizers one browser may keep on a shared server), not 'lots'
        """
        d = cls()
        megabytes = settings.number(MAX_MB_ENV, env, d.max_bytes / 1024 / 1024)
        return cls(
            settings.number(MAX_TOKENIZERS_ENV, env, d.max_tokenizers),
            max(1, int(megabytes * 1024 * 1024)),
            float(settings.number(TTL_ENV, env, d.ttl_days)),
        )


def owner_of(browser_key: str) -> str:
    """The owner id stored for a browser key: its SHA-256 (the key itself is never stored).

    >>> owner_of("k" * 32) == owner_of("k" * 32), len(owner_of("k" * 32))
    (True, 64)
    """
    return hashlib.sha256(b"bpe-lab-browser:" + browser_key.encode("utf-8")).hexdigest()


def database_url(env: dict | None = None) -> str:
    """``$BPE_LAB_DATABASE_URL``, else ``$DATABASE_URL``, else SQLite in the data folder.

    >>> database_url({"DATABASE_URL": "postgresql://db/bpe"})
    'postgresql://db/bpe'
    """
    env = os.environ if env is None else env
    for name in DATABASE_ENV:
        if env.get(name, "").strip():
            return env[name].strip()
    return f"sqlite:///{data_dir() / 'workspaces.sqlite3'}"


def describe_url(url: str) -> str:
    """The URL without its password, for messages and logs.

    >>> describe_url("postgresql://bpe:secret@db:5432/bpe")
    'postgresql://bpe@db:5432/bpe'
    """
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)[1]
    user = parts.username or ""
    return parts._replace(netloc=f"{user}@{netloc}" if user else netloc).geturl()


# ----------------------------------------------------------------------------- the database


def _first_line(e: BaseException) -> str:
    text = str(getattr(e, "orig", None) or e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def _sqlite_connect(dbapi_connection, _record) -> None:
    """Each new SQLite connection: transactions begun by us (``_sqlite_begin``), WAL, foreign keys, a busy wait."""
    dbapi_connection.isolation_level = None
    for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "foreign_keys=ON", "busy_timeout=10000"):
        dbapi_connection.execute(f"PRAGMA {pragma}")


def _sqlite_begin(conn) -> None:
    """A writing transaction takes SQLite's writer lock first (so two tabs adding at once queue, never overshoot)."""
    conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get("bpe_lab_write") else "BEGIN")


def file_id(path: str) -> tuple[int, int] | None:
    """The file at ``path`` as (device, inode), or None when there is none."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def sqlite_path(url: str) -> str | None:
    """The file a ``sqlite:///`` URL names, resolved as ``Database`` opens it; None for any other URL."""
    if urlsplit(url).scheme.split("+")[0] != "sqlite" or ":///" not in url or not url.split(":///", 1)[1]:
        return None
    return str(Path(url.split(":///", 1)[1]).resolve())


def removed(path: str) -> str:
    """What the page and the log say when the SQLite file at ``path`` is not the one this process opened."""
    return (
        f"the database file {path} was removed or replaced while BPE Lab was running, so nothing more can be "
        "saved in it: restart BPE Lab to open the file at that path again (a new, empty one if it is gone)"
    )


class Database:
    """One database URL (``sqlite:///path`` or ``postgresql://…``): SQLAlchemy's engine and what went wrong, in words."""

    POOL = 4

    def __init__(self, url: str):
        self.url = url
        # the SQLite file this process opened (device, inode), once the schema is in it: ``_same_file`` compares
        self._file: tuple[int, int] | None = None
        self._gone_said = False
        scheme = urlsplit(url).scheme.split("+")[0]
        if scheme == "sqlite":
            self.kind = "sqlite"
            # as SQLAlchemy writes them: sqlite:///relative/file, sqlite:////absolute/file
            rest = url.split(":///", 1)[1] if ":///" in url else ""
            if not rest:
                raise DatabaseUnavailable(f"a SQLite URL names a file: sqlite:////absolute/path.sqlite3, not {url!r}")
            self.path = str(Path(rest).resolve())
            try:
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise DatabaseUnavailable(f"cannot open the SQLite database {self.path}: {e.strerror}") from None
            self.engine = sa.create_engine(
                sa.URL.create("sqlite", database=self.path),
                connect_args={"timeout": 10, "check_same_thread": False},
                pool_size=self.POOL,
            )
            sa.event.listen(self.engine, "connect", _sqlite_connect)
            sa.event.listen(self.engine, "begin", _sqlite_begin)
        elif scheme in ("postgres", "postgresql"):
            self.kind = "postgresql"
            self.path = describe_url(url)
            self.engine = sa.create_engine(
                sa.make_url(url).set(drivername="postgresql+psycopg"),
                connect_args={"connect_timeout": 5},
                pool_size=self.POOL,
                pool_pre_ping=True,
            )
        else:
            raise DatabaseUnavailable(
                f"unsupported database URL {describe_url(url)!r}: use sqlite:///path/file.sqlite3 or postgresql://user@host/db"
            )
        with self._errors(opening=True), self._connection(write=True) as conn:
            SCHEMA.create_all(conn)
            version = conn.execute(sa.text("SELECT version FROM bpe_lab_schema")).scalar()
            if version is None:
                conn.execute(sa.text("INSERT INTO bpe_lab_schema (version) VALUES (:v)"), {"v": SCHEMA_VERSION})
        if self.kind == "sqlite":
            self._file = self._file_id()
        if version is not None and not isinstance(version, int):  # another table's page where the schema's should be
            raise DatabaseUnavailable(SQLITE_PROBLEMS[0][1].format(path=self.path, why=f"schema version {version!r}"))
        if version is not None and version > SCHEMA_VERSION:
            raise DatabaseUnavailable(
                f"the database {describe_url(self.url)} was made by a newer BPE Lab (schema {version}); upgrade this one"
            )

    @contextmanager
    def _errors(self, opening: bool = False) -> Iterator[None]:
        """Any error of the database driver as a ``DatabaseUnavailable`` of one line that says what to do."""
        try:
            yield
        except exc.SQLAlchemyError as e:
            raise DatabaseUnavailable(self._explain(e, opening)) from None

    def _explain(self, e: exc.SQLAlchemyError, opening: bool) -> str:
        first = _first_line(e)
        if self.kind == "postgresql":
            if opening:
                return f"cannot connect to the PostgreSQL database {describe_url(self.url)}: {first}"
            return f"the database {describe_url(self.url)} is not answering: {first}"
        code = getattr(getattr(e, "orig", None), "sqlite_errorname", "") or ""
        if code.startswith(("SQLITE_IOERR", "SQLITE_CANTOPEN", "SQLITE_READONLY")):
            code = self._disk_problem() or code  # SQLite often says only "disk I/O error": the disk says why
        for prefix, what in SQLITE_PROBLEMS:
            if code.startswith(prefix):
                return what.format(path=self.path, why=first)
        if opening:
            return f"cannot open the SQLite database {self.path}: {first}"
        return f"the database {self.path} is not answering: {first}"

    def _disk_problem(self) -> str | None:
        """``SQLITE_READONLY`` or ``SQLITE_FULL`` when the file's disk is read-only or (nearly) full, else None."""
        folder = Path(self.path).parent
        try:
            disk = os.statvfs(folder)
        except OSError:
            return None
        if disk.f_flag & os.ST_RDONLY or not os.access(folder, os.W_OK):
            return "SQLITE_READONLY"
        if disk.f_bavail * disk.f_frsize < 256 * 1024:
            return "SQLITE_FULL"
        return None

    def check(self) -> None:
        """At start-up: the whole SQLite file reads back whole (``PRAGMA quick_check``) and can be written."""
        if self.kind != "sqlite":
            return
        with self._errors(), self._connection(write=True) as conn:
            problems = [row[0] for row in conn.exec_driver_sql("PRAGMA quick_check")]
            if problems != ["ok"]:
                raise DatabaseUnavailable(
                    SQLITE_PROBLEMS[0][1].format(path=self.path, why=f"{len(problems)} problems, the first: {problems[0]}")
                )
            conn.execute(sa.text("UPDATE bpe_lab_schema SET version = version"))  # a page written: read-only, full disk

    def _file_id(self) -> tuple[int, int] | None:
        return file_id(self.path)

    def _same_file(self) -> None:
        """``DatabaseUnavailable`` when the SQLite file at ``path`` is no longer the one this process opened.

        Removed (``rm data/workspaces.sqlite3*``) or replaced while the server runs, the old file lives on for the
        connections that hold it open, and whatever they write is lost when the process ends: better say it cannot
        be saved (the page keeps the work in the session) than report a save into a file nobody will read again.
        """
        if self._file is None or self._file_id() == self._file:
            return
        problem = removed(self.path)
        if not self._gone_said:  # the teacher reads the server's log; the students see the page's notice
            self._gone_said = True
            rescued = self._rescue()
            kept = (
                f"; what it held is copied to {rescued}: stop BPE Lab and move that copy to {self.path} to keep it"
                if rescued
                else ""
            )
            print(f"BPE Lab: {problem}{kept}", file=sys.stderr, flush=True)
        raise DatabaseUnavailable(problem)

    def _rescue(self) -> str | None:
        """Copy the removed file, through a pooled connection that still holds it open, next to the path; where to.

        Only with an idle connection in the pool: a new one would open (and make) a file at the path. None when
        the copy cannot be made (the folder gone too, a full disk)."""
        if self.engine.pool.checkedin() == 0:
            return None
        target = f"{self.path}.rescued-{os.getpid()}"
        try:
            with self.engine.connect() as conn:
                copy = sqlite3.connect(target)
                try:
                    conn.connection.dbapi_connection.backup(copy)
                finally:
                    copy.close()
        except (OSError, sqlite3.Error, exc.SQLAlchemyError):
            Path(target).unlink(missing_ok=True)
            return None
        return target

    @contextmanager
    def _connection(self, write: bool) -> Iterator[sa.Connection]:
        """A pooled connection in a transaction (committed when the block ends, rolled back on an exception); the file
        checked before (nothing read from a removed file) and after a write (a write into one is no save)."""
        self._same_file()
        with self.engine.connect() as conn:
            if write:
                conn.execution_options(bpe_lab_write=True)
            with conn.begin():
                yield conn
        if write:
            self._same_file()

    def query(self, sql: str, **params) -> list[tuple]:
        with self._errors(), self._connection(write=False) as conn:
            return [tuple(row) for row in conn.execute(sa.text(sql), params)]

    def execute(self, sql: str, **params) -> int:
        with self._errors(), self._connection(write=True) as conn:
            return conn.execute(sa.text(sql), params).rowcount

    def transaction(self, fn: Callable):
        """``fn(run)`` in one transaction, where ``run(sql, **params)`` returns the rows; the writer lock first (SQLite's
        BEGIN IMMEDIATE) or row locks (PostgreSQL)."""
        with self._errors(), self._connection(write=True) as conn:

            def run(sql: str, **params) -> list[tuple]:
                result = conn.execute(sa.text(sql), params)
                return [tuple(row) for row in result] if result.returns_rows else []

            return fn(run)

    def close(self) -> None:
        self.engine.dispose()

    # -- expiry
    def purge_expired(self, ttl_days: float, now: float | None = None) -> int:
        """Delete the tokenizers of workspaces idle for ``ttl_days`` (mark them expired) and lesson answers and teachers as
        old. Returns how many workspaces."""
        now = time.time() if now is None else now
        cutoff = now - ttl_days * 86400

        def go(run):
            owners = [r[0] for r in run("SELECT owner FROM workspaces WHERE last_seen < :cutoff AND expired = 0", cutoff=cutoff)]
            for owner in owners:
                names.update(r[0] for r in run("SELECT name FROM browser_files WHERE owner = :owner", owner=owner))
                run("DELETE FROM browser_files WHERE owner = :owner", owner=owner)
                run("DELETE FROM tokenizers WHERE owner = :owner", owner=owner)
                run("DELETE FROM trainings WHERE owner = :owner", owner=owner)
                run("UPDATE workspaces SET expired = :now WHERE owner = :owner", now=now, owner=owner)
            # the note that a workspace expired is kept for another period after expiring, then forgotten
            run("DELETE FROM workspaces WHERE expired > 0 AND expired < :cutoff", cutoff=cutoff)
            # a lesson's answers and teachers are kept as long as a workspace, then forgotten
            run("DELETE FROM lesson_answers WHERE answered_at < :cutoff", cutoff=cutoff)
            run("DELETE FROM lesson_teachers WHERE since < :cutoff", cutoff=cutoff)
            return len(owners)

        names: set[str] = set()
        gone = self.transaction(go)
        self.remove_unused_files(names)
        return gone

    def remove_unused_files(self, names) -> None:
        """Remove the browser model files ``names`` that no tokenizer of anyone's refers to any more."""
        for name in names:
            if not self.query("SELECT 1 FROM browser_files WHERE name = :name", name=name):
                payload.remove_user_model(name)


_PURGE_EVERY = 600.0
_last_purge: dict[str, float] = {}
_purge_lock = threading.Lock()


def maybe_purge(db: Database, limits: Limits, now: float | None = None) -> None:
    """``purge_expired`` at most once every ten minutes per process and database."""
    now = time.time() if now is None else now
    with _purge_lock:
        if now - _last_purge.get(db.url, 0.0) < _PURGE_EVERY:
            return
        _last_purge[db.url] = now
    db.purge_expired(limits.ttl_days, now)


#: What one browser keeps: its tokenizers, their bytes, and the bytes of their browser model files.
USAGE = (
    "SELECT (SELECT COUNT(*) FROM tokenizers WHERE owner = :owner), "
    "(SELECT COALESCE(SUM(bytes), 0) FROM tokenizers WHERE owner = :owner), "
    "(SELECT COALESCE(SUM(bytes), 0) FROM browser_files WHERE owner = :owner)"
)


def _mb(n: int) -> str:
    return f"{n / 1024 / 1024:.1f} MB"


# ----------------------------------------------------------------------------- one browser's tokenizers


class DatabaseStore(BaseStore):
    """One browser's tokenizers in the database (a ``ui.common.workspace.Store``).

    Parsed tokenizers and training texts are kept by this object (one per browser
    session) by ``(key, version)``: a rerun reads one small row listing, never a document.
    """

    CORPORA_KEPT = 2

    def __init__(self, db: Database, owner: str, limits: Limits | None = None, *, now: float | None = None):
        super().__init__()
        self.db = db
        self.owner = owner
        self.limits = limits or Limits()
        self._versions: dict[str, int] = {}
        self._parsed: dict[str, tuple[int, Tokenizer]] = {}
        self._corpora: OrderedDict[str, tuple[int, str | None]] = OrderedDict()
        self._damaged: dict[tuple[str, int], str] = {}
        now = time.time() if now is None else now
        maybe_purge(db, self.limits, now)
        rows = db.query("SELECT expired FROM workspaces WHERE owner = :owner", owner=owner)
        self.expired = bool(rows and rows[0][0])
        if rows:
            db.execute("UPDATE workspaces SET last_seen = :now WHERE owner = :owner", now=now, owner=owner)

    # -- queries
    def _rows(self) -> list[tuple]:
        return self.db.query(
            "SELECT key, name, created, vocab_size, pattern, source, has_corpus, version FROM tokenizers "
            "WHERE owner = :owner ORDER BY added",
            owner=self.owner,
        )

    def keys(self) -> list[str]:
        return [r[0] for r in self._rows()]

    def entries(self) -> list[Entry]:
        """The readable tokenizers, oldest first."""
        out = []
        for key, name, created, vocab, pattern, source, has_corpus, version in self._rows():
            self._versions[key] = version
            if (key, version) in self._damaged:
                continue
            out.append(Entry(key, name, created, vocab, pattern, source, bool(has_corpus)))
        return out

    def damaged(self) -> list[Damaged]:
        out = []
        for key, name, _, _, _, _, _, version in self._rows():
            try:
                self._get(key, version)
            except ValueError as e:
                out.append(Damaged(key, name, str(e)))
        return out

    def has_corpus(self, key: str) -> bool:
        rows = self.db.query("SELECT has_corpus FROM tokenizers WHERE owner = :owner AND key = :key", owner=self.owner, key=key)
        return bool(rows and rows[0][0])

    def usage(self) -> tuple[int, int]:
        """``(tokenizers, bytes)`` this browser keeps (the bytes of their browser model files too)."""
        rows = self.db.query(USAGE, owner=self.owner)
        return int(rows[0][0]), int(rows[0][1]) + int(rows[0][2])

    def _version(self, key: str) -> int:
        rows = self.db.query("SELECT version FROM tokenizers WHERE owner = :owner AND key = :key", owner=self.owner, key=key)
        if not rows:
            raise ValueError(
                f"there is no tokenizer {key!r} in your workspace (it may have been deleted, or it belongs to another browser)"
            )
        return rows[0][0]

    def get(self, key: str) -> Tokenizer:
        return self._get(key, self._version(key))

    def _get(self, key: str, version: int) -> Tokenizer:
        hit = self._parsed.get(key)
        if hit is not None and hit[0] == version:
            return hit[1]
        if (key, version) in self._damaged:
            raise ValueError(self._damaged[(key, version)])
        rows = self.db.query(
            "SELECT name, doc FROM tokenizers WHERE owner = :owner AND key = :key AND version = :version",
            owner=self.owner,
            key=key,
            version=version,
        )
        if not rows:
            return self.get(key)  # changed in between (another tab): read the new version
        name, doc = rows[0]
        try:
            tok = formats.loads(zlib.decompress(bytes(doc)).decode("utf-8"))
        except (ValueError, zlib.error) as e:  # also UnicodeDecodeError
            message = f"the saved tokenizer {name!r} cannot be read ({e}); delete it (your other tokenizers are fine)"
            self._damaged[(key, version)] = message
            raise ValueError(message) from None
        self._parsed[key] = (version, tok)
        return tok

    def corpus(self, key: str) -> str | None:
        version = self._version(key)
        hit = self._corpora.get(key)
        if hit is not None and hit[0] == version:
            self._corpora.move_to_end(key)
            return hit[1]
        rows = self.db.query("SELECT corpus FROM tokenizers WHERE owner = :owner AND key = :key", owner=self.owner, key=key)
        raw = rows[0][0] if rows else None
        try:
            text = zlib.decompress(bytes(raw)).decode("utf-8") if raw is not None else None
        except (zlib.error, UnicodeDecodeError):
            text = None  # a damaged training text: the tokenizer still works, Step through says there is none
        self._corpora[key] = (version, text)
        while len(self._corpora) > self.CORPORA_KEPT:
            self._corpora.popitem(last=False)
        return text

    # -- changes
    def check_room(self, extra_bytes: int = 0, *, adding: int = 1) -> None:
        """``LimitReached`` when ``adding`` more tokenizers of ``extra_bytes`` would not fit."""
        count, used = self.usage()
        self._check(count, used, extra_bytes, adding)

    def _check(self, count: int, used: int, extra: int, adding: int) -> None:
        lim = self.limits
        if adding and count + adding > lim.max_tokenizers:
            raise LimitReached(
                f"Your workspace is full: it holds {count} tokenizers, the most this server keeps per browser is "
                f"{lim.max_tokenizers}. Delete one on the Train page (download it first to keep a copy), then try again."
            )
        if used + extra > lim.max_bytes:
            head = (
                f"Your workspace is full: your tokenizers, their training texts and their copies for your browser take "
                f"{_mb(used)}, and {'this one' if adding else 'its copy for your browser'} needs {_mb(extra)} more; "
                f"this server keeps at most {_mb(lim.max_bytes)} per browser"
            )
            if adding:
                raise LimitReached(
                    f"{head}. Delete a tokenizer on the Train page (download it first to keep a copy), or train on a "
                    "shorter text."
                )
            raise LimitReached(
                f"{head}, so the server tokenizes its text instead. Delete a tokenizer on the Train page (download it "
                "first to keep a copy) to make room."
            )

    def add(self, tok: Tokenizer, *, corpus: str | None = None, source: str = "trained") -> str:
        corpus = self._prepare(tok, corpus, source)
        key = new_key(tok)
        doc = formats.dumps(tok).encode("utf-8")
        corpus_bytes = corpus.encode("utf-8") if corpus is not None else None
        size = len(doc) + (len(corpus_bytes) if corpus_bytes is not None else 0)
        now = time.time()
        version = time.time_ns()
        row = {
            "owner": self.owner,
            "key": key,
            "name": tok.name,
            "created": str(tok.metadata["saved_at"]),
            "vocab_size": 256 + tok.num_merges,
            "pattern": tok.pattern_name,
            "source": source,
            "has_corpus": int(corpus is not None),
            "added": version,
            "version": version,
            "bytes": size,
            "doc": zlib.compress(doc, 6),
            "corpus": zlib.compress(corpus_bytes, 6) if corpus_bytes is not None else None,
        }

        def go(run):
            run(
                "INSERT INTO workspaces (owner, created, last_seen) VALUES (:owner, :now, :now) ON CONFLICT (owner) DO NOTHING",
                owner=self.owner,
                now=now,
            )
            if self.db.kind == "postgresql":  # SQLite's BEGIN IMMEDIATE already holds the writer lock
                run("SELECT owner FROM workspaces WHERE owner = :owner FOR UPDATE", owner=self.owner)
            count, used, files = run(USAGE, owner=self.owner)[0]
            self._check(int(count), int(used) + int(files), size, 1)
            run("UPDATE workspaces SET last_seen = :now, expired = 0 WHERE owner = :owner", now=now, owner=self.owner)
            run(
                f"INSERT INTO tokenizers ({', '.join(row)}) VALUES ({', '.join(':' + c for c in row)})",
                **row,
            )

        self.db.transaction(go)
        self.expired = False
        self._parsed[key] = (version, tok)
        self._corpora[key] = (version, corpus)
        while len(self._corpora) > self.CORPORA_KEPT:
            self._corpora.popitem(last=False)
        return key

    def _replace(self, key: str, tok: Tokenizer) -> None:
        doc = formats.dumps(tok).encode("utf-8")
        version = time.time_ns()

        def go(run):
            rows = run("SELECT bytes, doc FROM tokenizers WHERE owner = :owner AND key = :key", owner=self.owner, key=key)
            if not rows:
                raise ValueError(f"there is no tokenizer {key!r} in your workspace (it may have been deleted in another tab)")
            old_size, old_doc = rows[0]
            size = int(old_size) - len(zlib.decompress(bytes(old_doc))) + len(doc)
            run(
                "UPDATE tokenizers SET name = :name, doc = :doc, bytes = :bytes, version = :version WHERE owner = :owner AND key = :key",
                name=tok.name,
                doc=zlib.compress(doc, 6),
                bytes=size,
                version=version,
                owner=self.owner,
                key=key,
            )

        self.db.transaction(go)
        self._parsed[key] = (version, tok)
        self._corpora.pop(key, None)

    def attach(self, key: str, name: str, size: int) -> None:
        """Count the browser model file ``name`` in this browser's limit (``LimitReached`` when it does not fit)."""

        def go(run):
            if run(
                "SELECT 1 FROM browser_files WHERE owner = :owner AND key = :key AND name = :name",
                owner=self.owner,
                key=key,
                name=name,
            ):
                return
            if not run("SELECT 1 FROM tokenizers WHERE owner = :owner AND key = :key", owner=self.owner, key=key):
                raise ValueError(f"there is no tokenizer {key!r} in your workspace (it may have been deleted in another tab)")
            count, used, files = run(USAGE, owner=self.owner)[0]
            self._check(int(count), int(used) + int(files), size, 0)
            run(
                "INSERT INTO browser_files (owner, key, name, bytes) VALUES (:owner, :key, :name, :bytes)",
                owner=self.owner,
                key=key,
                name=name,
                bytes=size,
            )

        self.db.transaction(go)

    def delete(self, key: str) -> None:
        def go(run):
            names = [
                r[0] for r in run("SELECT name FROM browser_files WHERE owner = :owner AND key = :key", owner=self.owner, key=key)
            ]
            run("DELETE FROM browser_files WHERE owner = :owner AND key = :key", owner=self.owner, key=key)
            run("DELETE FROM tokenizers WHERE owner = :owner AND key = :key", owner=self.owner, key=key)
            return names

        self.db.remove_unused_files(self.db.transaction(go))
        self._parsed.pop(key, None)
        self._corpora.pop(key, None)
        self._traces.pop(key, None)

    def _get_training(self) -> str | None:
        rows = self.db.query("SELECT record FROM trainings WHERE owner = :owner", owner=self.owner)
        return zlib.decompress(bytes(rows[0][0])).decode("utf-8") if rows else None

    def _put_training(self, record: str | None) -> None:
        now = time.time()

        def go(run):
            run("DELETE FROM trainings WHERE owner = :owner", owner=self.owner)
            if record is None:
                return
            run(
                "INSERT INTO workspaces (owner, created, last_seen) VALUES (:owner, :now, :now) ON CONFLICT (owner) DO NOTHING",
                owner=self.owner,
                now=now,
            )
            run(
                "INSERT INTO trainings (owner, started, record) VALUES (:owner, :now, :record)",
                owner=self.owner,
                now=now,
                record=zlib.compress(record.encode("utf-8"), 6),
            )

        self.db.transaction(go)

    def notices(self) -> list[Notice]:
        if not self.expired:
            return []
        days = self.limits.ttl_days
        return [
            Notice(
                "warning",
                f"Your workspace was not used for {days:g} days, so its tokenizers were deleted (this server "
                f"keeps them {days:g} days after your last visit). Train or upload to start again.",
                once=True,
            )
        ]

    def describe(self) -> str:
        count, used = self.usage()
        lim = self.limits
        return (
            f"Shared server: your tokenizers are kept for this browser (a cookie; nobody else can see them) for "
            f"{lim.ttl_days:g} days after your last visit. You keep {count} of at most {lim.max_tokenizers} "
            f"({used / 1024 / 1024:.1f} of {lim.max_bytes / 1024 / 1024:.0f} MB)."
        )


__all__ = [
    "Database",
    "DatabaseStore",
    "DatabaseUnavailable",
    "LimitReached",
    "Limits",
    "database_url",
    "describe_url",
    "maybe_purge",
    "owner_of",
]
