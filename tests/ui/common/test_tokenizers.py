"""ui/common/tokenizers.py: ``get`` shows its loading spinner only until an official encoding is loaded."""

from __future__ import annotations

import contextlib

import pytest

from ui.common import tokenizers as tk


def test_get_shows_the_loading_spinner_only_until_the_encoding_is_loaded(monkeypatch):
    if not tk.available("r50k_base"):
        pytest.skip("r50k_base is not provisioned")
    shown = []

    @contextlib.contextmanager
    def spinner(text, **kwargs):
        shown.append(text)
        yield

    monkeypatch.setattr(tk.st, "spinner", spinner)
    monkeypatch.setattr(tk, "_LOADED", set())
    first = tk.get("r50k_base")
    assert len(shown) == 1 and shown[0].startswith(f"Loading {tk.OFFICIAL['r50k_base']}")
    assert tk.get("r50k_base") is first and tk.get("r50k_base") is tk.official("r50k_base")
    assert len(shown) == 1  # loaded: no spinner (and no timer thread) any more
    assert tk._LOADED == {"r50k_base"}
