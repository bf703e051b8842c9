"""A real PostgreSQL server for the tests: Debian's binaries, a fresh cluster in a temporary folder, a free port.

Never a mock. ``PostgresServer().start()`` runs ``initdb`` and ``pg_ctl start``
(as the ``postgres`` user when the tests run as root, since PostgreSQL refuses
root); ``stop()`` stops it and removes the folder. ``make test`` installs the
``postgresql`` package when its binaries are missing.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path


def binaries() -> Path | None:
    """Debian keeps the server's programs in /usr/lib/postgresql/<version>/bin; the newest one found."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[4]) if Path(p).parts[4].isdigit() else 0
    )
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).resolve().parent if initdb else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PostgresServer:
    def __init__(self) -> None:
        self.bin = binaries()
        if self.bin is None:
            raise RuntimeError("PostgreSQL's server programs are missing: run `make postgres` (apt-get install postgresql)")
        self.port = _free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="bpe-lab-pg-"))
        self.data = self.dir / "data"
        self.log = self.dir / "server.log"
        self.user = "bpe"
        self.url = f"postgresql://{self.user}@127.0.0.1:{self.port}/postgres"
        self._as: list[str] = []
        if os.geteuid() == 0:
            self._as = ["runuser", "-u", "postgres", "--"]
            shutil.chown(self.dir, "postgres", "postgres")

    def _run(self, *cmd: str, check: bool = True) -> subprocess.CompletedProcess:
        return subprocess.run([*self._as, *cmd], capture_output=True, text=True, check=check, stdin=subprocess.DEVNULL)

    def start(self) -> PostgresServer:
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-U", self.user, "--auth=trust", "-E", "UTF8", "--no-sync")
        out = self._run(
            str(self.bin / "pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.log),
            "-w",
            "-t",
            "60",
            "-o",
            f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off",
            "start",
            check=False,
        )
        if out.returncode != 0:
            raise RuntimeError(f"PostgreSQL did not start: {out.stderr}\n{self.log.read_text() if self.log.exists() else ''}")
        return self

    def restart(self) -> None:
        """Stop and start again on the same port (a database restart under a running app)."""
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")
        deadline = time.time() + 30
        while True:
            out = self._run(
                str(self.bin / "pg_ctl"),
                "-D",
                str(self.data),
                "-l",
                str(self.log),
                "-w",
                "-o",
                f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off",
                "start",
                check=False,
            )
            if out.returncode == 0 or time.time() > deadline:
                return
            time.sleep(0.5)

    def stop(self) -> None:
        if self.data.exists():
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop", check=False)
        shutil.rmtree(self.dir, ignore_errors=True)
