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

from tokenizer import train  # noqa: E402
from ui.common import corpora, shell  # noqa: E402
from ui.common.workspace import TokenizerStore  # noqa: E402


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
    return TokenizerStore(Path(WORKSPACE)).entries()[-1].key


def bench_step(runs: int, chars: int, key: str) -> None:
    text = corpora.text("stdlib-docstrings")[:chars]
    print(f"Step through: one step (Next) per rerun, {len(text):,}-character text")
    for name in ("r50k_base", "cl100k_base", "o200k_base"):
        at = page("step.py", mode="encoding", tokenizer=name)
        at.text_area(key="step.text").input(text).run()
        at.button(key="step.next").click().run()  # the trace is built here, once
        times = [timed(lambda: at.button(key="step.next").click().run()) for _ in range(runs)]
        report(f"encoding mode, {name}", times)
    for excerpt in (5_000, 10_000):
        at = page("step.py", mode="training", tokenizer=f"user:{key}")
        at.selectbox(key="step.excerpt").set_value(excerpt).run()
        at.button(key="step.next").click().run()
        times = [timed(lambda: at.button(key="step.next").click().run()) for _ in range(runs)]
        report(f"training mode, first {excerpt:,} characters shown", times)


def bench_vocab(runs: int) -> None:
    print("Vocabulary: o200k_base (200,000 tokens)")
    at = page("vocabulary.py")
    first = timed(lambda: at.selectbox(key="vocab.tokenizer").set_value("o200k_base").run())
    report("first view of o200k (table built once per server)", [first])
    times = [timed(lambda: at.number_input(key="vocab.id_from").set_value(1000 + i).run()) for i in range(runs)]
    report("rerun with a new id range", times)
    times = [timed(lambda: at.text_input(key="vocab.regex").input(rf"^\s\w+ing{'s' * (i % 2)}$").run()) for i in range(max(3, runs // 4))]
    report("rerun with a regex filter over 200k tokens", times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--chars", type=int, default=6000)
    args = ap.parse_args()
    shell.start_up()
    key = bench_train(args.runs)
    bench_step(args.runs, args.chars, key)
    bench_vocab(args.runs)


if __name__ == "__main__":
    main()
