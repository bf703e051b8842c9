"""BPE Lab benchmarks: ratios against the reference tools, measured in one run.

    make bench            # or: .venv/bin/python bench/run.py [--quick]

Prints (medians of several runs; these machines are noisy, so read the ratios):
- training time: ours vs the naive recount reference (tests/reference.py, minbpe's
  algorithm) and vs Hugging Face tokenizers (BpeTrainer, same GPT-4 split then ByteLevel,
  one thread), on taylorswift.txt to vocab 512 and on a 10 MB corpus to vocab 8192;
- peak memory of `python -m tokenizer train` on the 10 MB corpus (a fresh process);
- encode throughput: ours vs tiktoken for r50k_base, cl100k_base, o200k_base.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

import hf_reference  # noqa: E402  (sets RAYON_NUM_THREADS=1 before tokenizers loads)
import tiktoken  # noqa: E402
from corpus import large, small, write_large  # noqa: E402
from reference import naive_train  # noqa: E402

import tokenizer  # noqa: E402


def median_time(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def bench_training(quick: bool) -> list[tuple]:
    rows = []
    name, text = small()
    ours = median_time(lambda: tokenizer.train(text, 512, pattern="gpt4"), 7)
    hf = median_time(lambda: hf_reference.hf_train(text, 512), 7)
    naive = median_time(lambda: naive_train(text, 512, tokenizer.GPT4_PATTERN), 1 if quick else 3)
    rows.append((f"{name}, vocab 512", ours, hf, naive))
    if not quick:
        name, text = large()
        ours = median_time(lambda: tokenizer.train(text, 8192, pattern="gpt4"), 3)
        hf = median_time(lambda: hf_reference.hf_train(text, 8192), 3)
        rows.append((f"{name}, vocab 8192", ours, hf, None))
    return rows


def bench_memory() -> tuple[float, float]:
    """Peak RSS (MB) of the CLI training the 10 MB corpus, and of a bare interpreter importing the package."""
    with tempfile.TemporaryDirectory() as tmp:
        path = write_large(Path(tmp) / "corpus.txt")
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        base = subprocess.run([sys.executable, "-c", "import tokenizer, resource; print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"], capture_output=True, text=True, check=True, cwd=ROOT)
        cmd = [sys.executable, "-m", "tokenizer", "train", str(path), "--vocab-size", "8192", "-q", "-o", str(Path(tmp) / "t.json")]
        code = "import resource, runpy, sys; sys.argv = sys.argv[1:]; " \
            "sys.argv[0] = 'tokenizer'; " \
            "from tokenizer.cli import main; rc = main(sys.argv[1:]); " \
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
        out = subprocess.run([sys.executable, "-c", code, *cmd[2:]], capture_output=True, text=True, check=True, cwd=ROOT)
        del before
        peak_kb = int(out.stdout.strip().splitlines()[-1])
        return peak_kb / 1024, int(base.stdout.strip()) / 1024


def bench_encoding(quick: bool) -> list[tuple]:
    _, text = large()
    if quick:
        text = text[:2_000_000]
    mb = len(text.encode()) / 1e6
    rows = []
    for name in ("r50k_base", "cl100k_base", "o200k_base"):
        ours = tokenizer.load_encoding(name)
        ref = tiktoken.get_encoding(name)
        assert ours.encode_ordinary(text[:200_000]) == ref.encode_ordinary(text[:200_000])

        def cold():
            ours._encoder._cache.clear()  # no help from earlier runs: every chunk is encoded afresh
            ours.encode_ordinary(text)

        t_ours = median_time(cold, 3)
        t_ref = median_time(lambda: ref.encode_ordinary(text), 3)
        rows.append((name, mb / t_ours, mb / t_ref, t_ours / t_ref))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="small sizes only (a smoke run)")
    args = ap.parse_args()
    print(f"python {sys.version.split()[0]}, tiktoken {tiktoken.__version__}, tokenizers {hf_reference.Tokenizer.__module__.split('.')[0]} {__import__('tokenizers').__version__}")
    print()
    print("## Training (median seconds; lower is better)")
    print("| corpus | BPE Lab | HF tokenizers | ours / HF | naive recount | naive / ours |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, ours, hf, naive in bench_training(args.quick):
        naive_s = f"{naive:.2f}" if naive is not None else "(hours)"
        naive_r = f"{naive / ours:.0f}x" if naive is not None else "-"
        print(f"| {name} | {ours:.3f} | {hf:.3f} | {ours / hf:.2f} | {naive_s} | {naive_r} |")
    if not args.quick:
        peak, base = bench_memory()
        print()
        print(f"Peak memory, `python -m tokenizer train` on the 10 MB corpus to 8192: {peak:.0f} MB "
              f"(a bare interpreter importing the package: {base:.0f} MB)")
    print()
    print("## Encoding (cold chunk cache; MB/s, higher is better)")
    print("| encoding | BPE Lab MB/s | tiktoken MB/s | time ours / tiktoken |")
    print("|---|---:|---:|---:|")
    for name, ours, ref, ratio in bench_encoding(args.quick):
        print(f"| {name} | {ours:.1f} | {ref:.1f} | {ratio:.2f} |")


if __name__ == "__main__":
    main()
