"""What `make test` runs: every test, in the round meant for it."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _recipe(target: str) -> list[str]:
    """The command lines of a Makefile target."""
    text = (ROOT / "Makefile").read_text()
    body = re.search(rf"^{target}:[^\n]*\n((?:\t[^\n]*\n)+)", text, flags=re.M)
    assert body, f"no target {target} in the Makefile"
    return [line.strip() for line in body.group(1).splitlines()]


def test_the_latency_round_collects_every_latency_test():
    """The latency round names the folders it collects (collecting all of tests/ costs 8 s more): every file that
    marks a test ``latency`` must be inside one of them, or its test would run in neither round."""
    (latency,) = [line for line in _recipe("test") if "-m latency" in line]
    folders = [arg for arg in shlex.split(latency) if arg.startswith("tests")]
    assert folders, "the latency round names no folder: it would collect every test module"
    marks = re.compile(r"^\s*(@pytest\.mark\.latency\b|pytestmark\b.*\blatency\b)", flags=re.M)
    marking = sorted(
        str(path.relative_to(ROOT))
        for top in ("tests", "tokenizer", "ui", "classroom")  # pyproject.toml's testpaths
        for path in (ROOT / top).glob("**/*.py")
        if marks.search(path.read_text())
    )
    assert marking, "no latency test found: the search is wrong"
    outside = [path for path in marking if not any(path.startswith(folder.rstrip("/") + "/") for folder in folders)]
    assert outside == [], f"latency tests outside {folders}: add their folder to the latency round of `make test`"
    (first,) = [line for line in _recipe("test") if '-m "not latency"' in line]
    assert not [arg for arg in shlex.split(first) if arg.startswith("tests")], "round one collects every folder"
