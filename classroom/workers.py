"""Training in worker processes, so one student's training never stalls another student's page.

An app process runs every session's script on a thread of its own, but Python runs
one thread at a time: a training (pure Python) holds up every rerun of every other
session in that process while it runs (the load test's figures: docs/performance.md).
Here a training runs in a separate process (a small pool per app
process, ``BPE_LAB_TRAIN_WORKERS``, default 2 in shared mode and 0, in the session's
own thread, in local mode); the session's thread only waits, which leaves the
interpreter to the other sessions, and shows the worker's progress.

Plain Python (no Streamlit): a worker is ``python -m classroom.workers``, which imports
this module, ``tokenizer`` and ``ui.common.training`` (plain Python) only, and reads
tasks from its stdin (length-prefixed pickles: the method, the text and the settings)
and writes progress and the trained tokenizer to its stdout. (Not ``multiprocessing``: its spawned children import the parent's
``__main__``, which under Streamlit is the page script.) The pool is created on first
use, once per app process (a lock guards it), holds no user data between trainings,
and starts a worker again when one dies. A training is stopped (its worker killed) when it
runs past ``BPE_LAB_TRAIN_SECONDS`` (default 300), or when its page is gone: the session's
thread passes the last progress to the page again every ``HEARTBEAT`` seconds, and
Streamlit raises its stop exception there for a closed tab or a rerun. Workers run at a lower priority (``NICE``, 5), so
a rerun that overlaps trainings gets the processor first. The pages reach it through
``ui.common.training``, where ``classroom.workspaces.configure`` installs ``runner(size)``.
"""

from __future__ import annotations

import os
import pickle
import queue
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from classroom import settings
from tokenizer import Tokenizer
from tokenizer.bpe.methods import train_with
from ui.common.training import resolved

WORKERS_ENV = "BPE_LAB_TRAIN_WORKERS"
SECONDS_ENV = "BPE_LAB_TRAIN_SECONDS"
#: Seconds between two progress calls while a worker says nothing: how soon a closed tab's training is stopped.
HEARTBEAT = 0.5
ROOT = Path(__file__).resolve().parents[1]
_HEADER = struct.Struct("!I")


def configured_workers(shared: bool) -> int:
    """``$BPE_LAB_TRAIN_WORKERS``, else 2 on a shared server and 0 (train in the session's thread) locally.

    >>> configured_workers(True), configured_workers(False)
    (2, 0)
    """
    return settings.number(WORKERS_ENV, default=2 if shared else 0)


def configured_seconds() -> float:
    """``$BPE_LAB_TRAIN_SECONDS``, else 300: how long one training may run.

    >>> configured_seconds()
    300
    """
    return settings.number(SECONDS_ENV, default=300)


class TrainingTimeout(ValueError):
    """A training stopped at the server's time limit."""

    def __init__(self, seconds: float):
        super().__init__(
            f"the training took longer than {seconds:g} s, this server's limit for one training, and was stopped: "
            "train on a shorter text or to a smaller vocabulary (the teacher can raise the limit: BPE_LAB_TRAIN_SECONDS)"
        )


# ----------------------------------------------------------------------------- the wire: length-prefixed pickles


def _send(stream, obj) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def _receive(stream):
    head = stream.read(_HEADER.size)
    if len(head) < _HEADER.size:
        raise EOFError
    (n,) = _HEADER.unpack(head)
    data = stream.read(n)
    if len(data) < n:
        raise EOFError
    return pickle.loads(data)  # from our own worker process, never from a user


# ----------------------------------------------------------------------------- the worker process


def serve(stdin=None, stdout=None) -> None:
    """A worker's loop (``python -m classroom.workers``): a task in, progress and the result out, until stdin closes."""
    stdin = stdin or sys.stdin.buffer
    stdout = stdout or sys.stdout.buffer
    while True:
        try:
            task = _receive(stdin)
        except EOFError:
            return
        text, vocab_size, kwargs = task
        method = kwargs.pop("method", "bpe")

        def progress(done: int, total: int) -> None:
            _send(stdout, ("progress", done, total))

        try:
            tok = train_with(method, text, vocab_size, progress=progress, **resolved(kwargs))
        except ValueError as e:
            _send(stdout, ("error", str(e)))
            continue
        _send(stdout, ("done", tok))


