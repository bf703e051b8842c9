"""Chat formats: a conversation laid out in a model's own tokens, from the data in ``registry.ChatFormat``.

A conversation is a list of ``{"role": ..., "content": ...}`` messages (roles
``system``, ``user``, ``assistant``). ``pieces`` lays it out as ``(text, is_token)``
pieces: a token is one of the encoding's special or chat tokens (one id), any other
piece is text that is encoded on its own. ``encode`` turns the pieces into ids. The
formats and which model package each follows are in ``registry.py``; the tests check
each against that package (llama-models, mistral-common, openai-harmony).

>>> from tokenizer.registry import LLAMA3_CHAT
>>> text([{"role": "user", "content": "Hi"}], LLAMA3_CHAT, {"<|begin_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"})
'<|begin_of_text|><|start_header_id|>user<|end_header_id|>\\n\\nHi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\\n\\n'
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence

from .registry import ChatFormat

Message = Mapping[str, str]
ROLES = ("system", "user", "assistant")


def arrange(messages: Sequence[Message], fmt: ChatFormat) -> list[dict[str, str]]:
    """The messages as the format lays them out: roles merged, system moved, defaults added.

    For most formats this is the messages themselves (plus Qwen 2.5's default system
    message); Mistral's v3 merges consecutive messages of one role, starts with a
    user message and puts the system messages before the last user message's text.

    >>> from tokenizer.registry import MISTRAL_V3_CHAT
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

    >>> from tokenizer.registry import CHATML_SEP
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
