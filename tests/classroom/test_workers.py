"""classroom/workers.py: training in a worker process gives what training here gives, progress included."""

from __future__ import annotations

import random

import pytest

from classroom import workers
from tokenizer import train

TEXT = "the cat in the hat sat on the mat; the cat ate the rat. " * 40


def test_a_worker_trains_exactly_what_training_here_gives():
    here = train(TEXT, 300, pattern="gpt4", special_tokens=["<|endoftext|>"], name="here")
    seen = []
    there = workers.runner(1)(
        TEXT, 300, pattern="gpt4", special_tokens=["<|endoftext|>"], name="here", progress=lambda d, t: seen.append((d, t))
    )
    assert there.merges == here.merges and there.special_tokens == here.special_tokens and there.name == "here"
    assert there.training.tokens_after == here.training.tokens_after  # the trace comes back whole
    assert there.encode("the cat sat") == here.encode("the cat sat")
    assert seen and seen[-1] == (44, 44) and all(t == 44 and 0 <= d <= t for d, t in seen)


def test_errors_come_back_as_they_are():
    with pytest.raises(ValueError, match="vocab_size must be at least 256"):
        workers.runner(1)(TEXT, 100, pattern=None)
    assert workers.runner(1)(TEXT, 260, pattern=None).num_merges == 4  # the pool still works


def test_no_workers_means_this_thread(monkeypatch):
    from classroom import workspaces
    from ui.common import training

    monkeypatch.setenv(workers.WORKERS_ENV, "0")
    assert workers.configured_workers(True) == 0
    workspaces.configure(shared=True)
    try:
        assert training._runner is training.here  # the page's own thread
        assert training.train(TEXT, 260, pattern=None).num_merges == 4
        monkeypatch.setenv(workers.WORKERS_ENV, "1")
        workspaces.configure(shared=True)
        assert training._runner is not training.here
        assert training.train(TEXT, 260, pattern=None).merges == train(TEXT, 260, pattern=None).merges
    finally:
        workspaces.unconfigure()
    monkeypatch.setenv(workers.WORKERS_ENV, "two")
    with pytest.raises(ValueError, match="must be a whole number"):
        workers.configured_workers(True)


def test_a_worker_that_dies_mid_training_is_a_message_and_the_pool_goes_on():
    import os
    import signal
    import threading

    pool = workers.Pool(1)
    pool.start()
    worker = pool._idle.get()
    pool._idle.put(worker)
    started = threading.Event()
    outcome: list = []

    def go():
        big = " ".join(f"w{i % 997}x{i % 13}" for i in range(60_000))  # long enough to be killed while it trains
        try:
            pool.train((big, 2000, {"pattern": "gpt4", "special_tokens": None, "name": ""}), lambda d, t: started.set())
        except ValueError as e:
            outcome.append(str(e))

    t = threading.Thread(target=go)
    t.start()
    assert started.wait(60)
    os.kill(worker.proc.pid, signal.SIGKILL)
    t.join(60)
    assert outcome and "the training process stopped unexpectedly" in outcome[0]
    assert pool.train(("abab abab", 257, {"pattern": None, "special_tokens": None, "name": ""}), None).num_merges == 1
    # a worker that died while idle is replaced without a word
    idle = pool._idle.get()
    pool._idle.put(idle)
    os.kill(idle.proc.pid, signal.SIGKILL)
    idle.proc.wait()
    assert pool.train(("abab abab", 257, {"pattern": None, "special_tokens": None, "name": ""}), None).num_merges == 1
    pool.close()


def test_start_runs_the_workers_before_the_first_training():
    pool = workers.Pool(2)
    pool.start()
    running = [pool._idle.get() for _ in range(2)]
    assert all(w is not None and w.alive() for w in running)
    for w in running:
        pool._idle.put(w)
    assert pool.train(("abab abab", 257, {"pattern": None, "special_tokens": None, "name": "x"}), None).num_merges == 1
    pool.close()
    assert all(not w.alive() for w in running)


class Interrupted(BaseException):
    """What Streamlit raises out of a page's st.* call when a rerun or a closed tab stops the script."""


