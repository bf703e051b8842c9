"""tokenizer/bpe/sentencepiece.py: SentencePiece-style BPE, exact to llama.cpp's own test vectors for Llama 2's and
Phi-3's vocabularies (which llama.cpp made with sentencepiece), to a naive reference of the rule on any text, and
decoding the exact inverse. (The ``sentencepiece`` package itself is not installed here: the vectors stand for it.)"""

from __future__ import annotations

import functools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from texts import MULTILINGUAL

from tests.tier import examples
from tokenizer.bpe.sentencepiece import SPACE, SentencePieceBPE
from tokenizer.formats import gguf
from tokenizer.models import fetch
from tokenizer.models.provision import LLAMA_CPP_TESTS
from tokenizer.models.registry import spec

VOCABS = ["llama-spm", "phi-3"]
RECORD = {"llama-spm": "llama2", "phi-3": "phi3"}  # the registered models whose files these are


@functools.cache
def vocab(name: str) -> SentencePieceBPE:
    return SentencePieceBPE.from_gguf(gguf.read_metadata(fetch.read_verified(spec(RECORD[name])), name))


def naive(sp: SentencePieceBPE, text: str) -> list[int]:
    """The rule as written: join the adjacent pair whose text is the best-scored piece (leftmost on a tie), until none
    is a piece; then each part is its piece, or its bytes."""
    parts = list(sp.normalize(text.encode("utf-8", "replace").decode("utf-8")))
    while True:
        best = None
        for i in range(len(parts) - 1):
            tid = sp.piece_to_id.get(parts[i] + parts[i + 1])
            if tid is not None and (best is None or sp.scores[tid] > best[0]):
                best = (sp.scores[tid], i)
        if best is None:
            break
        i = best[1]
        parts[i : i + 2] = [parts[i] + parts[i + 1]]
    out = []
    for p in parts:
        out += [sp.piece_to_id[p]] if p in sp.piece_to_id else [sp.byte_ids[b] for b in p.encode("utf-8")]
    return out


@pytest.mark.parametrize("name", VOCABS)
def test_llama_cpps_own_test_vectors(name):
    cases = gguf.read_vocab_tests(fetch.read_verified(LLAMA_CPP_TESTS["inp"]), fetch.read_verified(LLAMA_CPP_TESTS[name]))
    assert len(cases) == 46
    sp = vocab(name)
    assert [(t, sp.encode(t)) for t, _ in cases] == cases
    assert [sp.decode(ids) for _, ids in cases] == [t for t, _ in cases]


text = st.one_of(
    st.text(max_size=40),
    st.lists(st.sampled_from([" ", "  ", "the", " the", "Hello", "\n", "你好", "😄", "🦙", "é", "e\u0301", SPACE, "123", "\t"]),
             max_size=12).map("".join),
)  # fmt: skip


@pytest.mark.parametrize("name", VOCABS)
@settings(max_examples=examples(150), deadline=None)
@given(text=text)
def test_the_rule_on_any_text_and_decode_is_its_inverse(name, text):
    sp = vocab(name)
    ids = sp.encode(text)
    assert ids == naive(sp, text)
    # a typed ▁ is a space to the model, as in sentencepiece: the one thing decoding cannot give back
    assert sp.decode(ids) == text.encode("utf-8", "replace").decode("utf-8").replace(SPACE, " ")


@pytest.mark.parametrize("name", VOCABS)
def test_multilingual_text(name):
    sp = vocab(name)
    for line in MULTILINGUAL.splitlines():
        assert sp.encode(line) == naive(sp, line)
        assert sp.decode(sp.encode(line)) == line


def test_spaces_dummy_prefix_and_byte_fallback():
    sp = vocab("llama-spm")
    assert sp.normalize("a b") == SPACE + "a" + SPACE + "b" and sp.normalize("") == "" and sp.encode("") == []
    assert sp.encode("Hello") == [sp.piece_to_id[SPACE + "Hello"]]  # the dummy prefix joins the first word
    ch = "\U0001f9ec"  # a character that is no piece of Llama 2's vocabulary: its four UTF-8 bytes
    assert ch not in sp.piece_to_id
    ids = sp.encode(ch)
    assert ids[-4:] == [sp.byte_ids[b] for b in ch.encode("utf-8")] and all(sp.types[i] == 6 for i in ids[-4:])
    assert sp.decode(ids) == ch
    assert sp.special_tokens == {"<s>": 1, "</s>": 2}


def test_bad_input_is_a_clear_error():
    sp = vocab("llama-spm")
    with pytest.raises(ValueError, match="str"):
        sp.encode(b"bytes")
    with pytest.raises(ValueError, match="not in this vocabulary"):
        sp.decode([sp.n_vocab])
    with pytest.raises(ValueError, match="256 byte tokens"):
        SentencePieceBPE(["a"], [0.0], [1])
    with pytest.raises(ValueError, match="not a SentencePiece-style vocabulary"):
        SentencePieceBPE.from_gguf({"tokenizer.ggml.model": "gpt2"})
