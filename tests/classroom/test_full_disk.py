"""Every write the app makes meets a full or read-only disk with a message, never a traceback: the static folder
at start-up and `make serve`'s copy of Streamlit's static files for nginx (one line, exit status 2), the
workspace folder of local mode (the training kept, the page told).

Real small filesystems (tests/classroom/damage.py), mounted as root as `make test` runs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from classroom.stores import FolderStore
from tokenizer import train
from ui.web import model as web

from .damage import corpus, fill, read_only, small_disk

ROOT = Path(__file__).resolve().parents[2]


def start(env: dict) -> subprocess.CompletedProcess:
    """serve.py's start-up (``classroom.asgi.start``) in a process of its own."""
    code = "from classroom import asgi; asgi.start()"
    full = dict(os.environ, BPE_LAB_SHARED="0", **env)
    return subprocess.run([sys.executable, "-c", code], env=full, cwd=ROOT, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("how", ["full", "full_after_a_start", "read_only"])
def test_start_up_with_a_static_folder_it_cannot_write_is_one_line_and_status_2(how, tmp_path):
    with small_disk(tmp_path / "static", "1m") as disk:
        if how == "full_after_a_start":
            web.publish_assets(disk)  # what an earlier start left: the modules are there, the room is not
        if how.startswith("full"):
            fill(disk)
        else:
            read_only(disk)
        out = start({"BPE_LAB_STATIC_DIR": str(disk), "BPE_LAB_WORKSPACE": str(tmp_path / "ws")})
        assert out.returncode == 2, out.stderr[-2000:]
        [line] = out.stderr.strip().splitlines()
        assert line.startswith(f"BPE Lab: cannot write the static folder {disk / 'bpe'} (")
        says = "No space left on device" if how.startswith("full") else "Read-only file system"
        assert says in line and "free some space" in line and "Traceback" not in out.stderr


@pytest.mark.parametrize("how", ["full", "read_only"])
def test_make_serve_with_a_static_copy_it_cannot_write_is_one_line_and_status_2(how):
    # nginx's files go to the data folder only when its unprivileged workers can reach it, so not under tmp_path
    data = Path(tempfile.mkdtemp(prefix="bpe-lab-full-"))
    try:
        data.chmod(0o755)
        for name in ("tiktoken-cache", "cache", "encodings"):
            if (ROOT / "data" / name).exists():
                (data / name).symlink_to(ROOT / "data" / name)
        with small_disk(data / "static", "1m") as disk:
            fill(disk) if how == "full" else read_only(disk)
            env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "BPE_LAB_DATABASE_URL")}
            env.update(BPE_LAB_DATA_DIR=str(data), PORT="18597", WORKERS="1")
            out = subprocess.run(
                [sys.executable, "-m", "classroom"], env=env, cwd=ROOT, capture_output=True, text=True, timeout=300
            )
            assert out.returncode == 2, out.stderr[-2000:]
            [line] = out.stderr.strip().splitlines()
            assert line.startswith(f"BPE Lab: cannot write the copy of Streamlit's static files nginx serves in {disk} ("), line
            says = "No space left on device" if how == "full" else "Read-only file system"
            assert says in line and "free some space" in line, line
            assert "Traceback" not in out.stderr
            assert not [p for p in disk.iterdir() if p.name != "filler"]  # no half copy left to fill the disk
    finally:
        shutil.rmtree(data, ignore_errors=True)


def test_a_workspace_folder_that_fills_up_keeps_the_training_and_says_so(tmp_path):
    with small_disk(tmp_path / "ws", "1m") as disk:
        store = FolderStore(disk)
        kept = store.add(train(corpus(1, 300), 260, name="kept"), corpus=corpus(1, 300))
        fill(disk)
        text = corpus(2, 20000)
        key = store.add(train(corpus(2, 500), 270, name="meanwhile"), corpus=text)
        why = store.unsaved(key)
        assert why is not None and "cannot be saved right now" in why and "No space left on device" in why, why
        assert store.unsaved(kept) is None
        assert sorted(e.name for e in store.entries()) == ["kept", "meanwhile"]
        assert store.get(key).name == "meanwhile" and store.corpus(key) == text
        assert store.training_trace(key) is not None  # Step through works on it
        [notice] = store.notices()
        assert notice.kind == "warning" and "Not saved: meanwhile" in notice.message
        assert sorted(p.name for p in disk.iterdir() if p.name != "filler") == sorted(
            [f"{kept}.json", f"{kept}.corpus.txt"]
        )  # nothing half-written left behind
        (disk / "filler").unlink()
        later = store.add(train(corpus(3, 300), 260, name="later"))
        assert store.unsaved(later) is None and (disk / f"{later}.json").exists()
        store.rename(key, "renamed")
        assert store.get(key).name == "renamed"
        store.delete(key)
        assert store.notices() == [] and sorted(e.name for e in store.entries()) == ["kept", "later"]


def test_a_read_only_workspace_folder_keeps_the_training_and_says_so(tmp_path):
    with small_disk(tmp_path / "ws", "1m") as disk:
        store = FolderStore(disk)
        read_only(disk)
        key = store.add(train(corpus(2, 500), 270, name="meanwhile"), corpus=corpus(2, 500))
        assert "Read-only file system" in store.unsaved(key)
        assert [e.name for e in store.entries()] == ["meanwhile"]
