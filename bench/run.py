"""BPE Lab benchmarks: ratios against the reference tools, measured in one run.

    make bench            # or: .venv/bin/python bench/run.py [--quick]

Prints (medians of several runs, ours and the reference run alternately, ratios as the
median of per-round ratios; these machines are noisy, so read the ratios):
- training time: ours vs the naive recount reference (tests/reference.py, minbpe's
  algorithm) and vs Hugging Face tokenizers (BpeTrainer, same GPT-4 split then ByteLevel,
  one thread), on taylorswift.txt to vocab 512 and on a 10 MB corpus to vocab 8192;
- peak memory of `python -m tokenizer train` on the 10 MB corpus (a fresh process);
- encode throughput: ours vs tiktoken for r50k_base, cl100k_base, o200k_base.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.append(str(ROOT / "tests"))  # last: tests/tokenizer must not shadow the package

import hf_reference  # noqa: E402  (sets RAYON_NUM_THREADS=1 before tokenizers loads)
import tiktoken  # noqa: E402
from corpus import large, small, write_large  # noqa: E402  (bench/corpus.py)
from reference import naive_train  # noqa: E402

import tokenizer  # noqa: E402

tokenizer.configure()  # tiktoken reads the provisioned files: the reference runs offline


def median_time(fn, repeat: int, warmup: bool = False) -> float:
    if warmup:
        fn()  # untimed: lets the process grow its heap and fill lazy tables first
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def paired(fn_a, fn_b, repeat: int, warmup: bool = False) -> tuple[float, float, float]:
    """Median time of a, of b, and median of the per-round ratios a/b.

    The two are run alternately, so a slow spell of the machine hits both alike.
    """
    if warmup:
        fn_a()
        fn_b()
    ta, tb = [], []
    for _ in range(repeat):
        for fn, out in ((fn_a, ta), (fn_b, tb)):
            t0 = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t0)
    return statistics.median(ta), statistics.median(tb), statistics.median(a / b for a, b in zip(ta, tb))


def bench_training(quick: bool) -> list[tuple]:
    rows = []
    name, text = small()
    ours, hf, ratio = paired(lambda: tokenizer.train(text, 512, pattern="gpt4"), lambda: hf_reference.hf_train(text, 512), 9, warmup=True)
    naive = median_time(lambda: naive_train(text, 512, tokenizer.GPT4_PATTERN), 1 if quick else 3)
    rows.append((f"{name}, vocab 512", ours, hf, ratio, naive))
    if not quick:
        name, text = large()
        ours, hf, ratio = paired(lambda: tokenizer.train(text, 8192, pattern="gpt4"), lambda: hf_reference.hf_train(text, 8192), 3)
        rows.append((f"{name}, vocab 8192", ours, hf, ratio, None))
    return rows


_PEAK = (
    "import sys\n"
    "from tokenizer.cli import main\n"
    "rc = main(sys.argv[1:])\n"
    "peak = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1]\n"
    "print(int(peak) // 1024)\n"
)


def bench_memory() -> tuple[int, int]:
    """Peak RSS (MB, VmHWM of a fresh process) of the CLI training the 10 MB corpus to 8192,
    and of the same process doing nothing but importing the package."""
    with tempfile.TemporaryDirectory() as tmp:
        path = write_large(Path(tmp) / "corpus.txt")
        args = ["train", str(path), "--vocab-size", "8192", "-q", "-o", str(Path(tmp) / "t.json")]
        out = subprocess.run([sys.executable, "-c", _PEAK, *args], capture_output=True, text=True, check=True, cwd=ROOT)
        base = subprocess.run(
            [sys.executable, "-c", "import tokenizer.cli\nprint(int([l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1]) // 1024)"],
            capture_output=True, text=True, check=True, cwd=ROOT,
        )
        return int(out.stdout.strip().splitlines()[-1]), int(base.stdout.strip())


def multilingual(n_chars: int = 2_000_000) -> str:
    """Mostly non-ASCII text (our own lines, many scripts), repeated: the slow split path."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("test_corpus", ROOT / "tests" / "corpus.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    MULTILINGUAL = mod.MULTILINGUAL
    return (MULTILINGUAL * (n_chars // len(MULTILINGUAL) + 1))[:n_chars]


def bench_encoding(quick: bool, text: str | None = None) -> list[tuple]:
    if text is None:
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
            ours.clear_cache()  # no help from earlier runs: every chunk is encoded afresh
            ours.encode_ordinary(text)

        t_ours, t_ref, ratio = paired(cold, lambda: ref.encode_ordinary(text), 5, warmup=True)
        rows.append((name, mb / t_ours, mb / t_ref, ratio))
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
    for name, ours, hf, ratio, naive in bench_training(args.quick):
        naive_s = f"{naive:.2f}" if naive is not None else "(hours)"
        naive_r = f"{naive / ours:.0f}x" if naive is not None else "-"
        print(f"| {name} | {ours:.3f} | {hf:.3f} | {ratio:.2f} | {naive_s} | {naive_r} |")
    if not args.quick:
        peak, base = bench_memory()
        print()
        print(f"Peak memory (VmHWM) of `python -m tokenizer train` on the 10 MB corpus to vocab 8192: {peak} MB "
              f"(the same interpreter after importing the package: {base} MB)")
    print()
    print("## Encoding (cold chunk cache; MB/s, higher is better)")
    print("| text | encoding | BPE Lab MB/s | tiktoken MB/s | time ours / tiktoken |")
    print("|---|---|---:|---:|---:|")
    name, _ = large()
    for enc, ours, ref, ratio in bench_encoding(args.quick):
        print(f"| {name.split(' (')[0]} corpus | {enc} | {ours:.1f} | {ref:.1f} | {ratio:.2f} |")
    for enc, ours, ref, ratio in bench_encoding(True, multilingual()):
        print(f"| 2 M chars, many scripts | {enc} | {ours:.1f} | {ref:.1f} | {ratio:.2f} |")


if __name__ == "__main__":
    main()
