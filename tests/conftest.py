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

#: The modules that took longest in a round one on 2 workers (`pytest -n 2 --dist loadscope --durations=0`, seconds of
#: test time, nothing else running), longest first. `make test` gives each worker whole modules in collection order (``--no-loadscope-reorder``: xdist's own
#: order is "most tests first", which put the long modules near the end), so these start first, one per free
#: worker, and the hundreds of short modules fill in beside them: the run ends when the last long module does, not
#: one long module after the rest.
LONGEST_FIRST = [  # 2026-11-25, after browser tests became tabs of one context: the round took 1,032 s (the deployment
    # and restart modules, marked `waiting`, have since moved to a round of their own beside this one: the Makefile)
    "tests/browser/test_newcomer_finds.py",  # the longest alone: pages at two widths, heatmaps at three, eight tokenizers
    "tests/browser/test_newcomer.py",  # 182 s: eight tokenizers at three screen sizes, a fresh server
    "tests/browser/test_a11y.py",  # 124 s then: axe-core on every page (now opened by its name; presenter mode moved)
    "tests/tokenizer/models/test_parity.py",  # 110 s: the open models' code-point scans and exports
    "tests/browser/test_tokenize.py",  # 103 s
    "tests/tokenizer/formats/test_hf.py",  # 89 s: tokenizer.json pipelines against tokenizers
    "tests/browser/test_step.py",  # 79 s
    "tests/browser/test_compare.py",  # 67 s
    "tests/tokenizer/models/test_pretrained.py",  # 62 s: the code-point scans of r50k, cl100k, o200k
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
