"""The classroom deployment's files: the nginx config nginx itself accepts, the compose file the Compose
Specification accepts, a supervisor that says one line when the database is not there, restarts a dead
program (and what it left behind), stops everything on SIGTERM, and stops with a message when a program
keeps dying.

The container itself is not built here (no Docker engine on these machines); the browser suite runs
the real `make serve` deployment (tests/browser/test_classroom.py).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from processes import group, programs

from classroom import deploy as classroom

ROOT = Path(__file__).resolve().parents[2]
SERVE = [sys.executable, "-m", "classroom"]  # what `make serve` runs


def test_the_generated_nginx_config_passes_nginx_t(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    static = tmp_path / "static"
    (static / "static").mkdir(parents=True)
    (static / "index.html").write_text("<html></html>")
    conf = run / "nginx.conf"
    conf.write_text(
        classroom.render_config(port=18501, upstreams=["127.0.0.1:1", "127.0.0.1:2"], static=static, run=run, error_log="stderr")
    )
    text = conf.read_text()
    assert "hash $bpe_lab_affinity consistent;" in text
    assert text.count("max_fails=1") == 2
    assert "proxy_set_header Upgrade $http_upgrade;" in text and "gzip_static on;" in text
    # the live Tokenize view's hashed files, from the app's static folder, cached for a year
    assert f"alias {classroom.APP_STATIC}/bpe/;" in text and "immutable, max-age=31536000" in text
    classroom.check_config(classroom.nginx_binary(), conf, run)  # raises SystemExit with nginx's message when invalid


def test_a_broken_config_is_reported(tmp_path):
    conf = tmp_path / "nginx.conf"
    conf.write_text("events {}\nhttp { server { listen nonsense_port; } }\n")
    with pytest.raises(SystemExit, match="is not valid"):
        classroom.check_config(classroom.nginx_binary(), conf, tmp_path)


def test_under_root_nginxs_workers_run_as_whoever_can_read_the_apps_static_folder(tmp_path, monkeypatch):
    """``nobody`` when every folder down to the app's static folder lets others through; else the folder's owner,
    who can read it (a checkout under a private folder: /root, ``mktemp -d``); not root: no user line at all."""
    import grp
    import pwd

    private = tmp_path / "home"
    (private / "checkout" / "static").mkdir(parents=True)
    private.chmod(0o700)
    me = f"user {pwd.getpwuid(os.getuid()).pw_name} {grp.getgrgid(os.getgid()).gr_name};"
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    assert classroom.nginx_user(private / "checkout" / "static") == me
    assert classroom.nginx_user(private / "checkout" / "static" / "not yet written") == me
    assert classroom.nginx_user(Path("/usr/share")) == "user nobody nogroup;"
    text = classroom.render_config(port=1, upstreams=["127.0.0.1:1"], static=tmp_path, run=tmp_path, app_static=private)
    assert me in text.splitlines()
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert not classroom.nginx_user(private).startswith("user ")


def test_nginx_serves_the_apps_hashed_files_from_a_checkout_in_a_private_folder(tmp_path):
    """A real nginx (as root here, its workers as the checkout's owner) reads the live view's files under a folder of
    mode 0700 itself, cached for a year, rather than falling back to the app (which is not even running)."""
    private = tmp_path / "private"
    bpe = private / "checkout" / "static" / "bpe"
    bpe.mkdir(parents=True)
    (bpe / "model-abc.bin").write_bytes(b"BPEL" * 100)
    private.chmod(0o700)
    run = tmp_path / "run"
    run.mkdir()
    static = run / "streamlit"
    static.mkdir()
    (static / "index.html").write_text("<html></html>")
    port = classroom.free_port()
    conf = run / "nginx.conf"
    conf.write_text(
        classroom.render_config(
            port=port, upstreams=["127.0.0.1:1"], static=static, run=run, error_log="stderr", app_static=bpe.parent
        )
    )
    nginx = subprocess.Popen(
        [classroom.nginx_binary(), "-p", str(run), "-c", str(conf), "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.time() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/app/static/bpe/model-abc.bin", timeout=5) as r:
                    body, cache = r.read(), r.headers.get("Cache-Control", "")
                break
            except urllib.error.HTTPError:
                raise  # nginx answered: what it said is the failure
            except OSError:
                assert nginx.poll() is None and time.time() < deadline, nginx.stderr.read().decode() if nginx.stderr else ""
                time.sleep(0.2)
        assert body == b"BPEL" * 100 and "max-age=31536000" in cache
    finally:
        nginx.terminate()
        nginx.wait(10)


def test_the_compose_file_follows_the_compose_specification():
    """compose-spec.schema.json (next to this file) is the Compose Specification's JSON schema
    (compose-spec/compose-spec, Apache-2.0), kept here so the check runs offline."""
    import jsonschema
    import yaml

    schema = json.loads((Path(__file__).with_name("compose-spec.schema.json")).read_text())
    doc = yaml.safe_load((ROOT / "compose.yaml").read_text())
    assert list(jsonschema.Draft7Validator(schema).iter_errors(doc)) == []
    services = doc["services"]
    assert set(services) == {"db", "app", "proxy"}
    assert "postgresql://" in services["app"]["environment"]["DATABASE_URL"]
    assert services["proxy"]["command"][:3] == ["python", "-m", "classroom"] and "--proxy-only" in services["proxy"]["command"]
    assert "serve.py" in services["app"]["command"]
    broken = dict(doc, services=dict(services, app=dict(services["app"], replicas_typo=2)))
    assert list(jsonschema.Draft7Validator(schema).iter_errors(broken))  # the check can fail


def test_app_processes_leave_collecting_to_their_own_timer(monkeypatch):
    """Streamlit's collection after every run of a page is off for every app process (make run, make serve and
    compose all run serve.py from the project's folder, where Streamlit reads .streamlit/config.toml; read here by
    Streamlit itself, so a misspelt key would leave it on), and start-up starts the process's own collection every
    15 s instead, in local and in shared mode."""
    from classroom import asgi

    read = "from streamlit import config; print(config.get_option('runner.postScriptGC'))"
    for cwd, value in ((ROOT, "False"), (ROOT / "tests", "True")):  # elsewhere, Streamlit's default: the check can fail
        out = subprocess.run([sys.executable, "-c", read], cwd=cwd, capture_output=True, text=True, check=True)
        assert out.stdout.strip() == value
    assert "WORKDIR /app" in (ROOT / "Dockerfile").read_text() and ".streamlit" not in (ROOT / ".dockerignore").read_text()
    timers = []
    monkeypatch.setattr(asgi, "check_database", lambda: "sqlite://")
    monkeypatch.setattr(asgi.workspaces, "configure", lambda shared: None)
    monkeypatch.setattr(asgi, "warm_up", lambda shared: None)
    monkeypatch.setattr(asgi, "trim_memory_every", lambda: timers.append(asgi.check_settings()))
    for shared in (False, True):
        monkeypatch.setattr(asgi, "check_settings", lambda shared=shared: shared)
        asgi.start()
    assert timers == [False, True]


def test_the_image_runs_what_exists():
    docker = (ROOT / "Dockerfile").read_text()
    assert 'CMD ["python", "-m", "classroom"]' in docker and "python -m tokenizer provision" in docker
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".venv", "data", ".git"} <= set(ignored)
    for path in ("classroom/__main__.py", "serve.py", "requirements.txt", "classroom/nginx.conf.in"):
        assert (ROOT / path).exists()


def env_for(tmp_path: Path, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "BPE_LAB_DATABASE_URL", "TIKTOKEN_CACHE_DIR")}
    data = tmp_path / "data"
    data.mkdir(exist_ok=True)
    for name in ("tiktoken-cache", "cache", "encodings"):
        if (ROOT / "data" / name).exists() and not (data / name).exists():
            (data / name).symlink_to(ROOT / "data" / name)
    env.update(BPE_LAB_DATA_DIR=str(data), **extra)
    return env


@pytest.mark.slow
def test_no_database_at_start_is_one_clear_line(tmp_path):
    env = env_for(tmp_path, DATABASE_URL="postgresql://bpe:secret@127.0.0.1:1/bpe", PORT="18599", WORKERS="1")
    out = subprocess.run(SERVE, env=env, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith("BPE Lab: cannot connect to the PostgreSQL database postgresql://bpe@127.0.0.1:1/bpe")
    assert "secret" not in out.stderr and "Traceback" not in out.stderr
    # the same line from a single app process (make run in shared mode)
    out = subprocess.run(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "serve.py"), "--server.port", "18598", "--server.headless", "true"],
        env=dict(env, BPE_LAB_SHARED="1"),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert out.returncode == 2 and "Traceback" not in out.stderr + out.stdout
    assert "BPE Lab: cannot connect to the PostgreSQL database postgresql://bpe@127.0.0.1:1/bpe" in out.stderr


def start(tmp_path: Path, port: int, **env) -> tuple[subprocess.Popen, Path]:
    """`make serve`'s command with a data folder of its own; returns it and its log once it says it is ready."""
    log = tmp_path / "classroom.log"
    with open(log, "w") as f:
        proc = subprocess.Popen(SERVE, env=env_for(tmp_path, PORT=str(port), **env), stdout=f, stderr=subprocess.STDOUT, cwd=ROOT)
    deadline = time.time() + 180
    while "BPE Lab for a class:" not in log.read_text():
        assert proc.poll() is None and time.time() < deadline, log.read_text()
        time.sleep(0.3)
    return proc, log


