"""classroom/settings.py: every number the server reads from the environment, through one reader; bad values are a
ValueError naming the variable and what it accepts, and one line with exit status 2 where the server starts."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from classroom import asgi, database, settings, workers, workspaces
from classroom.settings import SETTINGS
from tests.tier import examples

ROOT = Path(__file__).resolve().parents[2]
NAMES = sorted(SETTINGS)

#: The classes of bad input the issue names, for every setting.
CLASSES = ["inf", "-inf", "nan", "NaN", "1e400", "-1", "-0.5", "", "   ", "lots", "12abc", "0x10", "1_000_000_000_000"]


def accepted(value: float, s: settings.Setting) -> bool:
    if not math.isfinite(value) or value > s.high or value < s.low or (s.above_low and value == s.low):
        return False
    return not s.whole or float(value).is_integer()


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("raw", CLASSES)
def test_every_class_of_bad_value_is_refused_by_name_with_the_range(name, raw):
    with pytest.raises(ValueError) as e:
        settings.number(name, {name: raw})
    message = str(e.value)
    assert message.startswith(f"{name} ") and SETTINGS[name].meaning in message
    assert "\n" not in message


@given(name=st.sampled_from(NAMES), value=st.floats(allow_nan=True, allow_infinity=True) | st.integers(-(10**12), 10**12))
@hsettings(max_examples=examples(300))
def test_a_number_is_read_exactly_when_it_is_in_range(name, value):
    s = SETTINGS[name]
    raw = repr(value) if isinstance(value, float) else str(value)
    if s.whole and isinstance(value, float):
        raw = f"{value:.1f}" if math.isfinite(value) else raw  # "3.0": not a whole number as written
    if accepted(value, s) and not (s.whole and "." in raw):
        assert settings.number(name, {name: raw}) == value
    else:
        with pytest.raises(ValueError, match=f"^{name} must be "):
            settings.number(name, {name: raw})


@given(name=st.sampled_from(NAMES), raw=st.text(max_size=12))
@hsettings(max_examples=examples(300))
def test_any_text_is_a_value_or_a_clear_error(name, raw):
    try:
        value = settings.number(name, {name: raw})
    except ValueError as e:
        assert str(e).startswith(f"{name} ")
    else:
        assert accepted(float(value), SETTINGS[name])


def test_unset_is_the_default_and_whitespace_is_trimmed():
    assert settings.number("PORT", {}, 8501) == 8501
    assert settings.number("PORT", {"PORT": " 8080\n"}) == 8080
    assert settings.number("BPE_LAB_MAX_MB", {"BPE_LAB_MAX_MB": "0.0001"}) == 0.0001  # tiny, but above 0


def test_the_limits_read_through_it():
    """Today's reader took inf and nan (and then crashed on int(inf), or kept nan days)."""
    for raw in ("inf", "nan", "1e400"):
        for name in ("BPE_LAB_MAX_TOKENIZERS", "BPE_LAB_MAX_MB", "BPE_LAB_WORKSPACE_TTL_DAYS"):
            with pytest.raises(ValueError, match=f"^{name} must be"):
                database.Limits.from_env({name: raw})
    assert database.Limits.from_env({"BPE_LAB_MAX_MB": "0.5", "BPE_LAB_WORKSPACE_TTL_DAYS": "0.5"}) == database.Limits(
        20, 512 * 1024, 0.5
    )


def test_train_workers_and_shared_mode(monkeypatch):
    monkeypatch.setenv("BPE_LAB_TRAIN_WORKERS", "nan")
    with pytest.raises(ValueError, match="^BPE_LAB_TRAIN_WORKERS must be a whole number from 0 to 64"):
        workers.configured_workers(True)
    for raw, on in (("1", True), ("TRUE", True), ("off", False), ("", False)):
        assert workspaces.shared_mode({"BPE_LAB_SHARED": raw}) is on
    with pytest.raises(ValueError, match="^BPE_LAB_SHARED must be 1, true, yes or on"):
        workspaces.shared_mode({"BPE_LAB_SHARED": "ture"})  # today: silently not shared


@pytest.mark.parametrize(
    "env",
    [
        {"BPE_LAB_SHARED": "1", "BPE_LAB_MAX_MB": "inf"},
        {"BPE_LAB_SHARED": "1", "BPE_LAB_WORKSPACE_TTL_DAYS": "-3"},
        {"BPE_LAB_SHARED": "1", "BPE_LAB_MAX_TOKENIZERS": ""},
        {"BPE_LAB_TRAIN_WORKERS": "two"},
        {"BPE_LAB_SHARED": "maybe"},
        {"BPE_LAB_SHARED": "1", "BPE_LAB_TEACHER_SECRET": "too-short"},
    ],
)
def test_the_app_process_start_up_says_one_line_and_exits_2(env, monkeypatch, capsys):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(SystemExit) as e:
        asgi.check_settings()
    assert e.value.code == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    name = next(n for n in env if n != "BPE_LAB_SHARED") if len(env) > 1 else next(iter(env))
    assert line.startswith(f"BPE Lab: {name} ")


@pytest.mark.parametrize(("name", "raw"), [("PORT", "http"), ("PORT", "70000"), ("WORKERS", "0"), ("WORKERS", "1e400")])
def test_make_serve_says_one_line_and_exits_2(name, raw, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("PORT", "WORKERS")} | {name: raw, "BPE_LAB_DATA_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-m", "classroom"], env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    [line] = out.stderr.strip().splitlines()
    assert line.startswith(f"BPE Lab: {name} must be a whole number from ") and repr(raw) in line
    assert not list(tmp_path.iterdir())  # nothing started, nothing written


@pytest.mark.slow
def test_a_single_app_process_says_one_line_and_exits_2(tmp_path):
    env = dict(os.environ, BPE_LAB_SHARED="1", BPE_LAB_MAX_MB="nan", BPE_LAB_DATABASE_URL=f"sqlite:///{tmp_path / 'w.sqlite3'}")
    out = subprocess.run(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "serve.py"), "--server.port", "18597", "--server.headless", "true"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2 and "Traceback" not in out.stderr + out.stdout
    assert "BPE Lab: BPE_LAB_MAX_MB must be a number above 0 and at most 100000" in out.stderr
