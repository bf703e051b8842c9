"""classroom/database.py against SQLite and a real PostgreSQL server (tests/postgres.py): isolation,
survival, limits, expiry, damaged rows, concurrency, the download of everything, an unavailable database."""

from __future__ import annotations

import io
import threading
import time
import zipfile
import zlib

import pytest
from postgres import PostgresServer

from classroom import database
from classroom.database import Database, DatabaseStore, DatabaseUnavailable, LimitReached, Limits, owner_of
from tokenizer import formats, train
from ui.train import downloads

CORPUS = "the cat in the hat sat on the mat; the cat ate the rat. " * 20


@pytest.fixture(scope="module")
def postgres():
    server = PostgresServer().start()
    yield server
    server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request, tmp_path):
    if request.param == "sqlite":
        d = Database(f"sqlite:///{tmp_path / 'ws.sqlite3'}")
    else:
        server = request.getfixturevalue("postgres")
        d = Database(server.url)
        d.execute("DELETE FROM workspaces")  # one cluster per module: start each test empty
    database._last_purge.clear()
    yield d
    d.close()


def tok(name="cats", vocab=270):
    return train(CORPUS, vocab, pattern="gpt4", special_tokens=["<|endoftext|>"], name=name)


def owner(n: int) -> str:
    return owner_of(f"browser-key-{n:02d}-" + "x" * 32)


def test_a_tokenizer_survives_a_new_store_and_a_new_connection(db):
    a = DatabaseStore(db, owner(1))
    t = tok()
    key = a.add(t, corpus=CORPUS)
    assert a.get(key) is t  # the object just added, with its training trace
    # as after a reload (a new session) and a server restart (a new pool)
    again = DatabaseStore(Database(db.url), owner(1))
    [entry] = again.entries()
    assert (entry.key, entry.name, entry.vocab_size, entry.pattern, entry.source, entry.has_corpus) == (
        key,
        "cats",
        270,
        "gpt4",
        "trained",
        True,
    )
    loaded = again.get(key)
    assert loaded is not t and loaded.merges == t.merges and loaded.special_tokens == t.special_tokens
    assert again.corpus(key) == CORPUS
    trace = again.training_trace(key)
    assert trace.tokens_after == t.training.tokens_after


def test_browsers_never_see_each_other(db):
    a, b = DatabaseStore(db, owner(1)), DatabaseStore(db, owner(2))
    key = a.add(tok("alice"), corpus=CORPUS)
    assert b.entries() == [] and b.keys() == []
    for reach in (b.get, b.corpus, b.training_trace):
        with pytest.raises(ValueError, match="no tokenizer"):
            reach(key)
    b.delete(key)  # deleting someone else's key is a no-op
    with pytest.raises(ValueError, match="no tokenizer"):
        b.rename(key, "mine now")
    assert [e.name for e in a.entries()] == ["alice"]
    assert a.get(key).name == "alice"


def test_names_stay_unique_per_browser(db):
    a, b = DatabaseStore(db, owner(1)), DatabaseStore(db, owner(2))
    assert a.get(a.add(tok("cats"))).name == "cats"
    assert a.get(a.add(tok("cats"))).name == "cats (2)"
    assert b.get(b.add(tok("cats"))).name == "cats"  # another browser's names are not in the way


def test_the_browser_key_is_never_stored(db):
    key = "browser-key-01-" + "x" * 32
    DatabaseStore(db, owner_of(key)).add(tok())
    dump = repr(db.query("SELECT * FROM workspaces")) + repr(db.query("SELECT owner, key, name FROM tokenizers"))
    assert key not in dump and owner_of(key) in dump


def test_rename_and_delete(db):
    s = DatabaseStore(db, owner(1))
    key = s.add(tok(), corpus=CORPUS)
    before = s.get(key)
    s.rename(key, "  felines ")
    after = s.get(key)
    assert after is not before and after.name == "felines" and after.merges == before.merges
    assert DatabaseStore(db, owner(1)).get(key).name == "felines"  # stored, not only cached
    assert DatabaseStore(db, owner(1)).entries()[0].name == "felines"
    s.delete(key)
    assert s.entries() == [] and s.usage() == (0, 0)
    with pytest.raises(ValueError, match="deleted"):
        s.get(key)


def test_a_change_in_another_tab_is_seen(db):
    """Two sessions of one browser (two tabs, perhaps on two processes): each sees the other's changes."""
    one, two = DatabaseStore(db, owner(1)), DatabaseStore(db, owner(1))
    key = one.add(tok(), corpus=CORPUS)
    assert two.get(key).name == "cats"
    one.rename(key, "renamed")
    assert two.get(key).name == "renamed"
    one.delete(key)
    assert two.entries() == []


