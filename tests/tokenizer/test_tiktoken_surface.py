"""tiktoken's public surface on our Tokenizer: the same names, the same answers, the same errors."""

from __future__ import annotations

import random
import re
import unicodedata

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from model_packages import TIKTOKEN_MODELS, tiktoken_reference

from tests.tier import examples
from tokenizer import Tokenizer, load_encoding, registry

# OpenAI's special tokens, and the open models' (Llama 3/4, Qwen, gpt-oss)
SPECIALS = [
    "<|endoftext|>",
    "<|fim_prefix|>",
    "<|endofprompt|>",
    "<|im_start|>",
    "<|begin_of_text|>",
    "<|eot_id|>",
    "<|eot|>",
    "<|start|>",
    "<|return|>",
]
SPECIAL_NAMES = [*SPECIALS, "<|nope|>", "hello"]
texts_with_specials = st.lists(st.sampled_from(["hello", " world", *SPECIALS, "<|nope|>", "\n", "你好"]), max_size=8).map("".join)
# tiktoken wants a set for allowed_special (we take any collection of strings)
allowed_args = st.one_of(st.just("all"), st.frozensets(st.sampled_from(SPECIAL_NAMES), max_size=3))
disallowed_args = st.one_of(st.just("all"), st.just(()), st.frozensets(st.sampled_from(SPECIAL_NAMES), max_size=3))


@pytest.fixture(scope="module", params=["r50k_base", "cl100k_base", "o200k_base", *TIKTOKEN_MODELS])
def official(request):
    """(our Tokenizer, the tiktoken.Encoding its package builds) for every encoding whose reference is tiktoken."""
    return load_encoding(request.param), tiktoken_reference(request.param)


# tiktoken's o200k_harmony gives id 200018 a second name; BPE Lab keeps the first (docs/models.md)
SECOND_NAMES = {"<|reserved_200018|>"}


def _eot(enc):
    try:
        return enc.eot_token
    except KeyError:  # Llama's and Qwen's end of text is not <|endoftext|>: tiktoken raises KeyError, as we do
        return KeyError


def test_names_and_sizes(official):
    ours, ref = official
    assert ours.special_tokens_set == ref.special_tokens_set - SECOND_NAMES
    assert _eot(ours) == _eot(ref)
    assert ours.max_token_value == ref.max_token_value
    assert ours.n_vocab == ref.n_vocab == ours.max_token_value + 1
    assert f"n_vocab={ref.n_vocab}" in repr(ours)
    assert all(ours.is_special_token(ref.encode_single_token(s)) for s in ref.special_tokens_set)
    assert not any(map(ours.is_special_token, ref.encode_ordinary("hello world")))
    # Whisper's multilingual file ends with an empty token at <|endoftext|>'s rank (tokenizer/models/pretrained.py):
    # tiktoken lists its b"" among the ordinary tokens, BPE Lab keeps that id for the special token alone
    empty = {b""} if ours.name in ("whisper", "whisper_v3") else set()
    assert set(ref.token_byte_values()) - set(ours.token_byte_values()) == empty
    assert set(ours.token_byte_values()) - set(ref.token_byte_values()) == set()


def test_single_tokens(official):
    ours, ref = official
    rng = random.Random(3)
    for i in rng.sample(range(ref.n_vocab), 500):
        try:
            want = ref.decode_single_token_bytes(i)
        except KeyError:
            with pytest.raises(KeyError):
                ours.decode_single_token_bytes(i)
            continue
        assert ours.decode_single_token_bytes(i) == want
        if i not in ours.special_ids:
            assert ours.encode_single_token(want) == ref.encode_single_token(want)
    for s in ref.special_tokens_set - SECOND_NAMES:
        assert ours.encode_single_token(s) == ref.encode_single_token(s)
        assert ours.encode_single_token(s.encode()) == ref.encode_single_token(s.encode())
    for missing in ("not one token", b"\xff\xfe not one"):
        with pytest.raises(KeyError):
            ref.encode_single_token(missing)
        with pytest.raises(KeyError):
            ours.encode_single_token(missing)


@settings(max_examples=examples(150))
@given(st.lists(st.text(max_size=40), max_size=5))
@example(["\uf900", "Cre\u0300me bru\u0302le\u0301e"])  # a compatibility ideograph and combining accents: NFC changes both
def test_batches(official, batch):
    ours, ref = official
    # tiktoken over Qwen's ranks does not normalize; Qwen's own package (and so BPE Lab) encodes the NFC form
    seen = [unicodedata.normalize(ours.normalizer, t) for t in batch] if ours.normalizer else batch
    assert ours.encode_ordinary_batch(batch) == ref.encode_ordinary_batch(seen)
    assert ours.encode_batch(batch, disallowed_special=()) == ref.encode_batch(seen, disallowed_special=())
    ids = ref.encode_ordinary_batch(batch)
    assert ours.decode_batch(ids) == ref.decode_batch(ids)
    assert ours.decode_bytes_batch(ids) == ref.decode_bytes_batch(ids)


@settings(max_examples=examples(150))
@given(st.text(max_size=60))
def test_decode_with_offsets(official, text):
    ours, ref = official
    ids = ref.encode_ordinary(text)
    try:
        want = ref.decode_with_offsets(ids)
    except UnicodeDecodeError:
        with pytest.raises(ValueError):
            ours.decode_with_offsets(ids)
        return
    assert ours.decode_with_offsets(ids) == want


def test_encode_to_numpy(official):
    ours, ref = official
    text = "Hello <|endoftext|> world 你好"
    got = ours.encode_to_numpy(text, allowed_special="all")
    want = ref.encode_to_numpy(text, allowed_special="all")
    assert got.dtype == want.dtype == np.uint32 and list(got) == list(want)


