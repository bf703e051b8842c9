"""The open models and gpt-oss: our Tokenizer, built from each provisioned file, gives exactly the ids of
the model's own reference (tests/model_packages.py), and each chat format lays a conversation out as the
model's package does."""

from __future__ import annotations

import functools
import random
import unicodedata

import pytest
from corpus import MULTILINGUAL, code_and_prose, stdlib_sample
from hypothesis import given, settings
from hypothesis import strategies as st
from model_packages import (
    TIKTOKEN_MODELS,
    harmony_encoding,
    llama_tokenizer,
    mistral_tokenizer,
    qwen_tokenizer,
    tekkenizer,
    tiktoken_reference,
)

from tests.tier import examples
from tokenizer import load_encoding, registry
from tokenizer.models import chat

pieces = st.sampled_from(
    ["the", " The", "I'M", "'ll", "don't", "123456", " 42", "\n", "\n\n", "  ", "\t", "\r\n", "!!", "...", "你好", "加拿大", "😄",
     "🤚🏾", "é", "e\u0301", "ß", " việc", "Привет", " Japón", "<|endoftext|>", "<|eot_id|>", "[INST]", "x=1;", "  \n ", ".:.:"]
)  # fmt: skip
mixed_text = st.one_of(st.text(max_size=80), st.lists(pieces, max_size=25).map("".join))
CORPUS = MULTILINGUAL + stdlib_sample(200_000)


@pytest.fixture(scope="module", params=TIKTOKEN_MODELS)
def model(request):
    """(our Tokenizer, the package's tiktoken.Encoding) for each model whose reference is tiktoken."""
    return load_encoding(request.param), tiktoken_reference(request.param)


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


@pytest.mark.parametrize("name", ["qwen2.5", "qwen3.6"])
def test_qwen_tokenizers_own_encode_agrees_on_nfc_text(name):
    """qwen-tokenizer NFC-normalises before encoding (and allows special tokens); BPE Lab encodes the text as given."""
    ours, ref = load_encoding(name), qwen_tokenizer(name)
    nfc = unicodedata.normalize("NFC", CORPUS)
    assert ours.encode(nfc, allowed_special="all") == ref.encode(CORPUS)
    decomposed = "e\u0301"
    assert ours.encode_ordinary(decomposed) != ref.encode(decomposed)  # the difference the README states


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


# ----------------------------------------------------------------------------- chat formats

conversations = st.lists(
    st.tuples(st.sampled_from(["system", "user", "assistant"]), st.lists(pieces, max_size=6).map("".join)), min_size=1, max_size=6
)


def _messages(conv):
    return [{"role": r, "content": c} for r, c in conv]


@settings(max_examples=examples(100))
@given(conversations)
def test_llama3_chat_is_llama_models_chat_format(conv):
    from llama_models.datatypes import RawMessage, StopReason
    from llama_models.llama3.chat_format import ChatFormat

    raw = [RawMessage(role=r, content=c, stop_reason=StopReason.end_of_turn if r == "assistant" else None) for r, c in conv]
    expected = ChatFormat(llama_tokenizer("llama3")).encode_dialog_prompt(raw).tokens
    assert chat.encode(load_encoding("llama3"), _messages(conv), registry.spec("llama3").chat) == expected


@settings(max_examples=examples(50))
@given(conversations)
def test_llama4_chat_follows_llama_models_chat_format(conv):
    # llama_models/llama4/chat_format.py needs torch, so its encode_dialog_prompt is written out here:
    # begin_of_text, then per message header_start, role, header_end, "\n\n", content, eot; then the assistant's header
    ref = llama_tokenizer("llama4")
    sp = ref.special_tokens

    def header(role):
        return [
            sp["<|header_start|>"],
            *ref.encode(role, bos=False, eos=False),
            sp["<|header_end|>"],
            *ref.encode("\n\n", bos=False, eos=False),
        ]

    expected = [sp["<|begin_of_text|>"]]
    for r, c in conv:
        expected += header(r) + ref.encode(c, bos=False, eos=False) + [sp["<|eot|>"]]
    expected += header("assistant")
    assert chat.encode(load_encoding("llama4"), _messages(conv), registry.spec("llama4").chat) == expected


def _mistral_request(conv):
    from mistral_common.protocol.instruct.messages import AssistantMessage, SystemMessage, UserMessage
    from mistral_common.protocol.instruct.request import ChatCompletionRequest

    kinds = {"system": SystemMessage, "user": UserMessage, "assistant": AssistantMessage}
    return ChatCompletionRequest(messages=[kinds[r](content=c) for r, c in conv])


