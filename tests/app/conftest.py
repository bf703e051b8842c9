"""AppTest fixtures: every app test gets an empty workspace folder of its own."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def workspace(tmp_path, monkeypatch):
    """A fresh local-mode workspace (never the developer's data/workspace)."""
    ws = tmp_path / "ws"
    monkeypatch.setenv("BPE_LAB_WORKSPACE", str(ws))
    monkeypatch.setenv("BPE_LAB_SHARED", "0")
    monkeypatch.setenv("BPE_LAB_STATIC_DIR", str(tmp_path / "static"))  # the live Tokenize view's model files
    return ws
