"""Where trained and uploaded tokenizers live.

Local mode (default): a folder (``$BPE_LAB_WORKSPACE``, default ``data/workspace``);
tokenizers survive page reloads and server restarts. Shared mode
(``BPE_LAB_SHARED=1``, several people on one server): each browser keeps its own
tokenizers in a database (``ui.common.database``: SQLite, or PostgreSQL by
``$DATABASE_URL``), found by the browser's key (``ui.common.identity``); they
survive reloads and restarts, and nobody else sees them.

``TokenizerStore`` is plain Python (tested without Streamlit); ``store()`` picks
the right one for the running session. In local mode one folder store serves every
session of the server (one person's machine, several tabs): its only shared
mutable part is the cache of parsed files, a dict whose single assignments are
atomic, so two sessions at worst read the same file twice.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from tokenizer import Tokenizer, TrainingTrace, formats
from tokenizer.fetch import data_dir

from .upload import check_size

SHARED_ENV = "BPE_LAB_SHARED"
WORKSPACE_ENV = "BPE_LAB_WORKSPACE"
#: The most training text kept with a tokenizer (for the Step page); more is cut
#: (and the tokenizer's metadata says so). Above the 10 MB upload limit on purpose:
#: every corpus the Train page accepts is kept whole, so the Step page's pair counts
#: are exactly the ones training saw.
MAX_CORPUS_CHARS = 11_000_000


def shared_mode() -> bool:
    return os.environ.get(SHARED_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def workspace_dir() -> Path:
    env = os.environ.get(WORKSPACE_ENV)
    return Path(env) if env else data_dir() / "workspace"


@dataclass(frozen=True)
class Entry:
    key: str
    name: str
    created: str
    vocab_size: int
    pattern: str
    source: str  # "trained" or "uploaded"
    has_corpus: bool


@dataclass(frozen=True)
class Damaged:
    """A saved tokenizer file that cannot be read, and why."""

    key: str
    file: str
    message: str


@dataclass(frozen=True)
class Export:
    """One download of a tokenizer: the bytes, or why this format cannot hold it."""

    label: str
    file_name: str
    mime: str
    data: bytes | None
    problem: str | None = None


def _slug(name: str) -> str:
    s = re.sub(r"[^a-zA-Z0-9]+", "-", name).strip("-").lower()
    return (s or "tokenizer")[:40]


def new_key(tok: Tokenizer) -> str:
    """A new workspace key for ``tok``: its name as a slug and six random hex digits."""
    return f"{_slug(tok.name)}-{secrets.token_hex(3)}"


def unique_name(name: str, taken) -> str:
    """``name``, or the first of ``name (2)``, ``name (3)``… that is not ``taken``.

    >>> unique_name("docstrings-2000", {"docstrings-2000"})
    'docstrings-2000 (2)'
    >>> unique_name("docstrings-2000 (2)", {"docstrings-2000", "docstrings-2000 (2)"})
    'docstrings-2000 (3)'
    >>> unique_name("new", {"old"})
    'new'
    """
    taken = set(taken)
    if name not in taken:
        return name
    m = re.fullmatch(r"(.*) \((\d+)\)", name)
    base, n = (m.group(1), int(m.group(2))) if m else (name, 1)
    while True:
        n += 1
        if f"{base} ({n})" not in taken:
            return f"{base} ({n})"


def stamp() -> str:
    """Now, as the workspace writes times (local time, to the second)."""
    return time.strftime("%Y-%m-%dT%H:%M:%S")


class TokenizerStore:
    """Tokenizers by key: JSON files in ``root``, or only in memory when ``root`` is None."""

    def __init__(self, root: Path | None):
        self.root = Path(root) if root is not None else None
        self._memory: dict[str, tuple[Tokenizer, str | None]] = {}
        self._loaded: dict[str, tuple[float, Tokenizer]] = {}
        # traces rebuilt from a stored corpus, by key and tokenizer object (never written onto the tokenizer)
        self._traces: dict[str, tuple[Tokenizer, TrainingTrace]] = {}
        if self.root is not None:
            self.root.mkdir(parents=True, exist_ok=True)

    # -- paths
    def _json(self, key: str) -> Path:
        return self.root / f"{key}.json"

    def _corpus(self, key: str) -> Path:
        return self.root / f"{key}.corpus.txt"

    # -- queries
    def keys(self) -> list[str]:
        if self.root is None:
            return list(self._memory)
        files = sorted(self.root.glob("*.json"), key=lambda p: p.stat().st_mtime)
        return [p.stem for p in files]

    def entries(self) -> list[Entry]:
        """Every readable tokenizer, oldest first (damaged files: see ``damaged``)."""
        out = []
        for key in self.keys():
            try:
                tok = self.get(key)
            except ValueError:
                continue  # listed by damaged(), with the reason
            md = tok.metadata
            out.append(
                Entry(
                    key,
                    tok.name or key,
                    str(md.get("saved_at") or md.get("trained_at") or md.get("uploaded_at") or ""),
                    256 + tok.num_merges,
                    tok.pattern_name,
                    str(md.get("source", "trained")),
                    self.has_corpus(key),
                )
            )
        out.sort(key=lambda e: e.created)  # stable: equal times keep file order
        return out

    def damaged(self) -> list[Damaged]:
        """Saved files that cannot be read (truncated, edited by hand, not JSON)."""
        out = []
        for key in self.keys():
            try:
                self.get(key)
            except ValueError as e:
                out.append(Damaged(key, f"{key}.json", str(e)))
        return out

    def has_corpus(self, key: str) -> bool:
        if self.root is None:
            return self._memory.get(key, (None, None))[1] is not None
        return self._corpus(key).exists()

    def get(self, key: str) -> Tokenizer:
        if self.root is None:
            if key not in self._memory:
                raise ValueError(f"there is no tokenizer {key!r} in this session (it may have been deleted)")
            return self._memory[key][0]
        path = self._json(key)
        if not path.exists():
            raise ValueError(f"there is no tokenizer {key!r} in the workspace (it may have been deleted)")
        mtime = path.stat().st_mtime
        hit = self._loaded.get(key)
        if hit and hit[0] == mtime:
            return hit[1]
        try:
            tok = formats.loads(path.read_text(encoding="utf-8"))
        except ValueError as e:  # also UnicodeDecodeError
            raise ValueError(
                f"the saved tokenizer {path.name} cannot be read ({e}); delete it, or replace it with a good copy"
            ) from None
        except OSError as e:
            raise ValueError(f"the saved tokenizer {path.name} cannot be read: {e.strerror}") from None
        self._loaded[key] = (mtime, tok)
        return tok

    def corpus(self, key: str) -> str | None:
        if self.root is None:
            return self._memory.get(key, (None, None))[1]
        p = self._corpus(key)
        return p.read_text(encoding="utf-8") if p.exists() else None

    # -- changes
    def _prepare(self, tok: Tokenizer, corpus: str | None, source: str) -> str | None:
        """Stamp ``tok``'s metadata (source, time, a default name); return the training text as kept (cut when too long)."""
        now = stamp()
        tok.metadata["source"] = source
        tok.metadata["saved_at"] = now
        if source == "uploaded":
            tok.metadata["uploaded_at"] = now
        if not tok.name:
            tok.name = f"tokenizer {time.strftime('%H:%M:%S')}"
        tok.name = unique_name(tok.name, (e.name for e in self.entries()))  # two alike would be told apart by key only
        if corpus is not None and len(corpus) > MAX_CORPUS_CHARS:
            corpus = corpus[:MAX_CORPUS_CHARS]
            tok.metadata["corpus_kept_chars"] = MAX_CORPUS_CHARS
            tok.training = None  # a trace of the cut corpus would not match training
        return corpus

    def add(self, tok: Tokenizer, *, corpus: str | None = None, source: str = "trained") -> str:
        """Store a tokenizer (and the text it was trained on); return its key.

        The stored object is ``tok`` itself, so what was computed for it (its
        training trace, cached tables) stays available without reading the file back.
        """
        corpus = self._prepare(tok, corpus, source)
        key = new_key(tok)
        if self.root is None:
            self._memory[key] = (tok, corpus)
            return key
        if corpus is not None:
            self._corpus(key).write_text(corpus, encoding="utf-8")
        formats.save(tok, self._json(key))
        self._loaded[key] = (self._json(key).stat().st_mtime, tok)
        return key

    def check_room(self, extra_bytes: int = 0, *, adding: int = 1) -> None:
        """Raise a ValueError when ``adding`` tokenizers of ``extra_bytes`` would not fit (a folder or a session: always room)."""

    def import_bytes(self, data: bytes, file_name: str, *, pattern: str | None = "gpt4") -> str:
        """Store an uploaded tokenizer file (any format ``formats.load_bytes`` reads); return its key.

        ``pattern`` is used only for tiktoken rank files, which carry no split pattern.
        """
        check_size(len(data), file_name)
        stem = Path(file_name).name
        for suffix in (".tokenizer.json", ".json", ".tiktoken", ".model", ".txt", ".bpe"):  # our exports' names first
            if stem.lower().endswith(suffix):
                stem = stem[: -len(suffix)]
                break
        try:
            tok = formats.load_bytes(data, name=stem, pattern=pattern)
        except ValueError as e:
            raise ValueError(f"{file_name} cannot be read as a tokenizer: {e}") from None
        tok.metadata["uploaded_from"] = file_name
        return self.add(tok, source="uploaded")

    def rename(self, key: str, name: str) -> None:
        name = name.strip()
        if not name:
            raise ValueError("a name cannot be empty: type at least one character")
        if any(e.name == name and e.key != key for e in self.entries()):
            raise ValueError(f"you already have a tokenizer called {name!r}: pick another name")
        old = self.get(key)
        tok = old.with_special_tokens({}, name=name)  # a new object: pages may hold (and cache by) the old one
        hit = self._traces.get(key)
        trace = old.training or (hit[1] if hit is not None and hit[0] is old else None)
        if trace is not None:
            self._traces[key] = (tok, trace)  # the same merges: the same trace
        self._replace(key, tok)

    def _replace(self, key: str, tok: Tokenizer) -> None:
        """Store ``tok`` under an existing key (same merges, new name)."""
        if self.root is None:
            self._memory[key] = (tok, self._memory[key][1])
            return
        formats.save(tok, self._json(key))
        self._loaded[key] = (self._json(key).stat().st_mtime, tok)

    def training_trace(self, key: str) -> TrainingTrace | None:
        """What training saw (pair counts, lengths after each merge), or None without a corpus.

        A freshly trained tokenizer has it already; after a restart it is rebuilt
        once from the stored corpus and kept with the store (never written onto the tokenizer).
        """
        tok = self.get(key)
        if tok.training is not None:
            return tok.training
        hit = self._traces.get(key)
        if hit is not None and hit[0] is tok:
            return hit[1]
        if "corpus_kept_chars" in tok.metadata:
            return None
        corpus = self.corpus(key)
        if corpus is None:
            return None
        trace = TrainingTrace.from_text(tok, corpus)
        self._traces[key] = (tok, trace)
        return trace

    def delete(self, key: str) -> None:
        if self.root is None:
            self._memory.pop(key, None)
            self._traces.pop(key, None)
            return
        self._traces.pop(key, None)
        for p in (self._json(key), self._corpus(key)):
            p.unlink(missing_ok=True)
        self._loaded.pop(key, None)


