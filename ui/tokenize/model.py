"""Chat mode: system/user/assistant messages in the chat format of cl100k/o200k models.

The format is Tiktokenizer's (dqbd/tiktokenizer, ``src/sections/ChatGPTEditor.tsx``,
``getChatGPTEncoding`` for gpt-4/gpt-4o; the ids come from its ``src/models/tokenizer.ts``)::

    <|im_start|>system<|im_sep|>You are a helpful assistant<|im_end|><|im_start|>user<|im_sep|>Hi<|im_end|><|im_start|>assistant<|im_sep|>

The framing tokens are always special tokens; what the messages say follows the
page's special-token switch (as text, like the API treats user content, or
recognised). ``pieces``/``render``/``encode`` are pure; ``editor`` draws the widgets.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import streamlit as st

from tokenizer.pretrained import CHAT_SPECIAL_TOKENS

from ui.compare import model as analysis
from ui.common import tokenizers as tk

IM_START, IM_END, IM_SEP = "<|im_start|>", "<|im_end|>", "<|im_sep|>"
ROLES = ("system", "user", "assistant")
DEFAULT_MESSAGES = (
    {"role": "system", "content": "You are a helpful assistant"},
    {"role": "user", "content": "Hello 你好! How many tokens does this chat take? 🤔"},
)

Message = Mapping[str, str]


def capable(key: str) -> bool:
    """Only the encodings of OpenAI's chat models have the chat tokens."""
    return key in CHAT_SPECIAL_TOKENS


def pieces(messages: Sequence[Message]) -> list[tuple[str, bool]]:
    """The chat format as ``(text, is_special)`` pieces, ending with the assistant's turn.

    >>> pieces([{"role": "user", "content": "Hi"}])[:4]
    [('<|im_start|>', True), ('user', False), ('<|im_sep|>', True), ('Hi', False)]
    """
    out: list[tuple[str, bool]] = []
    for m in messages:
        out += [(IM_START, True), (m["role"], False), (IM_SEP, True), (m["content"], False), (IM_END, True)]
    out += [(IM_START, True), ("assistant", False), (IM_SEP, True)]
    return out


def render(messages: Sequence[Message]) -> str:
    """The whole conversation as one string (what the model reads, specials spelled out)."""
    return "".join(text for text, _ in pieces(messages))


@st.cache_resource(show_spinner=False)
def tokenizer(key: str):
    """The official encoding plus the three chat tokens (once per server process)."""
    tok = tk.get(key).with_special_tokens(CHAT_SPECIAL_TOKENS[key])
    tk.settle(tok)
    return tok


def encode(tok, messages: Sequence[Message], *, recognise_special: bool = False) -> list[int]:
    """Ids of the conversation: framing tokens by id, role names and contents as text.

    Equal to tiktoken's ``encode(render(messages), allowed_special=<chat tokens>)``
    when the contents hold no special-token strings.
    """
    out: list[int] = []
    for text, special in pieces(messages):
        if special:
            out.append(tok.special_tokens[text])
        elif text:
            out.extend(analysis.encode(tok, text, recognise_special=recognise_special))
    return out


# ---------------------------------------------------------------- widgets


def _state_key(page: str) -> str:
    return f"{page}.chat"


def init(page: str) -> None:
    """The default conversation (each message has a stable id for its widget keys)."""
    st.session_state.setdefault(_state_key(page), [dict(m, id=i) for i, m in enumerate(DEFAULT_MESSAGES)])
    st.session_state.setdefault(_state_key(page) + ".next", len(DEFAULT_MESSAGES))


def _add(page: str) -> None:
    msgs = st.session_state[_state_key(page)]
    role = "system" if not msgs else ("assistant" if msgs[-1]["role"] == "user" else "user")
    n = st.session_state[_state_key(page) + ".next"]
    st.session_state[_state_key(page) + ".next"] = n + 1
    msgs.append({"role": role, "content": "", "id": n})


def _remove(page: str, mid: int) -> None:
    key = _state_key(page)
    st.session_state[key] = [m for m in st.session_state[key] if m["id"] != mid]


def editor(page: str) -> list[dict]:
    """One row per message (role, content, remove) and an "Add message" button."""
    init(page)
    key = _state_key(page)
    msgs = st.session_state[key]
    for m in msgs:
        rkey, ckey = f"{key}.{m['id']}.role", f"{key}.{m['id']}.content"
        # widget values live in the message list too, so they survive a page switch
        st.session_state.setdefault(rkey, m["role"])
        st.session_state.setdefault(ckey, m["content"])
        c_role, c_text, c_del = st.columns([2.9, 6, 0.8], vertical_alignment="top")
        m["role"] = c_role.selectbox("Role", ROLES, key=rkey, label_visibility="collapsed")
        m["content"] = c_text.text_area("Content", key=ckey, height=68, label_visibility="collapsed", placeholder="Message")
        c_del.button(
            "", icon=":material/close:", key=f"{key}.{m['id']}.remove", help="Remove this message",
            on_click=_remove, args=(page, m["id"]),
        )
    st.button("Add message", key=f"{key}.add", on_click=_add, args=(page,), icon=":material/add:")
    return [{"role": m["role"], "content": m["content"]} for m in msgs]
