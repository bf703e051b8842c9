"""No save reported that did not happen: the SQLite file removed or replaced while the server runs, a disk that
fills up or turns read-only. Every add either lands in the file a fresh process opens at that path, or the store
says why it did not (``unsaved``) and keeps the tokenizer in the session; the page's notice says it cannot save.

Real files and real small filesystems (tests/classroom/damage.py), never a mock of the database.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from classroom import database, workspaces
from classroom.database import Database, DatabaseStore, DatabaseUnavailable
from classroom.workspaces import RETRY_AFTER, SharedStore
from tokenizer import train

from .damage import OWNER, corpus, fill, make, read_only, read_write, small_disk


@pytest.fixture(autouse=True)
def fresh():
    database._last_purge.clear()


def remove(path: Path) -> None:
    """What ``rm data/workspaces.sqlite3*`` does."""
    for p in path.parent.glob(path.name + "*"):
        p.unlink()


def remove_main_only(path: Path) -> None:
    path.unlink()


def move_away(path: Path) -> None:
    path.rename(path.with_name("moved.sqlite3"))


def replace_with_a_copy(path: Path) -> None:
    """A backup put back over the open file: the same bytes, another file."""
    shutil.copyfile(path, path.with_name("copy.sqlite3"))
    os.replace(path.with_name("copy.sqlite3"), path)


def replace_with_a_new_database(path: Path) -> None:
    """Removed, then another app process (restarted meanwhile) made a new, empty one at that path."""
    remove(path)
    Database(f"sqlite:///{path}").close()


WAYS = {f.__name__: f for f in (remove, remove_main_only, move_away, replace_with_a_copy, replace_with_a_new_database)}


def saved_names(path: Path) -> list[str]:
    """What a fresh process finds at ``path`` (the truth after a restart)."""
    if not path.exists():
        return []
    db = Database(f"sqlite:///{path}")
    try:
        return [e.name for e in DatabaseStore(db, OWNER).entries()]
    finally:
        db.close()


def assert_said_or_saved(store: SharedStore, key: str, name: str, path: Path) -> None:
    """The invariant: a tokenizer the store took is in the file at ``path``, or the store says it is not."""
    if store.unsaved(key) is None:
        assert name in saved_names(path), f"{name} was reported saved, but {path} does not hold it"
    else:
        assert name not in saved_names(path)


@pytest.mark.parametrize("way", sorted(WAYS))
def test_a_database_file_removed_or_replaced_while_running_is_noticed(way, tmp_path):
    path = tmp_path / "ws.sqlite3"
    make(path, n=1)
    clock = [0.0]
    db = Database(f"sqlite:///{path}")
    store = SharedStore(lambda: db, OWNER, clock=lambda: clock[0])
    assert [e.name for e in store.entries()] == ["tok0"]
    WAYS[way](path)
    existed = path.exists()
    key = store.add(train(corpus(9, 500), 270, name="meanwhile"), corpus=corpus(9, 500))
    why = store.unsaved(key)
    assert why is not None and "was removed or replaced while BPE Lab was running" in why
    assert path.name in why and str(path.parent) not in why  # a student sees the file, not the server's folders
    assert "meanwhile" in [e.name for e in store.entries()] and store.get(key).name == "meanwhile"
    assert store.training_trace(key) is not None  # Step through works on it in the session
    [notice] = [n for n in store.notices() if n.kind == "error"]
    assert "cannot be saved right now" in notice.message
    assert path.exists() == existed  # no new, empty file made behind the class's back
    clock[0] += RETRY_AFTER  # tried again: still not the file it opened, still said
    assert "meanwhile" in [e.name for e in store.entries()]
    assert any("cannot be" in n.message for n in store.notices() if n.kind == "error")
    assert_said_or_saved(store, key, "meanwhile", path)
    db.close()


def test_what_a_removed_file_held_is_copied_for_the_teacher(tmp_path, capsys):
    """The process still holds the removed file open: it copies it next to the path and says where, once."""
    path = tmp_path / "ws.sqlite3"
    make(path, n=2)
    db = Database(f"sqlite:///{path}")
    store = SharedStore(lambda: db, OWNER)
    store.add(train(corpus(7, 300), 260, name="after start"))  # in the WAL, not yet in the main file
    remove(path)
    store.add(train(corpus(9, 300), 260, name="meanwhile"))
    store.add(train(corpus(8, 300), 260, name="and more"))
    [line] = capsys.readouterr().err.strip().splitlines()
    rescued = path.with_name(f"ws.sqlite3.rescued-{os.getpid()}")
    assert line.startswith("BPE Lab: the database file") and f"copied to {rescued}" in line, line
    db.close()
    os.replace(rescued, path)  # what the line says to do, with BPE Lab stopped
    assert saved_names(path) == ["tok0", "tok1", "after start"]


def test_a_file_removed_during_a_write_is_no_save(tmp_path):
    """The file goes between the check before a transaction and its commit: the write went to a dead file."""
    path = tmp_path / "ws.sqlite3"
    make(path, n=1)
    db = Database(f"sqlite:///{path}")

    def write(run):
        run("UPDATE workspaces SET last_seen = 1 WHERE owner = :owner", owner=OWNER)
        remove(path)

    with pytest.raises(DatabaseUnavailable, match="was removed or replaced"):
        db.transaction(write)
    db.close()


def test_an_untouched_file_keeps_saving(tmp_path):
    """The check costs a good file nothing: every add saved, none reported unsaved."""
    path = tmp_path / "ws.sqlite3"
    make(path, n=1)
    db = Database(f"sqlite:///{path}")
    store = SharedStore(lambda: db, OWNER)
    keys = [store.add(train(corpus(i, 300), 260, name=f"n{i}")) for i in range(3)]
    assert [store.unsaved(k) for k in keys] == [None] * 3 and store.notices() == []
    assert saved_names(path) == ["tok0", "n0", "n1", "n2"]
    db.close()


def test_a_full_disk_says_the_save_failed_and_keeps_the_work(tmp_path):
    with small_disk(tmp_path / "disk") as disk:
        path = disk / "ws.sqlite3"
        make(path, n=1)
        clock = [0.0]
        db = Database(f"sqlite:///{path}")
        store = SharedStore(lambda: db, OWNER, clock=lambda: clock[0])
        assert [e.name for e in store.entries()] == ["tok0"]
        fill(disk)
        key = store.add(train(corpus(9, 500), 270, name="meanwhile"), corpus=corpus(9, 20000))
        why = store.unsaved(key)
        assert why is not None and "cannot be saved right now" in why and "is full" in why
        assert "meanwhile" in [e.name for e in store.entries()]
        (disk / "filler").unlink()
        assert_said_or_saved(store, key, "meanwhile", path)
        db.close()


def test_work_made_while_the_disk_was_read_only_stays_marked_unsaved_once_it_is_back(tmp_path):
    """The database answers again (the retry succeeds), yet what was trained meanwhile is only in the tab: the page
    keeps saying so until the student downloads it or the tab goes."""
    with small_disk(tmp_path / "disk") as disk:
        path = disk / "ws.sqlite3"
        make(path, n=1)
        clock = [0.0]
        db = Database(f"sqlite:///{path}")
        store = SharedStore(lambda: db, OWNER, clock=lambda: clock[0])
        assert [e.name for e in store.entries()] == ["tok0"]
        db.close()
        read_only(disk)
        key = store.add(train(corpus(9, 500), 270, name="meanwhile"))
        assert store.unsaved(key) is not None and "cannot be written" in store.unsaved(key)
        read_write(disk)
        clock[0] += RETRY_AFTER
        assert sorted(e.name for e in store.entries()) == ["meanwhile", "tok0"]
        notices = store.notices()
        assert [n.kind for n in notices] == ["warning"], notices
        assert "Not saved: meanwhile" in notices[0].message and "kept in this tab only" in notices[0].message
        later = store.add(train(corpus(8, 300), 260, name="later"))
        assert store.unsaved(later) is None and "later" in saved_names(path)
        assert "meanwhile" not in saved_names(path)
        db.close()


def test_a_process_that_opens_the_database_late_never_makes_an_empty_one(tmp_path):
    """Start-up checked the file; the first session of this process comes after it was removed: no new, empty file
    (whose empty workspaces students would take for their own), the page says why, the work stays in the session."""
    path = tmp_path / "ws.sqlite3"
    make(path, n=1)
    mode = workspaces.SharedMode(f"sqlite:///{path}")  # what configure makes, after asgi.check_database
    remove(path)
    store = SharedStore(mode.database, OWNER)
    key = store.add(train(corpus(9, 300), 260, name="meanwhile"))
    assert "was removed or replaced" in store.unsaved(key)
    assert not path.exists() and [e.name for e in store.entries()] == ["meanwhile"]
    mode.close()


def test_a_process_that_opens_a_database_start_up_made_opens_it(tmp_path):
    path = tmp_path / "ws.sqlite3"
    make(path, n=1)
    mode = workspaces.SharedMode(f"sqlite:///{path}")
    assert [e.name for e in DatabaseStore(mode.database(), OWNER).entries()] == ["tok0"]
    mode.close()
