"""The stores behind ``ui.common.workspace.Store``: in memory, in a folder (here), in a database (``classroom.database``).

``BaseStore`` holds what they share (stamping a tokenizer as it is kept, reading an
upload, renaming, rebuilding a training trace); each store keeps rows its own way.

- ``MemoryStore``: one session's tokenizers, gone with the session (a shared server's
  browser without a cookie; what is trained while the database does not answer).
- ``FolderStore``: JSON files in a folder (local mode, ``make run``: ``data/workspace``);
  they survive reloads and restarts. One per server process serves every session (one
  person's machine, several tabs): its only shared mutable part is the cache of parsed
  files, a dict whose single assignments are atomic, so two sessions at worst read the
  same file twice.

Plain Python (no Streamlit).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import socket
import time
from pathlib import Path

from tokenizer import Tokenizer, TrainingTrace, formats
from ui.common.upload import check_size
from ui.common.workspace import Damaged, Entry, Notice, slug
from ui.render.markdown import md
from ui.web import payload

#: The most training text kept with a tokenizer (for the Step page); more is cut
#: (and the tokenizer's metadata says so). Above the 10 MB upload limit on purpose:
#: every corpus the Train page accepts is kept whole, so the Step page's pair counts
#: are exactly the ones training saw.
MAX_CORPUS_CHARS = 11_000_000
UPLOAD_SUFFIXES = (".tokenizer.json", ".json", ".tiktoken", ".model", ".txt", ".bpe")  # our exports' names first


def new_key(tok: Tokenizer) -> str:
    """A new workspace key for ``tok``: its name as a slug and six random hex digits."""
    return f"{slug(tok.name)}-{secrets.token_hex(3)}"


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


def parse_upload(data: bytes, file_name: str, *, pattern: str | None = "gpt4") -> Tokenizer:
    """An uploaded tokenizer file (any format ``formats.load_bytes`` reads); a ValueError naming the file."""
    check_size(len(data), file_name)
    stem = Path(file_name).name
    for suffix in UPLOAD_SUFFIXES:
        if stem.lower().endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    try:
        tok = formats.load_bytes(data, name=stem, pattern=pattern)
    except ValueError as e:
        raise ValueError(f"{file_name} cannot be read as a tokenizer: {e}") from None
    tok.metadata["uploaded_from"] = file_name
    return tok


def process_identity(pid: int) -> str | None:
    """``host:pid:start`` of a live process on this machine (its start time tells a reused pid apart), or None."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return f"{socket.gethostname()}:{pid}:{stat.rsplit(')', 1)[1].split()[19]}"


#: this app process, as the drafts of its trainings name it
PROCESS = process_identity(os.getpid()) or f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(8)}"
#: a training draft left by a process on another machine (whose life cannot be checked) counts as cut off after this
OTHER_MACHINE_SECONDS = 3600.0


def still_running(by: str, at: float, now: float | None = None) -> bool:
    """Whether the process ``by`` that began a training at ``at`` may still be running it."""
    if by == PROCESS:
        return True
    host, _, rest = by.partition(":")
    pid = rest.partition(":")[0]
    if host == socket.gethostname() and pid.isdigit():
        return process_identity(int(pid)) == by
    return (time.time() if now is None else now) - at < OTHER_MACHINE_SECONDS


def entry(key: str, tok: Tokenizer, has_corpus: bool) -> Entry:
    md = tok.metadata
    created = str(md.get("saved_at") or md.get("trained_at") or md.get("uploaded_at") or "")
    return Entry(
        key, tok.name or key, created, 256 + tok.num_merges, tok.pattern_name, str(md.get("source", "trained")), has_corpus
    )


