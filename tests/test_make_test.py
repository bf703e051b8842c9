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
    assert lines[-2:] == ["CI=$${CI:-} $(LATENCY_ROUND)", "CI=$${CI:-} $(LATENCY_ALONE)"]
    beside = " ".join(lines[:-2])
    # the waiting round and round one's browser half start in the background, the other half runs, then the recipe
    # waits for all three and fails if any did
    one = beside.index("CI=$${CI:-} $(ROUND_ONE); one=$$?")
    assert beside.index("$(WAITING_ROUND) > $(WAITING_LOG) 2>&1 & waiting=$$!") < one
    assert beside.index("$(BROWSER_HALF) > $(BROWSER_LOG) 2>&1 & browser=$$!") < one
    assert one < beside.index("wait $$browser; two=$$?") < beside.index("wait $$waiting; three=$$?")
    assert beside.index("cat $(BROWSER_LOG)") < beside.index("cat $(WAITING_LOG)")
    assert beside.endswith("test $$one = 0 && test $$two = 0 && test $$three = 0")
    assert '-m "waiting and not latency"' in _variable("WAITING_ROUND")
    # the latency tests two at a time, then the ones marked `alone` one at a time: no -n there
    assert '-n 2 -m "latency and not alone"' in _variable("LATENCY_ROUND")
    assert '-m "latency and alone"' in _variable("LATENCY_ALONE") and " -n " not in _variable("LATENCY_ALONE")


def test_round_ones_two_halves_are_every_test_once_the_computing_half_at_a_lower_priority():
    """Round one's halves side by side: the browser tests, and everything else (every folder and the doctests) with
    the browser tests left out, niced so that it fills the browser workers' waits rather than slowing their pages."""
    rest, browser = shlex.split(_variable("ROUND_ONE")), shlex.split(_variable("BROWSER_HALF"))
    for half in (rest, browser):
        assert [half[i + 1] for i, arg in enumerate(half) if arg == "-m"] == ["pytest", "not latency and not waiting"]
        assert "--dist" in half and half[half.index("--dist") + 1] == "loadscope"
    assert [arg for arg in browser if arg.startswith("tests")] == ["tests/browser"]
    assert [arg for arg in rest if arg.startswith("tests")] == [], "the other half collects every folder"
    assert [arg for arg in rest if arg.startswith("--ignore=")] == ["--ignore=tests/browser"]
    assert rest[:3] == ["nice", "-n", "10"] and "nice" not in browser


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


@pytest.mark.parametrize(
    "marker, variable", [("latency", "LATENCY_ROUND"), ("alone", "LATENCY_ALONE"), ("waiting", "WAITING_ROUND")]
)
def test_a_round_of_marked_tests_collects_every_one(marker, variable):
    """The latency and waiting rounds name the folders they collect (collecting all of tests/ costs 8 s more): every
    file that marks a test for the round must be inside one of them, or its test would run in no round."""
    folders = [arg for arg in shlex.split(_variable(variable)) if arg.startswith("tests")]
    assert folders, f"{variable} names no folder: it would collect every test module"
    outside = [path for path in _marking(marker) if not any(path.startswith(folder.rstrip("/") + "/") for folder in folders)]
    assert outside == [], f"{marker} tests outside {folders}: add their folder to {variable} in the Makefile"
    assert not [arg for arg in shlex.split(_variable("ROUND_ONE")) if arg.startswith("tests")], "round one collects every folder"


def test_every_test_marked_alone_is_a_latency_test():
    """`alone` picks among the latency tests: an `alone` test without `latency` would run in round one, beside a
    second worker, the very thing the mark is there to avoid."""
    alone = re.compile(r"@pytest\.mark\.alone\n")
    for path in _marking("alone"):
        text = (ROOT / path).read_text()
        for found in alone.finditer(text):
            decorators = text[text.rfind("\n\n", 0, found.start()) : text.index("def ", found.end())]
            assert "@pytest.mark.latency" in decorators, f"{path}: a test marked alone but not latency"
