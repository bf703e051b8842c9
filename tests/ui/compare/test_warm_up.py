"""ui/compare/view.warm_up (what serve.py runs before an app process answers): the first student to open Compare
finds every model it opens with loaded and the leaderboard's counts made."""

from __future__ import annotations

import pytest

import tokenizer
from ui.common import cache
from ui.common import tokenizers as tk
from ui.compare import model
from ui.compare import view as compare


@pytest.fixture(autouse=True)
def empty_shared_cache(monkeypatch, tmp_path):
    """A process-wide cache of its own, so what earlier tests counted cannot stand in for the warm-up; an empty
    workspace (the leaderboard's labels include the user's tokenizers), chosen as serve.py's start-up would."""
    from classroom import workspaces

    monkeypatch.setattr(cache, "_SHARED", cache.OwnerCache())
    monkeypatch.setenv("BPE_LAB_WORKSPACE", str(tmp_path / "ws"))
    workspaces.configure(shared=False)
    yield
    workspaces.unconfigure()


def test_after_warm_up_opening_compare_computes_no_leaderboard_count(monkeypatch):
    tokenizer.configure()
    compare.warm_up()
    keys = model.default_keys(None, available=tk.available)
    assert "llama3" in keys  # the open model Compare opens with is part of the warm-up, not only OpenAI's three

    def not_again(*args, **kwargs):
        raise AssertionError("counted again: the warm-up missed a model Compare opens with")

    monkeypatch.setattr(model, "sample_counts", not_again)
    board = compare.leaderboard([tk.choose(k) for k in keys])
    assert board["tokenizer"].nunique() == len(keys)  # a row per sample for each of the three


def test_a_model_outside_the_warm_up_is_counted_on_first_use(monkeypatch):
    """The check above can fail: a model nobody warmed is counted when Compare first needs it."""
    tokenizer.configure()
    compare.warm_up()
    calls = []
    real = model.sample_counts
    monkeypatch.setattr(model, "sample_counts", lambda tok, text: calls.append(tok) or real(tok, text))
    compare.leaderboard([tk.choose("p50k_base")])
    assert calls, "p50k_base was never warmed, so its counts must be computed here"


if __name__ == "__main__":
    pytest.main([__file__])
