"""How fast the Train, Step through and Vocabulary pages are (issue 4's targets).

    .venv/bin/python bench/bench_train_step.py [--runs 20] [--chars 6000]

1. Training a 200 kB corpus (the standard-library docstrings sample) to 1,000
   tokens through the Train page in AppTest, progress bar and saving included;
   and the core alone. Target: under 2 s.
2. One step (Next) on the Step through page in AppTest, per rerun, on a text of
   ``--chars`` characters: encoding mode with GPT-2, cl100k and o200k, and
   training mode with the tokenizer trained in 1 (its first 5,000 and 10,000
   characters shown). Target: under 200 ms.
3. The Vocabulary page: first build of o200k's table, then a rerun with a regex
   filter over its 200,000 tokens.
4. ``--scenario``: the load test's student, alone, against a real server
   (``streamlit run serve.py`` in shared mode, over the websocket protocol with
   ``bench/stclient.py``): every rerun of the scenario, each page opened in a session
   that has just trained (issue 10's per-rerun costs: opening Step through, switching
   its mode, Next, opening Vocabulary and Compare). ``--runs`` sessions, medians.

Before timing, the process starts up as the app's server does (``shell.start_up``:
the official encodings loaded, then ``gc.freeze()``), and each page is run once.
Prints the median and the slowest run in milliseconds.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
WORKSPACE = tempfile.mkdtemp(prefix="bpe-bench-")
os.environ["BPE_LAB_WORKSPACE"] = WORKSPACE
os.environ["BPE_LAB_SHARED"] = "0"

import tokenizer  # noqa: E402

tokenizer.configure()  # as the app does at start-up
from streamlit.testing.v1 import AppTest  # noqa: E402

from classroom import workspaces  # noqa: E402
from classroom.stores import FolderStore  # noqa: E402
from tokenizer import train  # noqa: E402
from ui.common import shell  # noqa: E402
from ui.content import corpora  # noqa: E402

workspaces.configure(shared=False)  # as serve.py does at start-up: the folder store above


def page(name: str, **query) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / name), default_timeout=120)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, at.exception
    return at


def timed(action) -> float:
    t = time.perf_counter()
    at = action()
    ms = (time.perf_counter() - t) * 1000
    assert not at.exception, at.exception
    return ms


def report(label: str, times: list[float]) -> None:
    print(f"  {label:<52} median {statistics.median(times):7.1f} ms   slowest {max(times):7.1f} ms   (n={len(times)})")


def bench_train(runs: int) -> str:
    print("Train: 200 kB of text to 1,000 tokens")
    text = corpora.text("stdlib-docstrings")[:200_000]
    core = []
    for _ in range(runs):
        t = time.perf_counter()
        tok = train(text, 1000, pattern="gpt4", progress=lambda done, total: None)
        core.append((time.perf_counter() - t) * 1000)
    report(f"core train() ({len(text.encode()):,} bytes, {tok.num_merges} merges)", core)
    at = page("train.py")
    at.segmented_control(key="train.source").set_value("paste").run()
    at.text_area(key="train.paste").input(text).run()
    at.number_input(key="train.vocab_size").set_value(1000).run()
    page_runs = [timed(lambda: at.button(key="train.go").click().run()) for _ in range(max(3, runs // 4))]
    report("Train page rerun: train + progress bar + save + results", page_runs)
    return FolderStore(Path(WORKSPACE)).entries()[-1].key


def bench_step(runs: int, chars: int, key: str) -> None:
    text = corpora.text("stdlib-docstrings")[:chars]
    print(f"Step through: one step (Next) per rerun, {len(text):,}-character text")
    for name in ("r50k_base", "cl100k_base", "o200k_base"):
        at = page("step.py", mode="encoding", tokenizer=name)
        at.text_area(key="step.text").input(text).run()
        at.button(key="step.next").click().run()  # the trace is built here, once
        times = [timed(lambda at=at: at.button(key="step.next").click().run()) for _ in range(runs)]
        report(f"encoding mode, {name}", times)
    for excerpt in (5_000, 10_000):
        at = page("step.py", mode="training", tokenizer=f"user:{key}")
        at.selectbox(key="step.excerpt").set_value(excerpt).run()
        at.button(key="step.next").click().run()
        times = [timed(lambda at=at: at.button(key="step.next").click().run()) for _ in range(runs)]
        report(f"training mode, first {excerpt:,} characters shown", times)


def bench_vocab(runs: int) -> None:
    print("Vocabulary: o200k_base (200,000 tokens)")
    at = page("vocabulary.py")
    first = timed(lambda: at.selectbox(key="vocab.tokenizer").set_value("o200k_base").run())
    report("first view of o200k (table built once per server)", [first])
    times = [timed(lambda i=i: at.number_input(key="vocab.id_from").set_value(1000 + i).run()) for i in range(runs)]
    report("rerun with a new id range", times)
    times = [
        timed(lambda i=i: at.text_input(key="vocab.regex").input(rf"^\s\w+ing{'s' * (i % 2)}$").run())
        for i in range(max(3, runs // 4))
    ]
    report("rerun with a regex filter over 200k tokens", times)


def bench_scenario(runs: int, root: Path = ROOT) -> None:
    """The load test's scenario for one student at a time, against one real app process, ``runs`` sessions.

    Per action: the wall time the student waited, and the CPU time the server spent (the app process and its
    training workers), which other programs on a busy machine inflate much less. ``root``: the checkout to
    serve (another worktree, to compare with an older version: its ``serve.py``, or ``app.py`` when it has none).
    """
    import asyncio
    import signal
    import socket
    import subprocess
    import urllib.request
    from collections import defaultdict

    sys.path.insert(0, str(ROOT / "bench"))
    from load_test import student_text
    from stclient import Student

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    data = Path(tempfile.mkdtemp(prefix="bpe-scenario-"))
    for name in ("tiktoken-cache", "cache", "encodings"):
        if (ROOT / "data" / name).exists():
            (data / name).symlink_to(ROOT / "data" / name)
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "BPE_LAB_DATABASE_URL", "TIKTOKEN_CACHE_DIR")}
    env.update(BPE_LAB_SHARED="1", BPE_LAB_DATA_DIR=str(data), BPE_LAB_MAX_TOKENIZERS="1000", BPE_LAB_MAX_MB="10000")
    log = open(data / "server.log", "w")
    entry = root / "serve.py" if (root / "serve.py").exists() else root / "app.py"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            str(entry),
            "--server.port",
            str(port),
            "--server.headless",
            "true",
            "--server.address",
            "127.0.0.1",
            "--browser.gatherUsageStats",
            "false",
            "--server.fileWatcherType",
            "none",
        ],
        cwd=root,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    from load_test import cpu_seconds, descendants

    def server_cpu() -> float:
        return cpu_seconds([proc.pid, *descendants(proc.pid)])

    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                urllib.request.urlopen(base + "/_stcore/health", timeout=1)
                break
            except OSError:
                time.sleep(0.2)
        times: dict[str, list[float]] = defaultdict(list)
        cpu: dict[str, list[float]] = defaultdict(list)

        async def one(i: int) -> None:
            s = Student(base)
            await s.load_page("/")
            await s.connect()

            async def t(label: str, coro) -> None:
                c0 = server_cpu()
                r = await coro
                await asyncio.sleep(0.05)  # the last deltas are written after script_finished is sent
                cpu[label].append((server_cpu() - c0) * 1000)
                assert not r.exceptions and not r.errors, (label, r.exceptions, r.errors)
                times[label].append(r.seconds * 1000)

            await t("open Tokenize (first run)", s.open())
            s.set_text("tokenize.text", student_text(i))
            await t("paste 2,000 characters", s.rerun())
            for name in ("r50k_base", "cl100k_base", "o200k_base"):
                s.choose("tokenize.tokenizer", name)
                await t("switch tokenizer", s.rerun())
            await t("open Compare", s.navigate("compare"))
            await t("open Train", s.navigate("train"))
            s.set_int("train.vocab_size", 1000)
            await t("set vocab size", s.rerun())
            await t("train (docstrings, vocab 1000)", s.rerun(trigger="train.go"))
            await t("open Step through", s.navigate("step"))
            s.segment("step.mode", "Training")
            await t("Step through: training mode", s.rerun())
            for _ in range(5):
                await t("Step through: Next", s.rerun(trigger="step.next", fragment=True))
            await t("open Vocabulary", s.navigate("vocabulary"))
            await s.close()

        for i in range(runs + 1):
            asyncio.run(one(i))
            if i == 0:  # warm: the first session pays for what the process builds once
                times.clear()
                cpu.clear()
        print(
            f"The load test's scenario, one student at a time, one app process of {root} "
            f"({runs} sessions; load average {os.getloadavg()[0]:.2f}); wall ms the student waited, server CPU ms"
        )
        for label, v in times.items():
            print(
                f"  {label:<34} wall median {statistics.median(v):7.1f}   server CPU median {statistics.median(cpu[label]):7.1f}"
                f"   (n={len(v)})"
            )
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--chars", type=int, default=6000)
    ap.add_argument("--scenario", action="store_true", help="only the load test's scenario against a real server (4.)")
    ap.add_argument("--root", type=Path, default=ROOT, help="with --scenario: the BPE Lab checkout to serve (default: this one)")
    args = ap.parse_args()
    if args.scenario:
        bench_scenario(args.runs, args.root.resolve())
        return
    shell.start_up()
    key = bench_train(args.runs)
    bench_step(args.runs, args.chars, key)
    bench_vocab(args.runs)


if __name__ == "__main__":
    main()
