"""``make serve``: BPE Lab for a class on one machine, N app processes behind nginx on one port.

    python -m classroom [--port 8501] [--workers N]        # what `make serve` runs
    python -m classroom --proxy-only --upstream app:8501    # the proxy alone (compose.yaml)
    python -m classroom --check-config                      # render the nginx config and run `nginx -t`

What it does, in the foreground:

1. Shared mode for every app process (``BPE_LAB_SHARED=1``); the database
   (``DATABASE_URL``, else SQLite in the data folder) is opened once first: if it
   cannot be, one line on stderr and exit status 2.
2. Streamlit's static assets are copied once per Streamlit version to
   ``data/static/<version>/`` with a gzip copy of every text file next to it, so nginx
   serves them precompressed. A folder it cannot write (full, read-only): one line, exit status 2.
3. ``WORKERS`` app processes (default: the number of cores), each
   ``streamlit run serve.py`` on a port of its own on 127.0.0.1; each loads the official
   encodings before it answers its health check.
4. nginx (Debian's package) on ``PORT`` with the config rendered from
   ``classroom/nginx.conf.in``: static assets, compression, per-browser affinity, websockets.
5. Supervision by supervisord (the ``supervisor`` package), configured by a file generated
   here (``supervisor_config``, written next to nginx's): each program in a process group of
   its own; one that exits is started again (supervisord's log line says so), after its event
   listener (``classroom.events``) has killed what is left of its process group (a killed
   nginx master leaves workers that hold the port). One that exits within its ``startsecs``
   is retried after 1 s, 2 s, 3 s ...; after ``STARTRETRIES`` such failures in a row, or five
   unexpected exits within a minute, the command stops everything and exits with status 1
   and a message that says which and where its log is. SIGINT (Ctrl+C) and SIGTERM stop every process (SIGTERM to each process group,
   SIGKILL after ten seconds: ``stopasgroup``, ``killasgroup``) and it exits with status 0.
   If this command is itself killed, supervisord gets SIGTERM and stops everything the same way.

Logs: ``data/run/classroom-<port>/`` (supervisord's, one file per app process, nginx's error log).
"""

from __future__ import annotations

import argparse
import ctypes
import grp
import gzip
import os
import pwd
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from . import settings

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = Path(__file__).with_name("nginx.conf.in")
#: the app's static folder (Streamlit's enableStaticServing: static/ next to serve.py)
APP_STATIC = ROOT / "static"
NGINX_CANDIDATES = ("/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx")
MIME_TYPES = "/etc/nginx/mime.types"
COMPRESSIBLE = (".js", ".css", ".html", ".json", ".svg", ".txt", ".map", ".ttf", ".wasm", ".mjs")
#: A program that fails to start this many times in a row is given up on (supervisord's ``startretries``).
STARTRETRIES = 5
#: Seconds between SIGTERM and SIGKILL when stopping (supervisord's ``stopwaitsecs``).
STOP_WAIT = 10
#: The upload limit (10 MB in .streamlit/config.toml) plus room for the form's framing.
MAX_BODY = "12m"


def fail(problem: BaseException) -> NoReturn:
    """A problem found before anything started: one line on stderr, exit status 2."""
    print(f"BPE Lab: {problem}", file=sys.stderr)
    raise SystemExit(2) from None


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
    try:
        copy_tree(src, tmp)
        for path in tmp.rglob("*"):
            if path.is_file() and path.suffix in COMPRESSIBLE and path.stat().st_size >= 1024:
                data = path.read_bytes()
                packed = gzip.compress(data, 9, mtime=0)
                if len(packed) < len(data):
                    path.with_name(path.name + ".gz").write_bytes(packed)
                    os.utime(path.with_name(path.name + ".gz"), ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns))
        (tmp / ".complete").write_text(version)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)  # half a copy would only hold the room the next start needs
        raise
    shutil.rmtree(dest, ignore_errors=True)
    tmp.rename(dest)
    for p in dest_root.rglob("*"):  # nginx's workers run unprivileged: everything readable
        p.chmod(0o755 if p.is_dir() else 0o644)
    dest_root.chmod(0o755)
    return dest


def copy_tree(src: Path, dest: Path) -> None:
    """``shutil.copytree`` whose first failed write is raised as the ``OSError`` it is (copytree gathers a list)."""
    dest.mkdir(parents=True)
    for path in sorted(src.rglob("*")):
        target = dest / path.relative_to(src)
        if path.is_dir():
            target.mkdir(exist_ok=True)
        else:
            shutil.copy2(path, target)