class BaseStore:
    """What every store shares; a store provides ``keys``, ``get``, ``corpus``, ``has_corpus``, ``add``,
    ``_replace`` and ``delete`` (and may override the rest)."""

    def __init__(self) -> None:
        # traces rebuilt from a stored corpus, by key and tokenizer object (never written onto the tokenizer)
        self._traces: dict[str, tuple[Tokenizer, TrainingTrace]] = {}
        # the browser's model files of each tokenizer (``attach``): name -> bytes, removed with the tokenizer
        self._files: dict[str, dict[str, int]] = {}
        self._training: str | None = None  # the running training's draft, as JSON (``training_started``)

    def keys(self) -> list[str]:
        raise NotImplementedError

    def get(self, key: str) -> Tokenizer:
        raise NotImplementedError

    def corpus(self, key: str) -> str | None:
        raise NotImplementedError

    def has_corpus(self, key: str) -> bool:
        raise NotImplementedError

    def add(self, tok: Tokenizer, *, corpus: str | None = None, source: str = "trained") -> str:
        raise NotImplementedError

    def _replace(self, key: str, tok: Tokenizer) -> None:
        raise NotImplementedError

    def delete(self, key: str) -> None:
        raise NotImplementedError

    def entries(self) -> list[Entry]:
        """Every readable tokenizer, oldest first (damaged files: see ``damaged``)."""
        out = []
        for key in self.keys():
            try:
                tok = self.get(key)
            except ValueError:
                continue  # listed by damaged(), with the reason
            out.append(entry(key, tok, self.has_corpus(key)))
        out.sort(key=lambda e: e.created)  # stable: equal times keep file order
        return out

    def damaged(self) -> list[Damaged]:
        out = []
        for key in self.keys():
            try:
                self.get(key)
            except ValueError as e:
                out.append(Damaged(key, f"{key}.json", str(e)))
        return out

    def check_room(self, extra_bytes: int = 0, *, adding: int = 1) -> None:
        """Always room (a folder, a session); the database store has limits."""

    def attach(self, key: str, name: str, size: int) -> None:
        """The browser's model file ``name`` (``size`` bytes, under the static folder) serves ``key``: it goes with it."""
        self._files.setdefault(key, {})[name] = size

    def _drop_files(self, key: str) -> None:
        for name in self._files.pop(key, {}):
            payload.remove_user_model(name)

    def unsaved(self, key: str) -> str | None:
        """Every add saves, or raises (a store that can fail to save and keeps the work meanwhile says why)."""
        return None

    def notices(self) -> list[Notice]:
        return []

    def describe(self) -> str:
        return "Your tokenizers live in this browser tab only."

    # -- the draft of a running training: what the Train page gives back when its process died meanwhile
    def training_started(self, draft: dict) -> None:
        record = json.dumps({"draft": draft, "by": PROCESS, "at": time.time()}, ensure_ascii=False)
        with contextlib.suppress(OSError, ValueError):  # a draft that cannot be kept never stops the training
            self._put_training(record)

    def training_ended(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self._put_training(None)

    def interrupted_training(self) -> dict | None:
        try:
            raw = self._get_training()
            record = json.loads(raw) if raw is not None else None
            if record is None or still_running(str(record["by"]), float(record["at"])):
                return None
            return dict(record["draft"])
        except (OSError, ValueError, KeyError, TypeError):  # unreadable: nothing to give back
            return None

    def _get_training(self) -> str | None:
        """The kept draft (JSON); a store that outlives its process keeps it where it keeps tokenizers."""
        return self._training

    def _put_training(self, record: str | None) -> None:
        self._training = record

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

    def import_bytes(self, data: bytes, file_name: str, *, pattern: str | None = "gpt4") -> str:
        return self.add(parse_upload(data, file_name, pattern=pattern), source="uploaded")

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


class MemoryStore(BaseStore):
    """One session's tokenizers, in memory; ``notices`` are what the page says about it (why it is only this)."""

    def __init__(self, notices: list[Notice] | None = None, description: str | None = None):
        super().__init__()
        self._rows: dict[str, tuple[Tokenizer, str | None]] = {}
        self._notices = list(notices or [])
        self._description = description

    def keys(self) -> list[str]:
        return list(self._rows)

    def __contains__(self, key: str) -> bool:
        return key in self._rows

    def get(self, key: str) -> Tokenizer:
        if key not in self._rows:
            raise ValueError(f"there is no tokenizer {key!r} in this session (it may have been deleted)")
        return self._rows[key][0]

    def corpus(self, key: str) -> str | None:
        return self._rows.get(key, (None, None))[1]

    def has_corpus(self, key: str) -> bool:
        return self.corpus(key) is not None

    def add(self, tok: Tokenizer, *, corpus: str | None = None, source: str = "trained") -> str:
        """Keep ``tok`` itself, so what was computed for it (its training trace, cached tables) stays available."""
        corpus = self._prepare(tok, corpus, source)
        key = new_key(tok)
        self._rows[key] = (tok, corpus)
        return key

    def _replace(self, key: str, tok: Tokenizer) -> None:
        self._rows[key] = (tok, self._rows[key][1])

    def delete(self, key: str) -> None:
        self._rows.pop(key, None)
        self._traces.pop(key, None)
        self._drop_files(key)

    def notices(self) -> list[Notice]:
        return list(self._notices)

    def describe(self) -> str:
        return self._description or super().describe()


class FolderStore(BaseStore):
    """Tokenizers as ``<key>.json`` (BPE Lab JSON) and ``<key>.corpus.txt`` (the training text) in ``root``."""

    def __init__(self, root: Path):
        super().__init__()
        self.root = Path(root)
        self._loaded: dict[str, tuple[float, Tokenizer]] = {}
        # what could not be written (a full or read-only disk): kept in this process, with why
        self.held = MemoryStore()
        self._unsaved: dict[str, str] = {}
        self.root.mkdir(parents=True, exist_ok=True)

    def _json(self, key: str) -> Path:
        return self.root / f"{key}.json"

    def _corpus(self, key: str) -> Path:
        return self.root / f"{key}.corpus.txt"

    def keys(self) -> list[str]:
        files = sorted(self.root.glob("*.json"), key=lambda p: p.stat().st_mtime)
        return [p.stem for p in files] + self.held.keys()

    def has_corpus(self, key: str) -> bool:
        return self.held.has_corpus(key) if key in self.held else self._corpus(key).exists()

    def get(self, key: str) -> Tokenizer:
        if key in self.held:
            return self.held.get(key)
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
        if key in self.held:
            return self.held.corpus(key)
        p = self._corpus(key)
        return p.read_text(encoding="utf-8") if p.exists() else None

    def add(self, tok: Tokenizer, *, corpus: str | None = None, source: str = "trained") -> str:
        """Keep ``tok`` itself (and write it), so what was computed for it stays available without reading the file back.

        A disk that is full or read-only keeps it in this process instead (``unsaved`` says why, the notice too)."""
        corpus = self._prepare(tok, corpus, source)
        key = new_key(tok)
        try:
            if corpus is not None:
                self._corpus(key).write_text(corpus, encoding="utf-8")
            formats.save(tok, self._json(key))
            self._loaded[key] = (self._json(key).stat().st_mtime, tok)
        except (OSError, ValueError) as e:  # formats.save says ValueError("cannot write ...: No space left on device")
            for p in (self._json(key), self._corpus(key), self._json(key).with_name(f"{key}.json.tmp")):
                with contextlib.suppress(OSError):
                    p.unlink(missing_ok=True)
            self.held._rows[key] = (tok, corpus)
            why = e.strerror if isinstance(e, OSError) and e.strerror else str(e).rsplit(": ", 1)[-1]
            self._unsaved[key] = (
                f"Your tokenizers cannot be saved right now: the workspace folder {self.root} cannot be written ({why}). "
                "What you train meanwhile is kept until BPE Lab stops: download it to keep it."
            )
        return key

    def unsaved(self, key: str) -> str | None:
        return self._unsaved.get(key) if key in self.held else None

    def notices(self) -> list[Notice]:
        names = [e.name for e in self.held.entries()]
        if not names:
            return []
        return [Notice("warning", f"Not saved: {', '.join(md(n) for n in names)}. {next(iter(self._unsaved.values()))}")]

    def _replace(self, key: str, tok: Tokenizer) -> None:
        if key in self.held:
            return self.held._replace(key, tok)
        formats.save(tok, self._json(key))
        self._loaded[key] = (self._json(key).stat().st_mtime, tok)

    def delete(self, key: str) -> None:
        if key in self.held:
            self.held.delete(key)
            self._unsaved.pop(key, None)
            return
        self._traces.pop(key, None)
        for p in (self._json(key), self._corpus(key)):
            p.unlink(missing_ok=True)
        self._loaded.pop(key, None)
        self._drop_files(key)

    def describe(self) -> str:
        return f"Local mode: tokenizers are saved in {self.root}."

    def _draft_file(self) -> Path:
        return self.root / ".training-draft"  # not *.json: never listed as a tokenizer

    def _get_training(self) -> str | None:
        p = self._draft_file()
        return p.read_text(encoding="utf-8") if p.exists() else None

    def _put_training(self, record: str | None) -> None:
        p = self._draft_file()
        if record is None:
            p.unlink(missing_ok=True)
            return
        tmp = p.with_name(p.name + ".tmp")
        try:
            tmp.write_text(record, encoding="utf-8")
            tmp.replace(p)
        finally:
            tmp.unlink(missing_ok=True)
