"""A machine busy with other work, as a class server is: CPU-bound processes that stop by themselves."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import time
from collections.abc import Iterator


def _burn(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


@contextlib.contextmanager
def busy_machine(*, per_core: int = 3, seconds: float = 20.0) -> Iterator[None]:
    """Inside: ``per_core`` busy processes per core, each stopping after ``seconds`` at the latest, ended on leaving."""
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_burn, args=(seconds,), daemon=True) for _ in range(per_core * (os.cpu_count() or 1))]
    for p in procs:
        p.start()
    try:
        time.sleep(0.3)  # every one running before the work under test starts
        yield
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.join(5)