def cannot_write(e: OSError, what: str, where: Path) -> NoReturn:
    """A folder ``make serve`` writes is full or read-only: one line that says which and what to do, status 2."""
    fail(f"cannot write {what} {where} ({e.strerror or e}): free some space on its disk, or let this user write there")


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
    app_static = app_static if app_static is not None else APP_STATIC
    return TEMPLATE.read_text(encoding="utf-8").format(
        user_line=nginx_user(app_static),
        nginx_workers=nginx_workers,
        run=run,
        error_log=error_log or f"{run}/nginx-error.log",
        mime_types=MIME_TYPES,
        access_log=access_log,
        servers=servers,
        listen=f"{listen_host}:{port}" if listen_host else str(port),
        static=static,
        app_static=app_static,
        max_body=MAX_BODY,
        port=port,
    )


def nginx_user(app_static: Path) -> str:
    """nginx's ``user`` line. Under root its workers run as ``nobody`` when they can reach the app's static folder,
    else as that folder's owner, who can read it wherever the checkout is (under /root, or a ``mktemp -d`` folder)."""
    if os.geteuid() != 0:
        return "# (not root: nginx runs as this user)"
    if world_traversable(app_static):
        return "user nobody nogroup;"
    folder = next(p for p in [app_static, *app_static.parents] if p.exists())
    info = folder.stat()
    try:
        return f"user {pwd.getpwuid(info.st_uid).pw_name} {grp.getgrgid(info.st_gid).gr_name};"
    except KeyError:  # an owner with no name (files from another system): nginx takes names only
        return f"user nobody nogroup;  # {folder} is owned by uid {info.st_uid}, which has no name: its files come from the app"


def check_config(nginx: str, conf: Path, run: Path) -> None:
    out = subprocess.run([nginx, "-t", "-q", "-p", str(run), "-c", str(conf)], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"BPE Lab: the generated nginx config {conf} is not valid: {out.stderr.strip()}")


# ----------------------------------------------------------------------------- supervision: supervisord


@dataclass
class Program:
    """One process supervisord keeps running: ``name`` as supervisord calls it, its log, and how to tell it is up."""

    name: str
    command: list[str]
    log: Path
    health: str
    startsecs: int = 10
    priority: int = 100


def _value(text: str) -> str:
    """A value for supervisord's config: its ``%(name)s`` expansion leaves a doubled ``%%`` as one ``%``."""
    return text.replace("%", "%%")


def supervisor_config(programs: list[Program], *, run: Path, logs: Path, fatal: Path) -> str:
    """supervisord's config: each program in a process group of its own, restarted when it exits, stopped as a group.

    The event listener (``classroom.events``) kills what a dead program left in its process
    group and, when one cannot be started again, writes why to ``fatal`` and stops supervisord.
    """
    out = [
        "; generated by classroom/deploy.py (make serve) for this run; see docs/classroom.md",
        "[supervisord]",
        "nodaemon=true",
        f"logfile={_value(str(logs / 'supervisord.log'))}",
        f"pidfile={_value(str(run / 'supervisord.pid'))}",
        "loglevel=info",
        *(["user=root"] if os.geteuid() == 0 else []),
        "",
        # the watchdog (``Watchdog``) asks supervisord, over this socket, which process a program is and to kill it
        "[unix_http_server]",
        f"file={_value(str(run / 'supervisor.sock'))}",
        "chmod=0700",
        "",
        "[rpcinterface:supervisor]",
        "supervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface",
    ]
    for prog in programs:
        out += [
            "",
            f"[program:{prog.name}]",
            f"command={_value(shlex.join(prog.command))}",
            f"directory={_value(str(ROOT))}",
            f"priority={prog.priority}",
            "autostart=true",
            "autorestart=true",
            # exiting within startsecs of starting is a failed start: tried again after 1 s, 2 s, 3 s, ...,
            # and after STARTRETRIES such failures in a row supervisord gives up (FATAL: the command stops)
            f"startsecs={prog.startsecs}",
            f"startretries={STARTRETRIES}",
            "stopsignal=TERM",
            f"stopwaitsecs={STOP_WAIT}",
            "stopasgroup=true",
            "killasgroup=true",
            f"stdout_logfile={_value(str(prog.log))}",
            "stdout_logfile_maxbytes=10MB",
            "stdout_logfile_backups=2",
            "redirect_stderr=true",
        ]
    listener = [sys.executable, "-m", "classroom.events", "--fatal", str(fatal), "--logs", str(logs)]
    out += [
        "",
        "[eventlistener:classroom-events]",
        f"command={_value(shlex.join(listener))}",
        f"directory={_value(str(ROOT))}",
        "events=PROCESS_STATE_EXITED,PROCESS_STATE_FATAL",
        "autorestart=true",
        # what it did, one line each (its stdout is the protocol); supervisord's own log (on the terminal) says
        # when a program exited and when it was started again
        f"stderr_logfile={_value(str(logs / 'events.log'))}",
        "stderr_logfile_maxbytes=1MB",
        "",
    ]
    return "\n".join(out)


