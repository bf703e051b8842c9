"""``make serve``: BPE Lab for a class on one machine, N app processes behind nginx on one port.

    python deploy/classroom.py [--port 8501] [--workers N]        # what `make serve` runs
    python deploy/classroom.py --proxy-only --upstream app:8501    # the proxy alone (compose.yaml)
    python deploy/classroom.py --check-config                      # render the nginx config and run `nginx -t`

What it does, in the foreground:

1. Shared mode for every app process (``BPE_LAB_SHARED=1``); the database
   (``DATABASE_URL``, else SQLite in the data folder) is opened once first: if it
   cannot be, one line on stderr and exit status 2.
2. Streamlit's static assets are copied once per Streamlit version to
   ``data/static/<version>/`` with a gzip copy of every text file next to it, so nginx
   serves them precompressed.
3. ``WORKERS`` app processes (default: the number of cores), each
   ``streamlit run serve.py`` on a port of its own on 127.0.0.1; each loads the official
   encodings before it answers its health check.
4. nginx (Debian's package) on ``PORT`` with the config rendered from
   ``deploy/nginx.conf.in``: static assets, compression, per-browser affinity, websockets.
5. Supervision: an app process or nginx that exits is started again (its log line says
   so), after what is left of its process group is killed (a killed nginx master leaves
   workers that hold the port), after a pause that grows when it keeps failing; if one fails five times within
   a minute the command stops everything and exits with status 1 and a message that
   says which and where its log is. SIGINT (Ctrl+C) and SIGTERM stop every process it
   started (SIGTERM, then SIGKILL after ten seconds) and it exits with status 0.
   Children also get SIGTERM if this process itself is killed (``PR_SET_PDEATHSIG``).

Logs: ``data/run/classroom-<port>/`` (one file per app process, nginx's error log).
"""

from __future__ import annotations

import argparse
import ctypes
import gzip
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "deploy" / "nginx.conf.in"
#: the app's static folder (Streamlit's enableStaticServing: static/ next to serve.py)
APP_STATIC = ROOT / "static"
NGINX_CANDIDATES = ("/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx")
MIME_TYPES = "/etc/nginx/mime.types"
COMPRESSIBLE = (".js", ".css", ".html", ".json", ".svg", ".txt", ".map", ".ttf", ".wasm", ".mjs")
#: A process that fails this often within ``WINDOW`` seconds is given up on.
MAX_FAILS, WINDOW = 5, 60.0
#: The upload limit (10 MB in .streamlit/config.toml) plus room for the form's framing.
MAX_BODY = "12m"


def say(msg: str) -> None:
    print(f"[classroom] {msg}", file=sys.stderr, flush=True)


def data_dir() -> Path:
    env = os.environ.get("BPE_LAB_DATA_DIR")
    return Path(env) if env else ROOT / "data"


def world_traversable(path: Path) -> bool:
    """Whether every folder down to ``path`` lets other users through (nginx's workers run as ``nobody`` under root)."""
    path = path.resolve()
    return all(p.stat().st_mode & 0o001 for p in [path, *path.parents] if p.exists())


def nginx_root() -> Path:
    """Where nginx's files go (its config, temporary files, the static assets it serves).

    The data folder when nginx's unprivileged workers can reach it; under root with a
    private data folder (a clone in /root), a folder of the system's temporary
    directory instead.
    """
    if os.geteuid() != 0 or world_traversable(data_dir()):
        return data_dir()
    alt = Path(tempfile.gettempdir()) / "bpe-lab-nginx"
    alt.mkdir(exist_ok=True)
    alt.chmod(0o755)
    return alt


def nginx_binary() -> str:
    for c in NGINX_CANDIDATES:
        if os.access(c, os.X_OK):
            return c
    found = shutil.which("nginx")
    if not found:
        raise SystemExit("BPE Lab: nginx is not installed: run `make nginx` (apt-get install nginx), then `make serve` again")
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ----------------------------------------------------------------------------- static assets


def streamlit_static() -> tuple[Path, str]:
    """The installed Streamlit's static folder and its version (without importing the app)."""
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import streamlit, pathlib; print(streamlit.__version__); print(pathlib.Path(streamlit.__file__).parent / 'static')",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    return Path(out[1].strip()), out[0].strip()


def prepare_static(dest_root: Path) -> Path:
    """A copy of Streamlit's static folder with ``.gz`` next to each text file (once per Streamlit version)."""
    src, version = streamlit_static()
    dest = dest_root / version
    done = dest / ".complete"
    if done.exists():
        return dest
    tmp = dest_root / f".{version}.{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(src, tmp)
    for path in tmp.rglob("*"):
        if path.is_file() and path.suffix in COMPRESSIBLE and path.stat().st_size >= 1024:
            data = path.read_bytes()
            packed = gzip.compress(data, 9, mtime=0)
            if len(packed) < len(data):
                path.with_name(path.name + ".gz").write_bytes(packed)
                os.utime(path.with_name(path.name + ".gz"), ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns))
    (tmp / ".complete").write_text(version)
    shutil.rmtree(dest, ignore_errors=True)
    tmp.rename(dest)
    for p in dest_root.rglob("*"):  # nginx's workers run unprivileged: everything readable
        p.chmod(0o755 if p.is_dir() else 0o644)
    dest_root.chmod(0o755)
    return dest


