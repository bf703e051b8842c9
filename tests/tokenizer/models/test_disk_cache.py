"""The data folder's cache of derived JSON: read only when current, written atomically, never an error."""

from __future__ import annotations

import json

import pytest

from tokenizer.models import disk_cache
from tokenizer.models.disk_cache import MISSING, read_json, write_json


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.setenv("BPE_LAB_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


def test_a_value_comes_back_under_its_key_only(data):
    assert read_json("x.json", "k1") is MISSING  # no folder yet
    value = {"parts": ["a", 0, "b"], "atoms": [{"ranges": [[1, 2]], "negate": False}], "props": {}}
    write_json("x.json", "k1", value)
    assert disk_cache.cache_dir() == data / "cache"
    assert read_json("x.json", "k1") == value
    assert read_json("x.json", "k2") is MISSING
    write_json("x.json", "k2", None)  # None is a value, not a miss
    assert read_json("x.json", "k2") is None and read_json("x.json", "k1") is MISSING
    assert [p.name for p in (data / "cache").iterdir()] == ["x.json"]  # no temporary file left behind


@pytest.mark.parametrize(
    "content",
    [b"", b'{"key": "k", "value": [1, 2', b"\xff\xfe garbage", b"[1, 2]", b'{"key": "k"}', b"[" * 100_000],
    ids=["empty", "truncated", "not-utf8", "not-a-document", "no-value", "nested"],
)
def test_a_damaged_document_is_a_miss_and_is_written_again(data, content):
    (data / "cache").mkdir(parents=True)
    (data / "cache" / "x.json").write_bytes(content)
    assert read_json("x.json", "k") is MISSING
    write_json("x.json", "k", "text")
    assert read_json("x.json", "k") == "text"
    assert json.loads((data / "cache" / "x.json").read_bytes()) == {"key": "k", "value": "text"}


def test_a_data_folder_that_cannot_be_written_is_left_alone(tmp_path, monkeypatch):
    (tmp_path / "file").write_text("not a folder")
    monkeypatch.setenv("BPE_LAB_DATA_DIR", str(tmp_path / "file" / "data"))  # mkdir fails, even as root
    write_json("x.json", "k", [1])
    assert read_json("x.json", "k") is MISSING


def test_a_failed_write_leaves_no_temporary_file(data, monkeypatch):
    def refuse(src, dst):
        raise PermissionError("read-only")

    monkeypatch.setattr("os.replace", refuse)
    write_json("x.json", "k", [1])
    assert list((data / "cache").iterdir()) == []


def test_the_key_is_the_inputs_whatever_their_order():
    assert disk_cache.digest({"a": 1, "b": [1, "é"]}) == disk_cache.digest({"b": [1, "é"], "a": 1})
    assert disk_cache.digest({"a": 1}) != disk_cache.digest({"a": "1"})
    assert disk_cache.file_digest("/nonexistent/file") is None
