"""How fast the training variants are, against Hugging Face tokenizers and against plain training.

    .venv/bin/python bench/bench_variants.py [--runs 3] [--quick]

1. Parity-aware BPE against HF tokenizers' ``ParityBpeTrainer`` (0.23.3, one thread,
   the same split pattern then ByteLevel, the training texts as the development set):
   the 22 token-tax passages to vocab 512, and four "languages" of 1.6 MB in all
   (taylorswift.txt, Python sources, docstrings, the 22 passages) to vocab 4,096; and
   against our own plain training on the same texts (what balancing costs).
2. Tokens across words (two stages, 80% in stage 1, SuperBPE's stage-2 pattern)
   against plain training to the same size: 1 MB of the benchmark corpus to 4,096, and
   HF's plain ``BpeTrainer`` on it for scale (HF has no second stage to compare with).
3. Continued training from GPT-2 and cl100k: 1,000 new merges on 1 MB, against plain
   training of 1,000 merges from bytes on the same text (what starting from 50,000 or
   100,000 merges costs).

Ours and the reference run alternately; each ratio is the median of the per-round ratios.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]
os.environ.setdefault("RAYON_NUM_THREADS", "1")  # HF on one thread, like our one process

from corpora import large, small  # noqa: E402  (bench/corpora.py)

import tokenizer  # noqa: E402
from tokenizer import GPT4_PATTERN, load_encoding, train  # noqa: E402
from tokenizer.bpe.continued import train_continued  # noqa: E402
from tokenizer.bpe.parity import train_parity  # noqa: E402
from tokenizer.bpe.superwords import train_superwords  # noqa: E402
from tokenizer.formats.hf import hf_pattern  # noqa: E402
from ui.compare import languages  # noqa: E402
from ui.content import corpora  # noqa: E402

tokenizer.configure()


def paired(fn_a, fn_b, runs: int) -> tuple[float, float, float]:
    """Median seconds of a and of b, run alternately, and the median of the per-round ratios a / b."""
    fn_a(), fn_b()  # warm up: lazy tables, the regex twin
    ta, tb = [], []
    for _ in range(runs):
        for fn, out in ((fn_a, ta), (fn_b, tb)):
            t0 = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t0)
    return statistics.median(ta), statistics.median(tb), statistics.median(a / b for a, b in zip(ta, tb))


def _pre_tokenizer():
    from tokenizers import Regex, pre_tokenizers

    return pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(hf_pattern(GPT4_PATTERN)), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )


def hf_parity(texts: dict[str, str], vocab_size: int) -> None:
    from tokenizers import Tokenizer, models, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = _pre_tokenizer()
    trainer = trainers.ParityBpeTrainer(num_merges=vocab_size - 256, show_progress=False)
    parts = [[t] for t in texts.values()]
    trainer.train_from_iterator(tok, train_iterators=parts, dev_iterators=[list(p) for p in parts])


def hf_plain(text: str, vocab_size: int) -> None:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = _pre_tokenizer()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False
    )
    tok.train_from_iterator([text], trainer)


def row(*cells) -> None:
    print("| " + " | ".join(str(c) for c in cells) + " |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="the small cases only")
    args = ap.parse_args()
    runs = args.runs
    passages = languages.texts()
    text_1mb = large()[1][:1_000_000]
    four = {
        "taylorswift": small()[1],
        "python": large()[1][-700_000:],
        "docstrings": corpora.text("stdlib-docstrings"),
        "passages": "\n".join(passages.values()),
    }

    print("**Parity-aware** (seconds, medians; HF = ParityBpeTrainer, one thread):\n")
    row("texts", "vocab", "ours s", "HF s", "ours / HF", "plain BPE s", "parity / plain")
    row("---", "---:", "---:", "---:", "---:", "---:", "---:")
    cases = [("22 passages (4 kB)", passages, 512)]
    if not args.quick:
        cases.append((f"4 texts ({sum(len(t.encode()) for t in four.values()) / 1e6:.1f} MB)", four, 4096))
    for label, texts, vocab in cases:
        ours, hf, ratio = paired(lambda t=texts, v=vocab: train_parity(t, v), lambda t=texts, v=vocab: hf_parity(t, v), runs)
        _, plain, cost = paired(
            lambda t=texts, v=vocab: train_parity(t, v), lambda t=texts, v=vocab: train(list(t.values()), v), runs
        )
        row(label, f"{vocab:,}", f"{ours:.3f}", f"{hf:.3f}", f"{ratio:.2f}", f"{plain:.3f}", f"{cost:.2f}")

    if not args.quick:
        print("\n**Tokens across words** (1 MB of the benchmark corpus, vocab 4,096, stage 2 from 3,328):\n")
        row("", "two stages s", "plain BPE s", "two stages / plain", "HF plain s", "two stages / HF plain")
        row("---", "---:", "---:", "---:", "---:", "---:")
        ours, plain, cost = paired(lambda: train_superwords(text_1mb, 4096, transition=3328), lambda: train(text_1mb, 4096), runs)
        _, hf, ratio = paired(lambda: train_superwords(text_1mb, 4096, transition=3328), lambda: hf_plain(text_1mb, 4096), runs)
        row("1 MB", f"{ours:.3f}", f"{plain:.3f}", f"{cost:.2f}", f"{hf:.3f}", f"{ratio:.2f}")

        print("\n**Continued training** (1,000 new merges on 1 MB):\n")
        row("base", "continued s", "1,000 merges from bytes s", "continued / from bytes")
        row("---", "---:", "---:", "---:")
        for name in ("r50k_base", "cl100k_base"):
            base = load_encoding(name)
            ours, plain, ratio = paired(
                lambda b=base: train_continued(text_1mb, b.n_vocab + 1000, base=b), lambda: train(text_1mb, 1256), runs
            )
            row(name, f"{ours:.3f}", f"{plain:.3f}", f"{ratio:.2f}")


if __name__ == "__main__":
    main()