@settings(max_examples=examples(300))
@given(texts_with_specials, allowed_args, disallowed_args)
def test_allowed_and_disallowed_special_as_in_tiktoken(official, text, allowed, disallowed):
    ours, ref = official

    def run(enc):
        try:
            return enc.encode(text, allowed_special=allowed, disallowed_special=disallowed)
        except ValueError as e:
            return ("ValueError", re.search(r"token '([^']*)'", str(e)).group(1))

    assert run(ours) == run(ref)


def test_the_disallowed_token_message_gives_advice_that_works(official):
    ours, ref = official
    special = "<|endoftext|>" if "<|endoftext|>" in ref.special_tokens_set else min(ref.special_tokens_set)
    text = f"a {special} b"
    with pytest.raises(ValueError) as ours_error:
        ours.encode(text)
    with pytest.raises(ValueError) as ref_error:
        ref.encode(text)
    assert str(ours_error.value) == str(ref_error.value)
    enc = ours  # the message names `enc.special_tokens_set`: it must exist and the advice must work
    advice = re.search(r"disallowed_special=(\(enc\.special_tokens_set - \{.*?\}\))", str(ours_error.value)).group(1)
    disallowed = eval(advice, {"enc": enc})  # our own message, evaluated as a user would paste it
    assert ours.encode(text, disallowed_special=disallowed) == ref.encode(text, disallowed_special=disallowed)


def test_trained_tokenizers_have_the_surface_too():
    tok = Tokenizer({(104, 105): 256}, special_tokens={"<|endoftext|>": 257})
    assert tok.eot_token == 257 and tok.max_token_value == 257 and tok.n_vocab == 258
    assert tok.decode_with_offsets([256, 105]) == ("hii", [0, 2])
    assert tok.encode_single_token("hi") == 256
    with pytest.raises(KeyError, match="no <|endoftext|>"):
        Tokenizer().eot_token  # noqa: B018


# ----------------------------------------------------------------------------- every kind of tokenizer


def _uploaded_tokenizer_json():
    """A tokenizer.json with a normalizer, a prefix space and added tokens, as the Train page's upload reads it."""
    from hf_files import AddedToken, build, normalizers, pre_tokenizers

    from tokenizer import formats

    text = build(
        normalizer=normalizers.NFKC(),
        pre_tokenizer=pre_tokenizers.ByteLevel(add_prefix_space=True, use_regex=True),
        added=[AddedToken("<think>")],
        special=[AddedToken("<|endoftext|>", special=True, normalized=False)],
    )
    return formats.load_bytes(text.encode(), name="uploaded")


SURFACE_TEXTS = ["Hello world, 你好 😄", "e\u0301 ﬁx <think> x", "", "  \n\t 12345"]


# one of each kind in the fast tier; the sweep over every model in the full suite
_EACH_KIND = ("cl100k_base", "qwen2.5", "deepseek_v4", "uploaded tokenizer.json")


@pytest.mark.parametrize(
    "name",
    [n if n in _EACH_KIND else pytest.param(n, marks=pytest.mark.slow) for n in [*registry.names(), "uploaded tokenizer.json"]],
)
def test_the_whole_surface_works_on_every_kind_of_tokenizer(name):
    """Every method of tiktoken's surface (and ours) on each registered model and an uploaded tokenizer.json:
    rank files, Tekken, a tokenizer.json pipeline (DeepSeek V4), a normalizing model (Qwen)."""
    tok = _uploaded_tokenizer_json() if name == "uploaded tokenizer.json" else load_encoding(name)
    special = next(iter(tok.special_tokens))
    texts = [*SURFACE_TEXTS, f"a {special} b"]
    batch = tok.encode_batch(texts, allowed_special="all")
    assert batch == [tok.encode(t, allowed_special="all") for t in texts]
    assert tok.encode_ordinary_batch(texts) == [tok.encode_ordinary(t) for t in texts]
    assert tok.encode_batch(texts, disallowed_special=()) == [tok.encode(t, disallowed_special=()) for t in texts]
    with pytest.raises(ValueError, match="disallowed special token"):
        tok.encode_batch(texts)
    assert tok.decode_batch(batch) == [tok.decode(ids) for ids in batch]
    assert tok.decode_bytes_batch(batch) == [tok.decode_bytes(ids) for ids in batch]
    assert list(tok.encode_to_numpy(texts[-1], allowed_special="all")) == batch[-1]
    for text, ids in zip(texts, batch):
        assert [s.id for s in tok.encode_spans(text, allowed_special="all")] == ids
        assert tok.encode_trace(text, allowed_special="all").final == ids
        assert b"".join(tok.decode_tokens_bytes(ids)) == tok.decode_bytes(ids)
        try:
            decoded, offsets = tok.decode_with_offsets(ids)
        except ValueError:
            assert not _valid_utf8(tok.decode_bytes(ids))
        else:
            assert decoded == tok.decode(ids) and len(offsets) == len(ids)
    assert tok.encode_single_token(special) == tok.special_tokens[special] and tok.is_special_token(tok.special_tokens[special])
    some = batch[0][0]
    assert tok.encode_single_token(tok.decode_single_token_bytes(some)) == some
    assert tok.max_token_value == tok.n_vocab - 1 and special in tok.special_tokens_set
    assert len(tok.token_byte_values()) > 256 and isinstance(tok.split(texts[0]), list)
    assert _eot(tok) in (KeyError, tok.special_tokens.get("<|endoftext|>"))


def _valid_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
