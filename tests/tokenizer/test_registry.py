"""The registry: every record agrees with tiktoken, names resolve, menus are derived from it."""

from __future__ import annotations

import dataclasses
import hashlib
import inspect

import pytest
import tiktoken
import tiktoken_ext.openai_public as openai_public

from tokenizer import fetch, load_encoding, pretrained, registry
from tokenizer.patterns import DEFAULT_PATTERN, resolve_pattern

SPECS = registry.specs()
OPENAI = [s for s in SPECS if s.family == "OpenAI"]


@pytest.fixture(params=SPECS, ids=lambda s: s.name)
def record(request):
    return request.param


@pytest.fixture(params=OPENAI, ids=lambda s: s.name)
def openai_record(request):
    return request.param


def test_pattern_and_special_tokens_are_tiktokens(openai_record):
    ref = tiktoken.get_encoding(openai_record.name)
    assert openai_record.pattern == ref._pat_str
    assert dict(openai_record.special_tokens) == ref._special_tokens


def test_source_is_pinned_to_tiktokens_url_and_hash(openai_record):
    src = inspect.getsource(openai_public)
    assert openai_record.source.url in src and openai_record.source.sha256 in src


def test_provisioned_file_has_the_pinned_hash(record):
    assert hashlib.sha256(fetch.path_of(record.source).read_bytes()).hexdigest() == record.source.sha256


def test_special_tokens_of_a_tokenizer_json_record_are_the_files(record):
    tok = load_encoding(record.name)
    for text, tid in record.special_tokens.items():
        assert tok.special_tokens[text] == tid


def test_every_file_format_has_a_parser(record):
    assert record.source.format in pretrained.PARSERS


def test_chat_tokens_take_free_ids(record):
    tok = load_encoding(record.name)
    taken = set(tok.vocab)
    assert not set(record.chat_tokens.values()) & taken
    assert not set(record.chat_tokens) & set(record.special_tokens)
    if record.chat_tokens:
        chat = tok.with_special_tokens(record.chat_tokens)
        assert chat.encode("<|im_start|>", allowed_special="all") == [record.chat_tokens["<|im_start|>"]]
    assert pretrained.CHAT_SPECIAL_TOKENS.get(record.name, {}) == dict(record.chat_tokens)


def test_names_and_aliases_resolve_in_any_case(record):
    for key in (record.name, record.name.upper(), *record.aliases, *(a.upper() for a in record.aliases), f"  {record.name} "):
        assert registry.spec(key) is record
    assert load_encoding(record.aliases[0]) is load_encoding(record.name)  # one object per encoding


def test_labels_names_and_aliases_are_unique():
    labels = [s.label for s in SPECS]
    keys = [k for s in SPECS for k in (s.name, *s.aliases)]
    assert len(set(labels)) == len(labels)
    assert len(set(keys)) == len(keys)
    assert registry.names() == [s.name for s in SPECS]
    assert registry.names()[:3] == ["r50k_base", "cl100k_base", "o200k_base"]
    assert {s.family for s in SPECS} >= {"OpenAI", "DeepSeek"}


@pytest.mark.parametrize("bad", ["p50k_base", "", "gpt-5", None, 3])
def test_unknown_name_lists_the_known_ones(bad):
    with pytest.raises(ValueError) as e:
        registry.spec(bad)
    for s in SPECS:
        assert s.name in str(e.value)
    assert "gpt2" in str(e.value)  # aliases too
    with pytest.raises(ValueError, match="choose one of"):
        load_encoding(bad)


def test_records_are_immutable(record):
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.name = "x"
    with pytest.raises(TypeError):
        record.special_tokens["<|x|>"] = 1
    with pytest.raises(TypeError):
        record.chat_tokens["<|x|>"] = 1


def test_pattern_choices_are_derived_from_the_records():
    choices = registry.pattern_choices()
    assert list(choices)[0] == DEFAULT_PATTERN
    offered = {s.pattern for s in SPECS if s.pattern_label is not None}
    assert {resolve_pattern(name) for name in choices} == offered  # every name works with train(pattern=...)
    for name, label in choices.items():
        assert label in {s.pattern_label for s in SPECS if s.pattern == resolve_pattern(name)}
    assert choices == {"gpt4": "GPT-4 (cl100k_base)", "gpt2": "GPT-2 (r50k_base)", "o200k": "GPT-4o (o200k_base)"}