def test_entries_in_order_of_creation(db):
    s = DatabaseStore(db, owner(1))
    for i in range(3):
        s.add(tok(f"t{i}", 260))  # within one second: the order is still the order of adding
    assert [e.name for e in s.entries()] == ["t0", "t1", "t2"]


def test_limit_on_the_number_of_tokenizers(db):
    s = DatabaseStore(db, owner(1), Limits(max_tokenizers=2))
    s.add(tok("one", 260))
    s.add(tok("two", 260))
    with pytest.raises(LimitReached, match=r"holds 2 tokenizers, the most this server keeps per browser is 2\. Delete one"):
        s.add(tok("three", 260))
    with pytest.raises(LimitReached):
        s.check_room()
    assert [e.name for e in s.entries()] == ["one", "two"]  # nothing lost
    DatabaseStore(db, owner(2), Limits(max_tokenizers=2)).add(tok("other", 260))  # another browser has its own room
    s.delete(s.entries()[0].key)
    s.add(tok("three", 260))
    assert [e.name for e in s.entries()] == ["two", "three"]


def test_limit_on_megabytes(db):
    small = Limits(max_bytes=200_000)
    s = DatabaseStore(db, owner(1), small)
    s.add(tok("a"), corpus=CORPUS)
    count, used = s.usage()
    assert count == 1 and used == len(formats.dumps(s.get(s.keys()[0])).encode()) + len(CORPUS.encode())
    with pytest.raises(LimitReached, match=r"take 0\.\d MB, and this one needs 0\.\d MB more; this server keeps at most 0\.2 MB"):
        s.add(tok("b"), corpus="x" * 200_000)
    with pytest.raises(LimitReached, match="train on a shorter text"):
        s.check_room(200_000)
    s.check_room(1_000)
    assert len(s.entries()) == 1


def test_the_limit_holds_under_concurrent_adds(db):
    """Eight threads (tabs, processes) add at once: never more than the limit."""
    limits = Limits(max_tokenizers=3)
    toks = [tok(f"t{i}", 258) for i in range(8)]
    results: list[str] = []

    def add(t):
        try:
            DatabaseStore(Database(db.url), owner(1), limits).add(t)
            results.append("added")
        except LimitReached:
            results.append("full")

    threads = [threading.Thread(target=add, args=(t,)) for t in toks]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert sorted(results) == ["added"] * 3 + ["full"] * 5
    assert len(DatabaseStore(db, owner(1)).entries()) == 3


def test_idle_workspaces_expire_with_a_message(db):
    limits = Limits(ttl_days=1)
    now = time.time()
    old = DatabaseStore(db, owner(1), limits, now=now)
    old.add(tok("old"))
    fresh = DatabaseStore(db, owner(2), limits, now=now)
    fresh.add(tok("fresh"))
    db.execute("UPDATE workspaces SET last_seen = :t WHERE owner = :o", t=now - 2 * 86400, o=owner(1))
    assert db.purge_expired(limits.ttl_days, now) == 1
    back = DatabaseStore(db, owner(1), limits, now=now)
    assert back.expired and back.entries() == []
    assert [e.name for e in DatabaseStore(db, owner(2), limits, now=now).entries()] == ["fresh"]
    back.add(tok("again"))
    assert not DatabaseStore(db, owner(1), limits, now=now).expired  # the message is over once they start again
    # a brand-new browser is not told its workspace expired
    assert not DatabaseStore(db, owner(3), limits, now=now).expired


def test_a_visit_keeps_a_workspace_alive(db):
    limits = Limits(ttl_days=1)
    now = time.time()
    DatabaseStore(db, owner(1), limits, now=now - 0.9 * 86400).add(tok())
    db.execute("UPDATE workspaces SET last_seen = :t", t=now - 0.9 * 86400)
    DatabaseStore(db, owner(1), limits, now=now)  # a visit
    assert db.purge_expired(limits.ttl_days, now + 0.5 * 86400) == 0
    assert len(DatabaseStore(db, owner(1), limits).entries()) == 1