def test_a_training_interrupted_by_the_page_never_hands_its_result_to_the_next_one():
    pool = workers.Pool(1)
    pool.start()
    big = " ".join(f"w{i % 997}x{i % 13}" for i in range(20_000))

    def interrupt(done, total):
        raise Interrupted

    with pytest.raises(Interrupted):
        pool.train((big, 1200, {"pattern": "gpt4", "special_tokens": None, "name": "first"}), interrupt)
    second = pool.train(("abab abab", 257, {"pattern": None, "special_tokens": None, "name": "second"}), None)
    assert second.name == "second" and second.num_merges == 1
    assert second.encode("abab") == train("abab abab", 257).encode("abab")
    pool.close()


def test_a_worker_trains_every_variant_as_training_here_does():
    from tokenizer.bpe.methods import train_with

    texts = {"English": "the cat sat on the mat " * 5, "German": "die Katze sitzt auf der Matte " * 5}
    base = train(TEXT, 300, pattern="gpt4")
    cases = [
        ("parity", texts, 290, {"pattern": "gpt4", "global_merges": 2}),
        ("superwords", TEXT, 320, {"pattern": "gpt4", "transition": 290}),
        ("continued", TEXT + " the bat", base.n_vocab + 10, {"base": base}),
    ]
    for method, text, size, settings in cases:
        here = train_with(method, text, size, name="x", **settings)
        seen: list = []
        there = workers.runner(1)(
            text, size, method=method, name="x", progress=lambda d, t, seen=seen: seen.append((d, t)), **settings
        )
        assert there.merges == here.merges and there.metadata["training"] == here.metadata["training"], method
        assert type(there.training) is type(here.training) and there.training.tokens_after == here.training.tokens_after
        assert seen and seen[-1][0] == seen[-1][1]


@pytest.mark.slow
def test_a_registered_base_travels_to_the_worker_by_name():
    from tokenizer import load_encoding
    from tokenizer.bpe.continued import train_continued
    from ui.common import training

    base = load_encoding("r50k_base")
    assert training.resolved({"base": "r50k_base", "name": "x"})["base"] is base  # one per process
    assert training.resolved({"name": "x"}) == {"name": "x"}
    there = workers.runner(1)(TEXT, base.n_vocab + 5, method="continued", base="r50k_base", name="x")
    assert there.merges == train_continued(TEXT, base.n_vocab + 5, base=base, name="x").merges


def test_a_training_past_the_time_limit_is_stopped_and_the_pool_goes_on():
    pool = workers.Pool(1, seconds=1)
    rng = random.Random(0)  # words of random letters: thousands of merges to make, many seconds of training
    big = " ".join("".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=rng.randint(3, 12))) for _ in range(200_000))
    seen: list = []
    with pytest.raises(workers.TrainingTimeout, match="longer than 1 s.*BPE_LAB_TRAIN_SECONDS"):
        pool.train((big, 5000, {"pattern": "gpt4", "special_tokens": None, "name": ""}), lambda d, t: seen.append(d))
    stopped = pool._idle.get()
    assert stopped is None  # the worker was killed, not put back still training
    pool._idle.put(stopped)
    pool.seconds = 120  # the next worker's start-up (a Python importing BPE Lab) counts too: a busy machine takes seconds
    assert pool.train(("abab abab", 257, {"pattern": None, "special_tokens": None, "name": "next"}), None).num_merges == 1
    pool.close()


class _SilentWorker(workers._Worker):
    """A worker that reports the start of its training and then says nothing for a long time (as a slow phase does)."""

    def __init__(self) -> None:
        import subprocess
        import sys

        script = (
            "import pickle, struct, sys, time\n"
            "sys.stdin.buffer.read(4)\n"
            "data = pickle.dumps(('progress', 0, 44))\n"
            "sys.stdout.buffer.write(struct.pack('!I', len(data)) + data); sys.stdout.buffer.flush()\n"
            "time.sleep(30)\n"
        )
        self.proc = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def test_a_training_whose_page_is_gone_is_stopped_though_the_worker_says_nothing(monkeypatch):
    monkeypatch.setattr(workers, "_Worker", _SilentWorker)
    pool = workers.Pool(1)
    calls: list = []

    def page(done, total):  # the page's progress bar: Streamlit raises here once the tab is closed
        calls.append((done, total))
        if len(calls) > 1:
            raise Interrupted

    with pytest.raises(Interrupted):
        pool.train(("text", 300, {"pattern": None, "special_tokens": None, "name": ""}), page)
    assert calls == [(0, 44), (0, 44)]  # the last progress again, while the worker was silent
    assert pool._idle.get() is None  # and the worker was killed, not kept busy