@pytest.mark.slow
def test_supervision_restarts_a_dead_process_and_sigterm_stops_everything(tmp_path):
    port = classroom.free_port()
    proc, log = start(tmp_path, port, WORKERS="1")
    try:
        # ready means ready: nginx was asked only once the app process answered, so no nginx worker is skipping it
        # (a refused connection makes a worker skip an app process for a few seconds: students would get 502s)
        nginx_log = tmp_path / "data" / "run" / f"classroom-{port}" / "nginx.log"
        assert "Connection refused" not in nginx_log.read_text()
        for _ in range(20):
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=5) as r:
                assert r.status == 200
        kids = programs(proc.pid)
        assert len(kids["app"]) == 1 and len(kids["nginx"]) == 1 and len(kids["other"]) == 1  # the event listener
        old_nginx = group(kids["nginx"][0])  # each program leads a process group of its own
        assert len(old_nginx) > 1, "nginx's master and its workers"
        # a crash, not a failed start: a program that exits within its startsecs (nginx 5 s, the app 10 s) goes to
        # BACKOFF, whose event has no pid for the listener to clean up after (a fast machine answered in 4.9 s)
        deadline = time.time() + 60
        while not all(f"success: {p} entered RUNNING state" in log.read_text() for p in ("app-1", "nginx")):
            assert time.time() < deadline, log.read_text()
            time.sleep(0.2)
        os.kill(kids["app"][0], signal.SIGKILL)
        os.kill(kids["nginx"][0], signal.SIGKILL)  # a crash: the master's workers are orphaned, still on the port
        deadline = time.time() + 180
        while True:
            after = programs(proc.pid)
            if after["app"] and after["app"] != kids["app"] and after["nginx"] and after["nginx"] != kids["nginx"]:
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=5) as r:
                        if r.status == 200:
                            break
                except OSError:
                    pass
            assert time.time() < deadline, log.read_text()
            time.sleep(0.5)
        text = log.read_text()
        assert "exited: app-1 (terminated by SIGKILL; not expected)" in text and "exited: nginx (terminated by SIGKILL" in text
        # the listener says what it did, in its own time: the new processes can answer before it has written
        events = tmp_path / "data" / "run" / f"classroom-{port}" / "events.log"
        deadline = time.time() + 30
        while "[classroom] nginx exited unexpectedly" not in events.read_text():
            assert time.time() < deadline, events.read_text()
            time.sleep(0.2)
        assert group(kids["nginx"][0]) == [], "the dead master's workers are gone, so the new nginx serves the port"
        after = programs(proc.pid)
        groups = after["app"] + after["nginx"]
        assert all(group(g) for g in groups)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 0
        for g in groups:
            assert group(g) == [], f"process group {g} outlived the supervisor"
        assert programs(proc.pid) == {"app": [], "nginx": [], "other": []}
        assert "[classroom] stopped" in log.read_text()
    finally:
        if proc.poll() is None:
            proc.kill()


