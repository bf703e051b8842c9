"""The classroom deployment's files: the nginx config nginx itself accepts, the compose file the Compose
Specification accepts, a supervisor that says one line when the database is not there, and one that
restarts a dead app process and stops everything on SIGTERM.

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
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "deploy"))

import classroom  # noqa: E402


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


def test_the_compose_file_follows_the_compose_specification():
    """deploy/compose-spec.schema.json is the Compose Specification's JSON schema (compose-spec/compose-spec,
    Apache-2.0), kept here so the check runs offline."""
    import jsonschema
    import yaml

    schema = json.loads((ROOT / "deploy" / "compose-spec.schema.json").read_text())
    doc = yaml.safe_load((ROOT / "compose.yaml").read_text())
    assert list(jsonschema.Draft7Validator(schema).iter_errors(doc)) == []
    services = doc["services"]
    assert set(services) == {"db", "app", "proxy"}
    assert "postgresql://" in services["app"]["environment"]["DATABASE_URL"]
    assert (
        services["proxy"]["command"][:2] == ["python", "deploy/classroom.py"] and "--proxy-only" in services["proxy"]["command"]
    )
    assert "serve.py" in services["app"]["command"]
    broken = dict(doc, services=dict(services, app=dict(services["app"], replicas_typo=2)))
    assert list(jsonschema.Draft7Validator(schema).iter_errors(broken))  # the check can fail


def test_the_image_runs_what_exists():
    docker = (ROOT / "Dockerfile").read_text()
    assert 'CMD ["python", "deploy/classroom.py"]' in docker and "python -m tokenizer provision" in docker
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".venv", "data", ".git"} <= set(ignored)
    for path in ("deploy/classroom.py", "serve.py", "requirements.txt", "deploy/nginx.conf.in"):
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
    out = subprocess.run(
        [sys.executable, str(ROOT / "deploy" / "classroom.py")], env=env, capture_output=True, text=True, timeout=120
    )
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


def _group(pgid: int) -> list[int]:
    """The live (not zombie) processes of a process group: an nginx master and its workers, an app and its pool."""
    out = subprocess.run(["ps", "-e", "-o", "pid=,pgid=,stat="], capture_output=True, text=True).stdout
    return [int(p) for p, g, stat in (line.split() for line in out.strip().splitlines()) if int(g) == pgid and "Z" not in stat]


def _children(pid: int) -> dict[str, list[int]]:
    out = subprocess.run(["ps", "-ww", "-o", "pid=,args=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    kids: dict[str, list[int]] = {"app": [], "nginx": []}
    for line in out.strip().splitlines():
        p, _, args = line.strip().partition(" ")
        kids["app" if "serve.py" in args else "nginx"].append(int(p))
    return kids


@pytest.mark.slow
def test_supervision_restarts_a_dead_process_and_sigterm_stops_everything(tmp_path):
    port = classroom.free_port()
    env = env_for(tmp_path, PORT=str(port), WORKERS="1")
    log = tmp_path / "classroom.log"
    with open(log, "w") as f:
        proc = subprocess.Popen(
            [sys.executable, str(ROOT / "deploy" / "classroom.py")], env=env, stdout=f, stderr=subprocess.STDOUT
        )
    try:
        deadline = time.time() + 180
        while "BPE Lab for a class:" not in log.read_text():
            assert proc.poll() is None and time.time() < deadline, log.read_text()
            time.sleep(0.3)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=5) as r:
            assert r.status == 200
        kids = _children(proc.pid)
        assert len(kids["app"]) == 1 and len(kids["nginx"]) == 1
        old_nginx = _group(kids["nginx"][0])  # each child leads a process group of its own
        assert len(old_nginx) > 1, "nginx's master and its workers"
        os.kill(kids["app"][0], signal.SIGKILL)
        os.kill(kids["nginx"][0], signal.SIGKILL)  # a crash: the master's workers are orphaned, still on the port
        deadline = time.time() + 180
        while True:
            text = log.read_text()
            if "app process 1" in text and "started again" in text and "nginx started again" in text:
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=5) as r:
                        if r.status == 200:
                            break
                except OSError:
                    pass
            assert time.time() < deadline, text
            time.sleep(0.5)
        assert "exited (status -9); starting it again" in log.read_text()
        assert _group(kids["nginx"][0]) == [], "the dead master's workers are gone, so the new nginx serves the port"
        after = _children(proc.pid)
        assert after["nginx"] and after["nginx"] != kids["nginx"]
        groups = after["app"] + after["nginx"]
        assert all(_group(g) for g in groups)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 0
        for g in groups:
            assert _group(g) == [], f"process group {g} outlived the supervisor"
        assert "stopped" in log.read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
