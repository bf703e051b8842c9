"""What the JSON boundary costs: ``json_input.read_json`` against plain ``json.loads`` on the largest JSON files
BPE Lab reads (Mistral's Tekken, DeepSeek V4's and OLMo 2's tokenizer.json, a BPE Lab JSON of a 50,000-merge tokenizer).

    .venv/bin/python bench/bench_json.py [--rounds 7]

``read_json`` decodes (byte-order mark), counts the nesting outside strings (numpy) and
parses with a hook that refuses duplicated keys; ``json.loads`` only parses. Both are timed
in CPU time of this process (``time.process_time``, steadier than wall time on a shared
machine), median of ``--rounds``, with the ratio per round. The nesting count alone is
printed too.

Then BPE Lab JSON's schema check (``bpe_lab.check_schema``: jsonschema on the document
with the merges taken out, after the plain loop that accepts exactly what the schema
accepts) against the whole load (``formats.loads``), for o200k_base's 199,998 merges, and
what jsonschema alone would take on every merge, measured on the first 5,000 and scaled.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tokenizer import formats, load_encoding  # noqa: E402
from tokenizer.formats import bpe_lab  # noqa: E402
from tokenizer.formats.json_input import nesting, read_json  # noqa: E402
from tokenizer.models import fetch, registry  # noqa: E402


def documents() -> dict[str, bytes]:
    out = {}
    for name in ("tekken", "deepseek_v4", "olmo2"):
        path = fetch.path_of(registry.spec(name).source)
        if path.exists():
            out[f"{path.name}"] = path.read_bytes()
    out["BPE Lab JSON (o200k_base truncated to 50,000 merges)"] = formats.dumps(
        load_encoding("o200k_base").truncated(50_000)
    ).encode()
    return out


def cpu(fn, data) -> float:
    t = time.process_time()
    fn(data)
    return time.process_time() - t


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    print(f"{'document':<58} {'MB':>6} {'json.loads':>11} {'read_json':>10} {'ratio':>6} {'nesting':>8}")
    for name, data in documents().items():
        plain, ours, ratios, counts = [], [], [], []
        for _ in range(args.rounds):
            a, b = cpu(json.loads, data), cpu(read_json, data)
            plain.append(a)
            ours.append(b)
            ratios.append(b / a)
            counts.append(cpu(nesting, data))
        m = statistics.median
        print(f"{name:<58} {len(data) / 1e6:>6.1f} {m(plain):>10.3f}s {m(ours):>9.3f}s {m(ratios):>5.2f}× {m(counts):>7.3f}s")
    text = formats.dumps(load_encoding("o200k_base"))
    doc = json.loads(text)
    check = statistics.median(cpu(bpe_lab.check_schema, doc) for _ in range(args.rounds))
    whole = statistics.median(cpu(formats.loads, text) for _ in range(min(args.rounds, 3)))
    part = {**doc, "merges": doc["merges"][:5000]}
    validator = bpe_lab._validator()
    naive = cpu(lambda d: list(validator.iter_errors(d)), part) * len(doc["merges"]) / 5000
    print(
        f"o200k_base as BPE Lab JSON ({len(doc['merges']):,} merges): check_schema {check:.3f}s of formats.loads {whole:.3f}s; "
        f"jsonschema on every merge would take about {naive:.1f}s"
    )


if __name__ == "__main__":
    main()
