"""The processes of a running `make serve` (`python -m classroom`): its supervisord and the programs it runs."""

from __future__ import annotations

import subprocess


def children(pid: int) -> list[tuple[int, str]]:
    """``(pid, command line)`` of each child of ``pid``."""
    out = subprocess.run(["ps", "-ww", "-o", "pid=,args=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return [(int(p), args) for p, _, args in (line.strip().partition(" ") for line in out.strip().splitlines())]


def programs(classroom_pid: int) -> dict[str, list[int]]:
    """The programs supervisord runs for the command ``classroom_pid``, by kind: ``{"app": [...], "nginx": [...], "other": [...]}``
    (an nginx master's workers are its own children, so not listed)."""
    kids: dict[str, list[int]] = {"app": [], "nginx": [], "other": []}
    for sup, args in children(classroom_pid):
        if "supervisord" not in args:
            continue
        for pid, cmd in children(sup):
            kind = (
                "other" if "classroom.events" in cmd else "app" if "serve.py" in cmd else "nginx" if "nginx" in cmd else "other"
            )
            kids[kind].append(pid)
    return kids


def group(pgid: int) -> list[int]:
    """The live (not zombie) processes of a process group: an nginx master and its workers, an app and its pool."""
    out = subprocess.run(["ps", "-e", "-o", "pid=,pgid=,stat="], capture_output=True, text=True).stdout
    return [int(p) for p, g, stat in (line.split() for line in out.strip().splitlines()) if int(g) == pgid and "Z" not in stat]
