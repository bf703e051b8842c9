"""The Train page says a save failed when it did (a full disk, the database file removed), never "with saving",
and the tokenizer stays in the session: listed, selected, and offered on the other pages."""

from __future__ import annotations

import pytest

from classroom import workspaces
from tests.classroom.damage import fill, small_disk
from ui.common import state
from ui.render.markdown import md

from .conftest import go_shared
from .test_shared import ALICE, as_browser, page, texts, train_tiny


@pytest.fixture
def disk(tmp_path, monkeypatch):
    with small_disk(tmp_path / "disk") as disk:
        go_shared(monkeypatch, disk)
        yield disk
        workspaces.unconfigure()  # its connections closed before the disk goes


def assert_not_saved(at, name: str, says: str) -> None:
    assert not at.exception
    assert not any("with saving" in s for s in texts(at.success)), texts(at.success)
    [warning] = [w for w in texts(at.warning) if f"Trained **{name}**" in w]
    assert "not saved" in warning and "cannot be saved right now" in warning and says in warning, warning
    assert any(name in o for o in at.selectbox(key="train.selected").options)


@pytest.mark.parametrize("how", ["full", "removed"])
def test_train_says_the_save_failed_and_keeps_the_tokenizer(how, disk, monkeypatch):
    as_browser(monkeypatch, ALICE)
    at = train_tiny(page("train"), "first")
    assert any("Trained **first**" in s and "with saving" in s for s in texts(at.success))
    if how == "full":
        fill(disk)
    else:
        for p in disk.glob("ws.sqlite3*"):
            p.unlink()
    at = train_tiny(at, "second")
    assert_not_saved(at, "second", "is full" if how == "full" else "was removed or replaced")
    at.run()  # the next run: the message stays, and the page's notice says why
    assert_not_saved(at, "second", "is full" if how == "full" else "was removed or replaced")
    assert any("cannot be saved right now" in e for e in texts(at.error)), (texts(at.error), texts(at.warning))
    key = at.session_state["train.selected"]
    assert at.session_state[state.TOKENIZER] == f"user:{key}"  # the other pages offer it first


def test_an_upload_whose_save_failed_says_so(disk, monkeypatch):
    from tokenizer import formats, train

    as_browser(monkeypatch, ALICE)
    at = page("train")
    fill(disk)
    data = formats.dumps(train("aaabdaaabac " * 20, 262, name="up")).encode()
    at.file_uploader(key="train.tokenizer_file").upload("up.json", data, "application/json").run()
    assert not at.exception
    uploaded = f"Uploaded {md('up.json')}"  # the file name as typed, not as Markdown
    [error] = [e.value for e in at.error if uploaded in e.value]  # as sent, escaped
    assert "not saved" in error and "is full" in error
    assert not any(uploaded in s.value for s in at.success)
    assert any("up" in o for o in at.selectbox(key="train.selected").options)


def test_local_mode_on_a_full_disk_says_the_save_failed(tmp_path, monkeypatch):
    """``make run``'s workspace folder on a disk that fills up: the same message, the training kept."""
    with small_disk(tmp_path / "ws", "1m") as ws:
        monkeypatch.setenv("BPE_LAB_WORKSPACE", str(ws))
        workspaces.configure(shared=False)
        at = train_tiny(page("train"), "first")
        assert any("Trained **first**" in s and "with saving" in s for s in texts(at.success))
        fill(ws)
        at = train_tiny(at, "second")
        assert not at.exception and not any("with saving" in s for s in texts(at.success))
        [warning] = [w for w in texts(at.warning) if "Trained **second**" in w]
        assert "not saved" in warning and "No space left on device" in warning
        assert any("second" in o for o in at.selectbox(key="train.selected").options)
        workspaces.unconfigure()
