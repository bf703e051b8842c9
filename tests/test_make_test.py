"""What `make test` runs: every test, in the round meant for it."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

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


def test_make_test_runs_the_waiting_round_beside_round_one_and_the_latency_round_last():
    lines = [line.strip() for line in _recipe("test").splitlines()]
    assert lines[-1] == "CI=$${CI:-} $(LATENCY_ROUND)"
    beside = " ".join(lines[:-1])
    # the waiting round starts in the background, round one runs, then the recipe waits for both and fails if either did
    assert beside.index("$(WAITING_ROUND) > $(WAITING_LOG) 2>&1 & waiting=$$!") < beside.index(
        "CI=$${CI:-} $(ROUND_ONE); one=$$?"
    )
    assert beside.index("$(ROUND_ONE); one=$$?") < beside.index("wait $$waiting; two=$$?")
    assert beside.endswith("test $$one = 0 && test $$two = 0")
    assert '-m "not latency and not waiting"' in _variable("ROUND_ONE")
    assert '-m "waiting and not latency"' in _variable("WAITING_ROUND") and "-m latency" in _variable("LATENCY_ROUND")


def _marking(marker: str) -> list[str]:
    """The files (relative to the repository) that mark a test or a module with ``marker``."""
    marks = re.compile(rf"^\s*(@pytest\.mark\.{marker}\b|pytestmark\b.*\bmark\.{marker}\b)", flags=re.M)
    found = sorted(
        str(path.relative_to(ROOT))
        for top in ("tests", "tokenizer", "ui", "classroom")  # pyproject.toml's testpaths
        for path in (ROOT / top).glob("**/*.py")
        if marks.search(path.read_text())
    )
    assert found, f"no {marker} test found: the search is wrong"
    return found


@pytest.mark.parametrize("marker, variable", [("latency", "LATENCY_ROUND"), ("waiting", "WAITING_ROUND")])
def test_a_round_of_marked_tests_collects_every_one(marker, variable):
    """The latency and waiting rounds name the folders they collect (collecting all of tests/ costs 8 s more): every
    file that marks a test for the round must be inside one of them, or its test would run in no round."""
    folders = [arg for arg in shlex.split(_variable(variable)) if arg.startswith("tests")]
    assert folders, f"{variable} names no folder: it would collect every test module"
    outside = [path for path in _marking(marker) if not any(path.startswith(folder.rstrip("/") + "/") for folder in folders)]
    assert outside == [], f"{marker} tests outside {folders}: add their folder to {variable} in the Makefile"
    assert not [arg for arg in shlex.split(_variable("ROUND_ONE")) if arg.startswith("tests")], "round one collects every folder"
