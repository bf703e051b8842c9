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

#: The modules that took longest in runs on 2 workers (`pytest -n 2 --dist loadscope --junitxml`, 2026-11-25, seconds
#: of test time on a machine shared with other work, after this session's cuts to the code-point scans), longest
#: first. `make test` gives each worker whole modules in collection order (``--no-loadscope-reorder``: xdist's own
#: order is "most tests first", which put the long modules near the end), so these start first, one per free
#: worker, and the hundreds of short modules fill in beside them: the run ends when the last long module does, not
#: one long module after the rest.
LONGEST_FIRST = [
    "tests/browser/test_newcomer.py",  # 312 s: eight tokenizers at two screen sizes, a fresh server
    "tests/browser/test_classroom.py",  # 252 s: the real `make serve` deployment, restarted and killed
    "tests/browser/test_a11y.py",  # 247 s: axe-core on every page, normal and presenter
    "tests/tokenizer/models/test_parity.py",  # ~160 s: the open models' code-point scans and exports
    "tests/tokenizer/formats/test_hf.py",  # ~140 s: 495 tests, tokenizer.json pipelines against tokenizers
    "tests/browser/test_step.py",  # 159 s
    "tests/browser/test_compare.py",  # 151 s
    "tests/classroom/test_deploy.py",  # 136 s: deployments started, supervised and stopped
    "tests/tokenizer/formats/test_loader_fuzz.py",  # 113 s
    "tests/browser/test_train_variants.py",  # 112 s
    "tests/tokenizer/models/test_pretrained.py",  # ~90 s: the code-point scans of r50k, cl100k, o200k
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
