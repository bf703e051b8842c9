"""llama.cpp's vocabularies (GGUF files from llama-cpp-python's sdist): our Tokenizer gives llama.cpp's own expected
ids on every one of its test vectors (the ``.gguf.inp``/``.gguf.out`` pairs beside each file), and the ids of Hugging
Face tokenizers running the same vocabulary with llama.cpp's split rule on any other text; the split rules are the
ones in the sdist's src/llama-vocab.cpp. The reader itself: tests/tokenizer/formats/test_gguf.py."""

from __future__ import annotations

import functools
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from model_packages import hf_file_tokenizer
from texts import MULTILINGUAL, stdlib_sample

from tests.tier import examples
from tokenizer import load_encoding, registry
from tokenizer.display import bytes_to_unicode
from tokenizer.formats import gguf
from tokenizer.models import fetch
from tokenizer.models.provision import LLAMA_CPP_TESTS

GGUF_MODELS = [s.name for s in registry.specs() if s.source.format == "gguf"]
#: our encoding -> the name of llama.cpp's vocabulary whose test vectors it must pass
VECTORS = {
    "falcon": "falcon",
    "starcoder2": "starcoder",
    "gpt_neox": "mpt",
    "mpt": "mpt",
    "command_r": "command-r",
    "deepseek_llm": "deepseek-llm",
    "deepseek_coder": "deepseek-coder",
    # the same vocabularies as these, read by BPE Lab from their own files: a cross-check of both
    "r50k_base": "gpt-2",
    "qwen2.5": "qwen2",
    "llama3": "llama-bpe",
    # SentencePiece-style (tokenizer/spm.py)
    "llama2": "llama-spm",
    "phi3": "phi-3",
    "gemma4": "gemma-4",
}
CORPUS = MULTILINGUAL + stdlib_sample(100_000)


def vectors(vocab: str) -> list[tuple[str, list[int]]]:
    inp = LLAMA_CPP_TESTS.get(f"{vocab}-inp", LLAMA_CPP_TESTS["inp"])  # Gemma 4's inputs are its own
    return gguf.read_vocab_tests(fetch.read_verified(inp), fetch.read_verified(LLAMA_CPP_TESTS[vocab]))


def test_every_gguf_model_has_its_vectors():
    assert set(GGUF_MODELS) <= set(VECTORS)
    assert len(vectors("falcon")) == 46  # every case of llama.cpp's test-tokenizer-0 for these vocabularies


@pytest.mark.parametrize("name", list(VECTORS))
def test_llama_cpps_own_test_vectors(name):
    """tests/test-tokenizer-0.cpp's check: each input's ids without BOS/EOS and without parsing special tokens."""
    tok = load_encoding(name)
    cases = vectors(VECTORS[name])
    wrong = [(text, ids, tok.encode(text, disallowed_special=())) for text, ids in cases]
    wrong = [w for w in wrong if w[1] != w[2]]
    assert wrong == []
    for text, ids in cases:
        assert tok.decode(ids) == text  # byte-level BPE loses nothing, nor SentencePiece on these texts


@functools.cache
def _metadata(name: str) -> dict:
    return gguf.read_metadata(fetch.read_verified(registry.spec(name)), name)


@functools.cache
def _missing_bytes(name: str) -> frozenset[int]:
    """Bytes the model's vocabulary has no token for (the ids after its last one, which BPE Lab adds)."""
    have = set(_metadata(name)["tokenizer.ggml.tokens"])
    return frozenset(b for b, ch in bytes_to_unicode().items() if ch not in have)


def _representable(name: str):
    missing = _missing_bytes(name)
    return lambda text: not missing & set(text.encode("utf-8", "replace"))


pieces = st.sampled_from(
    ["the", " The", "I'M", "'ll", "don't", "123456", " 42", "\n", "\n\n", "  ", "\t", "\r\n", "!!", "...", "你好", "加拿大",
     "😄", "é", "e\u0301", "ß", " việc", "Привет", " Japón", "<|endoftext|>", "<fim_prefix>", "<BOS_TOKEN>", "x=1;",
     "  \n ", "$+<=>^~|`", "1,000.5", "µÀÖ", "ｆｕｌｌ", "　。", "한국어", "ø", "    ", "\u3000"]
)  # fmt: skip
mixed_text = st.one_of(st.text(max_size=60), st.lists(pieces, max_size=20).map("".join))


def _as_text(name: str, text: str) -> list[int]:
    """tokenizers' ids with special-token strings encoded as text (llama.cpp's ``parse_special=false``)."""
    hf = hf_file_tokenizer(name)
    hf.encode_special_tokens = True
    try:
        return hf.encode(text, add_special_tokens=False).ids
    finally:
        hf.encode_special_tokens = False


