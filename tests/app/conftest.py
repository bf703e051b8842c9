"""AppTest fixtures: every app test gets an empty workspace folder of its own, chosen as serve.py's start-up would."""

from __future__ import annotations

import pytest

from classroom import workspaces


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
