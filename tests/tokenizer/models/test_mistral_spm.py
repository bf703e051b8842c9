"""Mistral v1 and v3 (mistral-common's SentencePiece .model files): the registry's Tokenizers give exactly the ids of
the ``sentencepiece`` package on the very file and of mistral-common's own tokenizer on it (``MistralTokenizer``'s
``SentencePieceTokenizer``, which runs sentencepiece), and decode them back. What every SentencePiece-style model
answers pages (spans, merge trees, stepping): test_sentencepiece_models.py, which runs on these two as well; the
chat formats: test_chat.py."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from model_packages import mistral_tokenizer, sentencepiece_reference
from texts import MULTILINGUAL, stdlib_sample

from tests.tier import examples
from tests.tokenizer.models.test_sentencepiece_models import text
from tokenizer import load_encoding, registry
from tokenizer.formats import gguf
from tokenizer.models import fetch
from tokenizer.models.provision import LLAMA_CPP_TESTS

NAMES = ["mistral_v1", "mistral_v3"]
#: characters no piece of either file holds, so they fall back to their UTF-8 bytes
NO_PIECE = ["\U0001f999", "\U00010348", "\x00", "\u0f3a", "\U000e0041", "\ufdfd", "\ua9c1", "\U0001d11e"]
KNOWN = [
    "Hello world", " Hello world", "Hello  world", "  leading", "trailing  ", "\n", "\n\n\tx", "don't stop",
    "1234567890", "3.14159", "ﬁne", "naïve café", "e\u0301", "你好，世界", "こんにちは", "Привет мир", "مرحبا", "🦙🤚🏾",
    "def f(x):\n    return x ** 2\n", "[INST] hi [/INST]", "<s>x</s>", "▁▁x", "x" * 300, " " * 40,
]  # fmt: skip


@pytest.fixture(scope="module", params=NAMES)
def model(request):
    name = request.param
    mistral = mistral_tokenizer(name).instruct_tokenizer.tokenizer  # what encode_chat_completion encodes text with
    return load_encoding(name), sentencepiece_reference(name), mistral


def _mistral(mistral, s: str) -> list[int]:
    return mistral.encode(s, bos=False, eos=False)


def test_the_references_read_the_provisioned_file(model):
    ours, ref, mistral = model
    assert ours.model.pieces == [mistral.id_to_piece(i) for i in range(mistral.n_words)]
    assert ours.n_vocab == ref.get_piece_size() == mistral.n_words == {"mistral_v1": 32000}.get(ours.name, 32768)
    assert str(mistral.file_path) == str(fetch.path_of(registry.spec(ours.name).source))
    assert mistral.version.value == ours.name[-2:]  # the file's name says its instruct version, as in the wheel


def test_known_texts_and_llama_cpps_test_inputs(model):
    ours, ref, mistral = model
    inputs = KNOWN + [t for t, _ in gguf.read_vocab_tests(fetch.read_verified(LLAMA_CPP_TESTS["inp"]), b"\n" * 46)]
    for s in inputs:
        ids = ref.encode(s)
        assert ours.encode_ordinary(s) == ids == _mistral(mistral, s), s
        assert ours.decode(ids) == ref.decode(ids) == s.replace("▁", " ")  # a typed ▁ is the space it stands for


def test_the_multilingual_and_code_corpus(model):
    ours, ref, mistral = model
    corpus = MULTILINGUAL + stdlib_sample(100_000)
    ids = ref.encode(corpus)
    assert ours.encode_ordinary(corpus) == ids == _mistral(mistral, corpus)
    assert ours.decode(ids) == corpus
    lines = corpus.splitlines()
    assert [ours.encode_ordinary(line) for line in lines] == ref.encode(lines)


@settings(max_examples=examples(300), deadline=None)
@given(st.one_of(text, st.lists(st.sampled_from([*NO_PIECE, "[REFERENCE_DOC_7]", "[TOOL_CALLS]", " "]), max_size=8).map("".join)))
@example("[REFERENCE_DOC_1]")
@example(" [REFERENCE_DOC_12]x")
def test_any_text(model, s):
    ours, ref, mistral = model
    clean = s.encode("utf-8", "replace").decode("utf-8")
    ids = ref.encode(clean)
    assert ours.encode(s, disallowed_special=()) == ids == _mistral(mistral, clean)
    assert ours.decode(ids) == ref.decode(ids) == clean.replace("▁", " ")


def test_characters_without_a_piece_fall_back_to_their_bytes(model):
    ours, ref, _ = model
    for ch in NO_PIECE:
        ids = ours.encode_ordinary(ch)
        assert ids == ref.encode(ch)
        assert [ours.vocab[i] for i in ids[1:]] == [bytes([b]) for b in ch.encode("utf-8")]
        assert all(ours.is_byte_token(i) for i in ids[1:]) and ours.decode(ids) == ch


def test_special_tokens_are_their_ids_when_allowed_and_text_otherwise(model):
    ours, ref, mistral = model
    for token in ("<s>", "</s>", *(["[INST]", "[/INST]", "[TOOL_CALLS]", "[IMG]"] if ours.name == "mistral_v3" else [])):
        tid = ours.special_tokens[token]
        assert tid == ref.piece_to_id(token) == mistral.get_special_token(token) and ref.is_control(tid)
        assert ours.encode(f"a{token}b", allowed_special="all") == [*ref.encode("a"), tid, *ref.encode("b")]
        assert ours.encode(f"a{token}b", disallowed_special=()) == ref.encode(f"a{token}b")  # sentencepiece: text
        with pytest.raises(ValueError, match="disallowed special token"):
            ours.encode(token)
        assert ours.decode([tid]) == ref.decode([tid]) == ""


def test_v3s_reference_doc_pieces_are_found_in_any_text_as_sentencepiece_finds_them():
    ours, ref = load_encoding("mistral_v3"), sentencepiece_reference("mistral_v3")
    doc = ours.model.piece_to_id["[REFERENCE_DOC_3]"]
    assert ours.model.types[doc] == gguf.USER_DEFINED and "[REFERENCE_DOC_3]" not in ours.special_tokens
    space = ours.model.piece_to_id["▁"]
    # one dummy prefix for the whole text: before a piece that starts it, never after one
    assert ours.encode_ordinary("[REFERENCE_DOC_3]x") == ref.encode("[REFERENCE_DOC_3]x") == [space, doc, ref.piece_to_id("x")]
    assert ours.encode_ordinary("a [REFERENCE_DOC_3] b") == ref.encode("a [REFERENCE_DOC_3] b")
    spans = ours.encode_spans("[REFERENCE_DOC_3]x")
    assert [(s.start, s.end) for s in spans] == [(0, 0), (0, 17), (17, 18)]  # the prefix's ▁ comes from no character
    trace = ours.encode_trace("[REFERENCE_DOC_3] hi there")
    assert trace.final == ours.encode_ordinary("[REFERENCE_DOC_3] hi there")
