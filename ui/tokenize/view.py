"""The Tokenize page's parts: input (text or chat), tokenizing, and what is drawn.

``pages/tokenize.py`` calls these in order. Computing lives in ``model``; HTML in
``ui.common.draw``.
"""

from __future__ import annotations

import html
from dataclasses import replace

import streamlit as st

from tokenizer import Tokenizer
from ui.common import cache, draw, errors, presenter, state, urlstate, user_text
from ui.common import tokenizers as tk
from ui.content import samples
from ui.render.markdown import md

from . import model
from .model import Input, Result

STATE = state.PageState(
    "tokenize",
    {
        "mode": "text",  # "text", "chat" or "ids" (decoding)
        "ids": model.IDS_EXAMPLE,  # the ids box of "ids" mode
        "special": "text",  # "text" or "recognise"
        "whitespace": False,
        "chat": [
            dict(m, id=i) for i, m in enumerate(model.DEFAULT_MESSAGES)
        ],  # messages, each with a stable id for its widget keys
        "chat_next": len(model.DEFAULT_MESSAGES),
        # the live view (ui.tokenize.live): the seq of the box's text the server has, the text it last heard from
        # the box, the text's version (changed when the text changes on the server), a whole-page rerun asked for
        "seq": 0,
        "synced": None,
        "version": 0,
        "full": False,
        "tree": None,  # the id of the token clicked in the live view, whose merge tree shows under it
    },
    # "text": where state.set_text puts a sample or a link's text for a page's text box; the live view's box reads
    # the shared text instead (and "version" tells it the text changed on the server)
    widgets=("tokenizer", "sample", "live", "text", "tree_close", "tree_panel", "use_decoded"),
)
URL = ("tokenizer", "text")


# ---------------------------------------------------------------- input


def restore_link() -> None:
    """Apply a link's tokenizer and text (see ui.common.urlstate); warn about what it names but this server lacks."""
    asked = urlstate.incoming(STATE.page, URL)
    if "text" in asked:
        state.set_text(asked["text"])
    key = asked.get("tokenizer")
    if key is not None:
        if key in tk.options():
            STATE["tokenizer"] = key
            st.session_state[state.TOKENIZER] = key
        else:
            st.warning(f"The link names tokenizer {md(repr(key))}, which is not available here; pick another one.", icon="🔗")


def choose_tokenizer() -> str:
    return tk.select(
        "Tokenizer",
        STATE.key("tokenizer"),
        help="OpenAI's encodings and open models (Meta, Qwen, Mistral, DeepSeek), loaded once per server; tokenizers you trained or "
        "uploaded; two baselines. Type in the menu to search by family or name.",
    )


def controls() -> Input:
    """The choices above the live view: tokenizer, special tokens, whitespace, input mode; samples or the chat editor.

    In text mode the text box is the live view's own (``ui.tokenize.live``); the
    text here is the shared text, what the box last told the server.
    """
    top = st.columns([5, 6], vertical_alignment="bottom")
    with top[0]:
        key = choose_tokenizer()
    choice, why = _choose(key)
    with top[1]:
        st.segmented_control(
            "Special tokens",
            list(model.SPECIAL_CHOICES),
            format_func=model.SPECIAL_CHOICES.get,
            key=STATE.key("special"),
            required=True,
            persist_state="session",
            # in presenter mode the sentence under the controls moves in here, so the tokens come up the screen
            help=_special_help(choice)
            + (
                f"\n\n{_special_note(choice, STATE['special'] == 'recognise', STATE['mode'] or 'text')}" if presenter.on() else ""
            ),
        )
    modes = _modes(choice)
    if STATE["mode"] not in modes:
        STATE["mode"] = "text"  # chat mode, then a tokenizer without a chat format
    row = st.columns([3, 5, 4], vertical_alignment="center")
    with row[0]:
        st.segmented_control(
            "Input",
            modes,
            format_func=model.MODE_CHOICES.get,
            key=STATE.key("mode"),
            required=True,
            persist_state="session",
            label_visibility="collapsed",
            help="Text: type and see its tokens. Ids: paste token ids and see the text they decode to."
            + (" Chat: messages in the model's chat format." if "chat" in modes else ""),
        )
    mode = STATE["mode"] or "text"
    with row[-1]:
        st.toggle("Show whitespace", key=STATE.key("whitespace"), persist_state="session", help="space ·, newline ↵, tab →")
    recognise = STATE["special"] == "recognise"
    messages = None
    if mode == "ids":
        return Input(key, mode, "", recognise, None, choice=choice, why=why)
    if mode == "chat":
        if not presenter.on():
            st.caption(_special_note(choice, recognise, mode))
        text = ""
    else:
        with row[-2]:
            state.sample_menu(STATE, samples.SAMPLES)
        if not presenter.on():
            st.caption(_special_note(choice, recognise, mode))
        text = st.session_state[state.TEXT]
    if mode == "chat":
        return Input(key, mode, text, recognise, messages, choice=choice, why=why)
    text, dropped = user_text.clip(text)
    return Input(key, mode, text, recognise, messages, dropped, choice=choice, why=why)


