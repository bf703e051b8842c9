"""Running a tokenizer.json's own regexes where a wall-time limit can stop them: worker processes.

``tokenizers`` runs a file's Split and Replace regexes with Oniguruma, which backtracks
without a time limit and holds the interpreter while it does, so a 4 KB file with a
pattern like ``(?:.|.){1,21}$`` would freeze the whole server for everyone on it. Such
files (any whose regexes are not ones BPE Lab vetted) encode in a worker process instead;
a call that outlives its time limit kills its worker and raises ValueError, and the next
call starts a new one.

A worker imports ``tokenizers`` and nothing of BPE Lab: the parent sends it the JSON of the
``tokenizers.Tokenizer`` to build (cached in the worker) and a text, and gets back what
``Tokenizer.encode`` gives. Messages are pickles behind an 8-byte length, on the worker's
stdin and stdout.

Shared between sessions: one small pool of workers per process (``pool()``); a worker
serves one call at a time and keeps no text between calls.

Run as a script, this file is the worker.
"""

from __future__ import annotations

import math
import os
import pickle
import select
import struct
import subprocess
import sys
import threading
import time

#: Worker processes per app process: a hostile file's calls can take at most this many cores
#: for a time limit each, while built-in models never use them.
POOL_SIZE = 2

_HEADER = struct.Struct("<Q")


class GuardTimeout(Exception):
    """A worker call outlived its time limit (the worker was killed)."""


class GuardError(Exception):
    """``tokenizers`` failed in the worker; the message is its reason."""


# ----------------------------------------------------------------------------- the parent's side


class _Worker:
    def __init__(self):
        env = {**os.environ, "TOKENIZERS_PARALLELISM": "false"}
        self.proc = subprocess.Popen(
            [sys.executable, "-u", os.path.abspath(__file__)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            close_fds=True,
        )

    def call(self, message: tuple, seconds: float):
        """The worker's answer to ``message`` within ``seconds`` of wall time, else GuardTimeout."""
        deadline = time.monotonic() + seconds
        # the worker's own alarm ends it a little after the deadline, should this process be gone by then
        data = pickle.dumps((math.ceil(max(seconds, 0)) + 5, *message), protocol=pickle.HIGHEST_PROTOCOL)
        try:
            self.proc.stdin.write(_HEADER.pack(len(data)) + data)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise GuardError("the worker process ended") from None
        out = self.proc.stdout
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([out], [], [], left)[0]:
            raise GuardTimeout
        head = out.read(_HEADER.size)  # the worker writes whole messages: once it starts, it finishes
        if len(head) < _HEADER.size:
            raise GuardError("the worker process ended")
        (n,) = _HEADER.unpack(head)
        status, value = pickle.loads(out.read(n))
        if status != "ok":
            raise GuardError(value)
        return value

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        try:
            self.proc.kill()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except OSError:
                pass


class Pool:
    """At most ``size`` workers; a call waits for a free one, and the wait counts against its limit."""

    def __init__(self, size: int = POOL_SIZE):
        self.size = size
        self._idle: list[_Worker] = []
        self._busy = 0
        self._cond = threading.Condition()

    def call(self, message: tuple, seconds: float):
        deadline = time.monotonic() + seconds
        worker = self._acquire(deadline)
        ok = False
        try:
            value = worker.call(message, deadline - time.monotonic())
            ok = True
            return value
        except GuardError:
            ok = worker.alive()
            raise
        finally:
            self._release(worker, keep=ok)

    def _acquire(self, deadline: float) -> _Worker:
        with self._cond:
            while not self._idle and self._busy >= self.size:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise GuardTimeout
                self._cond.wait(left)
            self._busy += 1
            worker = self._idle.pop() if self._idle else None
        if worker is not None and worker.alive():
            return worker
        try:
            return _Worker()
        except OSError as e:
            with self._cond:
                self._busy -= 1
                self._cond.notify()
            raise GuardError(f"cannot start a worker process ({e})") from None

    def _release(self, worker: _Worker, keep: bool) -> None:
        if not keep:
            worker.kill()
        with self._cond:
            self._busy -= 1
            if keep:
                self._idle.append(worker)
            self._cond.notify()

    def close(self) -> None:
        with self._cond:
            idle, self._idle = self._idle, []
        for w in idle:
            w.kill()


_POOL: Pool | None = None
_POOL_LOCK = threading.Lock()


def pool() -> Pool:
    """This process's pool of workers, made on first use."""
    global _POOL
    if _POOL is None:
        with _POOL_LOCK:
            if _POOL is None:
                _POOL = Pool()
    return _POOL


# ----------------------------------------------------------------------------- the worker's side


def _serve() -> None:  # pragma: no cover - runs in the worker process
    import signal

    # A regex holds the interpreter, so no Python can stop it here: SIGALRM's default action, set per call, ends
    # the process if the parent is gone and cannot kill it (an idle worker ends when its stdin closes). Not
    # PR_SET_PDEATHSIG: it fires when the *thread* that started the worker ends, and a page's run is a thread.
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    try:
        os.nice(5)  # the app processes' own work comes first
    except OSError:
        pass
    import tokenizers

    built: dict[tuple[str, bool], tokenizers.Tokenizer] = {}
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while True:
        head = stdin.read(_HEADER.size)
        if len(head) < _HEADER.size:
            return
        (n,) = _HEADER.unpack(head)
        alarm, op, doc, special_as_text, payload = pickle.loads(stdin.read(n))
        signal.alarm(alarm)
        try:
            tk = built.get((doc, special_as_text))
            if tk is None:
                tk = tokenizers.Tokenizer.from_str(doc)
                tk.no_truncation()
                tk.no_padding()
                if special_as_text:
                    tk.encode_special_tokens = True
                if len(built) >= 8:
                    built.clear()
                built[doc, special_as_text] = tk
            if op == "encode":
                out = []
                for text in payload:
                    enc = tk.encode(text, add_special_tokens=False)
                    out.append((enc.ids, enc.word_ids, enc.offsets))
                answer = ("ok", out)
            elif op == "normalize":
                norm = tk.normalizer
                answer = ("ok", [norm.normalize_str(t) if norm is not None else t for t in payload])
            else:
                answer = ("error", f"unknown operation {op!r}")
        except BaseException as e:  # pyo3's PanicException is a BaseException
            if isinstance(e, (KeyboardInterrupt, SystemExit)):
                raise
            answer = ("error", " ".join(str(e).split())[:300] or type(e).__name__)
        signal.alarm(0)
        data = pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)
        stdout.write(_HEADER.pack(len(data)) + data)
        stdout.flush()


if __name__ == "__main__":  # pragma: no cover
    sys.path.pop(0)  # this folder's modules (hf.py, patterns.py) are not the worker's
    _serve()
