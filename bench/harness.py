"""A real BPE Lab server and Debian's Chromium, for the benchmarks and the browser tests (which import this; it
imports nothing of theirs): `streamlit run` on a free port with a workspace of its own, Chromium's flags, and
waiting until a page is idle.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    # the pages of one site share a renderer process (tests/browser/conftest.py's ``tabs``): a new tab then starts
    # with the app's scripts already compiled
    "--process-per-site",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class StreamlitServer:
    """`streamlit run serve.py` (what `make run` starts; ``script``: another entry point) in a subprocess, with its own
    workspace folder and database."""

    def __init__(self, workspace: Path, shared: bool = False, script: str = "serve.py"):
        self.script = script
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.workspace = workspace
        self.shared = shared
        self.proc: subprocess.Popen | None = None
        self.log = workspace.parent / f"streamlit-{self.port}.log"

    def start(self) -> StreamlitServer:
        env = dict(os.environ)
        env["BPE_LAB_WORKSPACE"] = str(self.workspace)
        env["BPE_LAB_SHARED"] = "1" if self.shared else "0"
        env["BPE_LAB_DATABASE_URL"] = f"sqlite:///{self.workspace.parent / f'workspaces-{self.port}.sqlite3'}"  # never data/'s
        cmd = [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            str(ROOT / self.script),
            "--server.port",
            str(self.port),
            "--server.address",
            "127.0.0.1",
            "--server.headless",
            "true",
            "--browser.gatherUsageStats",
            "false",
            "--server.fileWatcherType",
            "none",
            "--server.runOnSave",
            "false",
        ]
        self._logf = open(self.log, "w")
        self.proc = subprocess.Popen(
            cmd, cwd=ROOT, env=env, stdout=self._logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
        )
        deadline = time.time() + 120  # serve.py loads the official encodings before it answers
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"streamlit exited early:\n{self.log.read_text()}")
            try:
                with urllib.request.urlopen(self.url + "/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        return self
            except OSError:
                time.sleep(0.3)
        raise RuntimeError(f"streamlit did not start in 120 s:\n{self.log.read_text()}")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self._logf.close()


def wait_idle(page, timeout: float = 30_000) -> None:
    """Wait until the app is rendered and no rerun is running.

    The status widget shows up only after a run has lasted a moment, so the app's own
    script state (``data-test-script-state`` on ``stApp``, what Streamlit's e2e tests
    read) is checked too: a long first run (loading the encodings) is not mistaken for idle.
    """
    page.wait_for_selector('[data-testid="stApp"]', timeout=timeout)
    page.wait_for_timeout(300)
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=timeout)
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=timeout)
    page.wait_for_timeout(200)
