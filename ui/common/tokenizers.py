"""The tokenizers a user can pick on any page: official encodings (OpenAI's and the open models'), baselines, their own.

Keys are strings that fit in a URL: a registered encoding's name (``"o200k_base"``,
``"llama3"``, ``"qwen2.5"``, ``"tekken"``…), ``"bytes"``, ``"chars"``, or
``"user:<key>"`` for a tokenizer in the workspace. Official encodings and the
baselines are one object each per server process (``st.cache_resource``), marked as
shared for ``ui.common.cache``. An encoding is loaded the first time someone picks it
(start-up loads only OpenAI's three, ``shell.start_up``); one whose file set-up did
not provision is listed as not installed and, when picked, says the command that
provisions it.

Menus show each choice with its family first (``"Meta · Llama 3 (3.1, 3.2, 3.3)"``),
in the registry's order, so the families stay together and typing a family or a
model name in the menu's search finds it.
"""

from __future__ import annotations

import contextlib
import functools
from dataclasses import dataclass

import streamlit as st

from tokenizer import EncodingSpec, Tokenizer, load_encoding, registry
from tokenizer.baselines import CharTokenizer, bytes_tokenizer
from tokenizer.models import fetch
from tokenizer.models.provision import retry_command

from . import cache, state, user_text, workspace

#: ``{name: label}`` of the registry's encodings, in menu order (each family together)
OFFICIAL = {s.name: s.label for s in registry.specs()}
BASELINES = {"bytes": "UTF-8 bytes", "chars": "Characters"}
USER = "user:"
#: menu group of the choices that are not registered encodings
YOURS, BASELINE = "Yours", "Baseline"


def available(name: str) -> bool:
    """Whether a registered encoding's file is provisioned (a stat, no read: loading checks its sha256).

    >>> available("o200k_base")
    True
    """
    return fetch.path_of(registry.spec(name).source).exists()


def unavailable_message(name: str) -> str:
    """What the pages say about an encoding whose file is missing, with the command that fixes it."""
    s = registry.spec(name)
    return (
        f"{s.label} is not installed on this server: set-up did not provision its file ({s.source.where}). "
        f"Run `{retry_command(name)}` (or `make setup`) where the server runs, then reload this page."
    )


def family(key: str) -> str:
    """The menu group of a choice.

    >>> family("llama3"), family("user:mine-1a2b"), family("bytes")
    ('Meta', 'Yours', 'Baseline')
    """
    if key in OFFICIAL:
        return registry.spec(key).family
    return YOURS if key.startswith(USER) else BASELINE


def menu_label(key: str, label: str) -> str:
    """How a menu shows a choice: its family, then its label; "not installed" for a missing file.

    >>> menu_label("qwen2.5", OFFICIAL["qwen2.5"])
    'Qwen · Qwen 2.5 (Qwen 1, 2)'
    """
    out = f"{family(key)} · {label}"
    if key in OFFICIAL and not available(key):
        out += " (not installed)"
    return out


#: The official encodings ``get`` has had from ``official`` in this process (names only, the same for everyone)
_LOADED: set[str] = set()


def loading(text: str):
    """``st.spinner(text)`` in a page's run; nothing at the server's start-up, which loads the same models before any
    session exists (a spinner there has no page to show on, and Streamlit logs "missing ScriptRunContext" for it)."""
    return st.spinner(text, show_time=True) if st.runtime.exists() else contextlib.nullcontext()


@st.cache_resource(show_spinner=False)  # get() says which model is loading, and for how long
def official(name: str) -> Tokenizer:
    """An official encoding, loaded once per server process and shared by every session."""
    tok = load_encoding(name)
    tok.encode_ordinary("warm up")  # build the lookup tables now, not in a user's first rerun
    tok.decode_tokens_bytes([0])
    return cache.share(tok)


def chat_capable(key: str) -> bool:
    """Whether the registry knows the chat format of the encoding's models (OpenAI's chat models, the open models).

    >>> chat_capable("cl100k_base"), chat_capable("llama3"), chat_capable("r50k_base"), chat_capable("user:x")
    (True, True, False, False)
    """
    return key in OFFICIAL and registry.spec(key).chat is not None


@st.cache_resource(show_spinner=False)
def chat(key: str) -> Tokenizer:
    """The official encoding with the tokens its chat format uses, once per server process.

    OpenAI's chat models add three tokens (``<|im_start|>`` …) to cl100k/o200k; the
    open models' chat tokens are among their special tokens, so theirs is the
    encoding itself.
    """
    extra = registry.spec(key).chat_tokens
    if not extra:
        return get(key)
    tok = get(key).with_special_tokens(extra)
    tok.encode_ordinary("warm up")
    return cache.share(tok)


@st.cache_resource(show_spinner=False)
def _baseline(key: str):
    return cache.share(bytes_tokenizer() if key == "bytes" else CharTokenizer())


