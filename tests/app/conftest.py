"""AppTest fixtures: every app test gets an empty workspace folder of its own, chosen as serve.py's start-up would."""

from __future__ import annotations

import pytest

from classroom import database, workspaces


@pytest.fixture(autouse=True)
def workspace(tmp_path, monkeypatch):
    """A fresh local-mode workspace (never the developer's data/workspace)."""
    ws = tmp_path / "ws"
    monkeypatch.setenv("BPE_LAB_WORKSPACE", str(ws))
    monkeypatch.setenv("BPE_LAB_SHARED", "0")
    monkeypatch.setenv("BPE_LAB_STATIC_DIR", str(tmp_path / "static"))  # the live Tokenize view's model files
    workspaces.configure(shared=False)
    yield ws
    workspaces.unconfigure()


def go_shared(monkeypatch, folder) -> str:
    """Shared mode on a fresh SQLite database in ``folder``, as serve.py's start-up would choose it; its URL."""
    url = f"sqlite:///{folder / 'ws.sqlite3'}"
    monkeypatch.setenv("BPE_LAB_SHARED", "1")
    monkeypatch.setenv("BPE_LAB_DATABASE_URL", url)
    database._last_purge.clear()
    workspaces.configure(shared=True)
    return url


@pytest.fixture
def shared(tmp_path, monkeypatch):
    """Shared mode for a test (its database URL); local mode again after it."""
    yield go_shared(monkeypatch, tmp_path)
    workspaces.unconfigure()
