"""ui/common/workers.py: training in a worker process gives what training here gives, progress included."""

from __future__ import annotations

import pytest

from tokenizer import train
from ui.common import workers

TEXT = "the cat in the hat sat on the mat; the cat ate the rat. " * 40


def test_a_worker_trains_exactly_what_training_here_gives():
    here = train(TEXT, 300, pattern="gpt4", special_tokens=["<|endoftext|>"], name="here")
    seen = []
    there = workers.train(TEXT, 300, pattern="gpt4", special_tokens=["<|endoftext|>"], name="here",
                          progress=lambda d, t: seen.append((d, t)), workers=1)
    assert there.merges == here.merges and there.special_tokens == here.special_tokens and there.name == "here"
    assert there.training.tokens_after == here.training.tokens_after  # the trace comes back whole
    assert there.encode("the cat sat") == here.encode("the cat sat")
    assert seen and seen[-1] == (44, 44) and all(t == 44 and 0 <= d <= t for d, t in seen)


def test_errors_come_back_as_they_are():
    with pytest.raises(ValueError, match="vocab_size must be at least 256"):
        workers.train(TEXT, 100, pattern=None, workers=1)
    assert workers.train(TEXT, 260, pattern=None, workers=1).num_merges == 4  # the pool still works


def test_no_workers_means_this_thread(monkeypatch):
    monkeypatch.setenv(workers.WORKERS_ENV, "0")
    assert workers.configured_workers(True) == 0
    assert workers.train(TEXT, 260, pattern=None, workers=0).num_merges == 4
    monkeypatch.setenv(workers.WORKERS_ENV, "two")
    with pytest.raises(ValueError, match="must be a whole number"):
        workers.configured_workers(True)


def test_a_dead_worker_is_a_message_and_the_pool_comes_back():
    import os
    import signal

    pool = workers.pool(1)
    pool.train(("warm", 257, {"pattern": None, "special_tokens": None, "name": None}), None)
    worker = pool._idle.get()  # the pool's one worker, started by this test
    pool._idle.put(worker)
    os.kill(worker.proc.pid, signal.SIGKILL)
    with pytest.raises(ValueError, match="the training process stopped unexpectedly"):
        workers.train(TEXT, 300, pattern=None, workers=1)
    assert workers.train(TEXT, 260, pattern=None, workers=1).num_merges == 4
