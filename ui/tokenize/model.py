"""What the Tokenize page computes, as plain data (no Streamlit): the chat format, the
token and bytes tables, and the lines that explain the special-token switch.

Chat mode renders system/user/assistant messages in the chat format of the chosen
model, from the registry's data (``registry.ChatFormat``, rendered by
``tokenizer.models.chat``). For cl100k and o200k that is Tiktokenizer's (dqbd/tiktokenizer,
``src/sections/ChatGPTEditor.tsx``, ``getChatGPTEncoding`` for gpt-4/gpt-4o)::

    <|im_start|>system<|im_sep|>You are a helpful assistant<|im_end|><|im_start|>user<|im_sep|>Hi<|im_end|><|im_start|>assistant<|im_sep|>

Llama 3 and 4 use header tokens, Qwen ChatML with newlines, Mistral ``[INST]``,
gpt-oss harmony's ``<|start|>role<|message|>``. The framing tokens are always
special tokens; what the messages say follows the page's special-token switch (as
text, like the API treats user content, or recognised).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pyarrow as pa

from tokenizer import EncodingSpec, TokenizerLike, clean_text, registry, visible
from tokenizer.display import is_partial
from tokenizer.models import chat
from tokenizer.special import special_regex
from tokenizer.trace import Span
from ui.common.user_text import Counts, encode
from ui.render.markdown import code

if TYPE_CHECKING:
    from ui.common.tokenizers import Choice

#: Spans drawn as HTML; counts, ids and tables cover every token.
SPAN_LIMIT = 2_500
#: Rows in the bytes view (one per character).
BYTES_ROWS = 2_000

MODE_CHOICES = {"text": "Text", "chat": "Chat", "ids": "Ids"}
#: What the ids box shows before anything is typed: "Hello world" under cl100k_base.
IDS_EXAMPLE = "[9906, 1917]"
SPECIAL_CHOICES = {"text": "Special tokens are text", "recognise": "Recognise special tokens"}

ROLES = chat.ROLES
DEFAULT_MESSAGES = (
    {"role": "system", "content": "You are a helpful assistant"},
    {"role": "user", "content": "Hello 你好! How many tokens does this chat take? 🤔"},
)

Message = Mapping[str, str]


@dataclass
class Input:
    """What the user asked for on this run."""

    key: str  # the menu's choice, as the link holds it
    mode: str  # "text" or "chat"
    text: str  # the text box, or the chat rendered into one string
    recognise: bool
    messages: list[dict] | None = None
    dropped: int = 0  # characters cut off above ui.common.user_text.MAX_CHARS
    problem: str | None = None  # why the chat cannot be laid out (a list the model's own package refuses)
    choice: Choice | None = None  # the chosen tokenizer, resolved once this run (None: it cannot be loaded, see why)
    why: str = ""  # why it cannot be loaded, with what to do (ui.common.tokenizers.get's message)

    def chosen(self) -> Choice:
        """The chosen tokenizer's record, or the ValueError that says why it cannot be loaded (for errors.shown)."""
        if self.choice is None:
            raise ValueError(self.why or f"unknown tokenizer {self.key!r}: pick one from the list")
        return self.choice

    def tokenizer(self):
        """The tokenizer this input is encoded with: with the chat format's tokens when specials are recognised or
        in chat mode (``Choice.tokenizer``)."""
        return self.chosen().tokenizer(with_chat=self.recognise or self.mode == "chat")


@dataclass
class Result:
    """The input's tokens, and what the page says about them."""

    tok: TokenizerLike
    ids: list[int]
    spans: list[Span]
    counts: Counts
    special_in_text: list[str] = field(default_factory=list)  # special-token strings counted as text


# ---------------------------------------------------------------- ids (decoding)

_ID_SEPARATORS = re.compile(r"[\s,;]+")


