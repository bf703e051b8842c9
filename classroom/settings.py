"""Every setting the server reads from the environment, through one reader that refuses what it cannot use.

A bad value (text, empty, ``inf``, ``nan``, ``1e400``, out of range) is a ValueError that
names the variable and what it accepts; the commands that start the server
(``serve.py``'s start-up, ``make serve``) print it as one line and exit with status 2.
Unset means the default.

>>> number("BPE_LAB_MAX_MB", {"BPE_LAB_MAX_MB": " 1.5 "})
1.5
>>> number("BPE_LAB_MAX_MB", {"BPE_LAB_MAX_MB": "inf"})
Traceback (most recent call last):
...
ValueError: BPE_LAB_MAX_MB must be a number above 0 and at most 100000 (megabytes one browser may keep on a shared server), not 'inf'
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Setting:
    name: str
    meaning: str
    low: float
    high: float
    whole: bool = True
    above_low: bool = False  # the low end itself is not allowed (a size of 0 MB)

    def accepted(self) -> str:
        kind = "a whole number" if self.whole else "a number"
        low = f"above {self.low:g}" if self.above_low else f"from {self.low:g}"
        high = f"and at most {self.high:g}" if self.above_low else f"to {self.high:g}"
        return f"{kind} {low} {high} ({self.meaning})"


SETTINGS = {
    s.name: s
    for s in (
        Setting("BPE_LAB_MAX_TOKENIZERS", "tokenizers one browser may keep on a shared server", 1, 100_000),
        Setting("BPE_LAB_MAX_MB", "megabytes one browser may keep on a shared server", 0, 100_000, whole=False, above_low=True),
        Setting(
            "BPE_LAB_WORKSPACE_TTL_DAYS", "days a browser's tokenizers are kept after its last visit", 0, 36_500, False, True
        ),
        Setting("BPE_LAB_TRAIN_WORKERS", "training processes per app process; 0 trains in the page's own thread", 0, 64),
        Setting("BPE_LAB_TRAIN_SECONDS", "seconds a training may run in a training process before it is stopped", 1, 86_400),
        Setting("PORT", "the port make serve listens on", 1, 65_535),
        Setting("WORKERS", "app processes make serve starts", 1, 256),
    )
}
_WHOLE = re.compile(r"\+?\d+")
_FLAGS = {"1": True, "true": True, "yes": True, "on": True, "0": False, "false": False, "no": False, "off": False}


def number(name: str, env: Mapping[str, str] | None = None, default: float | None = None) -> float | int | None:
    """The setting ``name`` (one of ``SETTINGS``) from ``env`` (default: the environment), or ``default`` when unset."""
    env = os.environ if env is None else env
    s = SETTINGS[name]
    if name not in env:
        return default
    raw = env[name].strip()
    problem = ValueError(f"{name} must be {s.accepted()}, not {env[name]!r}")
    if not raw:
        raise ValueError(f"{name} is empty: set it to {s.accepted()}, or unset it for the default")
    if s.whole:
        if not _WHOLE.fullmatch(raw):
            raise problem
        value: float | int = int(raw)
    else:
        try:
            value = float(raw)
        except ValueError:
            raise problem from None
        if not math.isfinite(value):
            raise problem
    if value > s.high or value < s.low or (s.above_low and value == s.low):
        raise problem
    return value


def flag(name: str, env: Mapping[str, str] | None = None) -> bool:
    """An on/off setting: 1, true, yes, on or 0, false, no, off (any case); unset or empty is off.

    >>> flag("BPE_LAB_SHARED", {"BPE_LAB_SHARED": "Yes"}), flag("BPE_LAB_SHARED", {})
    (True, False)
    """
    env = os.environ if env is None else env
    raw = env.get(name, "").strip().lower()
    if not raw:
        return False
    if raw not in _FLAGS:
        raise ValueError(f"{name} must be 1, true, yes or on (or 0, false, no, off), not {env[name]!r}")
    return _FLAGS[raw]