def test_purge_runs_at_most_every_ten_minutes(db):
    limits = Limits(ttl_days=1)
    now = time.time()
    DatabaseStore(db, owner(1), limits, now=now).add(tok())
    db.execute("UPDATE workspaces SET last_seen = :t", t=now - 3 * 86400)
    DatabaseStore(db, owner(2), limits, now=now + 1)  # within ten minutes of the first store: no purge yet
    assert db.query("SELECT COUNT(*) FROM tokenizers")[0][0] == 1
    DatabaseStore(db, owner(2), limits, now=now + 700)  # later: purged
    assert DatabaseStore(db, owner(1), limits, now=now + 701).expired


def test_a_damaged_record_is_reported_and_the_rest_kept(db):
    s = DatabaseStore(db, owner(1))
    good = s.add(tok("good"), corpus=CORPUS)
    bad = s.add(tok("bad"), corpus=CORPUS)
    db.execute(
        "UPDATE tokenizers SET doc = :doc, version = version + 1 WHERE key = :key",
        doc=zlib.compress(b'{"format": "bpe-lab/tokenizer", "merg'),
        key=bad,
    )
    fresh = DatabaseStore(db, owner(1))
    [d] = fresh.damaged()
    assert d.key == bad and "'bad' cannot be read" in d.message and "delete it" in d.message
    with pytest.raises(ValueError, match="cannot be read"):
        fresh.get(bad)
    assert fresh.get(good).name == "good"
    db.execute("UPDATE tokenizers SET doc = :doc, version = version + 1 WHERE key = :key", doc=b"not zlib at all", key=bad)
    assert [x.key for x in fresh.damaged()] == [bad]
    assert fresh.corpus(good) == CORPUS
    fresh.delete(bad)
    assert fresh.damaged() == [] and [e.name for e in fresh.entries()] == ["good"]


def test_export_all_holds_every_tokenizer_and_text(db):
    s = DatabaseStore(db, owner(1))
    s.add(tok("same"), corpus=CORPUS)
    s.add(tok("same"))
    zf = zipfile.ZipFile(io.BytesIO(downloads.export_all(s)))
    names = sorted(zf.namelist())
    assert names == ["bpe-lab/README.txt", "bpe-lab/same-2.json", "bpe-lab/same.json", "bpe-lab/same.training-text.txt"]
    assert zf.read("bpe-lab/same.training-text.txt").decode() == CORPUS
    back = formats.loads(zf.read("bpe-lab/same.json").decode())
    assert back.merges == tok().merges


def test_database_unavailable_is_one_clear_line(tmp_path, postgres):
    with pytest.raises(DatabaseUnavailable) as e:
        Database("postgresql://bpe:secret@127.0.0.1:1/nothing")
    msg = str(e.value)
    assert "\n" not in msg and "cannot connect to the PostgreSQL database postgresql://bpe@127.0.0.1:1/nothing" in msg
    assert "secret" not in msg
    (tmp_path / "file").write_text("x")
    with pytest.raises(DatabaseUnavailable, match="cannot open the SQLite database"):
        Database(f"sqlite:///{tmp_path / 'file' / 'db.sqlite3'}")
    with pytest.raises(DatabaseUnavailable, match="unsupported database URL"):
        Database("mysql://x/y")


def test_a_database_restart_costs_no_error(postgres):
    d = Database(postgres.url)
    s = DatabaseStore(d, owner(9))
    key = s.add(tok("survivor"))
    postgres.restart()  # every pooled connection is now dead
    assert [e.name for e in s.entries()] == ["survivor"]
    assert DatabaseStore(d, owner(9)).get(key).name == "survivor"
    d.close()


def test_limits_from_the_environment():
    assert Limits.from_env({}) == Limits()
    assert Limits.from_env({"BPE_LAB_WORKSPACE_TTL_DAYS": "0.5"}).ttl_days == 0.5
    with pytest.raises(ValueError, match="BPE_LAB_MAX_MB must be a number above 0 and at most 100000"):
        Limits.from_env({"BPE_LAB_MAX_MB": "0"})


def test_database_url_prefers_bpe_lab_then_database_url(monkeypatch, tmp_path):
    monkeypatch.setenv("BPE_LAB_DATA_DIR", str(tmp_path))
    assert database.database_url({}) == f"sqlite:///{tmp_path / 'workspaces.sqlite3'}"
    assert (
        database.database_url({"DATABASE_URL": "postgresql://a/b", "BPE_LAB_DATABASE_URL": "sqlite:////x.db"})
        == "sqlite:////x.db"
    )
    d = Database(f"sqlite:///{tmp_path / 'sub' / 'w.sqlite3'}")
    assert d.path == str(tmp_path / "sub" / "w.sqlite3") and (tmp_path / "sub" / "w.sqlite3").exists()