def _follow_parent() -> None:
    """In supervisord's process, before it runs: SIGTERM (its orderly stop of every program) when this command dies,
    even by SIGKILL (Linux's PR_SET_PDEATHSIG); without it a killed command would leave a class's server running."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)
    except (OSError, AttributeError):
        pass


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            return r.status == 200
    except OSError:
        return False


class Watchdog:
    """Kills an app process that is alive but stopped answering, so supervisord starts it again.

    supervisord restarts only a process that exits; one frozen (a native library holding the
    interpreter, a deadlock) would keep its port, and nginx would keep sending browsers to it.
    Every ``interval`` seconds each app process's health check is asked (``timeout`` each); a
    process that answered since it started (or has run ``grace`` seconds) and then misses ``misses`` checks in a row is killed
    (SIGKILL through supervisord's XML-RPC interface), its connections close, and nginx sends its
    browsers to the others until it is back.
    """

    def __init__(
        self, socket_path: Path, programs: list[Program], *, interval: float = 2.0, misses: int = 3, grace: float = 60.0
    ):
        self.socket_path = socket_path
        self.programs = [p for p in programs if p.name.startswith("app-")]
        self.interval, self.misses, self.grace = interval, misses, grace
        self._missed: dict[str, int] = {}
        self._answered: dict[str, int] = {}  # program -> the pid that last answered its health check
        self._next = 0.0

    def _rpc(self):
        import xmlrpc.client

        from supervisor.xmlrpc import SupervisorTransport

        return xmlrpc.client.ServerProxy(
            "http://127.0.0.1", transport=SupervisorTransport(None, None, f"unix://{self.socket_path}")
        )

    def tick(self) -> None:
        if time.monotonic() < self._next:
            return
        self._next = time.monotonic() + self.interval
        for prog in self.programs:
            try:
                info = self._rpc().supervisor.getProcessInfo(prog.name)
            except Exception:  # supervisord is stopping or not yet listening: nothing to judge
                return
            pid = info.get("pid") or 0
            if info.get("statename") != "RUNNING" or not pid:
                self._missed.pop(prog.name, None)
                continue
            if _healthy(prog.health):
                self._answered[prog.name] = pid
                self._missed[prog.name] = 0
                continue
            started = info.get("now", 0) - info.get("start", 0)
            if self._answered.get(prog.name) != pid and started < self.grace:
                continue  # still loading after a start: not frozen
            self._missed[prog.name] = self._missed.get(prog.name, 0) + 1
            if self._missed[prog.name] >= self.misses:
                say(f"{prog.name} (pid {pid}) stopped answering its health check; killing it so it is started again")
                self._missed[prog.name] = 0
                self._answered.pop(prog.name, None)
                try:
                    self._rpc().supervisor.signalProcess(prog.name, "KILL")
                except Exception as e:  # it may have exited meanwhile: supervisord restarts it either way
                    say(f"could not kill {prog.name}: {e}")


def supervise(conf: Path, programs: list[Program], fatal: Path, banner: str, timeout: float = 180.0) -> int:
    """Run supervisord in the foreground until it stops; print ``banner`` once every program answers (a program
    with a higher ``priority`` number is asked once those before it answer).

    SIGINT (Ctrl+C) and SIGTERM stop it, and with it every program (0); a program that
    cannot be started again stops it too, with the listener's message (1).
    """
    fatal.unlink(missing_ok=True)
    proc = subprocess.Popen(
        [sys.executable, "-m", "supervisor.supervisord", "-c", str(conf)], cwd=ROOT, preexec_fn=_follow_parent
    )

    def forward(signum, _frame) -> None:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, forward)
    deadline = time.time() + timeout
    pending = list(programs)
    while pending and proc.poll() is None:
        # in start order: nginx's check goes through the app processes, and one refused there makes an nginx worker
        # skip that process for a while (max_fails), so it is asked only once every app process answers itself
        first = min(prog.priority for prog in pending)
        pending = [prog for prog in pending if prog.priority > first or not _healthy(prog.health)]
        if pending and time.time() > deadline:
            print(
                f"BPE Lab: {', '.join(p.name for p in pending)} did not answer within {timeout:.0f} s; see {pending[0].log}",
                file=sys.stderr,
            )
            proc.terminate()
            proc.wait()
            return 1
        time.sleep(0.3)
    if proc.poll() is None:
        say(banner)
    watchdog = Watchdog(conf.with_name("supervisor.sock"), programs)
    while proc.poll() is None:
        watchdog.tick()
        try:
            proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            pass
    proc.wait()
    if fatal.exists():
        print(fatal.read_text().rstrip(), file=sys.stderr)
        return 1
    say("stopped")
    return 0 if proc.returncode == 0 else 1


# ----------------------------------------------------------------------------- main


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
    try:
        port = settings.number("PORT", default=8501)
        workers = settings.number("WORKERS", default=os.cpu_count() or 1)
    except ValueError as e:
        fail(e)
    ap.add_argument("--port", type=int, default=port)
    ap.add_argument("--workers", type=int, default=workers)
    ap.add_argument("--listen", default=os.environ.get("LISTEN", ""), help="address nginx listens on (default: every address)")
    ap.add_argument(
        "--proxy-only", action="store_true", help="run only nginx, in front of --upstream host:port (several allowed)"
    )
    ap.add_argument("--upstream", action="append", default=[], help="an app process's host:port (with --proxy-only)")
    ap.add_argument("--check-config", action="store_true", help="render the nginx config, run `nginx -t`, print its path")
    args = ap.parse_args(argv)
    for name, value in (("PORT", args.port), ("WORKERS", args.workers)):
        try:
            settings.number(name, {name: str(value)})
        except ValueError as e:
            fail(e)

    if not args.proxy_only:
        os.environ["BPE_LAB_SHARED"] = "1"
    nginx = nginx_binary()
    logs = data_dir() / "run" / f"classroom-{args.port}"
    run = nginx_root() / "run" / f"classroom-{args.port}"
    try:
        logs.mkdir(parents=True, exist_ok=True)
        run.mkdir(parents=True, exist_ok=True)
        run.chmod(0o755)
        run.parent.chmod(0o755)
    except OSError as e:
        cannot_write(e, "the folder of the logs and nginx's config", Path(e.filename or logs))
    if args.proxy_only:
        where = "database: (the app processes')"
    else:
        from .asgi import check_database, check_settings  # the app's own checks (not needed for the proxy)

        check_settings()
        where = check_database()
        from . import teacher

        # one secret for every app process (they inherit it through supervisord): the teacher link works on any of them
        os.environ[teacher.SECRET_ENV] = teacher.teacher_secret() or teacher.new_secret()
    try:
        static = prepare_static(nginx_root() / "static")
    except OSError as e:
        cannot_write(e, "the copy of Streamlit's static files nginx serves in", nginx_root() / "static")

    programs: list[Program] = []
    if args.proxy_only:
        if not args.upstream:
            raise SystemExit("BPE Lab: --proxy-only needs at least one --upstream host:port")
        upstreams = args.upstream
    else:
        ports = [free_port() for _ in range(args.workers)]
        upstreams = [f"127.0.0.1:{p}" for p in ports]
        for i, p in enumerate(ports, 1):
            programs.append(Program(f"app-{i}", app_command(p), logs / f"app-{i}.log", f"http://127.0.0.1:{p}/_stcore/health"))
        # what supervisord passes on to every app process
        os.environ["PYTHONUNBUFFERED"] = "1"
        # each script run is a thread: without a cap glibc gives threads arenas of their own, and their free
        # memory is rarely handed back; two arenas keep a process's memory close to what it uses
        os.environ.setdefault("MALLOC_ARENA_MAX", "2")

    conf = run / "nginx.conf"
    config = render_config(
        port=args.port,
        upstreams=upstreams,
        static=static,
        run=run,
        listen_host=args.listen,
        error_log="stderr",
        access_log="off",
    )
    try:
        conf.write_text(config)
    except OSError as e:
        cannot_write(e, "nginx's config", conf)
    check_config(nginx, conf, run)
    if args.check_config:
        print(conf)
        return 0
    host = args.listen.strip("[]") if args.listen and args.listen not in ("0.0.0.0", "::", "[::]") else "127.0.0.1"
    programs.append(
        Program(
            "nginx",
            [nginx, "-p", str(run), "-c", str(conf), "-g", "daemon off;"],
            logs / "nginx.log",
            f"http://{host}:{args.port}/" if args.proxy_only else f"http://{host}:{args.port}/_stcore/health",
            startsecs=5,  # nginx tries to bind for 2.5 s before it gives up
            priority=200,
        )
    )
    supervisord_conf = run / "supervisord.conf"
    fatal = run / "fatal.txt"
    try:
        supervisord_conf.write_text(supervisor_config(programs, run=run, logs=logs, fatal=fatal))
    except OSError as e:
        cannot_write(e, "supervisord's config", supervisord_conf)
    n = len(upstreams)
    banner = (
        f"BPE Lab for a class: http://localhost:{args.port} (nginx in front of {n} app process{'es' if n != 1 else ''}; "
        f"workspaces in {where}; logs in {logs}). Ctrl+C stops everything."
    )
    if not args.proxy_only:
        link = teacher.teacher_link(f"http://localhost:{args.port}", os.environ[teacher.SECRET_ENV])
        banner += f"\nThe teacher leads the lesson from {link} (keep it to yourself: whoever opens it leads)."
    return supervise(supervisord_conf, programs, fatal, banner)


if __name__ == "__main__":
    sys.exit(main())