# ----------------------------------------------------------------------------- nginx config


def render_config(
    *,
    port: int,
    upstreams: list[str],
    static: Path,
    run: Path,
    listen_host: str = "",
    access_log: str = "off",
    error_log: str | None = None,
    nginx_workers: str = "auto",
    app_static: Path | None = None,
) -> str:
    """The nginx config for these app processes (``host:port`` each).

    ``app_static``: the app's own static folder (``static/`` next to serve.py), whose
    generated files under ``bpe/`` (the live Tokenize view's model files and modules,
    named by their content) nginx serves itself, cached by browsers for a year.
    """
    servers = "\n".join(f"        server {u} max_fails=1 fail_timeout=3s;" for u in upstreams)
    user_line = "user nobody nogroup;" if os.geteuid() == 0 else "# (not root: nginx runs as this user)"
    return TEMPLATE.read_text(encoding="utf-8").format(
        user_line=user_line,
        nginx_workers=nginx_workers,
        run=run,
        error_log=error_log or f"{run}/nginx-error.log",
        mime_types=MIME_TYPES,
        access_log=access_log,
        servers=servers,
        listen=f"{listen_host}:{port}" if listen_host else str(port),
        static=static,
        app_static=app_static if app_static is not None else APP_STATIC,
        max_body=MAX_BODY,
        port=port,
    )


def check_config(nginx: str, conf: Path, run: Path) -> None:
    out = subprocess.run([nginx, "-t", "-q", "-p", str(run), "-c", str(conf)], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"BPE Lab: the generated nginx config {conf} is not valid: {out.stderr.strip()}")


# ----------------------------------------------------------------------------- processes


def _die_with_parent() -> None:
    """In the child, before exec: SIGTERM when the supervisor dies (Linux), and a process group of its own."""
    os.setsid()
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


@dataclass
class Child:
    name: str
    cmd: list[str]
    log: Path
    env: dict = field(default_factory=lambda: dict(os.environ))
    health: str | None = None
    proc: subprocess.Popen | None = None
    fails: list[float] = field(default_factory=list)
    next_start: float = 0.0

    def start(self) -> None:
        logf = open(self.log, "ab")
        self.proc = subprocess.Popen(
            self.cmd,
            cwd=ROOT,
            env=self.env,
            stdout=logf,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            preexec_fn=_die_with_parent,
        )
        logf.close()

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def healthy(self) -> bool:
        if self.health is None:
            return self.alive()
        try:
            with urllib.request.urlopen(self.health, timeout=2) as r:
                return r.status == 200
        except OSError:
            return False

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """Signal the child's whole process group, whether the child still runs or not: nginx's workers outlive a
        killed master and keep the port, a dead app process's training workers keep their memory. The kernel
        does not reuse the group's id while a member lives, so this reaches only what this child started."""
        if self.proc is not None:
            try:
                os.killpg(self.proc.pid, sig)
            except (ProcessLookupError, PermissionError):
                pass


