"""How long a rerun of the Tokenize and Compare pages takes, in AppTest.

    .venv/bin/python bench/bench_pages.py [--chars 10000] [--runs 15] [--no-freeze]

Before timing, the process starts up as the app's server does (``shell.start_up``:
the official encodings loaded, then ``gc.freeze()``; ``--no-freeze`` leaves the
freeze out, to measure what it buys), and each page is run once. Two
texts: a mix of the built-in samples repeated to the length ("warm": BPE Lab's
encoder caches repeated chunks, as in a session where the text was seen before),
and a fresh shuffle of their words on every rerun ("cold": nothing cached).
Prints the median and the slowest rerun in milliseconds. Targets:
Tokenize < 300 ms after a change of tokenizer, Compare with four tokenizers < 1 s.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# a workspace of our own, so the Compare page's default set includes a trained tokenizer
os.environ["BPE_LAB_WORKSPACE"] = tempfile.mkdtemp(prefix="bpe-bench-")
os.environ["BPE_LAB_SHARED"] = "0"

import tokenizer  # noqa: E402

tokenizer.configure()  # as the app does at start-up
from streamlit.testing.v1 import AppTest  # noqa: E402

from classroom import workspaces  # noqa: E402
from ui.common import shell, tokenizers  # noqa: E402
from ui.content.samples import SAMPLES  # noqa: E402

workspaces.configure(shared=False)  # as serve.py does at start-up: the folder store above

OFFICIAL = ["r50k_base", "cl100k_base", "o200k_base"]


def mixed_text(n: int) -> str:
    base = "\n\n".join(SAMPLES.values())
    return (base * (n // len(base) + 1))[:n]


def shuffled_text(n: int, rng: random.Random) -> str:
    words = "\n\n".join(SAMPLES.values()).split(" ")
    out: list[str] = []
    size = 0
    while size < n:
        w = rng.choice(words) + str(rng.randrange(1000)) if rng.random() < 0.3 else rng.choice(words)
        out.append(w)
        size += len(w) + 1
    return " ".join(out)[:n]


def timed(at: AppTest) -> float:
    t = time.perf_counter()
    at.run()
    ms = (time.perf_counter() - t) * 1000
    assert not at.exception, at.exception
    return ms


def summary(name: str, ms: list[float]) -> None:
    print(f"{name:<58} median {statistics.median(ms):7.1f} ms   max {max(ms):7.1f} ms   (n={len(ms)})")


def bench_tokenize(chars: int, runs: int, cold: bool) -> list[float]:
    rng = random.Random(0)
    at = AppTest.from_file(str(ROOT / "pages" / "tokenize.py"), default_timeout=120)
    at.run()
    at.text_area(key="tokenize.text").set_value(mixed_text(chars))
    for key in OFFICIAL:  # load every encoding before timing
        at.selectbox(key="tokenize.tokenizer").set_value(key)
        at.run()
    out = []
    for i in range(runs):
        if cold:
            at.text_area(key="tokenize.text").set_value(shuffled_text(chars, rng))
        at.selectbox(key="tokenize.tokenizer").set_value(OFFICIAL[i % 3])
        out.append(timed(at))
    return out


def add_trained_tokenizer() -> str:
    """Train a 1,024-token tokenizer on the samples and put it in the bench's workspace."""
    from classroom.stores import FolderStore
    from tokenizer import train

    tok = train("\n\n".join(SAMPLES.values()) * 3, 1024, name="bench")
    return "user:" + FolderStore(Path(os.environ["BPE_LAB_WORKSPACE"])).add(tok)


def bench_compare(chars: int, runs: int, cold: bool, keys: list[str] | None) -> list[float]:
    """``keys=None``: the page's default choice (your latest tokenizer, GPT-2, cl100k, o200k)."""
    rng = random.Random(1)
    at = AppTest.from_file(str(ROOT / "pages" / "compare.py"), default_timeout=120)
    at.run()
    if keys is not None:
        at.multiselect(key="compare.tokenizers").set_value(keys)
    assert len(at.multiselect(key="compare.tokenizers").value) == 4, at.multiselect(key="compare.tokenizers").value
    at.text_area(key="compare.text").set_value(mixed_text(chars))
    at.run()
    out = []
    for i in range(runs):
        if cold:
            at.text_area(key="compare.text").set_value(shuffled_text(chars, rng))
        else:  # a change that reruns everything: flip whitespace display
            at.toggle(key="compare.whitespace").set_value(i % 2 == 0)
        out.append(timed(at))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chars", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--no-freeze", action="store_true", help="load the encodings but skip start-up's gc.freeze()")
    args = ap.parse_args()
    if args.no_freeze:
        for name in OFFICIAL:
            tokenizers.official(name)
    else:
        shell.start_up()
    user = add_trained_tokenizer()
    freeze = "without gc.freeze" if args.no_freeze else "with start-up's gc.freeze"
    print(f"text: {args.chars:,} characters; Python {sys.version.split()[0]}; trained tokenizer {user}; {freeze}")
    summary("Tokenize, change of tokenizer (warm)", bench_tokenize(args.chars, args.runs, cold=False))
    summary("Tokenize, change of tokenizer + new text (cold)", bench_tokenize(args.chars, args.runs, cold=True))
    summary("Compare, default 4 (yours, GPT-2, cl100k, o200k) (warm)", bench_compare(args.chars, args.runs, False, None))
    summary("Compare, default 4, new text every rerun (cold)", bench_compare(args.chars, args.runs, True, None))
    four = [*OFFICIAL, "chars"]
    summary("Compare, GPT-2, cl100k, o200k, characters (cold)", bench_compare(args.chars, args.runs, True, four))


if __name__ == "__main__":
    main()
