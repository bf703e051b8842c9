"""A training whose app process dies (killed, restarted by supervisord) is not lost without a word: the next session
of that browser says it was interrupted and gives back its text and settings, in local and in shared mode.

The draft is left by a real process that starts a training's bookkeeping and dies before it ends."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from classroom import database, identity, stores
from classroom.stores import FolderStore
from ui.render.markdown import md

ROOT = Path(__file__).resolve().parents[2]
ALICE = "a" * 32
TEXT = "the lowest newer wider lower " * 40
DRAFT = {
    "source": "paste",
    "sample": "stdlib-docstrings",
    "paste": TEXT,
    "vocab_size": 300,
    "pattern": "custom",
    "custom_pattern": r"\w+|\s+",
    "specials": "<|end|>",
    "name": "**mine** [x](http://e.com)",
    "title": "**mine** [x](http://e.com)",
}
SAID = (
    f"Your training of **{md(DRAFT['title'])}** was interrupted (the server restarted); your text and settings are back, "
    "press **Train** to run it again."
)


def died_while_training(code: str, draft: dict = DRAFT) -> None:
    """``code`` (a ``store``) begins a training in a process of its own, which then dies without ending it."""
    script = f"import json, os, sys\n{code}\nstore.training_started(json.loads(sys.argv[1]))\nos._exit(0)\n"
    subprocess.run([sys.executable, "-c", script, json.dumps(draft)], cwd=ROOT, check=True, timeout=120, env=os.environ)


def train_page() -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / "train.py"), default_timeout=120).run()
    assert not at.exception, at.exception
    return at


def check_restored(at: AppTest) -> None:
    assert SAID in [w.value for w in at.warning]
    assert at.segmented_control(key="train.source").value == "paste"
    assert at.text_area(key="train.paste").value == TEXT
    assert at.number_input(key="train.vocab_size").value == 300
    assert at.selectbox(key="train.pattern").value == "custom"
    assert at.text_input(key="train.custom_pattern").value == r"\w+|\s+"
    assert (at.text_input(key="train.specials").value, at.text_input(key="train.name").value) == ("<|end|>", DRAFT["name"])


def train_again(at: AppTest) -> AppTest:
    at.button(key="train.go").click().run()
    assert not at.exception
    assert any(f"Trained **{md(DRAFT['name'])}**" in s.value for s in at.success), [s.value for s in at.success]
    assert SAID not in [w.value for w in at.warning]
    return at


def test_local_mode_gives_back_a_training_cut_off_by_a_dead_process(workspace):
    died_while_training(f"from classroom.stores import FolderStore\nstore = FolderStore({str(workspace)!r})")
    at = train_page()
    check_restored(at)
    at.run()  # still said until the student trains again
    assert SAID in [w.value for w in at.warning]
    train_again(at)
    assert FolderStore(workspace).interrupted_training() is None
    assert SAID not in [w.value for w in train_page().warning]  # said once, not in every later session


def test_a_training_that_ends_leaves_no_draft_and_one_still_running_is_not_said(workspace):
    at = train_page()
    at.segmented_control(key="train.source").set_value("paste").run()
    at.text_area(key="train.paste").input(TEXT)
    at.selectbox(key="train.pattern").set_value("none")
    at.number_input(key="train.vocab_size").set_value(270)
    at.run()
    at.button(key="train.go").click().run()
    assert not at.exception and at.success
    assert FolderStore(workspace)._get_training() is None
    FolderStore(workspace).training_started(DRAFT)  # another tab's training, running in this very process
    assert SAID not in [w.value for w in train_page().warning]


def test_a_dead_process_is_told_apart_from_a_live_one_with_the_same_pid():
    assert stores.still_running(stores.PROCESS, 0.0)
    host = socket.gethostname()
    assert not stores.still_running(f"{host}:{os.getpid()}:0", 0.0)  # this pid, started at another time: reused
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    assert not stores.still_running(f"{host}:{int(gone.stdout)}:1", 0.0)
    # on another machine it cannot be checked: cut off once it is older than any training
    assert stores.still_running("elsewhere:7:1", 100.0, now=200.0)
    assert not stores.still_running("elsewhere:7:1", 100.0, now=100.0 + stores.OTHER_MACHINE_SECONDS + 1)


@pytest.fixture
def alice(shared, monkeypatch):
    monkeypatch.setattr(identity, "browser_key", lambda: ALICE)
    return shared


def test_shared_mode_gives_back_a_training_cut_off_by_a_dead_process(alice, monkeypatch):
    died_while_training(
        "from classroom.database import Database, DatabaseStore, owner_of\n"
        f"store = DatabaseStore(Database({alice!r}), owner_of({ALICE!r}))"
    )
    at = train_page()
    check_restored(at)
    train_again(at)
    monkeypatch.setattr(identity, "browser_key", lambda: "b" * 32)
    assert SAID not in [w.value for w in train_page().warning]  # another browser never sees it
    monkeypatch.setattr(identity, "browser_key", lambda: ALICE)
    assert SAID not in [w.value for w in train_page().warning]
    db = database.Database(alice)
    assert db.query("SELECT count(*) FROM trainings") == [(0,)]
    db.close()


def test_a_variants_training_cut_off_is_said_without_promising_its_settings(workspace):
    died_while_training(
        f"from classroom.stores import FolderStore\nstore = FolderStore({str(workspace)!r})",
        {"title": "parity one", "method": "parity"},
    )
    at = train_page()
    said = [w.value for w in at.warning if "was interrupted" in w.value]
    assert said == [
        "Your training of **parity one** was interrupted (the server restarted); pick its texts and settings again to "
        "run it again."
    ]