@pytest.mark.slow
def test_a_program_that_keeps_dying_stops_the_command_with_a_message(tmp_path):
    """nginx cannot have the port (something else holds it): supervisord tries again, gives up, and the command says so."""
    import socket

    with socket.socket() as held:
        held.bind(("0.0.0.0", 0))
        held.listen()
        port = held.getsockname()[1]
        log = tmp_path / "classroom.log"
        with open(log, "w") as f:
            proc = subprocess.Popen(
                SERVE, env=env_for(tmp_path, PORT=str(port), WORKERS="1"), stdout=f, stderr=subprocess.STDOUT, cwd=ROOT
            )
        try:
            assert proc.wait(240) == 1, log.read_text()
        finally:
            if proc.poll() is None:
                proc.kill()
    text = log.read_text()
    assert "BPE Lab: nginx could not be started again" in text and "stopping everything. Its log:" in text, text
    assert "Address already in use" in text  # the tail of nginx's log says why
    assert "Traceback" not in text
    assert programs(proc.pid) == {"app": [], "nginx": [], "other": []}


def test_a_program_that_keeps_dying_after_starting_stops_the_command(tmp_path):
    """supervisord restarts a program that ran a while forever; the listener stops at five deaths within a minute."""
    from classroom.events import MAX_DEATHS, WINDOW, Listener

    supervisord = subprocess.Popen(["sleep", "60"])  # stands in for supervisord: the listener signals it to stop
    try:
        (tmp_path / "app-1.log").write_text("MemoryError\n")
        listener = Listener(fatal=tmp_path / "fatal.txt", logs=tmp_path, supervisord=supervisord.pid)
        dead = {"processname": "app-1", "expected": "0", "pid": "0"}
        for i in range(MAX_DEATHS - 1):
            assert "exited unexpectedly" in listener.handle("PROCESS_STATE_EXITED", dead, now=i * WINDOW / 2)
        assert supervisord.poll() is None and not (tmp_path / "fatal.txt").exists()  # spread out: restarted, not stopped
        for i in range(MAX_DEATHS - 1):
            listener.handle("PROCESS_STATE_EXITED", dead, now=1000 + i)
        assert "stopping everything" in listener.handle("PROCESS_STATE_EXITED", dead, now=1010)
        assert supervisord.wait(10) == -signal.SIGTERM
        message = (tmp_path / "fatal.txt").read_text()
        assert message.startswith(f"BPE Lab: app-1 exited {MAX_DEATHS} times within 60 s; stopping everything. Its log:")
        assert "MemoryError" in message  # the tail of its log
    finally:
        supervisord.kill()


