"""Real damaged database files for the tests: a SQLite file of BPE Lab's written by BPE Lab, then broken as disks
and people break them, and small real filesystems (tmpfs) to fill up or make read-only.

Mounting needs root, as `make test` runs here and in CI; anywhere else the tests that mount say so and fail.
"""

from __future__ import annotations

import contextlib
import random
import subprocess
from collections.abc import Iterator
from pathlib import Path

from classroom.database import Database, DatabaseStore, owner_of
from tokenizer import train

OWNER = owner_of("k" * 32)
PAGE = 4096


def corpus(seed: int, words: int = 8000) -> str:
    """Text that does not compress to nothing, so the file has many pages."""
    rng = random.Random(seed)
    return " ".join("".join(rng.choice("abcdefghij") for _ in range(rng.randrange(2, 8))) for _ in range(words))


def make(path: Path, n: int = 3) -> list[str]:
    """A workspaces file with ``n`` tokenizers and their training texts, closed (no WAL left); returns their keys."""
    db = Database(f"sqlite:///{path}")
    store = DatabaseStore(db, OWNER)
    keys = [store.add(train(corpus(i, 2000), 300, name=f"tok{i}"), corpus=corpus(100 + i)) for i in range(n)]
    db.close()
    return keys


def truncated(data: bytes, rng: random.Random) -> bytes:
    return data[: len(data) // 2]


def pages_overwritten(data: bytes, rng: random.Random) -> bytes:
    """Every third page after the first two replaced by noise: what a failing disk or a stray write leaves."""
    out = bytearray(data)
    for page in range(3, len(data) // PAGE, 3):
        out[page * PAGE : (page + 1) * PAGE] = rng.randbytes(PAGE)
    return bytes(out)


def scrambled(data: bytes, rng: random.Random) -> bytes:
    """The pages after the first in another order."""
    pages = [data[i : i + PAGE] for i in range(PAGE, len(data), PAGE)]
    rng.shuffle(pages)
    return data[:PAGE] + b"".join(pages)


def header_overwritten(data: bytes, rng: random.Random) -> bytes:
    return rng.randbytes(100) + data[100:]


def not_a_database(data: bytes, rng: random.Random) -> bytes:
    return b"workspaces, as a teacher's notes\n" * 200


DAMAGE = {f.__name__: f for f in (truncated, pages_overwritten, scrambled, header_overwritten, not_a_database)}


def damage(path: Path, how: str, seed: int = 1) -> None:
    path.write_bytes(DAMAGE[how](path.read_bytes(), random.Random(seed)))


def _mount(*args: str) -> None:
    out = subprocess.run(["mount", *args], capture_output=True, text=True)
    if out.returncode != 0:
        raise AssertionError(f"mount {' '.join(args)} failed ({out.stderr.strip()}): these tests need root, as `make test` has")


@contextlib.contextmanager
def small_disk(path: Path, size: str = "4m") -> Iterator[Path]:
    """A real filesystem of ``size`` mounted at ``path`` (tmpfs), unmounted afterwards."""
    path.mkdir(parents=True, exist_ok=True)
    _mount("-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path))
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True)


def fill(disk: Path) -> None:
    """Write until the disk says it is full."""
    with open(disk / "filler", "wb", buffering=0) as f:  # unbuffered: closing has nothing left to write (and fail on)
        with contextlib.suppress(OSError):
            while True:
                f.write(b"\0" * 65536)


def read_only(disk: Path) -> None:
    _mount("-o", "remount,ro", str(disk))


def read_write(disk: Path) -> None:
    _mount("-o", "remount,rw", str(disk))
