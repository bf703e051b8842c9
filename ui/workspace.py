"""Where trained and uploaded tokenizers live.

Local mode (default): a folder (``$BPE_LAB_WORKSPACE``, default ``data/workspace``);
tokenizers survive page reloads and server restarts. Shared mode
(``BPE_LAB_SHARED=1``, several people on one server): each browser session keeps
its own tokenizers in memory and never sees anyone else's.

``TokenizerStore`` is plain Python (tested without Streamlit); ``store()`` picks
the right one for the running session.
"""

from __future__ import annotations

import os
import re
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

from tokenizer import Tokenizer, formats
from tokenizer.provision import data_dir

SHARED_ENV = "BPE_LAB_SHARED"
WORKSPACE_ENV = "BPE_LAB_WORKSPACE"
#: The most training text kept with a tokenizer (for the Step page); more is cut.
MAX_CORPUS_CHARS = 2_000_000


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


def _slug(name: str) -> str:
    s = re.sub(r"[^a-zA-Z0-9]+", "-", name).strip("-").lower()
    return (s or "tokenizer")[:40]


class TokenizerStore:
    """Tokenizers by key: JSON files in ``root``, or only in memory when ``root`` is None."""

    def __init__(self, root: Path | None):
        self.root = Path(root) if root is not None else None
        self._memory: dict[str, tuple[Tokenizer, str | None]] = {}
        self._loaded: dict[str, tuple[float, Tokenizer]] = {}
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
        out = []
        for key in self.keys():
            try:
                tok = self.get(key)
            except ValueError:
                continue  # a damaged file is reported by get() when it is opened
            md = tok.metadata
            out.append(
                Entry(
                    key,
                    tok.name or key,
                    str(md.get("trained_at") or md.get("uploaded_at") or ""),
                    256 + tok.num_merges,
                    tok.pattern_name,
                    str(md.get("source", "trained")),
                    self.corpus(key) is not None,
                )
            )
        return out

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
        except ValueError as e:
            raise ValueError(f"the saved tokenizer {path.name} cannot be read: {e}") from None
        self._loaded[key] = (mtime, tok)
        return tok

    def corpus(self, key: str) -> str | None:
        if self.root is None:
            return self._memory.get(key, (None, None))[1]
        p = self._corpus(key)
        return p.read_text(encoding="utf-8") if p.exists() else None

    # -- changes
    def add(self, tok: Tokenizer, *, corpus: str | None = None, source: str = "trained") -> str:
        """Store a tokenizer (and the text it was trained on); return its key."""
        tok.metadata.setdefault("source", source)
        if source == "uploaded":
            tok.metadata.setdefault("uploaded_at", time.strftime("%Y-%m-%dT%H:%M:%S"))
        if not tok.name:
            tok.name = f"tokenizer {time.strftime('%H:%M:%S')}"
        key = f"{_slug(tok.name)}-{secrets.token_hex(3)}"
        if corpus is not None:
            corpus = corpus[:MAX_CORPUS_CHARS]
        if self.root is None:
            self._memory[key] = (tok, corpus)
            return key
        if corpus is not None:
            self._corpus(key).write_text(corpus, encoding="utf-8")
        formats.save(tok, self._json(key))
        return key

    def rename(self, key: str, name: str) -> None:
        name = name.strip()
        if not name:
            raise ValueError("a name cannot be empty: type at least one character")
        tok = self.get(key)
        tok.name = name
        if self.root is not None:
            formats.save(tok, self._json(key))

    def delete(self, key: str) -> None:
        if self.root is None:
            self._memory.pop(key, None)
            return
        for p in (self._json(key), self._corpus(key)):
            p.unlink(missing_ok=True)
        self._loaded.pop(key, None)


def store() -> TokenizerStore:
    """The store for this session: the shared folder (local mode) or the session's own."""
    import streamlit as st

    if shared_mode():
        if "workspace.store" not in st.session_state:
            st.session_state["workspace.store"] = TokenizerStore(None)
        return st.session_state["workspace.store"]
    return _folder_store(str(workspace_dir()))


def _folder_store(root: str) -> TokenizerStore:
    import streamlit as st

    @st.cache_resource(show_spinner=False)
    def make(root: str) -> TokenizerStore:
        return TokenizerStore(Path(root))

    return make(root)


def describe() -> str:
    if shared_mode():
        return "Shared server: your tokenizers live in this browser session only."
    return f"Local mode: tokenizers are saved in {workspace_dir()}."


__all__ = ["TokenizerStore", "Entry", "store", "shared_mode", "workspace_dir", "describe"]
