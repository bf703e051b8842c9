"""Shared mode's workspaces in a database: SQLite (embedded, the default) or PostgreSQL.

Plain Python (no Streamlit), tested against both. One ``Database`` per server
process (``connect``), one ``DatabaseStore`` per browser session: it sees only
the rows of its *owner*, the SHA-256 of the browser's key (``classroom.identity``),
so the key itself is never stored and one browser can never name another's rows.

Schema (``SCHEMA``, the same in both, created at start-up)::

    workspaces  owner PK · created · last_seen · expired (when its tokenizers were
                deleted for being idle, else 0: the page says so when the browser is back)
    tokenizers  owner + key PK · name · created (ISO time, the listing order) ·
                vocab_size · pattern · source · has_corpus · version (a counter:
                every change makes a new one, so caches know) · bytes (what the
                limit counts: the JSON plus the training text, uncompressed) ·
                doc (BPE Lab JSON, zlib) · corpus (UTF-8 training text, zlib, or NULL)

Limits per browser (``Limits``, from the environment): how many tokenizers and how
many megabytes; ``add`` checks both inside one transaction (two tabs adding at
once cannot overshoot) and raises ``LimitReached`` (a ValueError whose message
says what to delete). Idle workspaces expire: ``purge_expired`` deletes the
tokenizers of workspaces not seen for ``ttl_days`` and marks them expired; the
next visit from that browser gets a message once (``notice``).

A row that cannot be read (a damaged document) is listed by ``damaged`` with the
reason, never raised on a page's listing; the user can delete it and keeps the rest.

Connections: a small pool per process (scripts run on many threads); a
connection that fails is thrown away and the statement retried once on a new one,
so a database restart costs one slow rerun, not an error page.
"""

from __future__ import annotations

import hashlib
import os
import queue
import sqlite3
import threading
import time
import zlib
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from tokenizer import Tokenizer, formats
from tokenizer.models.fetch import data_dir
from ui.common.workspace import Damaged, Entry, Notice

from .stores import BaseStore, new_key

DATABASE_ENV = ("BPE_LAB_DATABASE_URL", "DATABASE_URL")
MAX_TOKENIZERS_ENV = "BPE_LAB_MAX_TOKENIZERS"
MAX_MB_ENV = "BPE_LAB_MAX_MB"
TTL_ENV = "BPE_LAB_WORKSPACE_TTL_DAYS"