@pytest.mark.parametrize("name", GGUF_MODELS)
@settings(max_examples=examples(100), deadline=None)
@given(text=mixed_text)
def test_ids_equal_tokenizers_with_llama_cpps_rule_on_any_text(name, text):
    if not _representable(name)(text):
        text = text.encode("utf-8", "replace").translate(None, bytes(_missing_bytes(name))).decode("utf-8", "ignore")
    tok = load_encoding(name)
    ids = tok.encode(text, disallowed_special=())
    assert ids == _as_text(name, text)
    assert tok.encode(text, allowed_special="all") == hf_file_tokenizer(name).encode(text, add_special_tokens=False).ids
    # DeepSeek's user-defined tokens "õ", "ÿ"… are GPT-2 byte characters, so they decode to a lone byte, as in tokenizers
    assert tok.decode(ids) == hf_file_tokenizer(name).decode(ids)


@pytest.mark.parametrize("name", GGUF_MODELS)
def test_ids_equal_tokenizers_on_multilingual_and_code(name):
    tok = load_encoding(name)
    assert tok.encode(CORPUS, disallowed_special=()) == _as_text(name, CORPUS)


@pytest.mark.parametrize("name", GGUF_MODELS)
def test_special_tokens_are_the_files_control_tokens(name):
    """Control tokens are special (recognised only when allowed, as llama.cpp's parse_special); user-defined ones are
    found in any text (DeepSeek's single characters, GPT-NeoX's runs of spaces, Command-R's turn tokens)."""
    tok = load_encoding(name)
    meta = _metadata(name)
    tokens, types = meta["tokenizer.ggml.tokens"], meta["tokenizer.ggml.token_type"]
    control = {t: i for i, (t, k) in enumerate(zip(tokens, types)) if k == gguf.CONTROL}
    assert tok.special_tokens == control
    text = "start " + " mid ".join(sorted(control)[:8]) + " end"
    assert tok.encode(text, allowed_special="all") == hf_file_tokenizer(name).encode(text, add_special_tokens=False).ids
    with pytest.raises(ValueError):
        tok.encode(text)
    assert tok.n_vocab == len(tokens) + len(_missing_bytes(name))


def test_a_byte_the_vocabulary_lacks_gets_an_id_of_its_own():
    """Falcon has no token for U+0003 (nor 13 other control characters): llama.cpp leaves it out of the ids; BPE Lab
    shows it as a byte token numbered after the file's last, and merges nothing across it, as llama.cpp does."""
    tok = load_encoding("falcon")
    assert 3 in _missing_bytes("falcon") and 0x80 not in _missing_bytes("falcon")
    ids = tok.encode_ordinary("ab\x03cd")
    extra = [i for i in ids if i >= 65024]
    assert len(extra) == 1 and tok.vocab[extra[0]] == b"\x03"
    assert tok.decode(ids) == "ab\x03cd"


def test_the_split_rules_are_llama_cpps():
    """Each registered pre-tokenizer's regexes, exactly as src/llama-vocab.cpp (in the same sdist) writes them."""
    src = fetch.read_verified(LLAMA_CPP_TESTS["llama-vocab.cpp"]).decode("utf-8")
    cases = {
        "gpt-2": "GPT2", "mpt": "MPT", "olmo": "OLMO", "starcoder": "STARCODER", "refact": "REFACT",
        "command-r": "COMMAND_R", "falcon": "FALCON", "deepseek-llm": "DEEPSEEK_LLM", "deepseek-coder": "DEEPSEEK_CODER",
        "qwen2": "QWEN2", "llama-bpe": "LLAMA3",
    }  # fmt: skip
    assert set(cases) | {"default"} == set(gguf.PRE_TOKENIZERS)
    start = src.index("struct llm_tokenizer_bpe : llm_tokenizer")
    for pre, case in cases.items():
        at = src.index(f"case LLAMA_VOCAB_PRE_TYPE_{case}:", start)
        body = src[at : src.index("break;", at)]
        exprs = [
            bytes(m.group(1), "utf-8").decode("unicode_escape").encode("latin-1").decode("utf-8")
            for m in re.finditer(r'^\s*"((?:[^"\\]|\\.)*)",\s*$', body, re.M)
        ]
        assert tuple(exprs) == gguf.PRE_TOKENIZERS[pre], pre
        name_test = re.search(r'tokenizer_pre == "' + re.escape(pre) + r'"', src)
        assert name_test is not None, pre  # llama.cpp reads this name
    default = src[src.index("default:", src.index(f"case LLAMA_VOCAB_PRE_TYPE_{cases['gpt-2']}:", start)) :]
    exprs = [
        bytes(m.group(1), "utf-8").decode("unicode_escape").encode("latin-1").decode("utf-8")
        for m in re.finditer(r'^\s*"((?:[^"\\]|\\.)*)",\s*$', default[: default.index("break;")], re.M)
    ]
    assert tuple(exprs) == gguf.PRE_TOKENIZERS["default"]


def test_gpt_neox_and_mpt_are_one_tokenizer():
    assert registry.spec("mpt").base == "gpt_neox" and registry.spec("mpt").source is registry.spec("gpt_neox").source
    assert load_encoding("mpt").merge_table.pairs is load_encoding("gpt_neox").merge_table.pairs
