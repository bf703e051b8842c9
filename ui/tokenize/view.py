"""The Tokenize page's parts: input (text or chat), tokenizing, and what is drawn.

``pages/tokenize.py`` calls these in order. Computation lives in ``ui.analysis`` and
``ui.chat``; HTML in ``ui.spans``. Page state keys are ``"tokenize.*"``, set in ``init``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd
import streamlit as st

from tokenizer.trace import Span

from ui.compare import model as analysis
from ui.tokenize import model as chat
from ui.common import errors
from ui.common import urlstate as querystate
from ui.common import samples
from ui.render import spans
from ui.common import state
from ui.common import tokenizers as tk

PAGE = "tokenize"
K_MODE = f"{PAGE}.mode"  # "text" or "chat"
K_SPECIAL = f"{PAGE}.special"  # "text" or "recognise"
K_WS = f"{PAGE}.whitespace"

SPECIAL_CHOICES = {"text": "Special tokens are text", "recognise": "Recognise special tokens"}
MODE_CHOICES = {"text": "Text", "chat": "Chat"}


def init() -> None:
    """Every Tokenize-page key and its default, in one place."""
    state.init()
    st.session_state.setdefault(K_MODE, "text")
    st.session_state.setdefault(K_SPECIAL, "text")
    st.session_state.setdefault(K_WS, False)
    chat.init(PAGE)


@dataclass
class Input:
    """What the user asked for on this run."""

    key: str
    mode: str
    text: str  # the text box, or the chat rendered into one string
    recognise: bool
    messages: list[dict] | None = None
    dropped: int = 0  # characters cut off above analysis.MAX_CHARS


@dataclass
class Result:
    tok: object
    ids: list[int]
    spans: list[Span]
    counts: analysis.Counts
    special_in_text: list[str] = field(default_factory=list)


# ---------------------------------------------------------------- input


def restore_link() -> None:
    for note in querystate.restore(PAGE, tk.options()):
        st.warning(note, icon="🔗")



def choose_tokenizer() -> str:
    return tk.select(
        "Tokenizer",
        PAGE,
        help="Official encodings (loaded once per server), tokenizers you trained or uploaded, and two baselines.",
    )


def input_panel(key: str) -> Input:
    """Text box or chat editor, the sample menu and the special-token switch."""
    if chat.capable(key):
        st.segmented_control(
            "Input", list(MODE_CHOICES), format_func=MODE_CHOICES.get, key=K_MODE, required=True,
            persist_state="session", label_visibility="collapsed",
        )
        mode = st.session_state[K_MODE] or "text"
    else:
        mode = "text"
    messages = None
    if mode == "chat":
        st.caption("Messages are rendered into the model's chat format; the framing tokens are special tokens.")
        messages = chat.editor(PAGE)
        text = chat.render(messages)
    else:
        text = state.shared_text_area(
            "Text", PAGE, height=220, help="Type or paste; press Ctrl+Enter (or click outside) to tokenize."
        )
        state.sample_menu(PAGE, samples.SAMPLES)
    st.segmented_control(
        "Special tokens", list(SPECIAL_CHOICES), format_func=SPECIAL_CHOICES.get, key=K_SPECIAL, required=True,
        persist_state="session", help=special_list(key, mode),
    )
    recognise = st.session_state[K_SPECIAL] == "recognise"
    st.caption(special_note(key, recognise, mode))
    text, dropped = analysis.clip(text)
    return Input(key, mode, text, recognise, messages, dropped)


def special_list(key: str, mode: str) -> str:
    """Every special token the tokenizer knows when they are recognised (the switch's help)."""
    try:
        names = _tokenizer_for(key, True).special_tokens
    except ValueError:
        return "This tokenizer cannot be loaded."
    if not names:
        return "This tokenizer has no special tokens."
    return "Special tokens of this tokenizer:\n\n" + "\n".join(f"- `{s}` = {i}" for s, i in names.items())


def special_note(key: str, recognise: bool, mode: str) -> str:
    """The one line that says what the special-token switch does right now."""
    try:
        names = dict(_tokenizer_for(key, recognise or mode == "chat").special_tokens)
    except ValueError:
        names = {}
    if not names:
        return "This tokenizer has no special tokens, so both settings give the same tokens."
    items = list(names.items())
    listed = ", ".join(f"`{s}` = {i}" for s, i in items[:2]) + (f" and {len(items) - 2} more" if len(items) > 2 else "")
    if recognise:
        return f"Each special-token string in the text becomes its single id ({listed}), as Tiktokenizer counts it."
    return (
        "A special-token string such as `<|endoftext|>` is encoded as ordinary text (several tokens), "
        "as OpenAI's tokenizer page and the API do with text people type."
        + (" The chat framing tokens stay special." if mode == "chat" else "")
    )


# ---------------------------------------------------------------- tokenizing


def _tokenizer_for(key: str, with_chat: bool):
    # cl100k/o200k also know the chat tokens when specials are recognised (Tiktokenizer's gpt-4/gpt-4o)
    if with_chat and chat.capable(key):
        return chat.tokenizer(key)
    return tk.get(key)


def tokenize(inp: Input) -> Result | None:
    """Encode the input; a core error is shown with st.error and gives None."""
    with errors.shown():
        tok = _tokenizer_for(inp.key, inp.recognise or inp.mode == "chat")
        if inp.mode == "chat":
            ids = chat.encode(tok, inp.messages or [], recognise_special=inp.recognise)
        else:
            ids = analysis.encode(tok, inp.text, recognise_special=inp.recognise)
        sp = tok.spans(ids)
        found = []
        if not inp.recognise and inp.mode == "text":
            found = [s for s in getattr(tok, "special_tokens", {}) if s in inp.text]
        return Result(tok, ids, sp, analysis.counts(inp.text, ids), found)
    return None


# ---------------------------------------------------------------- output


def empty_state() -> None:
    st.info(
        "Nothing to tokenize yet. Type or paste some text on the left, or load a sample text.",
        icon="✍️",
    )


def show_counts(inp: Input, res: Result) -> None:
    c = res.counts
    cols = st.columns(4)
    cols[0].metric("Tokens", f"{c.tokens:,}", border=True)
    cols[1].metric("Characters", f"{c.characters:,}", border=True)
    cols[2].metric("UTF-8 bytes", f"{c.bytes:,}", border=True)
    cols[3].metric("Chars/token", f"{c.chars_per_token:.2f}", border=True)
    if inp.dropped:
        st.warning(
            f"The text is {len(inp.text) + inp.dropped:,} characters long; only the first "
            f"{analysis.MAX_CHARS:,} are tokenized (the page's limit, about 200 kB of English). "
            "Tokenize the rest separately, or use `python -m tokenizer` for whole files.",
            icon="✂️",
        )
    if res.special_in_text:
        names = ", ".join(f"`{s}`" for s in res.special_in_text[:4])
        st.caption(f"Your text contains {names}: counted here as ordinary text. Choose “Recognise special tokens” to count each as one token.")


def show_spans(inp: Input, res: Result) -> None:
    ws = st.toggle("Show whitespace", key=K_WS, persist_state="session", help="space ·, newline ↵, tab →")
    spans.show(spans.render_spans(res.spans, show_whitespace=ws, limit=analysis.SPAN_LIMIT))
    note = "Hover a token to see its id, bytes and text. The colour belongs to the token id: the same token looks the same everywhere."
    if len(res.spans) > analysis.SPAN_LIMIT:
        note += f" Only the first {analysis.SPAN_LIMIT:,} tokens are drawn, to keep the page fast; the ids and tables below have all {len(res.spans):,}."
    st.caption(note)


def show_ids(res: Result) -> None:
    st.markdown("**Token ids**")
    body = "[" + ", ".join(map(str, res.ids)) + "]"
    st.code(body, language=None, wrap_lines=True, height=160 if len(res.ids) > 120 else "content")


def show_details(inp: Input, res: Result) -> None:
    t_tokens, t_bytes, t_share = st.tabs(["Token table", "Bytes view", "Share"])
    with t_tokens:
        st.dataframe(
            analysis.token_table(res.spans), hide_index=True, height=320, width="stretch",
            column_config={
                "index": st.column_config.NumberColumn("#", width="small"),
                "id": st.column_config.NumberColumn("id", format="%d", width="small"),
                "text": st.column_config.TextColumn("text", help="· is a space, ↵ a newline; <F0 9F> are bytes of a split character"),
                "bytes": st.column_config.TextColumn("bytes (hex)"),
            },
        )
    with t_bytes:
        show_bytes_view(inp.text)
    with t_share:
        show_share(inp)


@st.cache_data(show_spinner=False, max_entries=16)
def bytes_view(text: str) -> tuple[dict[int, int], analysis.Counts, pd.DataFrame]:
    """The bytes view's data; cached by text, since it does not depend on the tokenizer."""
    return analysis.byte_histogram(text), analysis.counts(text, []), analysis.bytes_table(text)


def show_bytes_view(text: str) -> None:
    hist, c, df = bytes_view(text)
    parts = [f"{n:,} × {k} byte{'s' if k > 1 else ''}" for k, n in hist.items() if n]
    st.markdown(
        f"**{c.characters:,} characters (code points) → {c.bytes:,} UTF-8 bytes**: " + (", ".join(parts) or "nothing")
        + ". ASCII takes one byte, most European letters two, CJK three, emoji four (some emoji are several code points)."
        " A byte-level BPE starts from these bytes and merges them; the *UTF-8 bytes* tokenizer shows them unmerged."
    )
    st.dataframe(df, hide_index=True, height=300, width="stretch")
    if c.characters > len(df):
        st.caption(f"Showing the first {len(df):,} of {c.characters:,} characters.")


def link_params(inp: Input) -> dict[str, str]:
    return querystate.params(inp.text if inp.mode == "text" and not inp.dropped else "", tokenizer=inp.key)


def publish_link(inp: Input) -> None:
    """Keep the address bar a link to this view (every run, also for empty text)."""
    querystate.publish(link_params(inp))


def show_share(inp: Input) -> None:
    wanted = link_params(inp)
    url = querystate.link(wanted)
    if inp.mode == "chat":
        st.caption("The link holds the tokenizer; chat messages are not put into links.")
    elif querystate.TEXT not in wanted and inp.text:
        st.caption(f"The link holds the tokenizer only: texts longer than {querystate.MAX_URL_TEXT:,} characters stay out of links.")
    else:
        st.caption("The address bar is a link to this view: it holds the tokenizer and the text.")
    if url:
        st.code(url, language=None, wrap_lines=True)


def show_chat_text(inp: Input) -> None:
    if inp.mode == "chat":
        with st.expander("What the model reads (the chat format as one string)"):
            st.code(inp.text, language=None, wrap_lines=True)
