"""Every model's time to first use after set-up, and one process's memory with all of them loaded.

    .venv/bin/python bench/bench_models.py [--runs 3]

**First use.** What a server does the first time someone picks a model, timed in a fresh
process per run (the merge caches that set-up wrote are on disk, nothing else is
warm): OpenAI's three encodings are loaded first, as ``shell.start_up`` does, then
the model is built (``load_encoding``), warmed up as ``ui.common.tokenizers.official``
does (one ``encode_ordinary``, one ``decode_tokens_bytes``) and used once (a
2,000-character multilingual text). For r50k, cl100k and o200k, which start-up loads,
nothing is loaded first. The same process then builds the model's own reference from
the same file and encodes the same text (tiktoken's ``Encoding`` with the package's
pattern and special tokens; mistral-common's Tekkenizer for Tekken; for gpt-oss,
tiktoken's o200k_harmony; for DeepSeek V4 and OLMo 2, tokenizers reading its tokenizer.json), for a ratio. Medians of ``--runs`` processes per model.

**Memory.** One process, as a server that has served everything: OpenAI's three, then
every other model loaded and used once (the warm-up, a 10,000-character text, an
encode trace of 1,000 characters, the decode table), and the resident set size
(VmRSS) after each; then the Vocabulary page's table of every model (the largest
cache a model gets, built once per server) on top. The aim: first use
under 3 s, all models together under 1.5 GB.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tokenizer import registry  # noqa: E402
from tokenizer.models.provision import ESSENTIAL  # noqa: E402

_FIRST_USE = """
import json, sys, time
sys.path.insert(0, {root!r}); sys.path.append({bench!r})
import tokenizer
from texts import MULTILINGUAL
tokenizer.configure()
name = {name!r}
text = (MULTILINGUAL * 3)[:2000]
for other in {preload!r}:
    tokenizer.load_encoding(other).encode_ordinary("warm up")
t0 = time.perf_counter()
tok = tokenizer.load_encoding(name)
tok.encode_ordinary("warm up"); tok.decode_tokens_bytes([0])
ids = tok.encode_ordinary(text)
ours = time.perf_counter() - t0
t0 = time.perf_counter()
from model_packages import reference_encode
ref_ids = reference_encode(name)(text)
ref = time.perf_counter() - t0
assert ids == ref_ids
print(json.dumps({{"ours": ours, "ref": ref}}))
"""


def first_use(name: str, runs: int) -> tuple[float, float, float]:
    """Median seconds to first use (ours, the reference) and the median ratio, over fresh processes."""
    preload = [] if name in ESSENTIAL else list(ESSENTIAL)
    code = _FIRST_USE.format(root=str(ROOT), bench=str(ROOT / "bench"), name=name, preload=preload)
    ours, ref = [], []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
        r = json.loads(out.stdout.strip().splitlines()[-1])
        ours.append(r["ours"])
        ref.append(r["ref"])
    return statistics.median(ours), statistics.median(ref), statistics.median(a / b for a, b in zip(ours, ref))


_MEMORY = """
import gc, json, sys
sys.path.insert(0, {root!r}); sys.path.append({bench!r})
import tokenizer
from texts import MULTILINGUAL, stdlib_sample
from tokenizer import registry
from tokenizer.models.provision import ESSENTIAL

def rss():
    return int(next(l for l in open("/proc/self/status") if l.startswith("VmRSS")).split()[1]) // 1024

tokenizer.configure()
text = (MULTILINGUAL + stdlib_sample(20_000))[:10_000]
rows = [("interpreter and package", rss())]
order = list(ESSENTIAL) + [n for n in registry.names() if n not in ESSENTIAL]
toks = []
for name in order:
    tok = tokenizer.load_encoding(name)
    tok.encode_ordinary("warm up"); tok.decode_tokens_bytes([0])
    tok.encode(text, disallowed_special=())
    tok.encode_trace(text[:1000])
    s = registry.spec(name)
    if s.chat_tokens:  # Tokenize's chat mode and recognised specials: the same encoder with three more tokens
        tok.with_special_tokens(s.chat_tokens).encode_ordinary("warm up")
    toks.append(tok)
    rows.append((name, rss()))
gc.collect()
tracked = len(gc.get_objects())
from ui.vocabulary.model import vocab_frame
frames = [vocab_frame(tok) for tok in toks]
rows.append(("+ every Vocabulary table", rss()))
peak = int(next(l for l in open("/proc/self/status") if l.startswith("VmHWM")).split()[1]) // 1024
print(json.dumps({{"rows": rows, "peak": peak, "tracked": tracked}}))
"""


def memory() -> dict:
    code = _MEMORY.format(root=str(ROOT), bench=str(ROOT / "bench"))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=3, help="fresh processes per model (median)")
    args = p.parse_args()
    print(f"First use after set-up (median of {args.runs} fresh processes; OpenAI's three loaded first for the others)")
    print(f"{'model':<16} {'file':<22} {'BPE Lab s':>10} {'reference s':>12} {'ours / ref':>11}")
    for s in registry.specs():
        ours, ref, ratio = first_use(s.name, args.runs)
        print(f"{s.name:<16} {s.source.filename:<22} {ours:>10.2f} {ref:>12.2f} {ratio:>11.2f}")
    m = memory()
    print("\nMemory of one process (VmRSS, MB), models loaded and used once, in this order")
    prev = None
    for name, mb in m["rows"]:
        print(f"{name:<26} {mb:>6} {'' if prev is None else f'+{mb - prev}':>6}")
        prev = mb
    print(f"peak (VmHWM) {m['peak']} MB; objects the garbage collector tracks after loading: {m['tracked']:,}")


if __name__ == "__main__":
    main()
