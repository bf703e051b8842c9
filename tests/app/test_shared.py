"""Shared mode in AppTest: each browser's workspace in the database, and every message about it.

A browser is its key (``classroom.identity.browser_key``, read from a cookie in a
real session); AppTest sends no cookies, so each test says which key its session has.
The browser suite checks the cookie itself against the real deployment.
"""

from __future__ import annotations

import os
import time
import zlib
from pathlib import Path

import pytest
from reading import read
from streamlit.testing.v1 import AppTest

from classroom import database, identity, workspaces

ROOT = Path(__file__).resolve().parents[2]
ALICE, BOB = "a" * 32, "b" * 32


@pytest.fixture(autouse=True)
def shared(tmp_path, monkeypatch):
    monkeypatch.setenv("BPE_LAB_SHARED", "1")
    url = f"sqlite:///{tmp_path / 'ws.sqlite3'}"
    monkeypatch.setenv("BPE_LAB_DATABASE_URL", url)
    database._last_purge.clear()
    workspaces.configure(shared=True)  # as serve.py's start-up in shared mode
    return url


def as_browser(monkeypatch, key: str | None) -> None:
    monkeypatch.setattr(identity, "browser_key", lambda: key)


def page(name: str, **query) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / f"{name}.py"), default_timeout=60)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception
    return at


def train_tiny(at: AppTest, name: str = "tiny") -> AppTest:
    at.segmented_control(key="train.source").set_value("paste").run()
    at.text_area(key="train.paste").input("aaabdaaabac " * 10)
    at.selectbox(key="train.pattern").set_value("none")
    at.number_input(key="train.vocab_size").set_value(260)
    at.text_input(key="train.name").input(name)
    at.run()
    return at.button(key="train.go").click().run()


def texts(elements) -> list[str]:
    """The messages as a student reads them (what they quote is escaped for Markdown)."""
    return [read(e.value) for e in elements]


def test_a_tokenizer_outlives_the_session_and_stays_with_its_browser(monkeypatch):
    as_browser(monkeypatch, ALICE)
    at = train_tiny(page("train"), "alices")
    assert not at.exception and any("Trained **alices**" in s for s in texts(at.success))
    key = at.session_state["train.selected"]
    again = page("train")  # a reload: a new session, the same browser
    assert again.selectbox(key="train.selected").value == key
    assert any("You keep 1 of at most 20" in c for c in texts(again.caption))
    as_browser(monkeypatch, BOB)
    other = page("train")
    assert any("Nothing trained yet" in i for i in texts(other.info))
    # a link naming Alice's tokenizer: Bob's session cannot reach it
    linked = page("tokenize", tokenizer=f"user:{key}", text="hi")
    assert any("not available here" in w for w in texts(linked.warning))
    assert f"user:{key}" not in linked.selectbox(key="tokenize.tokenizer").options


def test_full_workspace_says_what_to_do_and_keeps_the_rest(monkeypatch):
    monkeypatch.setenv("BPE_LAB_MAX_TOKENIZERS", "1")
    as_browser(monkeypatch, ALICE)
    at = train_tiny(page("train"), "first")
    at = train_tiny(at, "second")
    [err] = texts(at.error)
    assert "Your workspace is full: it holds 1 tokenizers, the most this server keeps per browser is 1. Delete one" in err
    assert at.selectbox(key="train.selected").options == [at.selectbox(key="train.selected").options[0]]
    assert "first" in at.selectbox(key="train.selected").options[0]


def test_megabyte_limit_message(monkeypatch):
    monkeypatch.setenv("BPE_LAB_MAX_MB", "0.0001")  # about 100 bytes
    as_browser(monkeypatch, ALICE)
    at = train_tiny(page("train"))
    assert any("this server keeps at most 0.0 MB per browser" in e for e in texts(at.error))
    assert any("Nothing trained yet" in i for i in texts(at.info))


def test_step_demo_in_a_full_workspace_says_so(monkeypatch):
    monkeypatch.setenv("BPE_LAB_MAX_MB", "0.01")
    as_browser(monkeypatch, ALICE)
    at = page("step", mode="training")
    at.button(key="step.demo").click().run()
    assert not at.exception
    assert any("Your workspace is full" in e for e in texts(at.error))


def test_an_expired_workspace_is_explained_once(monkeypatch, shared):
    monkeypatch.setenv("BPE_LAB_WORKSPACE_TTL_DAYS", "1")
    as_browser(monkeypatch, ALICE)
    train_tiny(page("train"))
    db = database.Database(shared)
    db.execute("UPDATE workspaces SET last_seen = :t", t=time.time() - 3 * 86400)
    database._last_purge.clear()
    at = page("train")
    [warning] = [w for w in texts(at.warning) if "not used for" in w]
    assert "its tokenizers were deleted" in warning and "1 days after your last visit" in warning
    assert any("Nothing trained yet" in i for i in texts(at.info))
    at.run()  # the same session: said once
    assert not [w for w in texts(at.warning) if "not used for" in w]


