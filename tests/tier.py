"""The test tiers: `make test` runs everything at full strength; `make test-fast` sets
BPE_LAB_TEST_TIER=fast, which skips nothing but draws fewer hypothesis examples.

A test that asks for a number of examples asks through `examples(n)`, so the fast tier
scales it down the same way its profile scales the default (100 -> 10).
"""

from __future__ import annotations

import os

FAST = os.environ.get("BPE_LAB_TEST_TIER") == "fast"


def examples(n: int) -> int:
    """n hypothesis examples in the full suite, a tenth of them (at least 5) in the fast tier."""
    return max(5, n // 10) if FAST else n
