"""Shared test setup: hypothesis profiles, the official encodings (loaded once), the long modules first."""

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


def pytest_collection_modifyitems(config, items):
    """The modules that hold slow or browser tests first, each module's tests in their own order: with
    ``--no-loadscope-reorder`` (`make test`) each worker takes whole modules in this order, so the run does not end
    with one worker on a long module that started last while the other idles."""
    long = {item.nodeid.split("::")[0] for item in items if item.get_closest_marker("slow") or item.get_closest_marker("browser")}
    items.sort(key=lambda item: item.nodeid.split("::")[0] not in long)


@pytest.fixture(scope="session", params=OFFICIAL)
def official(request):
    """(our Tokenizer, tiktoken.Encoding) for each official encoding."""
    import tiktoken

    return tokenizer.load_encoding(request.param), tiktoken.get_encoding(request.param)