def exports(tok: Tokenizer) -> list[Export]:
    """The three downloads of a tokenizer: BPE Lab JSON (lossless), tiktoken ranks, HF tokenizer.json."""
    stem = _slug(tok.name or "tokenizer")
    out = [Export("BPE Lab JSON", f"{stem}.json", "application/json", formats.dumps(tok).encode("utf-8"))]
    try:
        out.append(Export("tiktoken", f"{stem}.tiktoken", "text/plain", formats.dumps_tiktoken(tok)))
    except ValueError as e:
        out.append(Export("tiktoken", f"{stem}.tiktoken", "text/plain", None, str(e)))
    try:
        hf = json.dumps(formats.to_hf_json(tok), ensure_ascii=False, indent=1).encode("utf-8")
        out.append(Export("HF tokenizer.json", f"{stem}.tokenizer.json", "application/json", hf))
    except ValueError as e:
        out.append(Export("HF tokenizer.json", f"{stem}.tokenizer.json", "application/json", None, str(e)))
    return out


_STORE = "workspace.store"
_NOTICE_SHOWN = "workspace.notice_shown"
#: Seconds a session waits before trying an unavailable database again.
RETRY_AFTER = 30.0


def store() -> TokenizerStore:
    """The store for this session.

    Local mode: the folder, one store per server process. Shared mode: this
    browser's workspace in the database (``ui.common.database``), found by the
    browser's key (``ui.common.identity``); a session whose browser sent no key,
    or whose database is not answering, gets a store of its own in memory (and
    ``notices`` says so).
    """
    if not shared_mode():
        return _folder_store(str(workspace_dir()))
    from . import database, identity

    key = identity.browser_key()
    owner = database.owner_of(key) if key else None
    ss = st.session_state
    current = ss.get(_STORE)
    if current is not None and getattr(current, "owner", None) == owner:
        if owner is None or getattr(current, "db", None) is not None or time.monotonic() - current.failed_at < RETRY_AFTER:
            return current
    if owner is None:
        ss[_STORE] = TokenizerStore(None)
        return ss[_STORE]
    try:
        fresh = database.DatabaseStore(_database(database.database_url()), owner, database.Limits.from_env())
    except database.DatabaseUnavailable as e:
        fallback = current if current is not None and getattr(current, "db", None) is None else TokenizerStore(None)
        fallback.owner = owner
        fallback.failed_at = time.monotonic()
        fallback.problem = (
            f"Your saved tokenizers cannot be reached right now ({e}). What you train meanwhile is kept "
            "for this session only: download it to keep it."
        )
        ss[_STORE] = fallback
        return fallback
    ss[_STORE] = fresh
    return fresh