@pytest.mark.slow
def test_a_killed_command_leaves_nothing_running(tmp_path):
    """SIGKILL to `make serve`'s command (no chance to clean up): its supervisord still stops every program."""
    port = classroom.free_port()
    proc, _ = start(tmp_path, port, WORKERS="1")
    kids = programs(proc.pid)
    groups = kids["app"] + kids["nginx"] + kids["other"]
    assert len(groups) == 3
    proc.kill()
    proc.wait()
    deadline = time.time() + 60
    while any(group(g) for g in groups) and time.time() < deadline:
        time.sleep(0.5)
    assert [g for g in groups if group(g)] == []


@pytest.mark.slow
def test_a_frozen_app_process_is_killed_and_started_again_while_nginx_serves_the_other(tmp_path):
    """An app process alive but not answering (SIGSTOP stands for a native call holding the interpreter) is killed
    by the watchdog, supervisord starts it again, and meanwhile every new browser is served by the other process."""
    port = classroom.free_port()
    proc, log = start(tmp_path, port, WORKERS="2")
    try:
        kids = programs(proc.pid)
        assert len(kids["app"]) == 2
        frozen = kids["app"][0]
        deadline = time.time() + 60
        while log.read_text().count("entered RUNNING state") < 3:  # both apps and nginx past their startsecs
            assert time.time() < deadline, log.read_text()
            time.sleep(0.2)
        os.kill(frozen, signal.SIGSTOP)
        deadline = time.time() + 180  # a busy machine: health checks time out on the other process too
        while f"(pid {frozen}) stopped answering its health check" not in log.read_text():
            assert time.time() < deadline, log.read_text()
            time.sleep(0.2)
        deadline = time.time() + 30
        while frozen in programs(proc.pid)["app"]:
            assert time.time() < deadline, "the frozen process was not killed"
            time.sleep(0.2)
        # the killed process's port now refuses, so nginx takes every browser, whatever its affinity, to the other
        for i in range(12):
            cookie = f"bpe_lab_browser={'k' * 31}{i:x}"
            req = urllib.request.Request(f"http://127.0.0.1:{port}/_stcore/health", headers={"Cookie": cookie})
            with urllib.request.urlopen(req, timeout=10) as r:
                assert r.status == 200
        deadline = time.time() + 180
        while True:  # and it comes back
            after = programs(proc.pid)["app"]
            if len(after) == 2 and frozen not in after and log.read_text().count("entered RUNNING state") >= 4:
                break
            assert time.time() < deadline, log.read_text()
            time.sleep(0.5)
        assert "Traceback" not in log.read_text()
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()


