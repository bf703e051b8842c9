"""What a following student's move costs the server: the CPU of one Lesson page run per chapter, in AppTest.

    .venv/bin/python bench/bench_lesson.py [--runs 5]

When the teacher moves, every follower's page runs once at the new place (``ui/lesson/follow.py``), so a class of
N costs N of these runs per move. The process starts up as the server does (``shell.start_up``), every chapter is
visited once (what a process computes once for every session), then per chapter: a fresh session at chapter 1 is
moved to chapter n (the chapter menu, as the teacher's move moves a follower), and that session runs once more there.
Prints the median CPU time (this process's, so the numbers hold on a busy machine) in milliseconds.
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ["BPE_LAB_WORKSPACE"] = tempfile.mkdtemp(prefix="bpe-bench-")
os.environ["BPE_LAB_SHARED"] = "0"

import tokenizer  # noqa: E402

tokenizer.configure()
from streamlit.testing.v1 import AppTest  # noqa: E402

from classroom import workspaces  # noqa: E402
from ui.common import shell  # noqa: E402
from ui.lesson import model  # noqa: E402

workspaces.configure(shared=False)
PAGE = str(ROOT / "pages" / "lesson.py")


def session() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=600)
    at.query_params["chapter"] = "1"
    at.run()
    if at.exception:
        raise SystemExit(f"the Lesson page failed: {at.exception}")
    return at


def cpu_of_run(at: AppTest) -> float:
    t = time.process_time()
    at.run()
    if at.exception:
        raise SystemExit(f"the Lesson page failed: {at.exception}")
    return time.process_time() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    logging.getLogger("streamlit").setLevel(logging.ERROR)  # AppTest's "missing ScriptRunContext" lines
    shell.start_up()
    for n in range(2, model.N + 1):  # what a process computes once, for every session
        at = session()
        at.selectbox(key="lesson.pick").set_value(n)
        cpu_of_run(at)
    print("| chapter | a follower's move there, CPU ms | a run of the page there, CPU ms |\n|---:|---:|---:|")
    moves = []
    for n in range(1, model.N + 1):
        move, stay = [], []
        for _ in range(args.runs):
            at = session()
            if n == 1:  # a move to chapter 1 comes from elsewhere
                at.selectbox(key="lesson.pick").set_value(2)
                at.run()
            at.selectbox(key="lesson.pick").set_value(n)
            move.append(cpu_of_run(at))
            stay.append(cpu_of_run(at))
        moves.append(statistics.median(move))
        print(f"| {n} | {moves[-1] * 1000:.1f} | {statistics.median(stay) * 1000:.1f} |", flush=True)
    print(f"\nmean move: {statistics.mean(moves) * 1000:.1f} ms CPU")


if __name__ == "__main__":
    main()
