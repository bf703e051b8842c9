"""Shared mode's database file, damaged as real files get damaged (tests/classroom/damage.py): truncated, pages
overwritten or scrambled, not a database at all, read-only, on a full disk.

At start-up: one line that names the file and what to do, exit status 2, no traceback. While running: the page
says the saved tokenizers cannot be read, and what the student trains meanwhile stays in the session. Never a
raw sqlite3.DatabaseError (today's code let every one of these through as a traceback).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from classroom import asgi, database
from classroom.database import Database, DatabaseStore
from classroom.workspaces import RETRY_AFTER, SharedStore
from tokenizer import train

from .damage import DAMAGE, OWNER, corpus, damage, fill, make, read_only, small_disk

ROOT = Path(__file__).resolve().parents[2]
#: What each kind of damage is called in the message, and the advice that comes with it.
SAYS = {
    "truncated": ("is damaged", "move it away"),
    "pages_overwritten": ("is damaged", "move it away"),
    "scrambled": ("is damaged", "move it away"),
    "header_overwritten": ("is not a SQLite database", "move it away"),
    "not_a_database": ("is not a SQLite database", "move it away"),
    "read_only": ("cannot be written", "let this user write it"),
    "full": ("is full", "free some space"),
}


@pytest.fixture(autouse=True)
def fresh():
    database._last_purge.clear()


def start_up(path: Path, monkeypatch, capsys) -> str:
    """serve.py's and make serve's database check; returns the one line it printed."""
    monkeypatch.setenv("BPE_LAB_DATABASE_URL", f"sqlite:///{path}")
    with pytest.raises(SystemExit) as e:
        asgi.check_database()
    assert e.value.code == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    return line


def assert_says(line: str, path: Path, kind: str) -> None:
    what, advice = SAYS[kind]
    assert line.startswith("BPE Lab: ") and str(path) in line and what in line and advice in line, line
    assert "Traceback" not in line and "sqlite3." not in line


def test_a_good_file_passes_the_check(tmp_path, monkeypatch):
    path = tmp_path / "ws.sqlite3"
    make(path)
    monkeypatch.setenv("BPE_LAB_DATABASE_URL", f"sqlite:///{path}")
    assert asgi.check_database() == f"sqlite:///{path}"


@pytest.mark.parametrize("kind", sorted(DAMAGE))
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_damaged_file_at_start_up_is_one_line_and_status_2(kind, seed, tmp_path, monkeypatch, capsys):
    path = tmp_path / "ws.sqlite3"
    make(path)
    damage(path, kind, seed)
    assert_says(start_up(path, monkeypatch, capsys), path, kind)


def test_a_read_only_disk_at_start_up(tmp_path, monkeypatch, capsys):
    with small_disk(tmp_path / "disk") as disk:
        make(disk / "ws.sqlite3")
        read_only(disk)
        assert_says(start_up(disk / "ws.sqlite3", monkeypatch, capsys), disk / "ws.sqlite3", "read_only")


def test_a_full_disk_at_start_up(tmp_path, monkeypatch, capsys):
    with small_disk(tmp_path / "disk") as disk:
        make(disk / "ws.sqlite3")
        fill(disk)
        assert_says(start_up(disk / "ws.sqlite3", monkeypatch, capsys), disk / "ws.sqlite3", "full")


def shared_store(path: Path) -> tuple[SharedStore, Database]:
    db = Database(f"sqlite:///{path}")
    return SharedStore(lambda: db, OWNER), db


def assert_work_stays_in_the_session(store: SharedStore, kind: str, path: Path) -> None:
    """The page's view: the saved ones cannot be read (and it says why); a new one is kept for the session."""
    listed = store.entries()
    [notice] = [n for n in store.notices() if n.kind == "error"]
    assert (
        "Your saved tokenizers cannot be read right now" in notice.message
        and path.name in notice.message
        and str(path.parent) not in notice.message
    )
    assert SAYS[kind][0] in notice.message, notice.message
    key = store.add(train(corpus(9, 500), 270, name="meanwhile"), corpus=corpus(9, 500))
    assert key in [e.key for e in store.entries()] and store.get(key).name == "meanwhile"
    assert store.training_trace(key) is not None  # Step through works on it
    assert len(store.entries()) == len(listed) + 1


