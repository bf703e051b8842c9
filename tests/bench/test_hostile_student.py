"""A hostile student on a class server (`make serve`, two app processes, nginx, SQLite): with a tokenizer.json whose
regex backtracks on the text they type, and a saved copy of the file that froze a class server, they get a message
on every page, while five students beside them go through the whole scenario with no error, each action at p95
under a second."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.append(str(ROOT / "bench"))  # last: tests/ has a corpus module too

import load_test  # noqa: E402

from tests import aio  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.latency]  # a time budget: run with nothing else on the machine


def test_a_hostile_student_gets_messages_and_the_class_does_not_wait():
    dep = load_test.Deployment(workers=2, session_ttl=30)
    try:
        rec, bad, said = aio.run(load_test.run_hostile(dep.url, dep.data, 5, (1.0, 3.0), seed=0))
    finally:
        dep.stop()
    assert rec.errors == [] and bad.errors == []
    assert sum(len(t) for t in rec.times.values()) == 5 * 17  # every student did every action
    slow = {a: load_test.pct(t, 0.95) for a, t in rec.times.items() if load_test.pct(t, 0.95) >= 1.0}
    assert slow == {}, slow
    stopped = [m for m in said if "were stopped" in m]
    # every text typed on Tokenize, and Step through (which also opens with the text typed before)
    assert len(stopped) >= len(bad.times["hostile: type on Tokenize"]) + 1
    assert any("cannot be read" in m and "backtracks catastrophically" in m for m in said)  # the saved freezer
