"""classroom/stores.py: the folder and memory stores, imports, exports (ui/train/downloads.py), training traces."""

from __future__ import annotations

import json
import os
import time

import pytest

from classroom.stores import FolderStore, MemoryStore
from tokenizer import TrainingTrace, formats, train
from ui.common.upload import MAX_UPLOAD_BYTES
from ui.train import downloads

CORPUS = "the cat in the hat sat on the mat; the cat ate the rat. " * 20


@pytest.fixture
def tok():
    return train(CORPUS, 270, pattern="gpt4", special_tokens=["<|endoftext|>"], name="cats")


@pytest.fixture(params=["folder", "memory"])
def store(request, tmp_path):
    return FolderStore(tmp_path / "ws") if request.param == "folder" else MemoryStore()


def test_add_get_entries(store, tok):
    key = store.add(tok, corpus=CORPUS)
    assert key.startswith("cats-")
    got = store.get(key)
    assert got.merges == tok.merges and got.special_tokens == tok.special_tokens
    [entry] = store.entries()
    assert (entry.key, entry.name, entry.vocab_size, entry.pattern, entry.source, entry.has_corpus) == (
        key,
        "cats",
        270,
        "gpt4",
        "trained",
        True,
    )
    assert store.corpus(key) == CORPUS
    assert store.damaged() == []


def test_added_object_is_kept_with_its_training_trace(store, tok):
    key = store.add(tok, corpus=CORPUS)
    assert store.get(key) is tok
    assert store.training_trace(key) is tok.training


def test_trace_rebuilt_from_stored_corpus_matches_training(tmp_path, tok):
    key = FolderStore(tmp_path).add(tok, corpus=CORPUS)
    fresh = FolderStore(tmp_path)  # as after a server restart
    loaded = fresh.get(key)
    assert loaded is not tok and loaded.training is None
    trace = fresh.training_trace(key)
    assert isinstance(trace, TrainingTrace)
    assert trace.tokens_after == tok.training.tokens_after
    assert trace.pair_counts(loaded, 5, top=3) == tok.training.pair_counts(tok, 5, top=3)


def test_no_corpus_no_trace(store, tok):
    key = store.add(tok)
    tok.training = None
    assert store.training_trace(key) is None
    assert store.entries()[0].has_corpus is False


def test_folder_survives_a_new_store(tmp_path, tok):
    key = FolderStore(tmp_path).add(tok, corpus=CORPUS)
    again = FolderStore(tmp_path)
    assert [e.key for e in again.entries()] == [key]
    assert again.get(key).encode("the cat") == tok.encode("the cat")


def test_memory_stores_are_separate(tok):
    a, b = MemoryStore(), MemoryStore()
    key = a.add(tok)
    assert b.entries() == []
    with pytest.raises(ValueError, match="no tokenizer"):
        b.get(key)


def test_rename_and_delete(store, tok):
    key = store.add(tok, corpus=CORPUS)
    store.rename(key, "  felines ")
    assert store.entries()[0].name == "felines"
    with pytest.raises(ValueError, match="cannot be empty"):
        store.rename(key, "   ")
    store.delete(key)
    assert store.entries() == []
    with pytest.raises(ValueError, match="deleted"):
        store.get(key)


def test_rename_persists_on_disk(tmp_path, tok):
    key = FolderStore(tmp_path).add(tok)
    FolderStore(tmp_path).rename(key, "renamed")
    assert FolderStore(tmp_path).get(key).name == "renamed"


def test_entries_oldest_first(store):
    keys = []
    for i in range(3):
        t = train(CORPUS, 260, name=f"t{i}")
        keys.append(store.add(t))
        t.metadata["saved_at"] = f"2030-01-01T00:00:0{i}"  # distinct times without sleeping
        if isinstance(store, FolderStore):
            formats.save(t, store.root / f"{keys[-1]}.json")
    assert [e.name for e in store.entries()] == ["t0", "t1", "t2"]


def test_damaged_file_is_listed_not_fatal(tmp_path, tok):
    store = FolderStore(tmp_path)
    good = store.add(tok)
    (tmp_path / "broken-abc123.json").write_text('{"format": "bpe-lab/tokenizer", "version": 1, "merg', encoding="utf-8")
    (tmp_path / "binary-abc123.json").write_bytes(b"\xff\xfe\x00garbage")
    assert [e.key for e in store.entries()] == [good]
    damaged = {d.key: d.message for d in store.damaged()}
    assert set(damaged) == {"broken-abc123", "binary-abc123"}
    assert "cut off" in damaged["broken-abc123"] and "delete it" in damaged["broken-abc123"]
    with pytest.raises(ValueError, match="cannot be read"):
        store.get("broken-abc123")
    store.delete("broken-abc123")
    assert {d.key for d in store.damaged()} == {"binary-abc123"}


def test_exports_round_trip(store, tok):
    exports = {e.label: e for e in downloads.exports(tok)}
    assert set(exports) == {"BPE Lab JSON", "tiktoken", "HF tokenizer.json"}
    assert all(e.problem is None and e.data for e in exports.values())
    assert exports["BPE Lab JSON"].file_name == "cats.json"
    names = []
    for label, ex in exports.items():
        key = store.import_bytes(ex.data, ex.file_name)
        back = store.get(key)
        assert back.merges == tok.merges, label
        assert back.encode("the cat sat") == tok.encode("the cat sat"), label
        assert back.metadata["source"] == "uploaded"
        names.append(back.name)
    # each file is named after the tokenizer ("cats.tokenizer.json" too), and the names stay unique
    assert names == ["cats", "cats (2)", "cats (3)"]
    json_back = store.get(store.import_bytes(exports["BPE Lab JSON"].data, "cats.json"))
    assert json_back.special_tokens == tok.special_tokens and json_back.name == "cats (4)"