def user_options() -> dict[str, str]:
    """``{key: label}`` of this session's own tokenizers, newest last."""
    return {USER + e.key: f"{e.name} (yours, {e.vocab_size:,} tokens)" for e in workspace.store().entries()}


def options(*, baselines: bool = True, user: bool = True) -> dict[str, str]:
    """Every choice with its label, in menu order."""
    out = dict(OFFICIAL)
    if user:
        out.update(user_options())
    if baselines:
        out.update(BASELINES)
    return out


def get(key: str):
    """The tokenizer for a key; ValueError (shown with st.error) when it is gone or not installed."""
    if key in OFFICIAL:
        if not available(key):
            raise ValueError(unavailable_message(key))
        if key in _LOADED:  # loaded in this process: at once, so no spinner (each one starts a timer thread)
            return official(key)
        # shown only if it takes more than half a second: a model's first load, once per server
        with loading(f"Loading {OFFICIAL[key]}: reading its file and building its tables, once per server…"):
            tok = official(key)
        _LOADED.add(key)
        return tok
    if key in BASELINES:
        return _baseline(key)
    if key.startswith(USER):
        return workspace.store().get(key[len(USER) :])
    raise ValueError(f"unknown tokenizer {key!r}: pick one from the list")


def encoded(tok, text: str, *, recognise: bool) -> tuple[list, list]:
    """``text``'s ids under ``tok`` and their spans, kept in this session only (the text is the user's), the last two
    texts per tokenizer: Tokenize's reruns, then Compare, ask for the same ones. Never changed by their readers."""

    def compute() -> tuple[list, list]:
        return (ids := user_text.encode(tok, text, recognise_special=recognise)), tok.spans(ids)

    return cache.for_session("tokenizers.encoded", (recognise, text), compute, owner=tok, maxsize=2)


@dataclass(frozen=True, eq=False)
class Choice:
    """The tokenizer a page's menu names, resolved once per run: what every section of the page reads.

    A page calls ``choose(key)`` once, where its menu is, and hands this record on: the
    sections read the tokenizer, its label and its registry record here instead of
    looking the key up again.
    """

    key: str
    label: str  # as the menu shows it, without the family: "GPT-4 (cl100k_base)", "mine (yours, 600 tokens)"
    tok: object  # a Tokenizer, or a baseline (tokenizer.baselines)
    spec: EncodingSpec | None = None  # the registry's record of a registered encoding; None for the others

    @property
    def chat_capable(self) -> bool:
        """Whether the registry knows the chat format of the encoding's models (``chat_capable``)."""
        return self.spec is not None and self.spec.chat is not None

    @property
    def browser_model(self) -> bool:
        """Whether its model file is the same for every session (an official encoding or the bytes baseline)."""
        return self.spec is not None or self.key == "bytes"

    @functools.cached_property
    def with_chat(self):
        """The tokenizer that also knows its chat format's tokens (``chat``): Tiktokenizer's gpt-4/gpt-4o for
        cl100k/o200k; the encoding itself for the open models (their chat tokens are among their special tokens)."""
        return chat(self.key) if self.chat_capable else self.tok

    def tokenizer(self, *, with_chat: bool):
        """``with_chat`` when the page recognises special tokens or is in chat mode, else the tokenizer itself."""
        return self.with_chat if with_chat else self.tok


def choose(key: str, *, label: str | None = None) -> Choice:
    """The record of the tokenizer a key names (``get``'s ValueError when it is gone or not installed); ``label``
    instead of the menu's (a page that shows two of yours with the same name numbers them).

    >>> c = choose("r50k_base")
    >>> c.label, c.spec.family, c.chat_capable, c.tok.n_vocab
    ('GPT-2 (r50k_base)', 'OpenAI', False, 50257)
    """
    tok = get(key)
    if label is None:
        label = OFFICIAL.get(key) or BASELINES.get(key) or user_options().get(key, key)
    return Choice(key, label, tok, registry.spec(key) if key in OFFICIAL else None)


def latest_user_key() -> str | None:
    keys = list(user_options())
    return keys[-1] if keys else None


def select(label_text: str, wkey: str, *, choices: dict[str, str] | None = None, help: str | None = None) -> str:
    """A selectbox of tokenizers (widget key ``wkey``) bound to the tokenizer chosen last on any page.

    When it appears it shows the page's own choice if it still has one, else the
    shared choice (``state.TOKENIZER``: the last one picked on any page, or the one
    just trained), else the first; when the user picks one, it becomes the shared
    choice.
    """
    choices = choices or options()
    current = st.session_state.get(wkey) or st.session_state.get(state.TOKENIZER)
    if current not in choices:
        current = next(iter(choices))
    st.session_state[wkey] = current

    def _sync() -> None:
        st.session_state[state.TOKENIZER] = st.session_state[wkey]

    return st.selectbox(
        label_text, list(choices), format_func=lambda k: menu_label(k, choices.get(k, k)), key=wkey, on_change=_sync, help=help
    )
