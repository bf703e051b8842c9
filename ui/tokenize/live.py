"""The live Tokenize view: one ``st.components.v2`` component that owns the text box and tokenizes as the user types.

Its browser half is ``ui/web/tokenize.js`` (see there); this half decides, on every
run, how the text is tokenized and gives the component its data
(``ui.web.payload``):

* a rank-based tokenizer (OpenAI's, the open models', the user's own with a pattern
  JavaScript can read) or a SentencePiece-style one (Llama 2, Phi-3, Gemma 4) goes to
  the browser as a model file, written once to the static folder (``ui.web.model``)
  and cached by the browser; the "Characters" baseline is computed in the page;
* anything else, a text longer than ``payload.LIVE_LIMIT`` and chat mode are
  tokenized here, and the result goes with the data.

The component sends the text back as a trigger value ``text`` (``{text, seq,
full}``): the callback makes it the shared text (``ui.common.state``), so the link,
the tables below and the other pages follow. The component lives in a fragment:
``full`` (typing has stopped, the box was left) reruns the whole page; otherwise (the
server tokenizes, the box wants this text's tokens) only the fragment reruns.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from pathlib import Path

import streamlit as st

from tokenizer import Tokenizer
from tokenizer.models.fetch import data_dir
from tokenizer.models.provision import ESSENTIAL
from tokenizer.spm import difference_note
from ui.common import cache, draw, errors, presenter, state, user_text, workspace
from ui.common import tokenizers as tk
from ui.render import trees
from ui.render.markdown import md
from ui.web import model as web
from ui.web import payload

from . import model as page_model
from .model import Input, Result
from .view import STATE

JS = Path(__file__).with_name("live.js")


@functools.cache
def _component():
    """Registered once per process, on first use (never at import). Not isolated: the app's stylesheet styles it."""
    return st.components.v2.component("bpe_lab_tokenize_live", js=web.component_script(JS), isolate_styles=False)


def assets() -> str:
    """The browser modules' folder in the static folder (written once per process and folder; at start-up, which
    stops with one line when it cannot: ``classroom.asgi.check_static``). A ValueError for the page when it cannot."""
    try:
        return _assets(str(web.static_dir()))
    except OSError as e:
        raise ValueError(
            f"The server cannot write the files this text box needs ({e.strerror or e}): tell whoever runs it that "
            "its disk is full or read-only. The other pages still work."
        ) from None


@st.cache_resource(show_spinner=False)
def _assets(static: str) -> str:
    return web.publish_assets(Path(static))


def official_model(name: str) -> dict:
    """A registered encoding's model file: written to the static folder once, the same for every session."""
    static = str(web.static_dir())
    if (name, static) in _PUBLISHED:  # at once: no spinner (each one starts a timer thread)
        return _official_model(name, static)
    with tk.loading("Preparing the tokenizer for your browser (once per server)…"):
        out = _official_model(name, static)
    _PUBLISHED.add((name, static))
    return out


#: The (encoding, static folder) pairs whose model file this process has written (``official_model``).
_PUBLISHED: set[tuple[str, str]] = set()


@st.cache_resource(show_spinner=False, max_entries=32)  # official_model says what is being prepared
def _official_model(name: str, static: str) -> dict:
    data = web.model_file(tk.get(name), check_shortcuts=False)  # tests/ui/web/test_model.py: none needs them
    return {"id": web.content_name(data, ""), "url": web.publish_model(data, Path(static)), "size": len(data)}


def warm_up() -> None:
    """Prepare OpenAI's three encodings for the browser now, at start-up: each one's split pattern as a JavaScript
    RegExp (``web.browser_reason``, which reads every code point's character classes) and its model file, so the
    class's first students on each app process do not wait for them."""
    for key in ESSENTIAL:
        if tk.available(key) and web.browser_reason(tk.official(key)) is None:
            official_model(key)


@st.cache_resource(show_spinner=False)
def _user_key() -> bytes:
    """The key that names user model files: the server's, in the data folder (``payload.server_key``)."""
    payload.prune()
    return payload.server_key(data_dir() / "user-models.key")


#: Seconds before a model file that could not be written (or did not fit) is tried again.
RETRY_AFTER = 30.0
_FAILED = "tokenize.model_failed"


class _Unpublished(Exception):
    """The model file was not published (the message says why); nothing is cached, so it is tried again later."""


def user_model(tok, key: str = "") -> dict:
    """One of the user's tokenizers as a model file under a name nobody else can guess (this session's cache).

    ``key`` (its workspace key) names the file too, and the workspace counts it in the student's limits and deletes
    it with the tokenizer. ``{"error": why}`` when the file cannot be written (a full or read-only disk) or does not
    fit in the workspace; tried again after ``RETRY_AFTER`` seconds."""
    failed = st.session_state.setdefault(_FAILED, {})
    hit = failed.get(id(tok))
    if hit is not None and hit[0] is tok and time.monotonic() - hit[1] < RETRY_AFTER:
        return {"error": hit[2]}

    def build() -> dict:
        data = web.model_file(tok)
        try:
            url = payload.publish_user_model(data, _user_key(), salt=key)
        except OSError as e:
            raise _Unpublished(f"the server could not write its copy for your browser ({e.strerror or e})") from None
        name = url.rsplit("/", 1)[1]
        if key:
            try:
                workspace.store().attach(key, name, len(data))
            except ValueError as e:  # a full workspace, or deleted in another tab
                payload.remove_user_model(name)
                raise _Unpublished(str(e)) from None
        return {"id": name[:-4], "url": url, "size": len(data)}

    try:
        return cache.for_tokenizer(tok, "live.model", "v2", build, maxsize=2)
    except _Unpublished as e:
        failed.clear()  # the tokenizer on screen is the one that matters
        failed[id(tok)] = (tok, time.monotonic(), str(e))
        return {"error": str(e)}