mistral_conversations = st.lists(
    st.tuples(st.sampled_from(["system", "user", "user", "assistant"]), st.lists(pieces, min_size=1, max_size=6).map("".join)),
    min_size=1,
    max_size=7,
)


@settings(max_examples=examples(100))
@given(mistral_conversations)
def test_mistral_chat_is_mistral_commons_instruct_v3(conv):
    """Any conversation, through mistral-common's v3 normaliser and instruct tokenizer; a valid one also through its front door."""
    from mistral_common.exceptions import MistralCommonException
    from mistral_common.protocol.instruct.normalize import normalizer_for_tokenizer_version
    from mistral_common.tokens.tokenizers.base import TokenizerVersion

    ref = mistral_tokenizer()
    ours = chat.encode(load_encoding("tekken"), _messages(conv), registry.spec("tekken").chat)
    normalized = normalizer_for_tokenizer_version(TokenizerVersion.v3).from_chat_completion_request(_mistral_request(conv))
    assert ours == ref.instruct_tokenizer.encode_instruct(normalized).tokens
    try:
        assert ours == ref.encode_chat_completion(_mistral_request(conv)).tokens
    except MistralCommonException:
        pass  # mistral-common's validator refuses this order of roles (e.g. an assistant message last); BPE Lab shows it anyway


@settings(max_examples=examples(100))
@given(conversations)
def test_harmony_chat_is_openai_harmonys_rendering(conv):
    from openai_harmony import Conversation, Message, Role

    roles = {"system": Role.SYSTEM, "user": Role.USER, "assistant": Role.ASSISTANT}
    msgs = [Message.from_role_and_content(roles[r], c) for r, c in conv]
    msgs = [m.with_channel("final") if r == "assistant" else m for m, (r, _) in zip(msgs, conv)]
    expected = harmony_encoding().render_conversation_for_completion(Conversation.from_messages(msgs), Role.ASSISTANT)
    assert chat.encode(load_encoding("o200k_harmony"), _messages(conv), registry.spec("o200k_harmony").chat) == expected


@pytest.mark.parametrize("name", ["qwen2.5", "qwen3.6", "cl100k_base", "o200k_base"])
def test_chatml_formats_encode_like_their_rendered_string(name):
    """A chat template renders one string and encodes it with special tokens allowed: the pieces give the same ids."""
    s = registry.spec(name)
    tok = load_encoding(name).with_special_tokens(s.chat_tokens)
    msgs = [{"role": "user", "content": "Hello 你好 <|endoftext|>"}, {"role": "assistant", "content": "Hi!\n"}]
    rendered = chat.text(msgs, s.chat, tok.special_tokens)
    ids = chat.encode(tok, msgs, s.chat, encode_text=lambda t: tok.encode(t, allowed_special="all"))
    assert ids == tok.encode(rendered, allowed_special="all")


def test_qwen25_chat_text_is_its_templates():
    """Qwen2.5's chat template (tokenizer_config.json) adds its default system message when there is none."""
    s = registry.spec("qwen2.5")
    rendered = chat.text([{"role": "user", "content": "Hi"}], s.chat, s.special_tokens)
    assert rendered == (
        "<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n"
        "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
    )
    qwen3 = registry.spec("qwen3.6")
    assert chat.text([{"role": "user", "content": "Hi"}], qwen3.chat, qwen3.special_tokens) == (
        "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
    )


# ----------------------------------------------------------------------------- Unicode


def _probe(c: str) -> str:
    return f"{c}:A a{c}b 1{c}2 {c}'s A{c} {c}{c}\n"


@pytest.mark.slow
@pytest.mark.parametrize("name", ["llama3", "qwen2.5", "qwen3.6"])
def test_every_code_point_splits_like_the_reference(name):
    """The open models' own patterns (\\p{M}, single digits, no possessives) under our regex tables."""
    ours, ref = load_encoding(name), tiktoken_reference(name)
    cps = [cp for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF]
    bad = []
    for i in range(0, len(cps), 512):
        text = "".join(_probe(chr(cp)) for cp in cps[i : i + 512])
        if ours.encode_ordinary(text) != ref.encode_ordinary(text):
            bad += [
                hex(cp)
                for cp in cps[i : i + 512]
                if ours.encode_ordinary(_probe(chr(cp))) != ref.encode_ordinary(_probe(chr(cp)))
            ]
    assert bad == []


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
