"""Benchmark corpora, built offline from what every machine has.

- ``small``: minbpe's taylorswift.txt (../shared/corpus/, 185 kB), the standard small benchmark;
  when it is missing, 185 kB of standard-library source stands in (and the report says so).
- ``large``: taylorswift.txt followed by Python standard-library sources, cut at 10 MB.
"""

from __future__ import annotations

import sysconfig
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# ../shared/corpus beside the checkout; a git worktree (../wt/<name>) looks one level further up
TAYLOR = next(
    (p for p in (d / "shared" / "corpus" / "taylorswift.txt" for d in (ROOT.parent, ROOT.parent.parent)) if p.exists()),
    ROOT.parent / "shared" / "corpus" / "taylorswift.txt",
)
LARGE_BYTES = 10_000_000


def _stdlib_texts():
    root = Path(sysconfig.get_paths()["stdlib"])
    for path in sorted(root.rglob("*.py")):
        if "site-packages" in path.parts or "test" in path.parts or "tests" in path.parts:
            continue
        try:
            yield path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue


@cache
def small() -> tuple[str, str]:
    """(name, text)"""
    if TAYLOR.exists():
        return "taylorswift.txt", TAYLOR.read_text(encoding="utf-8")
    text = "".join(_stdlib_texts())[:185_000]
    return "stdlib sample (taylorswift.txt not found)", text


@cache
def large() -> tuple[str, str]:
    parts = [TAYLOR.read_text(encoding="utf-8")] if TAYLOR.exists() else []
    n = sum(len(p.encode()) for p in parts)
    for t in _stdlib_texts():
        parts.append(t)
        n += len(t.encode())
        if n > LARGE_BYTES:
            break
    text = "".join(parts).encode()[:LARGE_BYTES].decode("utf-8", "ignore")
    what = "taylorswift + stdlib sources" if TAYLOR.exists() else "stdlib sources; taylorswift.txt not found"
    return f"{len(text.encode()) / 1e6:.1f} MB ({what})", text


def write_large(path: Path) -> Path:
    path.write_text(large()[1], encoding="utf-8")
    return path
