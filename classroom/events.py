"""supervisord's event listener for ``make serve`` (``python -m classroom.events``, started by supervisord itself).

Two events, through supervisor's own listener protocol (``supervisor.childutils``):

- ``PROCESS_STATE_EXITED``: a program died. Its process group (supervisord makes each
  program the leader of one) may still hold processes: a killed nginx master leaves workers
  that keep the port, a dead app process leaves its training workers. They are killed, so
  the program supervisord starts again finds the port free. The kernel does not reuse a
  group's id while a member lives, so this reaches only what that program started.
- ``PROCESS_STATE_FATAL``: supervisord gave up starting a program (it exited within its
  ``startsecs``, ``startretries`` times in a row). Why goes to the file ``--fatal``
  (``classroom.deploy`` prints it and exits with status 1) and supervisord is asked to stop
  everything. The same when a program that did start keeps dying: ``MAX_DEATHS`` unexpected
  exits within ``WINDOW`` seconds (supervisord itself would restart it forever).

What it did goes to stderr, one line each (supervisord writes it to ``events.log`` beside the programs' logs).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from pathlib import Path

from supervisor import childutils

#: A program that exits unexpectedly this many times within ``WINDOW`` seconds stops the command.
MAX_DEATHS, WINDOW = 5, 60.0


def tail(path: Path, n: int = 8) -> str:
    try:
        return "\n".join("    " + line for line in path.read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return ""


class Listener:
    def __init__(self, *, fatal: Path, logs: Path, supervisord: int):
        self.fatal, self.logs, self.supervisord = fatal, logs, supervisord
        self.deaths: dict[str, list[float]] = {}

    def handle(self, event: str, fields: dict[str, str], now: float) -> str | None:
        """Act on one event; returns the line to log, if any."""
        name = fields.get("processname", "?")
        if event == "PROCESS_STATE_EXITED":
            pid = int(fields.get("pid", "0") or 0)
            if pid > 1:
                try:
                    os.killpg(pid, signal.SIGKILL)  # what is left of its group (the leader itself is gone)
                except (ProcessLookupError, PermissionError):
                    pass
            if fields.get("expected") != "0":
                return None
            deaths = self.deaths[name] = [t for t in self.deaths.get(name, []) if now - t < WINDOW] + [now]
            if len(deaths) >= MAX_DEATHS:
                return self.stop(name, f"exited {len(deaths)} times within {WINDOW:.0f} s")
            return f"[classroom] {name} exited unexpectedly (pid {pid}); what was left of its process group is stopped"
        if event == "PROCESS_STATE_FATAL":
            return self.stop(name, "could not be started again (it exited right after starting, several times in a row)")
        return None

    def stop(self, name: str, why: str) -> str:
        log = self.logs / f"{name}.log"
        self.fatal.write_text(f"BPE Lab: {name} {why}; stopping everything. Its log: {log}\n{tail(log)}\n")
        os.kill(self.supervisord, signal.SIGTERM)
        return f"[classroom] {name} {why}: stopping everything"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fatal", type=Path, required=True)
    ap.add_argument("--logs", type=Path, required=True)
    args = ap.parse_args(argv)
    listener = Listener(fatal=args.fatal, logs=args.logs, supervisord=os.getppid())
    while True:
        headers, payload = childutils.listener.wait(sys.stdin, sys.stdout)
        line = listener.handle(headers["eventname"], childutils.get_headers(payload), time.monotonic())
        if line:
            print(line, file=sys.stderr, flush=True)
        childutils.listener.ok(sys.stdout)


if __name__ == "__main__":
    main()