def parse_ids(text: str) -> list[int]:
    """Token ids typed or pasted as a list (``[9906, 1917]``), or separated by spaces, commas or new lines.

    >>> parse_ids("[9906, 1917]"), parse_ids("9906 1917\\n220"), parse_ids(" (1,2,) "), parse_ids("")
    ([9906, 1917], [9906, 1917, 220], [1, 2], [])
    >>> parse_ids("9906, hello")
    Traceback (most recent call last):
    ...
    ValueError: 'hello' is not a token id: write whole numbers, such as [9906, 1917] or 9906 1917.
    """
    body = text.strip()
    if body[:1] in "[(" and body[-1:] in "])":  # a list as Python, JSON or a tensor's repr prints it
        body = body[1:-1]
    out = []
    for part in _ID_SEPARATORS.split(body):
        if not part:
            continue
        if not part.isascii() or not part.isdigit():
            raise ValueError(f"{part[:40]!r} is not a token id: write whole numbers, such as {IDS_EXAMPLE} or 9906 1917.")
        out.append(int(part))
    return out


def unknown_ids(ids: Sequence[int], known: Callable[[int], bool]) -> list[int]:
    """The ids ``known`` refuses, each once, in the order met.

    >>> unknown_ids([5, 900, 3, 900, 7], lambda i: i < 10)
    [900]
    """
    return list(dict.fromkeys(i for i in ids if not known(i)))


def unknown_ids_message(bad: Sequence[int], label: str, vocab_size: int, top: int) -> str:
    """The page's error for ids the vocabulary lacks: the ids, the tokenizer, its size and its ids' range.

    >>> unknown_ids_message([100256], "GPT-4 (cl100k_base)", 100261, 100276)
    'Token id 100256 is not in the vocabulary of GPT-4 (cl100k_base): it has 100,261 tokens, with ids from 0 to 100,276. Check that the ids came from this tokenizer.'
    """
    shown = ", ".join(str(i) for i in bad[:10]) + (f" and {len(bad) - 10:,} more" if len(bad) > 10 else "")
    what = f"Token id {shown} is" if len(bad) == 1 else f"Token ids {shown} are"
    return (
        f"{what} not in the vocabulary of {label}: it has {vocab_size:,} tokens, with ids from 0 to {top:,}. "
        "Check that the ids came from this tokenizer."
    )


# ---------------------------------------------------------------- chat


def _spec(encoding: str | EncodingSpec) -> EncodingSpec:
    return encoding if isinstance(encoding, EncodingSpec) else registry.spec(encoding)


def chat_pieces(messages: Sequence[Message], encoding: str | EncodingSpec = "cl100k_base") -> list[tuple[str, bool]]:
    """The chat format of an encoding (its name, or the registry's record a page already holds) as
    ``(text, is_special)`` pieces, ending with the assistant's turn.

    >>> chat_pieces([{"role": "user", "content": "Hi"}])[:4]
    [('<|im_start|>', True), ('user', False), ('<|im_sep|>', True), ('Hi', False)]
    """
    s = _spec(encoding)
    return chat.pieces(messages, s.chat, {**s.special_tokens, **s.chat_tokens})


def chat_text(messages: Sequence[Message], encoding: str | EncodingSpec = "cl100k_base") -> str:
    """The whole conversation as one string (what the model reads, specials spelled out).

    >>> chat_text([])
    '<|im_start|>assistant<|im_sep|>'
    >>> chat_text([{"role": "user", "content": "Hi"}], "tekken")
    '<s>[INST]Hi[/INST]'
    """
    return "".join(text for text, _ in chat_pieces(messages, encoding))


def encode_chat(
    tok, messages: Sequence[Message], *, encoding: str | EncodingSpec = "cl100k_base", recognise_special: bool = False
) -> list[int]:
    """Ids of the conversation: framing tokens by id, role names and contents as text.

    ``tok`` must know the format's tokens (``ui.common.tokenizers.chat``). Each text
    piece is encoded on its own, as the model packages do; for cl100k/o200k that is
    tiktoken's ``encode(chat_text(messages), allowed_special=<chat tokens>)`` when the
    contents hold no special-token strings.
    """
    return chat.encode(
        tok, messages, _spec(encoding).chat, encode_text=lambda t: encode(tok, t, recognise_special=recognise_special)
    )