def how(choice: tk.Choice, tok) -> tuple[str, dict | None, str | None]:
    """``(kind, model, reason)``: where this tokenizer's text is tokenized (see ``ui.web.payload``); a model file that
    cannot be written or does not fit: the server's spans, and a note on the page."""
    if choice.key == "chars":
        return "chars", None, None
    reason = web.browser_reason(tok)
    if reason is not None:
        return "server", None, reason
    if choice.browser_model:
        try:
            info = official_model(choice.key)
        except OSError as e:  # a full or read-only static folder (OpenAI's three were written at start-up)
            info = {"error": f"the server could not write its copy for your browser ({e.strerror or e})"}
    else:
        info = user_model(tok, choice.key.removeprefix(tk.USER) if choice.key.startswith(tk.USER) else "")
    if "error" in info:
        st.warning(f"Tokenized on the server, not in your browser: {md(info['error'])}", icon="💾")
        return "server", None, "its copy for your browser could not be kept on the server"
    return "bpe", info, None


def _on_text() -> None:
    """The component's text came in: it becomes the shared text (a full rerun follows when the user stopped typing)."""
    event = (st.session_state.get(STATE.key("live")) or {}).get("text")
    if not isinstance(event, dict) or not isinstance(event.get("text"), str) or type(event.get("seq")) is not int:
        return
    state.set_text(event["text"])
    STATE["synced"] = event["text"]
    STATE["seq"] = event["seq"]
    if event.get("full"):
        STATE["full"] = True


def _on_pick() -> None:
    """A token was clicked: its merge tree shows under the view."""
    event = (st.session_state.get(STATE.key("live")) or {}).get("pick")
    if isinstance(event, dict) and type(event.get("id")) is int:
        STATE["tree"] = event["id"]


def _close_tree() -> None:
    STATE["tree"] = None


def tree_panel(tok) -> None:
    """The clicked token's merge tree down to bytes, each merge with its rank (the Vocabulary page's drawing)."""
    tid = STATE["tree"]
    if tid is None or not isinstance(tok, Tokenizer):
        return  # nothing clicked, or the characters baseline (no merges)
    if tid not in tok.vocab:
        STATE["tree"] = None  # a token of another tokenizer: the menu changed
        return
    with st.container(border=True, key=STATE.key("tree_panel")):
        head, close = st.columns([6, 1], vertical_alignment="center")
        head.markdown(f"**How token {tid} was built**, from bytes up (click another token to see its own)")
        close.button("Close", key=STATE.key("tree_close"), on_click=_close_tree, width="stretch")
        draw.tree(tok.merge_tree(tid), tok.rank_of)
        st.caption(trees.explain(tok, tid))


def _version(text: str) -> int:
    """The text's version: it changes when the text changed on the server (a sample, a link, another page)."""
    if STATE["synced"] != text or not STATE["version"]:
        STATE["version"] += 1
        STATE["synced"] = text
    return STATE["version"]


def server_side(inp: Input, tok, text: str, seq: int) -> dict:
    """The server's tokens for the box's text (cut at the page's limit), or the error the core gave."""
    clipped, dropped = user_text.clip(text)
    try:
        ids = tk.encoded(tok, clipped, recognise=inp.recognise)[0]  # this session's, shared with the tables
    except ValueError as e:
        return payload.server_result(tok, [], "", seq=seq, error=str(e), send_text=True)
    return payload.server_result(tok, ids, clipped, seq=seq, dropped=dropped, send_text=dropped > 0)


def chat_side(res: Result | None, inp: Input) -> dict:
    """The chat conversation's tokens (the page encoded them for its tables)."""
    if res is None:
        error = inp.problem or "The conversation could not be tokenized (see the message above)."
        return payload.server_result(None, [], "", seq=0, error=error, send_text=True)
    return payload.server_result(res.tok, res.ids, inp.text, seq=0, send_text=True)


@st.fragment
def show(get_input: Callable[[], Input], chat: Result | None = None) -> None:
    """The component, in a fragment. ``get_input()`` reads the page's choices (fresh in a fragment-only rerun);
    ``chat``: the conversation's tokens in chat mode."""
    if STATE["full"]:
        STATE["full"] = False
        st.rerun()  # typing stopped: the whole page follows the text (link, tables)
    inp = get_input()
    with errors.shown():
        choice = inp.chosen()
        tok = inp.tokenizer()
        kind, model_info, reason = how(choice, tok)
        text = st.session_state[state.TEXT]
        version = _version(text)
        seq = STATE["seq"]
        server = None
        if inp.mode == "chat":
            server = chat_side(chat, inp)
        elif kind == "server" or len(text) > payload.LIVE_LIMIT:
            server = server_side(inp, tok, text, seq)
        names = [] if inp.recognise else list(page_model.named_specials(tok.special_tokens))[:64]
        data = payload.payload(
            assets=assets(),
            label=choice.label,
            kind=kind,
            text=text,
            version=version,
            seq=seq,
            recognise=inp.recognise,
            whitespace=bool(STATE["whitespace"]),
            mode=inp.mode,
            model_info=model_info,
            reason=reason,
            specials=dict(tok.special_tokens) if inp.recognise or inp.mode == "chat" else None,
            special_names=names,
            server=server,
            present=presenter.on(),
            span_limit=page_model.SPAN_LIMIT,
        )
        _component()(key=STATE.key("live"), data=data, on_text_change=_on_text, on_pick_change=_on_pick, height="content")
        if note := difference_note([tok]):
            st.caption(note)
        tree_panel(tok)