def test_export_problem_is_reported_not_raised(tok):
    from tokenizer import Tokenizer

    # "abc" minted twice: a+b then ab+c, and b+c then a+bc; tiktoken and HF need unique bytes
    twin = Tokenizer({(97, 98): 256, (256, 99): 257, (98, 99): 258, (97, 258): 259}, name="twin")
    exports = {e.label: e for e in downloads.exports(twin)}
    assert exports["BPE Lab JSON"].data
    assert exports["tiktoken"].data is None and "same bytes" in exports["tiktoken"].problem
    assert exports["HF tokenizer.json"].data is None and "same bytes" in exports["HF tokenizer.json"].problem
    assert all(e.problem is None for e in downloads.exports(tok))


def test_import_errors_name_the_file(store):
    with pytest.raises(ValueError, match="notes.txt cannot be read as a tokenizer"):
        store.import_bytes(b"just some words\n", "notes.txt")
    with pytest.raises(ValueError, match="not UTF-8"):
        store.import_bytes(b"\x89PNG\r\n\x1a\n\x00\x00", "picture.json")
    with pytest.raises(ValueError, match="limited to 10 MB"):
        store.import_bytes(b" " * (MAX_UPLOAD_BYTES + 1), "huge.json")
    assert store.entries() == []


def test_tiktoken_import_uses_the_given_pattern(store, tok):
    data = downloads.exports(tok)[1].data
    assert store.get(store.import_bytes(data, "x.tiktoken", pattern="gpt2")).pattern_name == "gpt2"


def test_saved_json_is_readable_and_complete(tmp_path, tok):
    key = FolderStore(tmp_path).add(tok, corpus=CORPUS)
    doc = json.loads((tmp_path / f"{key}.json").read_text(encoding="utf-8"))
    assert doc["name"] == "cats" and doc["metadata"]["source"] == "trained"
    assert (tmp_path / f"{key}.corpus.txt").read_text(encoding="utf-8") == CORPUS
    assert not any(p.name.endswith(".tmp") for p in tmp_path.iterdir())
    assert os.path.getsize(tmp_path / f"{key}.json") > 0
    assert time.strptime(doc["metadata"]["saved_at"], "%Y-%m-%dT%H:%M:%S")


def test_stored_tokenizers_are_never_changed_in_place(tmp_path, tok):
    """Pages cache results by tokenizer object: renaming gives a new object, a rebuilt trace stays with the store."""
    folder = tmp_path / "ws"
    key = FolderStore(folder).add(tok, corpus=CORPUS)
    store = FolderStore(folder)  # as after a restart: no trace on the object
    before = store.get(key)
    trace = store.training_trace(key)
    assert trace is not None and before.training is None
    store.rename(key, "renamed")
    after = store.get(key)
    assert after is not before and before.name == "cats" and after.name == "renamed"
    assert after.merges == before.merges and after.special_tokens == before.special_tokens
    assert store.training_trace(key) is trace  # not rebuilt: the rename changed no merge


def test_names_stay_unique(store, tok):
    """Uploading the same tokenizer twice makes no two "docstrings-2000": the second is "docstrings-2000 (2)"."""
    data = formats.dumps_tiktoken(tok)
    keys = [store.import_bytes(data, "docstrings-2000.tiktoken") for _ in range(3)]
    assert [store.get(k).name for k in keys] == ["docstrings-2000", "docstrings-2000 (2)", "docstrings-2000 (3)"]
    store.delete(keys[1])
    again = store.import_bytes(data, "docstrings-2000.tiktoken")
    assert store.get(again).name == "docstrings-2000 (2)"  # the free name again
    trained = store.add(train(CORPUS, 260, name="docstrings-2000"))
    assert store.get(trained).name == "docstrings-2000 (4)"
    assert len({e.name for e in store.entries()}) == len(store.entries())


def test_a_rename_to_a_name_in_use_is_refused(store, tok):
    a = store.add(train(CORPUS, 260, name="first"))
    b = store.add(train(CORPUS, 260, name="second"))
    with pytest.raises(ValueError, match="already have a tokenizer called 'first': pick another name"):
        store.rename(b, " first ")
    store.rename(a, "first")  # its own name: nothing to refuse
    assert sorted(e.name for e in store.entries()) == ["first", "second"]


def test_a_saved_tokenizer_whose_regex_backtracks_is_listed_as_damaged_and_can_be_deleted(tmp_path):
    """A tokenizer.json pipeline saved before it could be refused (or written by hand) never runs when a page lists
    the workspace: reading it probes it under the time limit, it is refused, and the student can delete it."""
    from tests.tokenizer.pretokenize.test_hf_guard import CATASTROPHIC, with_split
    from tokenizer.formats.hf import from_hf_json

    store = FolderStore(tmp_path / "ws")
    good = store.add(from_hf_json(with_split(r"\w+|\s+|[^\w\s]+")))
    text = store._json(good).read_text(encoding="utf-8")
    hostile = "hostile"
    store._json(hostile).write_text(
        text.replace(json.dumps(r"\w+|\s+|[^\w\s]+")[1:-1], json.dumps(CATASTROPHIC[0])[1:-1]), encoding="utf-8"
    )
    assert [e.key for e in store.entries()] == [good]
    (damaged,) = store.damaged()
    assert damaged.key == hostile and "backtracks catastrophically" in damaged.message
    store.delete(hostile)
    assert store.keys() == [good] and store.damaged() == []