def next_role(messages: Sequence[Message]) -> str:
    """The role of a message added at the end: system first, then user and assistant in turn.

    >>> next_role([]), next_role([{"role": "system", "content": ""}]), next_role([{"role": "user", "content": ""}])
    ('system', 'user', 'assistant')
    """
    if not messages:
        return "system"
    return "assistant" if messages[-1]["role"] == "user" else "user"


# ---------------------------------------------------------------- special tokens


#: placeholder names (Llama's reserved tokens, Tekken's fillers, Qwen's extras) that lists summarise
_PLACEHOLDER = re.compile(r"reserved|^<SPECIAL_\d+>$|^<\|extra_\d+\|>$")
HELP_LIMIT = 24


def named_specials(names: Mapping[str, int]) -> dict[str, int]:
    """The special tokens that are not numbered placeholders, in id order.

    >>> named_specials({"<|begin_of_text|>": 128000, "<|reserved_special_token_0|>": 128002, "<SPECIAL_20>": 20})
    {'<|begin_of_text|>': 128000}
    """
    return {s: i for s, i in sorted(names.items(), key=lambda kv: kv[1]) if not _PLACEHOLDER.search(s)}


def special_help(names: Mapping[str, int]) -> str:
    """The special-token switch's help: the tokenizer's special tokens (placeholders counted, not listed).

    >>> special_help({"<|endoftext|>": 50256})
    'Special tokens of this tokenizer:\\n\\n- `<|endoftext|>` = 50256'
    """
    if not names:
        return "This tokenizer has no special tokens."
    named = named_specials(names)
    lines = [f"- {code(s)} = {i}" for s, i in list(named.items())[:HELP_LIMIT]]
    rest = len(names) - len(lines)
    if rest:
        lines.append(
            f"- … and {rest:,} more ({len(names) - len(named):,} of them numbered placeholders); the Vocabulary page lists them all"
        )
    return "Special tokens of this tokenizer:\n\n" + "\n".join(lines)


def special_note(names: Mapping[str, int], *, recognise: bool, mode: str) -> str:
    """The one line that says what the special-token switch does right now.

    >>> special_note({"<|endoftext|>": 100257}, recognise=True, mode="text")
    'Each special-token string in the text becomes its single id (`<|endoftext|>` = 100257), as Tiktokenizer counts it.'
    """
    if not names:
        return "This tokenizer has no special tokens, so both settings give the same tokens."
    items = list(names.items())
    listed = ", ".join(f"{code(s)} = {i}" for s, i in items[:2]) + (f" and {len(items) - 2} more" if len(items) > 2 else "")
    if recognise:
        return f"Each special-token string in the text becomes its single id ({listed}), as Tiktokenizer counts it."
    return (
        "A special-token string such as `<|endoftext|>` is encoded as ordinary text (several tokens), "
        "as OpenAI's tokenizer page and the API do with text people type."
        + (" The chat framing tokens stay special." if mode == "chat" else "")
    )


def specials_in_text(names: Mapping[str, int], text: str) -> list[str]:
    """The special-token strings that occur in the text (counted as text when not recognised).

    >>> specials_in_text({"<|endoftext|>": 1, "<|fim|>": 2}, "a<|endoftext|>b")
    ['<|endoftext|>']
    """
    if not names or not text:
        return []
    found = set(special_regex(tuple(sorted(names))).findall(text))  # one pass, also for Llama 4's 2,048 names
    return [s for s in names if s in found]


# ---------------------------------------------------------------- tables


def spaced_hex(data: bytes, limit: int = 64) -> str:
    """``b"\\xe4\\xbd\\xa0"`` -> ``"E4 BD A0"`` (long tokens end with ``…``).

    >>> spaced_hex("你".encode()), spaced_hex(b"abc", limit=2)
    ('E4 BD A0', '61 62 …')
    """
    out = " ".join(f"{b:02X}" for b in data[:limit])
    return out + (" …" if len(data) > limit else "")