def _modes(choice: tk.Choice | None) -> list[str]:
    """The input modes for this tokenizer: text and ids always, chat for a model with a chat format."""
    return [m for m in model.MODE_CHOICES if m != "chat" or (choice is not None and choice.chat_capable)]


def _choose(key: str) -> tuple[tk.Choice | None, str]:
    """The chosen tokenizer's record, resolved once per run; or None and why it cannot be loaded."""
    try:
        return tk.choose(key), ""
    except ValueError as e:
        return None, str(e)


def controls_again() -> Input:
    """What ``controls`` chose, read from the session (no widgets): for the live view's fragment-only reruns."""
    key = st.session_state.get(STATE.key("tokenizer")) or st.session_state[state.TOKENIZER]
    choice, why = _choose(key)
    mode = STATE["mode"] if STATE["mode"] in _modes(choice) and STATE["mode"] != "ids" else "text"
    text, dropped = user_text.clip(st.session_state[state.TEXT])
    return Input(key, mode, text, STATE["special"] == "recognise", None, dropped, choice=choice, why=why)


def chat_input(inp: Input) -> Input:
    """The chat editor (in the current column) and the conversation rendered in the model's format."""
    spec = inp.chosen().spec  # chat mode is offered for a registered encoding with a chat format only
    fmt = spec.chat
    st.caption(
        f"Messages are rendered in the model's chat format, {fmt.label} (as in {fmt.reference}); the framing tokens are special tokens."
    )
    messages = chat_editor(fmt.roles)
    try:
        text = model.chat_text(messages, spec)
    except ValueError as e:  # a list the model's own package refuses: the page says what to change
        st.error(md(str(e)), icon="⚠️")
        return replace(inp, text="", messages=messages, dropped=0, problem=str(e))
    text, dropped = user_text.clip(text)
    return replace(inp, text=text, messages=messages, dropped=dropped)


def _special_help(choice: tk.Choice | None) -> str:
    if choice is None:
        return "This tokenizer cannot be loaded."
    return model.special_help(choice.with_chat.special_tokens)


def _special_note(choice: tk.Choice | None, recognise: bool, mode: str) -> str:
    names = {} if choice is None else dict(choice.tokenizer(with_chat=recognise or mode == "chat").special_tokens)
    return model.special_note(names, recognise=recognise, mode=mode)


# ---------------------------------------------------------------- chat editor


def _add_message() -> None:
    msgs = STATE["chat"]
    n = STATE["chat_next"]
    STATE["chat_next"] = n + 1
    msgs.append({"role": model.next_role(msgs), "content": "", "id": n})


def _remove_message(mid: int) -> None:
    STATE["chat"] = [m for m in STATE["chat"] if m["id"] != mid]