SCHEMA_VERSION = 1
SCHEMA = """
CREATE TABLE IF NOT EXISTS bpe_lab_schema (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS workspaces (
    owner TEXT PRIMARY KEY,
    created DOUBLE PRECISION NOT NULL,
    last_seen DOUBLE PRECISION NOT NULL,
    expired DOUBLE PRECISION NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS workspaces_last_seen ON workspaces (last_seen);
CREATE TABLE IF NOT EXISTS tokenizers (
    owner TEXT NOT NULL REFERENCES workspaces (owner) ON DELETE CASCADE,
    key TEXT NOT NULL,
    name TEXT NOT NULL,
    created TEXT NOT NULL,
    vocab_size INTEGER NOT NULL,
    pattern TEXT NOT NULL,
    source TEXT NOT NULL,
    has_corpus INTEGER NOT NULL,
    added BIGINT NOT NULL,
    version BIGINT NOT NULL,
    bytes BIGINT NOT NULL,
    doc {blob} NOT NULL,
    corpus {blob},
    PRIMARY KEY (owner, key)
);
"""


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
    def from_env(cls, env: dict | None = None) -> Limits:
        """``BPE_LAB_MAX_TOKENIZERS``, ``BPE_LAB_MAX_MB``, ``BPE_LAB_WORKSPACE_TTL_DAYS`` (defaults 20, 50, 30).

        >>> Limits.from_env({"BPE_LAB_MAX_MB": "1.5", "BPE_LAB_MAX_TOKENIZERS": "3"})
        Limits(max_tokenizers=3, max_bytes=1572864, ttl_days=30.0)
        >>> Limits.from_env({"BPE_LAB_MAX_TOKENIZERS": "lots"})
        Traceback (most recent call last):
        ...
        ValueError: BPE_LAB_MAX_TOKENIZERS must be a positive number, not 'lots'
        """
        env = os.environ if env is None else env
        d = cls()

        def number(name: str, default: float) -> float:
            raw = env.get(name, "").strip()
            if not raw:
                return default
            try:
                value = float(raw)
            except ValueError:
                value = -1
            if value <= 0:
                raise ValueError(f"{name} must be a positive number, not {raw!r}")
            return value

        return cls(
            int(number(MAX_TOKENIZERS_ENV, d.max_tokenizers)),
            int(number(MAX_MB_ENV, d.max_bytes / 1024 / 1024) * 1024 * 1024),
            number(TTL_ENV, d.ttl_days),
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


class Database:
    """A connection pool for one database URL (``sqlite:///path`` or ``postgresql://…``)."""

    POOL = 4

    def __init__(self, url: str):
        self.url = url
        scheme = urlsplit(url).scheme.split("+")[0]
        if scheme == "sqlite":
            self.kind = "sqlite"
            # as SQLAlchemy writes them: sqlite:///relative/file, sqlite:////absolute/file
            rest = url.split(":///", 1)[1] if ":///" in url else ""
            if not rest:
                raise DatabaseUnavailable(f"a SQLite URL names a file: sqlite:////absolute/path.sqlite3, not {url!r}")
            self.path = str(Path(rest).resolve())
        elif scheme in ("postgres", "postgresql"):
            self.kind = "postgresql"
        else:
            raise DatabaseUnavailable(
                f"unsupported database URL {describe_url(url)!r}: use sqlite:///path/file.sqlite3 or postgresql://user@host/db"
            )
        self._pool: queue.LifoQueue = queue.LifoQueue()
        self._lock = threading.Lock()
        self._open = 0
        with self.connection() as conn:
            self._create_schema(conn)

    # -- connections
    def _new_connection(self):
        if self.kind == "sqlite":
            try:
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(self.path, timeout=10, isolation_level=None, check_same_thread=False)
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.execute("PRAGMA foreign_keys=ON")
                conn.execute("PRAGMA busy_timeout=10000")
            except (sqlite3.Error, OSError) as e:
                raise DatabaseUnavailable(f"cannot open the SQLite database {self.path}: {e}") from None
            return conn
        import psycopg

        try:
            return psycopg.connect(self.url, autocommit=True, connect_timeout=5)
        except psycopg.Error as e:
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise DatabaseUnavailable(f"cannot connect to the PostgreSQL database {describe_url(self.url)}: {first}") from None

    def _errors(self) -> tuple[type[BaseException], ...]:
        if self.kind == "sqlite":
            return (sqlite3.OperationalError, sqlite3.InterfaceError)
        import psycopg

        return (psycopg.OperationalError, psycopg.InterfaceError)

    @contextmanager
    def connection(self) -> Iterator:
        """A pooled connection; one that failed is closed instead of returned."""
        try:
            conn = self._pool.get_nowait()
        except queue.Empty:
            conn = self._new_connection()
        ok = False
        try:
            yield conn
            ok = True
        finally:
            if ok and self._pool.qsize() < self.POOL:
                self._pool.put(conn)
            else:
                try:
                    conn.close()
                except Exception:  # noqa: BLE001 - already broken
                    pass

    def _sql(self, sql: str) -> str:
        return sql.replace("?", "%s") if self.kind == "postgresql" else sql

    def _create_schema(self, conn) -> None:
        blob = "BLOB" if self.kind == "sqlite" else "BYTEA"
        for stmt in SCHEMA.format(blob=blob).split(";"):
            if stmt.strip():
                conn.execute(stmt)
        row = conn.execute("SELECT version FROM bpe_lab_schema").fetchone()
        if row is None:
            conn.execute(self._sql("INSERT INTO bpe_lab_schema (version) VALUES (?)"), (SCHEMA_VERSION,))
        elif row[0] > SCHEMA_VERSION:
            raise DatabaseUnavailable(
                f"the database {describe_url(self.url)} was made by a newer BPE Lab (schema {row[0]}); upgrade this one"
            )

    def _run(self, fn):
        """``fn(conn)``; retried once on a fresh connection when the connection failed (a database restart)."""
        errors = self._errors()
        for attempt in (0, 1):
            try:
                with self.connection() as conn:
                    return fn(conn)
            except errors as e:
                if attempt:
                    raise DatabaseUnavailable(
                        f"the database {describe_url(self.url)} is not answering: {str(e).strip().splitlines()[0] if str(e).strip() else e}"
                    ) from None

    def query(self, sql: str, params: Sequence = ()) -> list[tuple]:
        return self._run(lambda conn: list(conn.execute(self._sql(sql), tuple(params)).fetchall()))

    def execute(self, sql: str, params: Sequence = ()) -> int:
        def go(conn):
            return conn.execute(self._sql(sql), tuple(params)).rowcount

        return self._run(go)

    def transaction(self, fn):
        """``fn(run)`` in one transaction, where ``run(sql, params)`` returns the rows; the writer lock first (SQLite) or row locks (PostgreSQL)."""

        def go(conn):
            if self.kind == "sqlite":
                conn.execute("BEGIN IMMEDIATE")
            else:
                conn.execute("BEGIN")
            try:

                def run(sql: str, params: Sequence = ()):
                    cur = conn.execute(self._sql(sql), tuple(params))
                    return cur.fetchall() if cur.description else []

                out = fn(run)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            return out

        return self._run(go)

    def close(self) -> None:
        while True:
            try:
                self._pool.get_nowait().close()
            except queue.Empty:
                return

    # -- expiry
    def purge_expired(self, ttl_days: float, now: float | None = None) -> int:
        """Delete the tokenizers of workspaces idle for ``ttl_days``; mark them expired. Returns how many workspaces."""
        now = time.time() if now is None else now
        cutoff = now - ttl_days * 86400

        def go(run):
            owners = [r[0] for r in run("SELECT owner FROM workspaces WHERE last_seen < ? AND expired = 0", (cutoff,))]
            for owner in owners:
                run("DELETE FROM tokenizers WHERE owner = ?", (owner,))
                run("UPDATE workspaces SET expired = ? WHERE owner = ?", (now, owner))
            # the note that a workspace expired is kept for another period after expiring, then forgotten
            run("DELETE FROM workspaces WHERE expired > 0 AND expired < ?", (cutoff,))
            return len(owners)

        return self.transaction(go)


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
        rows = db.query("SELECT expired FROM workspaces WHERE owner = ?", (owner,))
        self.expired = bool(rows and rows[0][0])
        if rows:
            db.execute("UPDATE workspaces SET last_seen = ? WHERE owner = ?", (now, owner))

    # -- queries
    def _rows(self) -> list[tuple]:
        return self.db.query(
            "SELECT key, name, created, vocab_size, pattern, source, has_corpus, version FROM tokenizers WHERE owner = ? ORDER BY added",
            (self.owner,),
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
        rows = self.db.query("SELECT has_corpus FROM tokenizers WHERE owner = ? AND key = ?", (self.owner, key))
        return bool(rows and rows[0][0])

    def usage(self) -> tuple[int, int]:
        """``(tokenizers, bytes)`` this browser keeps."""
        rows = self.db.query("SELECT COUNT(*), COALESCE(SUM(bytes), 0) FROM tokenizers WHERE owner = ?", (self.owner,))
        return int(rows[0][0]), int(rows[0][1])

    def _version(self, key: str) -> int:
        rows = self.db.query("SELECT version FROM tokenizers WHERE owner = ? AND key = ?", (self.owner, key))
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
            "SELECT name, doc FROM tokenizers WHERE owner = ? AND key = ? AND version = ?", (self.owner, key, version)
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
        rows = self.db.query("SELECT corpus FROM tokenizers WHERE owner = ? AND key = ?", (self.owner, key))
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
            raise LimitReached(
                f"Your workspace is full: your tokenizers and their training texts take {_mb(used)}, and this one needs "
                f"{_mb(extra)} more; this server keeps at most {_mb(lim.max_bytes)} per browser. Delete a tokenizer on the "
                "Train page (download it first to keep a copy), or train on a shorter text."
            )

    def add(self, tok: Tokenizer, *, corpus: str | None = None, source: str = "trained") -> str:
        corpus = self._prepare(tok, corpus, source)
        key = new_key(tok)
        doc = formats.dumps(tok).encode("utf-8")
        corpus_bytes = corpus.encode("utf-8") if corpus is not None else None
        size = len(doc) + (len(corpus_bytes) if corpus_bytes is not None else 0)
        now = time.time()
        version = time.time_ns()
        row = (
            self.owner,
            key,
            tok.name,
            str(tok.metadata["saved_at"]),
            256 + tok.num_merges,
            tok.pattern_name,
            source,
            int(corpus is not None),
            version,
            version,
            size,
            zlib.compress(doc, 6),
            zlib.compress(corpus_bytes, 6) if corpus_bytes is not None else None,
        )

        def go(run):
            run(
                "INSERT INTO workspaces (owner, created, last_seen) VALUES (?, ?, ?) ON CONFLICT (owner) DO NOTHING",
                (self.owner, now, now),
            )
            if self.db.kind == "postgresql":  # SQLite's BEGIN IMMEDIATE already holds the writer lock
                run("SELECT owner FROM workspaces WHERE owner = ? FOR UPDATE", (self.owner,))
            count, used = run("SELECT COUNT(*), COALESCE(SUM(bytes), 0) FROM tokenizers WHERE owner = ?", (self.owner,))[0]
            self._check(int(count), int(used), size, 1)
            run("UPDATE workspaces SET last_seen = ?, expired = 0 WHERE owner = ?", (now, self.owner))
            run(
                "INSERT INTO tokenizers (owner, key, name, created, vocab_size, pattern, source, has_corpus, added, version, bytes, doc, corpus) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                row,
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
            rows = run("SELECT bytes, doc FROM tokenizers WHERE owner = ? AND key = ?", (self.owner, key))
            if not rows:
                raise ValueError(f"there is no tokenizer {key!r} in your workspace (it may have been deleted in another tab)")
            old_size, old_doc = rows[0]
            size = int(old_size) - len(zlib.decompress(bytes(old_doc))) + len(doc)
            run(
                "UPDATE tokenizers SET name = ?, doc = ?, bytes = ?, version = ? WHERE owner = ? AND key = ?",
                (tok.name, zlib.compress(doc, 6), size, version, self.owner, key),
            )

        self.db.transaction(go)
        self._parsed[key] = (version, tok)
        self._corpora.pop(key, None)

    def delete(self, key: str) -> None:
        self.db.execute("DELETE FROM tokenizers WHERE owner = ? AND key = ?", (self.owner, key))
        self._parsed.pop(key, None)
        self._corpora.pop(key, None)
        self._traces.pop(key, None)

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
