"""The browser's model files of a student's tokenizers (``static/bpe/user/``, written by the Tokenize page) count in
that student's limits and go with the tokenizer: deleted with it, expired with the workspace; a file two
tokenizers refer to stays until neither does. Real files in a real static folder, a real SQLite database."""

from __future__ import annotations

import time

import pytest

from classroom import database
from classroom.database import Database, DatabaseStore, LimitReached, Limits, owner_of
from classroom.stores import FolderStore, MemoryStore
from tokenizer import train
from ui.web import model as web
from ui.web import payload

from .damage import corpus

PROCESS_KEY = payload.new_key()
ALICE, BOB = owner_of("a" * 32), owner_of("b" * 32)


@pytest.fixture(autouse=True)
def static(tmp_path, monkeypatch):
    database._last_purge.clear()
    monkeypatch.setenv(web.STATIC_ENV, str(tmp_path / "static"))
    return tmp_path / "static" / web.FOLDER / "user"


@pytest.fixture
def db(tmp_path):
    db = Database(f"sqlite:///{tmp_path / 'ws.sqlite3'}")
    yield db
    db.close()


def tok(seed: int, vocab: int = 300):
    return train(corpus(seed, 600), vocab, name=f"t{seed}")


def show(store, key: str) -> tuple[str, int]:
    """What the Tokenize page does for one of the student's tokenizers: write its model file, then attach it."""
    data = web.model_file(store.get(key))
    name = payload.publish_user_model(data, PROCESS_KEY, salt=key).rsplit("/", 1)[1]
    store.attach(key, name, len(data))
    return name, len(data)


def test_a_model_file_counts_in_the_limit_and_the_sidebar(db, static):
    store = DatabaseStore(db, ALICE)
    key = store.add(tok(1))
    count, before = store.usage()
    name, size = show(store, key)
    assert (static / name).stat().st_size == size > 1000
    assert store.usage() == (count, before + size)
    show(store, key)  # shown again (a rerun, another tab of the same process): the same file, counted once
    assert store.usage() == (count, before + size)
    assert f"({(before + size) / 1024 / 1024:.1f} of 50 MB)" in store.describe()


def test_a_model_file_that_does_not_fit_is_refused_and_removed(db, static):
    key = DatabaseStore(db, ALICE).add(tok(1))
    used = DatabaseStore(db, ALICE).usage()[1]
    store = DatabaseStore(db, ALICE, Limits(max_bytes=used + 100))
    with pytest.raises(LimitReached, match="its copy for your browser needs .* so the server tokenizes its text instead"):
        show(store, key)
    assert store.usage()[1] == used
    # and the room a file takes is room a new tokenizer does not get: one that fits beside the tokenizer alone
    _, size = show(DatabaseStore(db, ALICE), key)
    total = DatabaseStore(db, ALICE).usage()[1]
    tight = DatabaseStore(db, ALICE, Limits(max_bytes=total + used + 10 - size // 2))
    with pytest.raises(LimitReached, match="Your workspace is full"):
        tight.add(tok(1))


def test_a_model_file_goes_with_its_tokenizer(db, static):
    store = DatabaseStore(db, ALICE)
    gone, kept = store.add(tok(1)), store.add(tok(2))
    gone_file, _ = show(store, gone)
    kept_file, _ = show(store, kept)
    store.delete(gone)
    assert not (static / gone_file).exists() and (static / kept_file).exists()
    assert store.usage()[1] == DatabaseStore(db, ALICE).usage()[1]


def test_the_same_tokenizer_in_two_workspaces_gets_two_files(db, static):
    """Named by the workspace key too: a browser deleting its copy never takes another's file."""
    alice, bob = DatabaseStore(db, ALICE), DatabaseStore(db, BOB)
    a, b = alice.add(tok(1)), bob.add(tok(1))
    assert web.model_file(alice.get(a)) == web.model_file(bob.get(b))
    (a_file, _), (b_file, _) = show(alice, a), show(bob, b)
    assert a_file != b_file
    alice.delete(a)
    assert (static / b_file).exists() and not (static / a_file).exists()


def test_a_file_two_tokenizers_refer_to_stays_until_neither_does(db, static):
    alice, bob = DatabaseStore(db, ALICE), DatabaseStore(db, BOB)
    a, b = alice.add(tok(1)), bob.add(tok(1))
    name, size = show(alice, a)
    bob.attach(b, name, size)  # one file for both (as an older server named them: by content only)
    alice.delete(a)
    assert (static / name).exists()
    bob.delete(b)
    assert not (static / name).exists()


def test_an_expired_workspace_loses_its_files(db, static):
    store = DatabaseStore(db, ALICE)
    name, _ = show(store, store.add(tok(1)))
    other = DatabaseStore(db, BOB)
    other_name, _ = show(other, other.add(tok(2)))
    db.execute("UPDATE workspaces SET last_seen = :t WHERE owner = :o", t=time.time() - 40 * 86400, o=ALICE)
    assert db.purge_expired(30) == 1
    assert not (static / name).exists() and (static / other_name).exists()
    assert DatabaseStore(db, ALICE).usage() == (0, 0)


@pytest.mark.parametrize("kind", ["memory", "folder"])
def test_the_other_stores_delete_the_files_too(kind, tmp_path, static):
    store = MemoryStore() if kind == "memory" else FolderStore(tmp_path / "ws")
    gone, kept = store.add(tok(1)), store.add(tok(2))
    (gone_file, _), (kept_file, _) = show(store, gone), show(store, kept)
    store.delete(gone)
    assert not (static / gone_file).exists() and (static / kept_file).exists()


def test_only_model_file_names_are_removed(static):
    static.mkdir(parents=True)
    for name in ("notes.txt", "../escape.bin", "0" * 31 + ".bin"):
        payload.remove_user_model(name)
    (static / "keep.bin").write_bytes(b"x")
    payload.remove_user_model("keep.bin")
    assert (static / "keep.bin").exists()


def test_every_process_names_a_tokenizers_file_alike(tmp_path):
    """One key for the server (a file in the data folder): a restart or another app process names the same file,
    so the workspace counts it once; a folder that cannot be written still gives a key (of that process)."""
    path = tmp_path / "data" / "user-models.key"
    first = payload.server_key(path)
    assert len(first) == 32 and payload.server_key(path) == first and path.stat().st_mode & 0o077 == 0
    assert [p.name for p in path.parent.iterdir()] == ["user-models.key"]  # no temporary file left
    (tmp_path / "file").write_text("x")
    cannot = tmp_path / "file" / "user-models.key"
    assert len(payload.server_key(cannot)) == 32 and payload.server_key(cannot) != payload.server_key(cannot)