def chat_editor(roles: tuple[str, ...] = model.ROLES) -> list[dict]:
    """One row per message (role, content, remove) and an "Add message" button.

    The messages live in ``tokenize.chat`` (a plain key, so they survive a page
    switch); each widget starts from its message whenever it appears. The role menu
    offers the chat format's roles; a role the newly chosen model lacks becomes "user".
    """
    msgs = STATE["chat"]
    for m in msgs:
        rkey, ckey = STATE.key("chat", m["id"], "role"), STATE.key("chat", m["id"], "content")
        st.session_state.setdefault(rkey, m["role"])
        st.session_state.setdefault(ckey, m["content"])
        if st.session_state[rkey] not in roles:
            st.session_state[rkey] = "user"
        c_role, c_text, c_del = st.columns([2.9, 6, 0.8], vertical_alignment="top")
        m["role"] = c_role.selectbox("Role", roles, key=rkey, label_visibility="collapsed")
        m["content"] = c_text.text_area("Content", key=ckey, height=68, label_visibility="collapsed", placeholder="Message")
        c_del.button(
            "",
            icon=":material/close:",
            key=STATE.key("chat", m["id"], "remove"),
            help="Remove this message",
            on_click=_remove_message,
            args=(m["id"],),
        )
    st.button("Add message", key=STATE.key("chat", "add"), on_click=_add_message, icon=":material/add:")
    return [{"role": m["role"], "content": m["content"]} for m in msgs]


# ---------------------------------------------------------------- ids: decoding


def _use_decoded(text: str) -> None:
    state.set_text(text)
    STATE["mode"] = "text"


def decode_ids(inp: Input) -> tuple[Input, Result | None]:
    """Ids mode: a box of token ids, the text they decode to and their tokens; an id the tokenizer lacks, or what is
    not an id, is named in an error (nothing else is drawn)."""
    raw = st.text_area(
        "Token ids",
        key=STATE.key("ids"),
        height=100,
        persist_state="session",
        placeholder=model.IDS_EXAMPLE,
        help="Paste ids as a list, [9906, 1917], or separated by spaces, commas or new lines; Ctrl+Enter decodes them.",
    )
    with errors.shown():
        tok = inp.chosen().tokenizer(with_chat=True)  # every special token the model knows decodes
        try:
            ids = model.parse_ids(user_text.clip(raw)[0])
        except ValueError as e:
            st.error(md(str(e)), icon="🔢")
            return inp, None
        if not ids:
            st.info(f"Paste token ids above, such as {model.IDS_EXAMPLE}, to see the text they decode to.", icon="🔢")
            return inp, None
        try:
            spans = tok.spans(ids)
        except ValueError:
            bad = model.unknown_ids(ids, lambda i: _decodes(tok, i))
            size = len(tok.vocab) if isinstance(tok, Tokenizer) else tok.n_vocab
            top = tok.max_token_value if isinstance(tok, Tokenizer) else tok.n_vocab - 1
            st.error(md(model.unknown_ids_message(bad, inp.chosen().label, size, top)), icon="🔢")
            return inp, None
        text = tok.decode(ids)
        counts = user_text.counts(text, ids)
        st.markdown(
            f"**{counts.tokens:,} token{'s' if counts.tokens != 1 else ''}** decode to **{counts.characters:,} characters** ({counts.bytes:,} bytes) under {md(inp.chosen().label)}:"
        )
        st.html(decoded_html(text))
        draw.spans(
            spans,
            show_whitespace=bool(STATE["whitespace"]),
            limit=model.SPAN_LIMIT,
            caption="The decoded tokens",
            scroll=(420, "The decoded tokens"),
        )
        st.button(
            "Tokenize this text",
            key=STATE.key("use_decoded"),
            on_click=_use_decoded,
            args=(text,),
            help="Make the decoded text the text of every page and go back to Text mode.",
        )
        return replace(inp, text=text), Result(tok, ids, spans, counts, [])
    return inp, None


def decoded_html(text: str) -> str:
    """The decoded text exactly, every space and line kept (``st.code`` strips and dedents its text).

    >>> decoded_html("  <b>\\n")
    '<pre class="bpe-decoded" aria-label="The decoded text">  &lt;b&gt;\\n</pre>'
    """
    return f'<pre class="bpe-decoded" aria-label="The decoded text">{html.escape(text)}</pre>'


