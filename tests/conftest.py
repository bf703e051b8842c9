"""Shared test setup: hypothesis profiles and the official encodings (loaded once)."""

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


@pytest.fixture(scope="session", params=OFFICIAL)
def official(request):
    """(our Tokenizer, tiktoken.Encoding) for each official encoding."""
    import tiktoken

    return tokenizer.load_encoding(request.param), tiktoken.get_encoding(request.param)
