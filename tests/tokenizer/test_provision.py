"""Set-up: GPT-2's original file pair rebuilt from r50k_base, byte for byte tiktoken's."""

from __future__ import annotations

import hashlib
import inspect
import shutil

import pytest
import tiktoken_ext.openai_public as openai_public

from tokenizer import fetch, provision
from tokenizer.registry import spec


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
        provision.provision("p50k_base", log=lambda *_: None)
