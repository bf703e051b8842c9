"""What `make test` runs: every test, in the round meant for it."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _variable(name: str) -> str:
    """A Makefile variable's definition (``NAME = ...`` on one line)."""
    found = re.search(rf"^{name} :?= (.*)$", (ROOT / "Makefile").read_text(), flags=re.M)
    assert found, f"no variable {name} in the Makefile"
    return found.group(1)


def _recipe(target: str) -> str:
    """The recipe of a Makefile target, as one text."""
    body = re.search(rf"^{target}:[^\n]*\n((?:\t[^\n]*\n)+)", (ROOT / "Makefile").read_text(), flags=re.M)
    assert body, f"no target {target} in the Makefile"
    return body.group(1)


def test_make_test_runs_both_rounds_one_after_the_other():
    lines = [line.strip() for line in _recipe("test").splitlines()]
    assert lines[-2:] == ["CI=$${CI:-} $(ROUND_ONE)", "CI=$${CI:-} $(LATENCY_ROUND)"]
    assert '-m "not latency"' in _variable("ROUND_ONE") and "-m latency" in _variable("LATENCY_ROUND")


def test_the_latency_round_collects_every_latency_test():
    """The latency round names the folders it collects (collecting all of tests/ costs 8 s more): every file that
    marks a test ``latency`` must be inside one of them, or its test would run in neither round."""
    folders = [arg for arg in shlex.split(_variable("LATENCY_ROUND")) if arg.startswith("tests")]
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
    assert outside == [], f"latency tests outside {folders}: add their folder to LATENCY_ROUND in the Makefile"
    assert not [arg for arg in shlex.split(_variable("ROUND_ONE")) if arg.startswith("tests")], "round one collects every folder"