@pytest.mark.parametrize("kind", sorted(DAMAGE))
def test_a_file_damaged_while_running_costs_the_session_nothing(kind, tmp_path):
    path = tmp_path / "ws.sqlite3"
    make(path)
    store, db = shared_store(path)
    assert [e.name for e in store.entries()] == ["tok0", "tok1", "tok2"]
    db.close()  # the pool's connections come and go; the next one reads the damaged file
    damage(path, kind)
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    assert_work_stays_in_the_session(store, kind, path)


def test_a_disk_that_fills_up_while_running_keeps_the_training_in_the_session(tmp_path):
    with small_disk(tmp_path / "disk") as disk:
        path = disk / "ws.sqlite3"
        make(path, n=1)
        clock = [0.0]
        db = Database(f"sqlite:///{path}")
        store = SharedStore(lambda: db, OWNER, clock=lambda: clock[0])
        assert [e.name for e in store.entries()] == ["tok0"]
        fill(disk)
        key = store.add(train(corpus(9, 500), 270, name="meanwhile"), corpus=corpus(9, 20000))
        assert [e.name for e in store.entries()] == ["meanwhile"]  # kept in the session
        [notice] = store.notices()
        assert (
            "cannot be saved right now" in notice.message
            and "is full" in notice.message
            and path.name in notice.message
            and str(path.parent) not in notice.message
        )
        (disk / "filler").unlink()  # the teacher frees some space
        clock[0] += RETRY_AFTER
        assert sorted(e.name for e in store.entries()) == ["meanwhile", "tok0"]  # nothing lost
        [notice] = store.notices()  # but the one trained meanwhile is in this tab only, and the page keeps saying so
        assert notice.kind == "warning" and "Not saved: meanwhile" in notice.message
        assert store.get(key).name == "meanwhile"


def test_a_disk_that_turns_read_only_while_running_keeps_the_training_in_the_session(tmp_path):
    with small_disk(tmp_path / "disk") as disk:
        path = disk / "ws.sqlite3"
        make(path, n=1)
        store, db = shared_store(path)
        assert [e.name for e in store.entries()] == ["tok0"]
        db.close()
        read_only(disk)
        key = store.add(train(corpus(9, 500), 270, name="meanwhile"))
        assert store.get(key).name == "meanwhile" and "meanwhile" in [e.name for e in store.entries()]
        assert any("cannot be written" in n.message for n in store.notices())


def test_the_store_never_lets_a_raw_database_error_through(tmp_path):
    """Every method of the database store on a damaged file: a DatabaseUnavailable (a ValueError) or an answer."""
    path = tmp_path / "ws.sqlite3"
    keys = make(path)
    db = Database(f"sqlite:///{path}")
    store = DatabaseStore(db, OWNER)
    db.close()
    damage(path, "pages_overwritten")
    calls = [
        store.entries,
        store.damaged,
        store.usage,
        lambda: store.get(keys[0]),
        lambda: store.corpus(keys[1]),
        lambda: store.add(train("ab ab", 257, name="x")),
        lambda: store.rename(keys[2], "renamed"),
        lambda: store.delete(keys[0]),
    ]
    for call in calls:
        try:
            call()
        except ValueError:
            pass  # DatabaseUnavailable, or a tokenizer that does not parse: both are messages for the page


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["scrambled", "not_a_database"])
def test_make_serve_with_a_damaged_file_exits_2_with_one_line(kind, tmp_path):
    path = tmp_path / "ws.sqlite3"
    make(path)
    damage(path, kind)
    env = dict(os.environ, BPE_LAB_DATABASE_URL=f"sqlite:///{path}", BPE_LAB_DATA_DIR=str(tmp_path / "data"), WORKERS="1")
    out = subprocess.run([sys.executable, "-m", "classroom"], env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2, out.stderr
    [line] = out.stderr.strip().splitlines()
    assert_says(line, path, kind)