@st.cache_resource(show_spinner=False)
def _database(url: str):
    """One connection pool per database URL and server process (holds no user data)."""
    from . import database

    return database.Database(url)


@st.cache_resource(show_spinner=False)
def _folder_store(root: str) -> TokenizerStore:
    """One store per folder and server process."""
    return TokenizerStore(Path(root))


def notices() -> list[tuple[str, str]]:
    """``(kind, message)`` the page should show about the workspace: "error", "warning" or "info"."""
    if not shared_mode():
        return []
    s = store()
    out = []
    problem = getattr(s, "problem", None)
    if problem:
        out.append(("error", problem))
    if getattr(s, "owner", None) is None:
        out.append(
            (
                "warning",
                "Your browser sent no BPE Lab cookie (are cookies blocked for this site?), so what you train is "
                "kept in this tab only and is lost on reload: download what you want to keep.",
            )
        )
    if getattr(s, "expired", False) and not st.session_state.get(_NOTICE_SHOWN):
        st.session_state[_NOTICE_SHOWN] = True
        days = s.limits.ttl_days
        out.append(
            (
                "warning",
                f"Your workspace was not used for {days:g} days, so its tokenizers were deleted (this server "
                f"keeps them {days:g} days after your last visit). Train or upload to start again.",
            )
        )
    return out


def describe() -> str:
    if not shared_mode():
        return f"Local mode: tokenizers are saved in {workspace_dir()}."
    s = store()
    limits = getattr(s, "limits", None)
    if getattr(s, "db", None) is None or limits is None:
        return "Shared server: your tokenizers live in this browser tab only."
    count, used = s.usage()
    return (
        f"Shared server: your tokenizers are kept for this browser (a cookie; nobody else can see them) for "
        f"{limits.ttl_days:g} days after your last visit. You keep {count} of at most {limits.max_tokenizers} "
        f"({used / 1024 / 1024:.1f} of {limits.max_bytes / 1024 / 1024:.0f} MB)."
    )


def export_all() -> bytes:
    """Every tokenizer of this session's workspace and its training text, as a zip file."""
    from . import database

    return database.export_all(store())


__all__ = [
    "TokenizerStore",
    "Entry",
    "Damaged",
    "Export",
    "exports",
    "store",
    "shared_mode",
    "workspace_dir",
    "describe",
    "notices",
    "export_all",
    "new_key",
    "stamp",
    "unique_name",
]
