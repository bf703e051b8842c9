"""The inputs of bench/bench_js.mjs: the browser's model files of cl100k_base and o200k_base, and a mixed corpus.

    .venv/bin/python bench/js_inputs.py OUT_DIR [--bytes 4000000]

Writes ``OUT_DIR/cl100k_base.bin`` and ``OUT_DIR/o200k_base.bin`` (``ui.web.model.model_file``,
the very files the app serves) and ``OUT_DIR/corpus.txt``: about ``--bytes`` of UTF-8 built
offline from the project's own texts, in stretches of a few kilobytes: minbpe's
taylorswift.txt (../shared/corpus/), the pages' sample texts (``ui.content.samples``), standard-
library sources with C and JavaScript, and the multilingual lines the tests use too (``bench/texts.py``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from corpora import small  # noqa: E402  (bench/corpora.py)
from texts import MULTILINGUAL, code_and_prose  # noqa: E402

import tokenizer  # noqa: E402
from ui.content.samples import DEFAULT_TEXT, SAMPLES  # noqa: E402
from ui.web.model import model_file  # noqa: E402

ENCODINGS = ("cl100k_base", "o200k_base")


def corpus(n_bytes: int) -> str:
    """Prose, code and many scripts interleaved, cut at ``n_bytes`` of UTF-8 (at a character)."""
    prose = small()[1]
    samples = DEFAULT_TEXT + "\n".join(SAMPLES.values()) + "\n" + MULTILINGUAL
    mixed = code_and_prose(n_bytes)
    parts, size, k, at_prose, at_mixed = [], 0, 0, 0, 0
    while size < n_bytes:
        step = 2_000 + (k * 7_919) % 6_000
        for source, at in ((prose, at_prose), (mixed, at_mixed)):
            block = source[at : at + step] or source[:step]
            parts.append(block)
            size += len(block.encode())
        at_prose = at_prose + step if at_prose + step < len(prose) else 0
        at_mixed = at_mixed + step if at_mixed + step < len(mixed) else 0
        if k % 3 == 0:
            parts.append(samples)
            size += len(samples.encode())
        k += 1
    return "".join(parts).encode()[:n_bytes].decode("utf-8", "ignore")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--bytes", type=int, default=4_000_000)
    args = ap.parse_args()
    tokenizer.configure()
    args.out.mkdir(parents=True, exist_ok=True)
    for name in ENCODINGS:
        (args.out / f"{name}.bin").write_bytes(model_file(tokenizer.load_encoding(name), check_shortcuts=False))
    (args.out / "corpus.txt").write_text(corpus(args.bytes), encoding="utf-8")


if __name__ == "__main__":
    main()