def test_a_damaged_record_gets_a_message_and_a_delete_button(monkeypatch, shared):
    as_browser(monkeypatch, ALICE)
    train_tiny(page("train"), "good")
    at = train_tiny(page("train"), "bad")
    bad = at.session_state["train.selected"]
    database.Database(shared).execute(
        "UPDATE tokenizers SET doc = :doc, version = version + 1 WHERE key = :key",
        doc=zlib.compress(b'{"format": "bpe-lab'),
        key=bad,
    )
    at = page("train")
    assert not at.exception
    [w] = [w for w in texts(at.warning) if "cannot be read" in w]
    assert "'bad' cannot be read" in w and "your other tokenizers are fine" in w
    at.button(key=f"train.drop.{bad}").click().run()
    assert not [w for w in texts(at.warning) if "cannot be read" in w]
    [left] = at.selectbox(key="train.selected").options
    assert left.startswith("good · ")


def test_no_cookie_means_this_tab_only(monkeypatch):
    as_browser(monkeypatch, None)
    at = page("tokenize")
    assert any("sent no BPE Lab cookie" in w for w in texts(at.warning))


def test_download_everything(monkeypatch):
    as_browser(monkeypatch, ALICE)
    at = train_tiny(page("train"), "zipped")
    button = at.get("download_button")
    assert any("Download everything" in b.proto.label for b in button)


def test_database_unavailable_in_a_session_is_a_message(monkeypatch, tmp_path):
    (tmp_path / "file").write_text("x")
    monkeypatch.setenv("BPE_LAB_DATABASE_URL", f"sqlite:///{tmp_path / 'file' / 'ws.sqlite3'}")
    workspaces.configure(shared=True)
    as_browser(monkeypatch, ALICE)
    at = page("train")
    assert any("cannot be read right now" in e for e in texts(at.error))
    at = train_tiny(at, "kept here")  # still works, for the session, and says it was not saved
    assert any("Trained **kept here**" in w and "not saved" in w for w in texts(at.warning))
    assert not any("with saving" in s for s in texts(at.success))


def test_a_built_in_sample_is_trained_once_and_each_browser_gets_its_own_copy(monkeypatch):
    from ui.common import cache

    cache._BUILTIN.clear()
    as_browser(monkeypatch, ALICE)
    first = page("train")
    first.number_input(key="train.vocab_size").set_value(300).run()
    first.button(key="train.go").click().run()
    assert not first.exception and not any("already trained" in s for s in texts(first.success))
    as_browser(monkeypatch, BOB)
    second = page("train")
    second.number_input(key="train.vocab_size").set_value(300).run()
    second.button(key="train.go").click().run()
    assert any("already trained this sample with these settings" in s for s in texts(second.success))
    store_a = database.DatabaseStore(database.Database(os.environ["BPE_LAB_DATABASE_URL"]), database.owner_of(ALICE))
    store_b = database.DatabaseStore(database.Database(os.environ["BPE_LAB_DATABASE_URL"]), database.owner_of(BOB))
    [a], [b] = store_a.entries(), store_b.entries()
    assert a.key != b.key and store_a.get(a.key).merges == store_b.get(b.key).merges


@pytest.mark.parametrize("kind", ["pages_overwritten", "scrambled", "not_a_database"])
def test_a_damaged_database_file_is_a_message_and_new_work_stays_in_the_session(monkeypatch, shared, tmp_path, kind):
    """The file is damaged under a running server (here: before this app process's next connection reads it)."""
    from tests.classroom.damage import damage

    as_browser(monkeypatch, ALICE)
    train_tiny(page("train"), "saved")
    path = Path(shared.removeprefix("sqlite:///"))
    workspaces.unconfigure()  # the pool's connections close (what they wrote is in the file now)
    damage(path, kind)
    workspaces.configure(shared=True)  # new connections: they read the damaged file
    at = page("train")
    [error] = [e for e in texts(at.error) if "cannot be read right now" in e]
    assert path.name in error and str(path.parent) not in error and "move it away" in error  # the file, not the server's folders
    at = train_tiny(at, "meanwhile")
    assert not at.exception and any("Trained **meanwhile**" in w and "not saved" in w for w in texts(at.warning))
    assert [o.split(" · ")[0] for o in at.selectbox(key="train.selected").options] == ["meanwhile"]