class Supervisor:
    def __init__(self, children: list[Child]):
        self.children = children
        self.stopping = False

    def _signal(self, signum, _frame) -> None:
        if not self.stopping:
            say(f"{signal.Signals(signum).name}: stopping every process")
        self.stopping = True

    def wait_healthy(self, children: list[Child], timeout: float = 180.0) -> None:
        deadline = time.time() + timeout
        pending = list(children)
        while pending and not self.stopping:
            for c in list(pending):
                if not c.alive():
                    raise SystemExit(
                        f"BPE Lab: {c.name} exited while starting (status {c.proc.returncode}); see {c.log}:\n" + _tail(c.log)
                    )
                if c.healthy():
                    pending.remove(c)
            if time.time() > deadline:
                raise SystemExit(
                    f"BPE Lab: {', '.join(c.name for c in pending)} did not answer within {timeout:.0f} s; see {pending[0].log}"
                )
            time.sleep(0.3)

    def run(self, banner: str) -> int:
        """Start the app processes, wait until they answer, then nginx; supervise until a signal."""
        signal.signal(signal.SIGINT, self._signal)
        signal.signal(signal.SIGTERM, self._signal)
        signal.signal(signal.SIGHUP, self._signal)
        try:
            for stage in ([c for c in self.children if c.health], [c for c in self.children if not c.health]):
                for c in stage:
                    c.start()
                self.wait_healthy(stage)
            if not self.stopping:
                say(banner)
            while not self.stopping:
                self._watch()
                time.sleep(0.5)
            return 0
        except SystemExit as e:
            if isinstance(e.code, str):
                print(e.code, file=sys.stderr)
                return 1
            raise
        finally:
            self.shutdown()

    def _watch(self) -> None:
        now = time.time()
        for c in self.children:
            if c.alive():
                continue
            if c.next_start == 0.0:  # just found dead
                status = c.proc.returncode if c.proc else "?"
                c.stop(signal.SIGKILL)  # what it left behind
                c.fails = [t for t in c.fails if now - t < WINDOW] + [now]
                if len(c.fails) >= MAX_FAILS:
                    raise SystemExit(
                        f"BPE Lab: {c.name} exited {len(c.fails)} times within {WINDOW:.0f} s (last status {status}); "
                        f"stopping everything. Its log: {c.log}\n" + _tail(c.log)
                    )
                delay = 0.5 * 2 ** (len(c.fails) - 1)
                say(f"{c.name} exited (status {status}); starting it again in {delay:g} s")
                c.next_start = now + delay
            elif now >= c.next_start:
                c.next_start = 0.0
                c.start()
                say(f"{c.name} started again (pid {c.proc.pid})")

    def shutdown(self) -> None:
        for c in self.children:
            c.stop(signal.SIGTERM)
        deadline = time.time() + 10
        for c in self.children:
            if c.proc is None:
                continue
            try:
                c.proc.wait(max(0.1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                pass
            c.stop(signal.SIGKILL)  # a child that would not stop, and whatever any child left behind
            c.proc.wait()
        say("stopped")


def _tail(path: Path, n: int = 8) -> str:
    try:
        return "\n".join("    " + line for line in path.read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return ""


# ----------------------------------------------------------------------------- main


def check_database() -> str:
    """Open the database once (one line and exit status 2 when it cannot be); returns its URL without password."""
    sys.path.insert(0, str(ROOT))
    from ui.common import database

    url = database.database_url()
    try:
        database.Limits.from_env()
        database.Database(url).close()
    except ValueError as e:
        print(f"BPE Lab: {e}", file=sys.stderr)
        raise SystemExit(2) from None
    return database.describe_url(url)


def app_command(port: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(ROOT / "serve.py"),
        "--server.port",
        str(port),
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="BPE Lab for a class: N app processes behind nginx on one port.")
    ap.add_argument("--port", type=int, default=int(os.environ.get("PORT") or 8501))
    ap.add_argument("--workers", type=int, default=int(os.environ.get("WORKERS") or os.cpu_count() or 1))
    ap.add_argument("--listen", default=os.environ.get("LISTEN", ""), help="address nginx listens on (default: every address)")
    ap.add_argument(
        "--proxy-only", action="store_true", help="run only nginx, in front of --upstream host:port (several allowed)"
    )
    ap.add_argument("--upstream", action="append", default=[], help="an app process's host:port (with --proxy-only)")
    ap.add_argument("--check-config", action="store_true", help="render the nginx config, run `nginx -t`, print its path")
    args = ap.parse_args(argv)
    if args.workers < 1:
        raise SystemExit("BPE Lab: WORKERS must be at least 1")

    if not args.proxy_only:
        os.environ["BPE_LAB_SHARED"] = "1"
    nginx = nginx_binary()
    logs = data_dir() / "run" / f"classroom-{args.port}"
    logs.mkdir(parents=True, exist_ok=True)
    run = nginx_root() / "run" / f"classroom-{args.port}"
    run.mkdir(parents=True, exist_ok=True)
    run.chmod(0o755)
    run.parent.chmod(0o755)
    where = "database: (the app processes')" if args.proxy_only else check_database()
    static = prepare_static(nginx_root() / "static")

    children: list[Child] = []
    if args.proxy_only:
        if not args.upstream:
            raise SystemExit("BPE Lab: --proxy-only needs at least one --upstream host:port")
        upstreams = args.upstream
    else:
        ports = [free_port() for _ in range(args.workers)]
        upstreams = [f"127.0.0.1:{p}" for p in ports]
        for i, p in enumerate(ports, 1):
            env = dict(os.environ)
            env["BPE_LAB_SHARED"] = "1"
            env["PYTHONUNBUFFERED"] = "1"
            # each script run is a thread: without a cap glibc gives threads arenas of their own, and their free
            # memory is rarely handed back; two arenas keep a process's memory close to what it uses
            env.setdefault("MALLOC_ARENA_MAX", "2")
            children.append(
                Child(
                    f"app process {i} (port {p})",
                    app_command(p),
                    logs / f"app-{i}.log",
                    env,
                    health=f"http://127.0.0.1:{p}/_stcore/health",
                )
            )

    conf = run / "nginx.conf"
    conf.write_text(
        render_config(
            port=args.port,
            upstreams=upstreams,
            static=static,
            run=run,
            listen_host=args.listen,
            error_log="stderr",
            access_log="off",
        )
    )
    check_config(nginx, conf, run)
    if args.check_config:
        print(conf)
        return 0
    children.append(Child("nginx", [nginx, "-p", str(run), "-c", str(conf), "-g", "daemon off;"], logs / "nginx.log"))
    n = len(upstreams)
    banner = (
        f"BPE Lab for a class: http://localhost:{args.port} (nginx in front of {n} app process{'es' if n != 1 else ''}; "
        f"workspaces in {where}; logs in {logs}). Ctrl+C stops everything."
    )
    return Supervisor(children).run(banner)


if __name__ == "__main__":
    sys.exit(main())