def token_table(spans: Sequence[Span]) -> pa.Table:
    """One row per token: index, id, visible text, bytes (hex), and what kind it is.

    An Arrow table, which ``st.dataframe`` sends as it is (a DataFrame would be converted to
    Arrow on every rerun); each distinct token's text and hex are worked out once.

    >>> from tokenizer.trace import make_spans
    >>> token_table(make_spans([(1, b" hi"), (2, b"<|x|>")], {2})).to_pylist()[1]
    {'index': 1, 'id': 2, 'text': '<|x|>', 'bytes': '3C 7C 78 7C 3E', 'kind': 'special'}
    """
    seen: dict[bytes, tuple[str, str, bool]] = {}
    texts, hexes, kinds = [], [], []
    for s in spans:
        row = seen.get(s.bytes)
        if row is None:
            row = seen[s.bytes] = (visible(s.bytes), spaced_hex(s.bytes), is_partial(s.bytes))
        texts.append(row[0])
        hexes.append(row[1])
        kinds.append("special" if s.special else ("part of a character" if row[2] else ""))
    return pa.table(
        {
            "index": pa.array([s.index for s in spans], pa.int64()),
            "id": pa.array([s.id for s in spans], pa.int64()),
            "text": pa.array(texts, pa.large_string()),
            "bytes": pa.array(hexes, pa.large_string()),
            "kind": pa.array(kinds, pa.large_string()),
        }
    )


def bytes_table(text: str, limit: int = BYTES_ROWS) -> pa.Table:
    """One row per character (code point): what it is and its UTF-8 bytes (an Arrow table, as ``token_table``).

    >>> bytes_table("a你").column("utf-8 bytes").to_pylist()
    ['61', 'E4 BD A0']
    """
    text = clean_text(text)
    seen: dict[str, tuple[str, str, str, int]] = {}
    rows: tuple[list, ...] = ([], [], [], [], [])
    offset = 0
    for ch in text[:limit]:
        row = seen.get(ch)
        if row is None:
            data = ch.encode("utf-8")
            row = seen[ch] = (visible(data), f"U+{ord(ch):04X}", spaced_hex(data), len(data))
        for col, value in zip(rows, row):
            col.append(value)
        rows[4].append(offset)
        offset += row[3]
    return pa.table(
        {
            "char": pa.array(rows[0], pa.large_string()),
            "code point": pa.array(rows[1], pa.large_string()),
            "utf-8 bytes": pa.array(rows[2], pa.large_string()),
            "n bytes": pa.array(rows[3], pa.int64()),
            "byte offset": pa.array(rows[4], pa.int64()),
        }
    )


def byte_histogram(text: str) -> dict[int, int]:
    """How many characters take 1, 2, 3 and 4 UTF-8 bytes.

    >>> byte_histogram("Hello 你好😄")
    {1: 6, 2: 0, 3: 2, 4: 1}
    """
    out = {1: 0, 2: 0, 3: 0, 4: 0}
    for ch in clean_text(text):
        out[len(ch.encode("utf-8"))] += 1
    return out


def bytes_summary(text: str) -> str:
    """The bytes view's headline: characters against UTF-8 bytes, by bytes per character.

    >>> bytes_summary("a你😄")
    '**3 characters (code points) → 8 UTF-8 bytes**: 1 × 1 byte, 1 × 3 bytes, 1 × 4 bytes'
    """
    hist = byte_histogram(text)
    text = clean_text(text)
    parts = [f"{n:,} × {k} byte{'s' if k > 1 else ''}" for k, n in hist.items() if n]
    return f"**{len(text):,} characters (code points) → {len(text.encode('utf-8')):,} UTF-8 bytes**: " + (
        ", ".join(parts) or "nothing"
    )
