"""bpe/methods.py: every training method by name; a saved variant says how it was trained and loads back whole."""

from __future__ import annotations

import pytest

from tokenizer import TrainingTrace, formats, train
from tokenizer.bpe import methods
from tokenizer.bpe.methods import train_with
from tokenizer.bpe.parity import join_parallel

TEXT = "the cat sat on the mat; the cat ate the rat. " * 20
TEXTS = {"English": "the cat sat on the mat", "German": "die Katze saß auf der Matte", "Greek": "η γάτα κάθισε στο χαλί"}


def _variants():
    base = train(TEXT, 280, pattern="gpt4", name="base")
    return [
        ("parity", TEXTS, 300, {"pattern": "gpt4", "global_merges": 3}, join_parallel(TEXTS)),
        ("superwords", TEXT, 320, {"pattern": "gpt4", "transition": 290}, TEXT),
        ("continued", TEXT + " the bat", base.n_vocab + 12, {"base": base}, TEXT + " the bat"),
    ]


def test_every_method_by_name_is_its_function():
    assert methods.train_with("bpe", TEXT, 300, pattern="gpt4").merges == train(TEXT, 300, pattern="gpt4").merges
    for method, text, size, settings, _ in _variants():
        tok = methods.train_with(method, text, size, **settings)
        assert methods.training_method(tok) == method == tok.metadata["training"]["method"]
        assert tok.metadata["training"]["reference"]  # where the method comes from
        assert tok.merges == methods.trainer_for(method)(text, size, **settings).merges
    assert methods.training_method(train(TEXT, 260)) == "bpe"


@pytest.mark.parametrize("method", ["parity", "superwords", "continued"])
def test_a_saved_variant_loads_back_with_its_record_and_its_trace(method, tmp_path):
    _, text, size, settings, stored = next(v for v in _variants() if v[0] == method)
    tok = methods.train_with(method, text, size, name=f"my {method}", **settings)
    path = tmp_path / "tok.json"
    formats.save(tok, path)
    back = formats.load(path)
    assert back.merge_list == tok.merge_list and back.special_tokens == tok.special_tokens and back.pattern == tok.pattern
    assert back.metadata["training"] == tok.metadata["training"]
    trace = TrainingTrace.from_text(back, stored)
    assert type(trace) is type(tok.training)
    assert trace.tokens_after == tok.training.tokens_after and trace.first_learned == tok.training.first_learned
    assert not trace.incremental  # a page asks the trace for its pair counts


def test_unknown_methods_are_named():
    with pytest.raises(ValueError, match="unknown training method 'wordpiece': use one of bpe, parity, superwords, continued"):
        methods.train_with("wordpiece", TEXT, 300)
    tok = train(TEXT, 260)
    tok.metadata["training"] = {"method": "unigram"}
    with pytest.raises(ValueError, match="trained by 'unigram', which this BPE Lab does not know"):
        TrainingTrace.from_text(tok, TEXT)


@pytest.mark.parametrize("method", ["bpe", "superwords", "continued"])
def test_a_training_past_its_time_is_stopped_at_its_next_progress_call(method):
    base = {"base": train_with("bpe", "the cat sat " * 40, 260, pattern="gpt4")} if method == "continued" else {}
    seen: list = []
    with pytest.raises(ValueError, match="took longer than 0 s and was stopped"):
        train_with(method, "the cat sat on the mat " * 40, 300, seconds=0, progress=lambda d, t: seen.append(d), **base)
    assert seen == []  # stopped at the first call, which the page never saw
    tok = train_with(method, "the cat sat on the mat " * 40, 300, seconds=60, progress=lambda d, t: seen.append(d), **base)
    assert tok.num_merges > 0 and seen


def test_a_training_in_the_pages_thread_has_a_time_limit(monkeypatch):
    from ui.common import training

    monkeypatch.setattr(training, "HERE_SECONDS", 0)
    with pytest.raises(ValueError, match="took longer than 0 s"):
        training.here("the cat sat on the mat " * 40, 300, pattern="gpt4")
