"""How long the Overlap page's two computations take on full vocabularies, against the reference tools.

    .venv/bin/python bench/bench_overlap.py [--runs 3] [--pairs o200k_base:llama3,...]

For each pair (source, target), models loaded and warmed first:

- **overlap**: ``ui.overlap.model.vocab_of`` of both plus ``overlap`` (the union in
  order, a membership mask per token, every region's count), against the plain set
  algebra a script would do over the reference library's own token list
  (``set(token_byte_values())``, intersection and union; tiktoken or the model's own
  package, HF tokenizers' vocabulary for a tokenizer.json);
- **split**: ``split_under``, every ordinary token of the source encoded on its own by
  the target, with the target's chunk cache emptied first (the page computes it once
  per server, so cold is what a user meets), against the target's own package
  encoding the same tokens one call each (tokens that are text; tiktoken's
  ``encode_ordinary``, tokenizers' ``encode``).

Ours and the reference run alternately; each ratio is the median of the per-round
ratios (this machine is shared and noisy: read the ratios).
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
from model_packages import hf_file_tokenizer, reference_encode, tiktoken_reference  # noqa: E402

from tokenizer import registry  # noqa: E402
from tokenizer.display import unicode_to_bytes  # noqa: E402
from ui.overlap import model  # noqa: E402

PAIRS = [
    ("o200k_base", "llama3"),
    ("llama3", "o200k_base"),
    ("o200k_base", "cl100k_base"),
    ("qwen3.6", "o200k_base"),
    ("o200k_base", "tekken"),
    ("o200k_base", "deepseek_v4"),
    ("o200k_base", "olmo2"),
]


def reference_tokens(name: str) -> set[bytes]:
    """The ordinary tokens as the model's own package lists them."""
    fmt = registry.spec(name).source.format
    if fmt in ("hf-json", "gguf"):
        hf = hf_file_tokenizer(name)
        specials = {t.content for t in hf.get_added_tokens_decoder().values() if t.special}
        table = unicode_to_bytes()
        out = set()
        for text in hf.get_vocab(with_added_tokens=True):
            if text in specials:
                continue
            try:
                out.add(bytes(table[c] for c in text))
            except KeyError:  # an added token is its own text, not byte-level characters
                out.add(text.encode("utf-8"))
        return out
    if fmt == "tekken":
        from model_packages import tekkenizer

        tk = tekkenizer()
        return {tk.id_to_byte_piece(i) for i in range(tk.num_special_tokens, tk.n_words)}
    return set(tiktoken_reference(name).token_byte_values())


def paired(ours, theirs, runs: int) -> tuple[float, float, float]:
    ta, tb = [], []
    for _ in range(runs):
        for fn, out in ((ours, ta), (theirs, tb)):
            t0 = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t0)
    return statistics.median(ta), statistics.median(tb), statistics.median(a / b for a, b in zip(ta, tb))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--pairs", default="", help="source:target,… (default: the list in this file)")
    args = ap.parse_args()
    pairs = [tuple(p.split(":")) for p in args.pairs.split(",") if p] or PAIRS
    names = {n for p in pairs for n in p}
    toks = {n: tokenizer.load_encoding(n) for n in sorted(names)}
    for tok in toks.values():
        tok.encode_ordinary("warm up")
    refs = {n: reference_tokens(n) for n in sorted(names)}

    print(f"{'source':>12} {'target':>12} {'tokens':>8} | {'overlap s':>9} {'sets s':>7} {'ratio':>6} | "
          f"{'split s':>8} {'ref s':>7} {'ratio':>6} {'kept whole':>10} {'pieces':>6}")  # fmt: skip
    for source, target in pairs:
        print(bench_pair(source, target, toks[source], toks[target], refs, args.runs), flush=True)


def bench_pair(source: str, target: str, src, tgt, refs: dict[str, set[bytes]], runs: int) -> str:
    """One line of the table: the overlap and the split of ``source``'s tokens under ``target``, ours against the reference."""

    def ours_overlap():
        return model.overlap([model.vocab_of(src, source), model.vocab_of(tgt, target)])

    def sets():
        a, b = set(refs[source]), set(refs[target])
        return len(a & b), len(a | b), len(a - b), len(b - a)

    ov = ours_overlap()
    assert (ov.shared(0, 1), ov.union(0, 1), ov.only(0), ov.only(1)) == sets(), (source, target)  # the same answer
    o_ours, o_ref, o_ratio = paired(ours_overlap, sets, runs)

    vocab = model.vocab_of(src, source)
    texts = []
    for data in vocab.ids:
        try:
            texts.append(data.decode("utf-8"))
        except UnicodeDecodeError:
            pass
    ref_encode = reference_encode(target)
    result = {}

    def ours_split():
        tgt.clear_cache()  # cold, as the page's one computation per server
        result["split"] = model.split_under(vocab, tgt, target)

    def ref_split():
        for t in texts:
            ref_encode(t)

    s_ours, s_ref, s_ratio = paired(ours_split, ref_split, runs)
    s = result["split"]
    return (
        f"{source:>12} {target:>12} {len(vocab):>8,} | {o_ours:>9.2f} {o_ref:>7.2f} {o_ratio:>6.2f} | "
        f"{s_ours:>8.2f} {s_ref:>7.2f} {s_ratio:>6.2f} {s.whole:>10.1%} {s.mean:>6.2f}"
    )


if __name__ == "__main__":
    main()
