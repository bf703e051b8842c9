"""A class on one server process (AppTest, shared mode): what is the same for everyone is computed once, and
what a student makes stays theirs.

Two browsers (Alice, Bob) train the built-in sample with its settings, as a class does: the held-out curve, the
compression chart's frame, the Step through replay and the vocabulary table of that training are computed once
for both (``ui.common.cache.for_content``); a renamed copy, a pasted text's training and its curve stay with
their browser.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from classroom import identity
from ui.common import cache
from ui.step import model as step_model
from ui.train import heldout
from ui.train import model as train_model
from ui.vocabulary import model as vocab_model

from .conftest import go_shared

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow  # two browsers train and open four pages each: about 40 s
ALICE, BOB = "a" * 32, "b" * 32


@pytest.fixture(autouse=True)
def shared(tmp_path, monkeypatch):
    go_shared(monkeypatch, tmp_path)
    # this process's shared results start empty: other tests of this worker may have trained the same sample
    monkeypatch.setattr(cache, "_SHARED", cache.OwnerCache())
    monkeypatch.setattr(cache, "_BUILTIN", cache.OrderedDict())
    monkeypatch.setattr(cache, "_TWINS", cache.OrderedDict())


@pytest.fixture
def calls(monkeypatch) -> dict[str, int]:
    """How often each computation a class shares ran for a user's tokenizer (official encodings' are shared anyway)."""
    counts = {"curve": 0, "compression": 0, "excerpt": 0, "vocab": 0}

    def counting(name, module, attr):
        real = getattr(module, attr)

        def wrapper(*args, **kwargs):
            try:
                official = cache.is_shared(args[0])
            except TypeError:  # not a tokenizer (a training trace)
                official = False
            counts[name] += not official
            return real(*args, **kwargs)

        monkeypatch.setattr(module, attr, wrapper)

    counting("curve", heldout, "curve")
    counting("compression", train_model, "compression_frame")
    counting("excerpt", step_model, "excerpt_trace")
    counting("vocab", vocab_model, "vocab_frame")
    return counts


def as_browser(monkeypatch, key: str) -> None:
    monkeypatch.setattr(identity, "browser_key", lambda: key)


def page(name: str, **query) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / f"{name}.py"), default_timeout=120)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception
    return at


def train_sample(monkeypatch, browser: str) -> AppTest:
    """Train the built-in docstrings sample (a small vocabulary, to keep the test quick), as a student would."""
    as_browser(monkeypatch, browser)
    at = page("train")
    at.number_input(key="train.vocab_size").set_value(300).run()
    at.button(key="train.go").click().run()
    assert not at.exception and at.success
    return at


def chart_specs(at: AppTest) -> list[str]:
    return [e.proto.spec for e in at.get("vega_lite_chart")]


def texts(elements) -> list[str]:
    return [e.value for e in elements]


def test_a_built_in_training_is_charted_replayed_and_listed_once_for_the_class(monkeypatch, calls):
    alice = train_sample(monkeypatch, ALICE)
    assert calls == {"curve": 1, "compression": 1, "excerpt": 0, "vocab": 0}
    bob = train_sample(monkeypatch, BOB)
    assert any("already trained this sample" in s for s in texts(bob.success))
    assert calls == {"curve": 1, "compression": 1, "excerpt": 0, "vocab": 0}  # Bob's page reused Alice's results
    alice_key, bob_key = alice.session_state["train.selected"], bob.session_state["train.selected"]
    assert alice_key != bob_key  # each has their own copy in their own workspace
    for browser, key in ((ALICE, alice_key), (BOB, bob_key)):
        as_browser(monkeypatch, browser)
        step = page("step", mode="training", tokenizer=f"user:{key}", step="3")
        assert step.get("bidi_component")  # the stepper got its trace
        vocab = page("vocabulary")
        vocab.selectbox(key="vocab.tokenizer").set_value(f"user:{key}").run()
        assert not vocab.exception and any(m.label == "Merges" and m.value == "44" for m in vocab.metric)
    assert calls == {"curve": 1, "compression": 1, "excerpt": 1, "vocab": 1}
    # the same held-out text picked again by either: still the one curve
    for browser in (ALICE, BOB):
        as_browser(monkeypatch, browser)
        page("train")
    assert calls["curve"] == 1


def test_what_a_student_changes_or_pastes_stays_theirs(monkeypatch, calls):
    alice = train_sample(monkeypatch, ALICE)
    bob = train_sample(monkeypatch, BOB)
    bob.text_input(key="train.rename").input("bobs own name").run()
    bob.button(key="train.rename_go").click().run()
    assert not bob.exception
    assert any("bobs own name on" in spec for spec in chart_specs(bob))  # the held-out chart's title names his copy...
    as_browser(monkeypatch, ALICE)
    alice.run()
    specs = chart_specs(alice)
    assert specs and not any("bobs own name" in spec for spec in specs)  # ...and never Alice's, computed once each
    assert not any("bobs own name" in o for o in alice.selectbox(key="train.selected").options)
    assert alice.text_input(key="train.rename").value != "bobs own name"
    # a pasted text's training: its curve is computed in each session that trains it, never shared
    curves = calls["curve"]
    for browser in (ALICE, BOB):
        as_browser(monkeypatch, browser)
        at = page("train")
        at.segmented_control(key="train.source").set_value("paste").run()
        at.text_area(key="train.paste").input(f"{browser[:1]} pasted this text of their own. " * 40)
        at.number_input(key="train.vocab_size").set_value(270)
        at.text_input(key="train.name").input(f"pasted by {browser[:1]}")
        at.run()
        at.button(key="train.go").click().run()
        assert not at.exception and any(f"Trained **pasted by {browser[:1]}**" in s for s in texts(at.success))
    assert calls["curve"] == curves + 2
    as_browser(monkeypatch, BOB)
    vocab = page("vocabulary")
    options = vocab.selectbox(key="vocab.tokenizer").options
    assert not any("pasted by a" in o for o in options) and any("pasted by b" in o for o in options)
    assert any("bobs own name" in o for o in options)  # his renamed copy, with its new name