def _decodes(tok, token_id: int) -> bool:
    try:
        tok.spans([token_id])
    except ValueError:
        return False
    return True


# ---------------------------------------------------------------- tokenizing


def tokenize(inp: Input) -> Result | None:
    """Encode the input on the server (for the tables, and the chat mode's view); a core error is shown with st.error."""
    with errors.shown():
        tok = inp.tokenizer()
        if inp.mode == "chat":
            ids = model.encode_chat(tok, inp.messages or [], encoding=inp.chosen().spec, recognise_special=inp.recognise)
            spans = tok.spans(ids)
        else:
            ids, spans = tk.encoded(tok, inp.text, recognise=inp.recognise)
        found = model.specials_in_text(tok.special_tokens, inp.text) if not inp.recognise and inp.mode == "text" else []
        return Result(tok, ids, spans, user_text.counts(inp.text, ids), found)
    return None


# ---------------------------------------------------------------- output


def show_details(inp: Input, res: Result) -> None:
    """Below the live view, for the text the server has (the box's, once typing stops): token table, bytes, link."""
    t_tokens, t_bytes, t_share = st.tabs(["Token table", "Bytes view", "Share"])
    with t_tokens:
        st.dataframe(
            model.token_table(res.spans),
            hide_index=True,
            height=320,
            width="stretch",
            column_config={
                "index": st.column_config.NumberColumn("#", width="small"),
                "id": st.column_config.NumberColumn("id", format="%d", width="small"),
                "text": st.column_config.TextColumn(
                    "text", help="· is a space, ↵ a newline; <F0 9F> are bytes of a split character"
                ),
                "bytes": st.column_config.TextColumn("bytes (hex)"),
            },
        )
    with t_bytes:
        show_bytes_view(inp.text)
    with t_share:
        show_share(inp)


def show_bytes_view(text: str) -> None:
    # the same for every tokenizer: kept for this session's last few texts (an Arrow table, sent as it is at every rerun)
    summary, df = cache.for_session(
        "tokenize.bytes_view", text, lambda: (model.bytes_summary(text), model.bytes_table(text)), maxsize=4
    )
    st.markdown(
        summary + ". ASCII takes one byte, most European letters two, CJK three, emoji four (some emoji are several code points)."
        " A byte-level BPE starts from these bytes and merges them; the *UTF-8 bytes* tokenizer shows them unmerged."
    )
    st.dataframe(df, hide_index=True, height=300, width="stretch")
    n_chars = user_text.counts(text, []).characters
    if n_chars > len(df):
        st.caption(f"Showing the first {len(df):,} of {n_chars:,} characters.")


def link_params(inp: Input) -> dict[str, str]:
    return urlstate.params(inp.text if inp.mode == "text" and not inp.dropped else "", tokenizer=inp.key)


def publish_link(inp: Input) -> None:
    """Keep the address bar a link to this view (every run, also for empty text)."""
    urlstate.publish(STATE.page, URL, link_params(inp))


def show_share(inp: Input) -> None:
    wanted = link_params(inp)
    url = urlstate.link(wanted)
    if inp.mode in ("chat", "ids"):
        st.caption(
            f"The link holds the tokenizer; {'chat messages' if inp.mode == 'chat' else 'token ids'} are not put into links."
        )
    elif urlstate.TEXT not in wanted and inp.text:
        st.caption(
            f"The link holds the tokenizer only: texts longer than {urlstate.MAX_TEXT:,} characters "
            f"or {urlstate.MAX_TEXT_BYTES:,} bytes in the address (about {urlstate.MAX_TEXT_BYTES // 9:,} Chinese characters) "
            "stay out of links."
        )
    else:
        st.caption("The address bar is a link to this view: it holds the tokenizer and the text.")
    if url:
        st.code(url, language=None, wrap_lines=True)


def show_chat_text(inp: Input) -> None:
    if inp.mode == "chat":
        with st.expander("What the model reads (the chat format as one string)"):
            st.code(inp.text, language=None, wrap_lines=True)
