"""BPE Lab benchmarks: ratios against the reference tools, measured in one run.

    make bench            # or: .venv/bin/python bench/run.py [--quick | --targets]

``--targets`` runs only the rows the core's speed targets are about (one process against
one thread, CPU time: training both corpora, encoding the 10 MB corpus), for a crowded machine.

Prints (medians of several runs, ours and the reference run alternately, ratios as the
median of per-round ratios; these machines are noisy, so read the ratios). What runs on
one thread is timed in CPU time (``time.process_time``: the process's own seconds on a
core, which other work on a shared machine barely changes); what runs on several cores or
in another process in wall-clock time (``time.perf_counter``), and the tables say which:
- training time: ours vs the naive recount reference (tokenizer/bpe/textbook.py, minbpe's
  algorithm) and vs Hugging Face tokenizers (BpeTrainer, same GPT-4 split then ByteLevel),
  on taylorswift.txt to vocab 512 and on a 10 MB corpus to vocab 8192: ours in one
  process and on every core (chunks counted in parallel), HF on one thread and on every
  thread (a second process, since rayon's thread count is fixed when it starts);
- peak memory (VmHWM) of a fresh process training the 10 MB corpus: our CLI in one
  process and on every core (its worker processes' peak too), HF on one and on every thread;
- encode throughput: ours vs tiktoken for r50k_base, cl100k_base, o200k_base on the 10 MB
  corpus and on 2 M characters in many scripts, and on single very long chunks (a million
  repeated characters).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import hf_reference  # noqa: E402  (sets RAYON_NUM_THREADS=1 before tokenizers loads)
import tiktoken  # noqa: E402
from corpora import large, small, write_large  # noqa: E402  (bench/corpora.py)

import tokenizer  # noqa: E402
from tokenizer.bpe.textbook import train as textbook_train  # noqa: E402

tokenizer.configure()  # tiktoken reads the provisioned files: the reference runs offline


CPU = time.process_time  # one thread: this process's CPU seconds (its threads' included)
WALL = time.perf_counter  # several processes or cores


def median_time(fn, repeat: int, warmup: bool = False, clock=CPU) -> float:
    if warmup:
        fn()  # untimed: lets the process grow its heap and fill lazy tables first
    times = []
    for _ in range(repeat):
        t0 = clock()
        fn()
        times.append(clock() - t0)
    return statistics.median(times)


def paired(fn_a, fn_b, repeat: int, warmup: bool = False, clock=CPU) -> tuple[float, float, float]:
    """Median time of a, of b, and median of the per-round ratios a/b.

    The two are run alternately, so a slow spell of the machine hits both alike.
    """
    if warmup:
        fn_a()
        fn_b()
    ta, tb = [], []
    for _ in range(repeat):
        for fn, out in ((fn_a, ta), (fn_b, tb)):
            t0 = clock()
            fn()
            out.append(clock() - t0)
    return statistics.median(ta), statistics.median(tb), statistics.median(a / b for a, b in zip(ta, tb))


class HFAllThreads:
    """HF tokenizers on every thread, in a second process (rayon reads its thread count
    once): it trains when asked and answers with the seconds it took, so it can
    alternate with ours like any other reference."""

    SCRIPT = (
        "import sys, time\n"
        "sys.path[:0] = [sys.argv[1], sys.argv[1] + '/bench']\n"
        "from corpora import large, small\n"
        "from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers\n"
        "from tokenizer.formats.hf import hf_pattern\n"
        "from tokenizer.pretokenize.patterns import GPT4_PATTERN\n"
        "def hf_train(text, vocab_size):\n"
        "    tok = Tokenizer(models.BPE())\n"
        "    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Split(Regex(hf_pattern(GPT4_PATTERN)), behavior='isolated'),\n"
        "        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])\n"
        "    trainer = trainers.BpeTrainer(vocab_size=vocab_size, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)\n"
        "    tok.train_from_iterator([text], trainer)\n"
        "texts = {'small': small()[1], 'large': large()[1]}\n"
        "for line in sys.stdin:\n"
        "    which, vocab = line.split()\n"
        "    t0 = time.perf_counter(); hf_train(texts[which], int(vocab)); print(time.perf_counter() - t0, flush=True)\n"
    )

    @staticmethod
    def env() -> dict:
        return {k: v for k, v in os.environ.items() if k not in ("RAYON_NUM_THREADS", "TOKENIZERS_PARALLELISM")}

    def __init__(self):
        self.proc = subprocess.Popen(
            [sys.executable, "-c", self.SCRIPT, str(ROOT)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=self.env(),
        )

    def train(self, which: str, vocab: int) -> float:
        self.proc.stdin.write(f"{which} {vocab}\n")
        self.proc.stdin.flush()
        return float(self.proc.stdout.readline())

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def paired_timed(fn_a, timed_b, repeat: int) -> tuple[float, float, float]:
    """``paired`` where b reports its own seconds (it runs in another process)."""
    ta, tb = [], []
    for _ in range(repeat):
        t0 = WALL()
        fn_a()
        ta.append(WALL() - t0)
        tb.append(timed_b())
    return statistics.median(ta), statistics.median(tb), statistics.median(a / b for a, b in zip(ta, tb))


def bench_training(quick: bool, targets: bool = False) -> list[tuple]:
    """Rows ``(corpus, ours label, HF label, clock, ours s, HF s, ours / HF, naive s or None)``."""
    rows = []
    hf_all = None if targets else HFAllThreads()
    try:
        name, text = small()
        ours, hf, ratio = paired(
            lambda: tokenizer.train(text, 512, pattern="gpt4", workers=1),
            lambda: hf_reference.hf_train(text, 512),
            9,
            warmup=True,
        )
        naive = None
        if not targets:
            naive = median_time(lambda: textbook_train(text, 512, tokenizer.GPT4_PATTERN), 1 if quick else 3)
        rows.append((f"{name}, vocab 512", "one process", "1 thread", "CPU", ours, hf, ratio, naive))
        if not quick:
            name, text = large()
            label = f"{name}, vocab 8192"
            # one process against one thread: CPU time; our worker processes' time is not this process's, so wall
            for workers, ours_label, clock in ((1, "one process", CPU), (None, "all cores", WALL))[: 1 if targets else 2]:
                ours, hf, ratio = paired(
                    lambda w=workers: tokenizer.train(text, 8192, pattern="gpt4", workers=w),
                    lambda: hf_reference.hf_train(text, 8192),
                    5,
                    clock=clock,
                )
                rows.append((label, ours_label, "1 thread", "CPU" if clock is CPU else "wall", ours, hf, ratio, None))
            if targets:
                return rows
            hf_all.train("large", 8192)  # warm-up
            ours, hf, ratio = paired_timed(
                lambda: tokenizer.train(text, 8192, pattern="gpt4"), lambda: hf_all.train("large", 8192), 5
            )
            rows.append((label, "all cores", "all threads", "wall", ours, hf, ratio, None))
    finally:
        if hf_all is not None:
            hf_all.close()
    return rows


_PEAK = (
    "import resource, sys\n"
    "from tokenizer.cli import main\n"
    "rc = main(sys.argv[1:])\n"
    "peak = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1]\n"
    "print(int(peak) // 1024, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)\n"
)
_VMHWM = "print(int([l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1]) // 1024)\n"


def _run(code: str, *args: str, env: dict | None = None, stdin: str | None = None) -> str:
    out = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, check=True, cwd=ROOT, env=env, input=stdin
    )
    return out.stdout.strip().splitlines()[-1]


def bench_memory() -> dict[str, str]:
    """Peak RSS (MB, VmHWM of a fresh process) of training the 10 MB corpus to 8192: our CLI
    in one process and on every core (with its worker processes' peak), the interpreter
    with the package imported, and HF on one thread and on every thread."""
    with tempfile.TemporaryDirectory() as tmp:
        path = write_large(Path(tmp) / "corpus.txt")
        args = ["train", str(path), "--vocab-size", "8192", "-q", "-o", str(Path(tmp) / "t.json")]
        one = _run(_PEAK, *args, "--workers", "1").split()
        every = _run(_PEAK, *args).split()
        base = _run("import tokenizer.cli\n" + _VMHWM)
        hf = HFAllThreads.SCRIPT + _VMHWM
        hf_one = _run(hf, str(ROOT), env={**os.environ, "RAYON_NUM_THREADS": "1"}, stdin="large 8192\n")
        hf_all = _run(hf, str(ROOT), env=HFAllThreads.env(), stdin="large 8192\n")
        return {
            "ours_one": one[0],
            "ours_all": every[0],
            "ours_workers": every[1],
            "base": base,
            "hf_one": hf_one,
            "hf_all": hf_all,
        }


def multilingual(n_chars: int = 2_000_000) -> str:
    """Mostly non-ASCII text (our own lines, many scripts), repeated: the slow split path."""
    from texts import MULTILINGUAL

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

        def cold(ours=ours):
            ours.clear_cache()  # no help from earlier runs: every chunk is encoded afresh
            ours.encode_ordinary(text)

        t_ours, t_ref, ratio = paired(cold, lambda ref=ref: ref.encode_ordinary(text), 5, warmup=True)
        rows.append((name, mb / t_ours, mb / t_ref, ratio))
    return rows


def long_chunks() -> dict[str, str]:
    n = 1_000_000
    return {"1 M 'a'": "a" * n, "1 M spaces": " " * n, "1 M newlines": "\n" * n}


def bench_long_chunks() -> list[tuple]:
    """A single very long chunk: ours (cold cache) vs tiktoken, same ids checked."""
    rows = []
    for name in ("r50k_base", "cl100k_base", "o200k_base"):
        ours = tokenizer.load_encoding(name)
        ref = tiktoken.get_encoding(name)
        for label, text in long_chunks().items():

            def cold(t=text, ours=ours):
                ours.clear_cache()
                return ours.encode_ordinary(t)

            try:
                want = ref.encode_ordinary(text)
            except BaseException as e:  # tiktoken's Rust regex can overflow its stack (a PanicException)
                if isinstance(e, KeyboardInterrupt):
                    raise
                t_ours = median_time(cold, 3)  # CPU time, like every one-thread row
                rows.append((label, name, t_ours, None, None))
                continue
            assert cold() == want
            t_ours, t_ref, ratio = paired(cold, lambda t=text, ref=ref: ref.encode_ordinary(t), 3)
            rows.append((label, name, t_ours, t_ref, ratio))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="small sizes only (a smoke run)")
    ap.add_argument("--targets", action="store_true", help="only the rows the speed targets are about")
    args = ap.parse_args()
    print(
        f"python {sys.version.split()[0]}, tiktoken {tiktoken.__version__}, tokenizers {__import__('tokenizers').__version__}, {os.cpu_count()} cores"
    )
    print()
    print(f"load average at the start: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print()
    print("## Training (median seconds; lower is better)")
    print("| corpus | BPE Lab | HF tokenizers | clock | BPE Lab s | HF s | ours / HF | naive recount s | naive / ours |")
    print("|---|---|---|---|---:|---:|---:|---:|---:|")
    for name, ours_label, hf_label, clock, ours, hf, ratio, naive in bench_training(args.quick, args.targets):
        naive_s = f"{naive:.2f}" if naive is not None else "-"
        naive_r = f"{naive / ours:.0f}x" if naive is not None else "-"
        print(f"| {name} | {ours_label} | {hf_label} | {clock} | {ours:.3f} | {hf:.3f} | {ratio:.2f} | {naive_s} | {naive_r} |")
    if not args.quick and not args.targets:
        mem = bench_memory()
        print()
        print(
            "Peak memory (VmHWM, MB) training the 10 MB corpus to vocab 8192 in a fresh process: "
            f"BPE Lab CLI one process {mem['ours_one']}, all cores {mem['ours_all']} (+ each worker process up to {mem['ours_workers']}); "
            f"HF tokenizers one thread {mem['hf_one']}, all threads {mem['hf_all']}; "
            f"the interpreter with the package imported: {mem['base']}"
        )
    print(f"load average at the end of training: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print()
    print("## Encoding (one thread, CPU time; cold chunk cache; MB/s, higher is better)")
    print("| text | encoding | BPE Lab MB/s | tiktoken MB/s | time ours / tiktoken |")
    print("|---|---|---:|---:|---:|")
    name, _ = large()
    for enc, ours, ref, ratio in bench_encoding(args.quick):
        print(f"| {name.split(' (')[0]} corpus | {enc} | {ours:.1f} | {ref:.1f} | {ratio:.2f} |")
    if args.targets:
        print()
        print(f"load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
        return
    for enc, ours, ref, ratio in bench_encoding(True, multilingual()):
        print(f"| 2 M chars, many scripts | {enc} | {ours:.1f} | {ref:.1f} | {ratio:.2f} |")
    print()
    print("## One very long chunk (one thread, CPU time; cold chunk cache; seconds)")
    print("| text | encoding | BPE Lab s | tiktoken s | time ours / tiktoken |")
    print("|---|---|---:|---:|---:|")
    for label, enc, ours, ref, ratio in bench_long_chunks():
        if ref is None:
            print(f"| {label} | {enc} | {ours:.3f} | fails (stack overflow) | - |")
        else:
            print(f"| {label} | {enc} | {ours:.3f} | {ref:.3f} | {ratio:.2f} |")
    print()
    print(f"load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
