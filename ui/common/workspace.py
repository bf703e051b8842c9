"""Where trained and uploaded tokenizers live.

Local mode (default): a folder (``$BPE_LAB_WORKSPACE``, default ``data/workspace``);
tokenizers survive page reloads and server restarts. Shared mode
(``BPE_LAB_SHARED=1``, several people on one server): each browser session keeps
its own tokenizers in memory and never sees anyone else's.

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
    def add(self, tok: Tokenizer, *, corpus: str | None = None, source: str = "trained") -> str:
        """Store a tokenizer (and the text it was trained on); return its key.

        The stored object is ``tok`` itself, so what was computed for it (its
        training trace, cached tables) stays available without reading the file back.
        """
        now = time.strftime("%Y-%m-%dT%H:%M:%S")
        tok.metadata["source"] = source
        tok.metadata["saved_at"] = now
        if source == "uploaded":
            tok.metadata["uploaded_at"] = now
        if not tok.name:
            tok.name = f"tokenizer {time.strftime('%H:%M:%S')}"
        key = f"{_slug(tok.name)}-{secrets.token_hex(3)}"
        if corpus is not None and len(corpus) > MAX_CORPUS_CHARS:
            corpus = corpus[:MAX_CORPUS_CHARS]
            tok.metadata["corpus_kept_chars"] = MAX_CORPUS_CHARS
            tok.training = None  # a trace of the cut corpus would not match training
        if self.root is None:
            self._memory[key] = (tok, corpus)
            return key
        if corpus is not None:
            self._corpus(key).write_text(corpus, encoding="utf-8")
        formats.save(tok, self._json(key))
        self._loaded[key] = (self._json(key).stat().st_mtime, tok)
        return key

    def import_bytes(self, data: bytes, file_name: str, *, pattern: str | None = "gpt4") -> str:
        """Store an uploaded tokenizer file (any format ``formats.load_bytes`` reads); return its key.

        ``pattern`` is used only for tiktoken rank files, which carry no split pattern.
        """
        check_size(len(data), file_name)
        stem = Path(file_name).name
        for suffix in (".json", ".tiktoken", ".model", ".txt", ".bpe"):
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
        old = self.get(key)
        tok = old.with_special_tokens({}, name=name)  # a new object: pages may hold (and cache by) the old one
        hit = self._traces.get(key)
        trace = old.training or (hit[1] if hit is not None and hit[0] is old else None)
        if trace is not None:
            self._traces[key] = (tok, trace)  # the same merges: the same trace
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


def store() -> TokenizerStore:
    """The store for this session: the shared folder (local mode) or the session's own."""
    if shared_mode():
        if "workspace.store" not in st.session_state:
            st.session_state["workspace.store"] = TokenizerStore(None)
        return st.session_state["workspace.store"]
    return _folder_store(str(workspace_dir()))


@st.cache_resource(show_spinner=False)
def _folder_store(root: str) -> TokenizerStore:
    """One store per folder and server process."""
    return TokenizerStore(Path(root))


def describe() -> str:
    if shared_mode():
        return "Shared server: your tokenizers live in this browser session only."
    return f"Local mode: tokenizers are saved in {workspace_dir()}."


__all__ = ["TokenizerStore", "Entry", "Damaged", "Export", "exports", "store", "shared_mode", "workspace_dir", "describe"]
