"""Shared test setup: hypothesis profiles, the official encodings (loaded once), the longest modules first."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

import tokenizer
from tests.tier import FAST

tokenizer.configure()  # tiktoken, the reference, reads the provisioned files

settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True, print_blob=True)
# the fast tier (make test-fast) draws a tenth of the examples; see tests/tier.py
settings.register_profile("fast", parent=settings.get_profile("ci" if os.environ.get("CI") else "default"), max_examples=10)
settings.load_profile("fast" if FAST else "ci" if os.environ.get("CI") else "default")

OFFICIAL = ["r50k_base", "cl100k_base", "o200k_base"]

#: The modules that took longest in a full run on 2 workers (`pytest -n 2 --dist loadscope --durations`, 2026-11-24:
#: seconds of test time under a load average of 20), longest first. `make test` gives each worker whole modules in
#: collection order (``--no-loadscope-reorder``: xdist's own order is "most tests first", which put the code-point
#: scans, 23 tests and 15 minutes, near the end), so these start first, one per free worker, and the hundreds of
#: short modules fill in beside them: the run ends when the last long module does, not one long module after the rest.
LONGEST_FIRST = [
    "tests/tokenizer/models/test_parity.py",  # 1,959 s: every code point under Llama 3 and both Qwens, the exports
    "tests/tokenizer/formats/test_hf.py",  # 1,313 s: 495 tests, tokenizer.json pipelines against tokenizers
    "tests/tokenizer/models/test_pretrained.py",  # 873 s: every code point under r50k, cl100k, o200k
    "tests/app/test_compare.py",  # 335 s
    "tests/browser/test_newcomer.py",  # 299 s
    "tests/app/test_tokenize.py",  # 254 s
    "tests/tokenizer/test_tiktoken_surface.py",  # 193 s
]


def pytest_collection_modifyitems(config, items):
    """The modules of ``LONGEST_FIRST`` first, in its order; the rest as collected (a stable sort)."""
    rank = {path: i for i, path in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))


@pytest.fixture(scope="session", params=OFFICIAL)
def official(request):
    """(our Tokenizer, tiktoken.Encoding) for each official encoding."""
    import tiktoken

    return tokenizer.load_encoding(request.param), tiktoken.get_encoding(request.param)
