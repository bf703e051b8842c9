"""ui/content/corpora.py: the built-in training corpora, read offline from this machine's Python."""

from __future__ import annotations

import pytest

from ui.content import corpora
from ui.train.model import MAX_VOCAB


@pytest.fixture(autouse=True)
def data(tmp_path, monkeypatch):
    """A data folder of each test's own (never the project's), and stdlib_text's memory emptied before and after."""
    monkeypatch.setenv("BPE_LAB_DATA_DIR", str(tmp_path / "data"))
    corpora.stdlib_text.cache_clear()
    yield tmp_path / "data" / "cache" / corpora.DOCSTRINGS_CACHE
    corpora.stdlib_text.cache_clear()


def test_corpora():
    assert corpora.text("aaabdaaabac") == "aaabdaaabac"
    assert {corpora.text(k) for k in ("honolulu", "cat-in-hat", "hello-nihao", "emoji-line")} == {
        "Honolulu",
        "the cat in the hat",
        "Hello 你好",
        "Hello tokenizer 😄🤪🧐!",
    }
    for key, c in corpora.CORPORA.items():
        assert corpora.text(key), key
        assert 256 <= c.vocab_size <= MAX_VOCAB
    docs = corpora.text("stdlib-docstrings")
    src = corpora.text("stdlib-source")
    assert 200_000 <= len(docs) <= corpora.STDLIB_DOCSTRING_CHARS and "def " not in docs[:2000]
    assert 200_000 <= len(src) <= corpora.STDLIB_SOURCE_CHARS and "def " in src
    assert corpora.stdlib_text("docstrings") == docs  # same text every time


def test_missing_stdlib_sources_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="no standard-library sources"):
        corpora.stdlib_text("source", None, str(tmp_path))


# the docstring corpus, kept in the data folder's cache


@pytest.fixture
def stdlib(tmp_path):
    """A small standard library: three of the real modules, copied."""
    root = tmp_path / "lib"
    root.mkdir()
    for name in ("textwrap", "string", "heapq"):
        (root / f"{name}.py").write_bytes((corpora.stdlib_dir() / f"{name}.py").read_bytes())
    return root


def no_parsing(monkeypatch):
    def refuse(source):
        raise AssertionError("the docstrings were parsed again")

    monkeypatch.setattr(corpora, "_docstrings", refuse)


def test_the_docstring_corpus_is_read_back_from_the_data_folder(data, monkeypatch):
    computed = corpora.stdlib_text("docstrings")
    assert data.is_file()
    corpora.stdlib_text.cache_clear()  # a new process
    no_parsing(monkeypatch)
    assert corpora.stdlib_text("docstrings") == computed
    assert corpora.text("stdlib-docstrings") == computed


def test_a_damaged_cache_is_ignored_and_written_again(data, stdlib):
    computed = corpora.stdlib_text("docstrings", None, str(stdlib))
    whole = data.read_bytes()
    for damaged in (whole[: len(whole) // 2], b"\x00garbage{", b'{"key": 1, "value": 2}'):
        data.write_bytes(damaged)
        corpora.stdlib_text.cache_clear()
        assert corpora.stdlib_text("docstrings", None, str(stdlib)) == computed
        assert data.read_bytes() == whole


@pytest.mark.parametrize("change", ["a file", "a file's bytes", "the limit", "the code", "python"])
def test_any_change_of_an_input_misses_the_cache(data, stdlib, monkeypatch, change):
    before = corpora.stdlib_text("docstrings", 5_000, str(stdlib))
    corpora.stdlib_text.cache_clear()
    args = ("docstrings", 5_000, str(stdlib))
    if change == "a file":
        (stdlib / "textwrap.py").unlink()  # the first: its docstrings alone fill 5,000 characters
    elif change == "a file's bytes":
        path = stdlib / "textwrap.py"
        path.write_text(path.read_text().replace("Object for wrapping/filling text.", "Object for wrapping text, changed."))
    elif change == "the limit":
        args = ("docstrings", 6_000, str(stdlib))
    elif change == "the code":
        monkeypatch.setattr(corpora, "_CODE", "changed")
    else:
        monkeypatch.setattr(corpora.sys, "version", "3.99.0")
    calls = []
    real_docstrings = corpora._docstrings
    monkeypatch.setattr(corpora, "_docstrings", lambda source: calls.append(1) or real_docstrings(source))
    text = corpora.stdlib_text(*args)
    assert calls, "the cache was read"
    assert text == corpora._collect(stdlib, corpora._module_files(stdlib), "docstrings", int(args[1]))
    assert (text != before) == (change in ("a file", "a file's bytes", "the limit"))


def test_a_data_folder_that_cannot_be_written_still_gives_the_corpus(tmp_path, monkeypatch, stdlib):
    computed = corpora._collect(stdlib, corpora._module_files(stdlib), "docstrings", corpora.STDLIB_DOCSTRING_CHARS)
    (tmp_path / "file").write_text("not a folder")
    monkeypatch.setenv("BPE_LAB_DATA_DIR", str(tmp_path / "file" / "data"))
    corpora.stdlib_text.cache_clear()
    try:
        assert corpora.stdlib_text("docstrings", None, str(stdlib)) == computed
    finally:
        corpora.stdlib_text.cache_clear()
