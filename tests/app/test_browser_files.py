"""The Tokenize page's model files of a student's tokenizers: counted in the workspace's limits, deleted with the
tokenizer, and a disk that cannot take one is a note and the server's tokens, never a traceback."""

from __future__ import annotations

import pytest

from classroom.database import Database, DatabaseStore, owner_of
from tests.classroom.damage import fill, small_disk
from ui.web import model as web

from .test_shared import ALICE, as_browser, page, texts, train_tiny


def user_files(static) -> list:
    folder = static / web.FOLDER / "user"
    return sorted(folder.glob("*.bin")) if folder.is_dir() else []


def usage(url: str, browser: str) -> tuple[int, int]:
    db = Database(url)
    try:
        return DatabaseStore(db, owner_of(browser)).usage()
    finally:
        db.close()


def test_a_model_file_is_counted_and_deleted_with_its_tokenizer(shared, tmp_path, monkeypatch):
    as_browser(monkeypatch, ALICE)
    at = train_tiny(page("train"), "mine")
    key = at.session_state["train.selected"]
    saved = usage(shared, ALICE)
    tokenize = page("tokenize", tokenizer=f"user:{key}", text="aaab daaab")
    assert not tokenize.warning or not any("server" in w for w in texts(tokenize.warning))
    [file] = user_files(tmp_path / "static")
    assert usage(shared, ALICE) == (1, saved[1] + file.stat().st_size)
    at.button(key="train.delete").click().run()
    at.button(key="train.delete_yes").click().run()
    assert not at.exception and any("Deleted mine" in s for s in texts(at.success))
    assert user_files(tmp_path / "static") == [] and usage(shared, ALICE) == (0, 0)


def test_a_model_file_that_does_not_fit_is_tokenized_on_the_server(shared, tmp_path, monkeypatch):
    as_browser(monkeypatch, ALICE)
    at = train_tiny(page("train"), "mine")
    key = at.session_state["train.selected"]
    kept = usage(shared, ALICE)[1]
    monkeypatch.setenv("BPE_LAB_MAX_MB", str((kept + 200) / 1024 / 1024))  # the tokenizer fits, its model file not
    tokenize = page("tokenize", tokenizer=f"user:{key}", text="aaab daaab")
    [warning] = [w for w in texts(tokenize.warning) if "Tokenized on the server" in w]
    assert "Your workspace is full" in warning and "its copy for your browser needs" in warning
    assert user_files(tmp_path / "static") == [] and usage(shared, ALICE)[1] == kept


@pytest.mark.parametrize("what", ["user", "official"])
def test_a_full_static_disk_is_a_note_and_the_servers_tokens(what, tmp_path, monkeypatch):
    """Local mode (the autouse workspace), the static folder on a small real disk that fills up."""
    with small_disk(tmp_path / "disk", "8m") as disk:
        monkeypatch.setenv(web.STATIC_ENV, str(disk))
        web.publish_assets(disk)  # start-up wrote the browser modules (asgi.check_static)
        at = train_tiny(page("train"), "mine")
        key = at.session_state["train.selected"]
        fill(disk)
        chosen = f"user:{key}" if what == "user" else "r50k_base"  # one no test has written yet
        tokenize = page("tokenize", tokenizer=chosen, text="aaab daaab")
        assert not tokenize.exception
        [warning] = [w for w in texts(tokenize.warning) if "Tokenized on the server" in w]
        assert "No space left on device" in warning
        assert user_files(disk) == []
        tokenize.run()  # and again: no traceback, the same note
        assert not tokenize.exception and any("Tokenized on the server" in w for w in texts(tokenize.warning))
