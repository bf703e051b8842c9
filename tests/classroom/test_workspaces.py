"""classroom/workspaces.py: the store each session gets, and a database that fails under a running class."""

from __future__ import annotations

import pytest

from classroom import database, workspaces
from classroom.database import Database, DatabaseStore, DatabaseUnavailable, owner_of
from classroom.stores import FolderStore
from classroom.workspaces import RETRY_AFTER, SharedStore
from tokenizer import train
from ui.common import training, workspace

CORPUS = "the cat in the hat sat on the mat; the cat ate the rat. " * 20


def tok(name="cats", vocab=270):
    return train(CORPUS, vocab, pattern="gpt4", name=name)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def url(tmp_path):
    database._last_purge.clear()
    return f"sqlite:///{tmp_path / 'ws.sqlite3'}"


def test_local_mode_is_one_folder_for_every_session(monkeypatch, tmp_path):
    monkeypatch.setenv("BPE_LAB_WORKSPACE", str(tmp_path / "here"))
    monkeypatch.delenv("BPE_LAB_SHARED", raising=False)
    monkeypatch.delenv("BPE_LAB_TRAIN_WORKERS", raising=False)
    assert not workspaces.shared_mode() and workspaces.shared_mode({"BPE_LAB_SHARED": "yes"})
    workspaces.configure()
    try:
        store = workspace.store()
        assert isinstance(store, FolderStore) and store.root == tmp_path / "here" and workspace.store() is store
        assert store.describe() == f"Local mode: tokenizers are saved in {tmp_path / 'here'}."
        assert training._runner is training.here  # trainings in the page's own thread
    finally:
        workspaces.unconfigure()
    with pytest.raises(RuntimeError, match="no workspace was chosen at start-up"):
        workspace.store()


def test_a_database_that_stops_answering_keeps_the_new_work_in_the_session(url):
    clock = Clock()
    db = Database(url)
    shared = SharedStore(lambda: db, owner_of("k" * 32), clock=clock)
    kept = shared.add(tok("kept"), corpus=CORPUS)
    assert [e.name for e in shared.entries()] == ["kept"] and not shared.notices()

    def down(*a, **k):
        raise DatabaseUnavailable("the database sqlite:///x is not answering: disk I/O error")

    real = db.query, db.execute, db.transaction
    db.query = db.execute = db.transaction = down
    assert shared.entries() == []  # the saved ones are out of reach, and the page says so
    [notice] = shared.notices()
    assert notice.kind == "error" and "cannot be read right now" in notice.message and "disk I/O error" in notice.message
    meanwhile = shared.add(tok("meanwhile"), corpus=CORPUS)  # trained while it is down: kept in the session
    assert [e.name for e in shared.entries()] == ["meanwhile"]
    assert shared.get(meanwhile).name == "meanwhile" and shared.corpus(meanwhile) == CORPUS
    assert shared.training_trace(meanwhile) is not None
    with pytest.raises(ValueError, match="cannot be read right now"):
        shared.get(kept)
    db.query, db.execute, db.transaction = real
    clock.now += RETRY_AFTER - 1
    assert [e.name for e in shared.entries()] == ["meanwhile"]  # not tried again yet
    clock.now += 2
    assert sorted(e.name for e in shared.entries()) == ["kept", "meanwhile"]  # back: both, nothing lost
    assert shared.unsaved(meanwhile).startswith("Your tokenizers cannot be saved right now (the database sqlite:///x")
    # back, yet what was trained meanwhile is in this tab only: said until it is gone
    [notice] = shared.notices()
    assert notice.kind == "warning" and notice.message.startswith("Not saved: meanwhile could not be saved")
    assert "You keep 1 of at most 20" in shared.describe()
    shared.rename(meanwhile, "renamed")
    shared.delete(kept)
    assert [e.name for e in shared.entries()] == ["renamed"]


def test_a_database_that_cannot_be_opened_is_a_notice_and_the_session_still_works(tmp_path):
    (tmp_path / "file").write_text("x")
    shared = SharedStore(lambda: Database(f"sqlite:///{tmp_path / 'file' / 'ws.sqlite3'}"), owner_of("k" * 32))
    [notice] = shared.notices()
    assert notice.kind == "error" and "cannot open the SQLite database" in notice.message
    key = shared.add(tok())
    assert [e.key for e in shared.entries()] == [key]
    shared.check_room(10**12)  # the session has no limit
    assert shared.describe() == workspaces.TAB_ONLY


def test_limits_still_apply_through_the_shared_store(url, monkeypatch):
    monkeypatch.setenv("BPE_LAB_MAX_TOKENIZERS", "1")
    db = Database(url)
    shared = SharedStore(lambda: db, owner_of("k" * 32))
    shared.add(tok("one", 260))
    with pytest.raises(database.LimitReached):
        shared.add(tok("two", 260))
    assert [e.name for e in shared.entries()] == ["one"]  # a full workspace is not a failing database
    assert not shared.notices()
    assert [e.name for e in DatabaseStore(db, owner_of("k" * 32)).entries()] == ["one"]


def test_a_run_reads_the_listing_once_and_a_change_or_a_new_run_reads_it_again(url):
    import threading

    db = Database(url)
    shared = SharedStore(lambda: db, owner_of("r" * 32))
    shared.add(tok("first"), corpus=CORPUS)
    queries = []
    real_query = db.query

    def counting(sql, **params):
        queries.append(sql)
        return real_query(sql, **params)

    db.query = counting

    def listing():
        return [e.name for e in shared.entries()], shared.describe()

    # outside a run (no begin_run on this thread): every call reads the database
    listing(), listing()
    assert len(queries) >= 4
    # one run: the page's two or three listings and the sidebar's line cost one read each
    shared.begin_run()
    queries.clear()
    assert listing() == listing() == listing()
    assert 1 <= len(queries) <= 2 and listing()[0] == ["first"]
    # a change through the store shows in the same run
    shared.add(tok("second"), corpus=CORPUS)
    assert listing()[0] == ["first", "second"] and "You keep 2 of" in listing()[1]
    # another tab's change (another store of the same browser) shows on this store's next run: a run is a thread
    other = SharedStore(lambda: db, owner_of("r" * 32))
    other.add(tok("third"), corpus=CORPUS)
    assert listing()[0] == ["first", "second"]
    seen = []

    def next_run():
        shared.begin_run()
        seen.append(listing())

    t = threading.Thread(target=next_run)
    t.start()
    t.join()
    assert seen[0][0] == ["first", "second", "third"] and "You keep 3 of" in seen[0][1]
    # and this thread, no longer the store's run, reads afresh again
    assert listing()[0] == ["first", "second", "third"]


@pytest.mark.parametrize("content", [b"this is not a database at all" * 100, b"SQLite format 3\x00" + b"\x00" * 5000])
def test_the_notice_of_a_damaged_database_names_no_folder_of_the_server(tmp_path, content):
    path = tmp_path / "srv" / "data" / "workspaces.sqlite3"
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    shared = SharedStore(lambda: Database(f"sqlite:///{path}"), owner_of("k" * 32), clock=Clock())
    assert shared.entries() == []
    [notice] = shared.notices()
    assert "cannot be read right now" in notice.message
    assert str(tmp_path) not in notice.message and "/srv/data" not in notice.message, notice.message
    with pytest.raises(ValueError) as e:
        shared.get("x" * 12)
    assert str(tmp_path) not in str(e.value)
