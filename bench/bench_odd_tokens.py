"""How long the Vocabulary page's unreachable-and-odd-tokens check takes (the target: under 15 s for 200k tokens).

    .venv/bin/python bench/bench_odd_tokens.py [--runs 3]

For GPT-2 (r50k), cl100k, o200k, Llama 3 (whole tokens, merges that build on later
ones) and Qwen 3.5/3.6 (the largest vocabulary, 248,044 ordinary tokens), loaded and warmed, and for a tokenizer trained here (its encoder built first, as the page's
other sections do): ``ui.vocabulary.unreachable.find_odd_tokens`` over every ordinary token.
Prints the median and slowest seconds and what it found.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import tokenizer  # noqa: E402

tokenizer.configure()
from ui.content import corpora  # noqa: E402
from ui.vocabulary.unreachable import find_odd_tokens  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    runs = ap.parse_args().runs
    toks = {name: tokenizer.load_encoding(name) for name in ("r50k_base", "cl100k_base", "o200k_base", "llama3", "qwen3.6")}
    toks["yours: docstrings, 8,192 tokens"] = tokenizer.train(corpora.text("stdlib-docstrings"), 8192, pattern="gpt4")
    print(f"{'tokenizer':34} {'tokens':>8} {'median s':>9} {'slowest s':>10} {'unreachable':>12} {'not UTF-8':>10}")
    for name, tok in toks.items():
        tok.encode_ordinary("warm up")  # the encoder is built once per tokenizer, before the page gets here
        times = []
        for _ in range(runs):
            t = time.perf_counter()
            found = find_odd_tokens(tok)
            times.append(time.perf_counter() - t)
        print(
            f"{name:34} {found.checked:>8,} {statistics.median(times):>9.2f} {max(times):>10.2f} "
            f"{len(found.unreachable):>12,} {len(found.partial):>10,}"
        )


if __name__ == "__main__":
    main()
