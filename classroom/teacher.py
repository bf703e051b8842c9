"""The teacher's secret: what makes a browser the one that leads the lesson (``classroom.lesson``).

``make serve`` makes one at start (or takes ``$BPE_LAB_TEACHER_SECRET``), hands it to every
app process through the environment, and prints the teacher link ``/lesson?teacher=<secret>``.
Plain Python, no Streamlit: ``classroom.deploy`` imports it.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
from collections.abc import Mapping

SECRET_ENV = "BPE_LAB_TEACHER_SECRET"
_SECRET = re.compile(r"[A-Za-z0-9_-]{16,128}")


def teacher_secret(env: Mapping[str, str] | None = None) -> str | None:
    """``$BPE_LAB_TEACHER_SECRET`` (16-128 URL-safe characters, a ValueError otherwise), or None when unset.

    >>> teacher_secret({"BPE_LAB_TEACHER_SECRET": "  correct-horse-battery-staple "})
    'correct-horse-battery-staple'
    >>> teacher_secret({}) is None
    True
    >>> teacher_secret({"BPE_LAB_TEACHER_SECRET": "1234"})
    Traceback (most recent call last):
    ...
    ValueError: BPE_LAB_TEACHER_SECRET must be 16 to 128 letters, digits, - or _ (it goes in the teacher's link), not a value of 4 characters
    """
    env = os.environ if env is None else env
    raw = env.get(SECRET_ENV, "").strip()
    if not raw and SECRET_ENV not in env:
        return None
    if not _SECRET.fullmatch(raw):
        raise ValueError(
            f"{SECRET_ENV} must be 16 to 128 letters, digits, - or _ (it goes in the teacher's link), "
            f"not a value of {len(raw)} characters"
        )
    return raw


def new_secret() -> str:
    """A fresh teacher secret: 128 random bits, URL-safe.

    >>> teacher_secret({SECRET_ENV: new_secret()}) is not None
    True
    """
    return secrets.token_urlsafe(16)


def teacher_link(base: str, secret: str) -> str:
    """The link a teacher opens to lead.

    >>> teacher_link("http://localhost:8501/", "s" * 16)
    'http://localhost:8501/lesson?teacher=ssssssssssssssss'
    """
    return f"{base.rstrip('/')}/lesson?teacher={secret}"


def secret_id(secret: str) -> str:
    """What the database keeps of a secret: enough to tell secrets apart, nothing to rebuild one."""
    return hashlib.sha256(b"bpe-lab-teacher:" + secret.encode("utf-8")).hexdigest()