class _Worker:
    def __init__(self) -> None:
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "classroom.workers"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )

    def alive(self) -> bool:
        return self.proc.poll() is None

    def run(self, task, progress, seconds: float | None = None) -> Tokenizer:
        """The task's result; TrainingTimeout after ``seconds``; whatever ``progress`` raises (the caller kills the worker)."""
        deadline = None if seconds is None else time.monotonic() + seconds
        inbox: queue.Queue = queue.Queue()
        stdout = self.proc.stdout

        def read() -> None:  # the pipe in a thread of its own, so the wait below can look at the clock
            try:
                while True:
                    message = _receive(stdout)
                    inbox.put(message)
                    if message[0] != "progress":
                        return
            except BaseException as e:  # the worker died, or was killed by the caller
                inbox.put(("lost", e))

        _send(self.proc.stdin, task)
        threading.Thread(target=read, name="bpe-lab-training-reader", daemon=True).start()
        last = None
        while True:
            wait = HEARTBEAT if deadline is None else max(0.0, min(HEARTBEAT, deadline - time.monotonic()))
            try:
                kind, *rest = inbox.get(timeout=wait)
            except queue.Empty:
                if deadline is not None and time.monotonic() >= deadline:
                    raise TrainingTimeout(seconds) from None
                if progress is not None and last is not None:
                    progress(*last)  # Streamlit raises its stop exception here when the page is gone
                continue
            if kind == "progress":
                last = rest
                if progress is not None:
                    progress(*rest)
            elif kind == "lost":
                raise rest[0]
            elif kind == "error":
                raise ValueError(rest[0])
            else:
                return rest[0]

    def stop(self) -> None:
        try:
            self.proc.stdin.close()
            self.proc.wait(5)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()

    def kill(self) -> None:
        """Stop it now, whatever it is doing (its output is not to be read by anyone)."""
        self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except OSError:
                pass


class Pool:
    """``size`` worker processes, started when first needed and again when one dies; one training each at a time."""

    def __init__(self, size: int, seconds: float | None = None):
        self.size = size
        self.seconds = seconds  # the longest a training may run (None: no limit)
        self._idle: queue.Queue[_Worker | None] = queue.Queue()
        for _ in range(size):
            self._idle.put(None)  # a place for a worker, started on first use

    def start(self) -> None:
        """Start every worker now (at warm-up), so no student waits for a Python to start."""
        started = []
        while not self._idle.empty():
            w = self._idle.get_nowait()
            started.append(w if w is not None and w.alive() else _Worker())
        for w in started:
            self._idle.put(w)

    def train(self, task, progress) -> Tokenizer:
        worker = self._idle.get()  # waits while every worker is busy
        try:
            if worker is None or not worker.alive():
                worker = _Worker()
            try:
                return worker.run(task, progress, self.seconds)
            except TrainingTimeout:
                worker.kill()  # still training: its output is nobody's now
                worker = None
                raise
            except (EOFError, OSError, pickle.UnpicklingError):
                worker.kill()
                worker = None
                raise ValueError("the training process stopped unexpectedly (out of memory?); press Train again") from None
            except BaseException:
                # Interrupted mid-task, most often by Streamlit itself: a rerun or a closed tab raises its control
                # exception (a BaseException) out of the progress callback. The worker still has this task's
                # progress and result to send; back in the pool, the next task (maybe another browser's) would
                # read them as its own. So it is killed and a fresh one takes its place.
                worker.kill()
                worker = None
                raise
        finally:
            self._idle.put(worker)

    def close(self) -> None:
        while not self._idle.empty():
            w = self._idle.get_nowait()
            if w is not None:
                w.stop()


_lock = threading.Lock()
_pools: dict[int, Pool] = {}


def pool(size: int) -> Pool:
    """The app process's pool of ``size`` workers (one per process, created on first use)."""
    with _lock:
        if size not in _pools:
            _pools[size] = Pool(size, configured_seconds())
        return _pools[size]


def runner(size: int) -> Callable[..., Tokenizer]:
    """A training runner for ``ui.common.training``: ``train_with`` (any method) in this process's pool of ``size`` workers.

    The same result as training here (the tokenizer and its training trace come back whole);
    a ValueError from training (a bad vocab size, a catastrophic regex) is raised here with its message.
    """

    def train(
        text,
        vocab_size: int,
        *,
        method: str = "bpe",
        special_tokens: Sequence[str] | None = None,
        progress: Callable[[int, int], object] | None = None,
        **settings,
    ) -> Tokenizer:
        kwargs = {"special_tokens": list(special_tokens) if special_tokens else None, **settings, "method": method}
        return pool(size).train((text, vocab_size, kwargs), progress)

    return train


#: Niceness of a training process: the app processes' reruns (what students wait for, a fraction of a second each) get the
#: cores first, and a training (seconds, with a progress bar) takes what is left.
NICE = 5

if __name__ == "__main__":
    try:
        os.nice(NICE)
    except OSError:
        pass
    serve()