def _longest_fitting(unit: str) -> str:
    """The longest repetition of ``unit`` that the app still puts into a link."""
    from ui.common import urlstate

    n = 1
    while urlstate.fits(unit * (n + 1)):
        n += 1
    return unit * n


def test_nginx_accepts_every_address_the_app_writes(tmp_path):
    from ui.common import urlstate

    port = classroom.free_port()
    run = tmp_path / "run"
    run.mkdir()
    static = tmp_path / "static"
    (static / "static").mkdir(parents=True)
    (static / "index.html").write_text("<html></html>")
    conf = run / "nginx.conf"
    conf.write_text(
        classroom.render_config(
            port=port, upstreams=["127.0.0.1:1"], static=static, run=run, listen_host="127.0.0.1", error_log="stderr"
        )
    )
    nginx = subprocess.Popen(
        [classroom.nginx_binary(), "-p", str(run), "-c", str(conf), "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.time() + 30
        while True:
            try:
                urllib.request.urlopen(base + "/index.html", timeout=5)
                break
            except urllib.error.HTTPError:
                break
            except OSError:
                assert time.time() < deadline and nginx.poll() is None
                time.sleep(0.2)

        def status(url: str) -> int:
            try:
                with urllib.request.urlopen(url, timeout=10) as r:
                    return r.status
            except urllib.error.HTTPError as e:
                return e.code

        many = ",".join(f"user:{'k' * 24}{i}" for i in range(12))  # Compare with a dozen of a student's tokenizers
        for unit in ["你", "😀", "a", " ", "%", "é", "\u0301", "a 你😀%\n"]:
            text = _longest_fitting(unit)
            assert urlstate.encoded_length(text) <= urlstate.MAX_TEXT_BYTES
            for page, wanted in [("", {"tokenizer": "cl100k_base"}), ("compare", {"tokenizers": many})]:
                url = urlstate.join(f"{base}/{page}", urlstate.params(text, **wanted))
                assert status(url) != 414, (unit, len(url))
        assert status(f"{base}/?text={'%E4%BD%A0' * 3000}") == 414  # nginx's limit is still there, past what the app writes
    finally:
        nginx.terminate()
        nginx.wait(10)
