"""The text a user works on, as Tokenize, Compare and Step through treat it.

Plain Python (no Streamlit): the length limit, the two special-token modes of the
pages, and the counts every page shows (tokens, characters, UTF-8 bytes).
"""

from __future__ import annotations

from collections.abc import Sized
from dataclasses import dataclass

from tokenizer import clean_text

#: Pasted text above this many characters is cut here (about 200 kB of English);
#: the page says so and tokenizes the first part. It keeps a rerun well under a second.
MAX_CHARS = 200_000


def clip(text: str, limit: int = MAX_CHARS) -> tuple[str, int]:
    """``(first part, characters left out)``.

    >>> clip("abcdef", 4)
    ('abcd', 2)
    >>> clip("abc", 4)
    ('abc', 0)
    """
    if len(text) <= limit:
        return text, 0
    return text[:limit], len(text) - limit


def encode(tok, text: str, *, recognise_special: bool) -> list[int]:
    """Encode with one of the two special-token modes of the pages.

    ``recognise_special=False``: special-token strings such as ``<|endoftext|>`` are
    ordinary text (what OpenAI's tokenizer page does, and never an error);
    ``True``: they become their single special id (what Tiktokenizer does).

    >>> from tokenizer import train
    >>> tok = train("ab ab", 257, pattern=None, special_tokens=["<|x|>"])
    >>> len(encode(tok, "<|x|>", recognise_special=False)), encode(tok, "<|x|>", recognise_special=True)
    (5, [257])
    """
    if recognise_special:
        return tok.encode(text, allowed_special="all")
    return tok.encode(text, disallowed_special=())


@dataclass(frozen=True)
class Counts:
    tokens: int
    characters: int
    bytes: int

    @property
    def chars_per_token(self) -> float:
        return self.characters / self.tokens if self.tokens else 0.0

    @property
    def bytes_per_token(self) -> float:
        return self.bytes / self.tokens if self.tokens else 0.0


def counts(text: str, ids: Sized) -> Counts:
    """Tokens, characters (code points) and UTF-8 bytes of a text (``ids``: its tokens, or spans).

    >>> c = counts("Hello 你好", [9906, 220, 57668, 53901]); (c.characters, c.bytes, c.chars_per_token)
    (8, 12, 2.0)
    """
    text = clean_text(text)
    return Counts(len(ids), len(text), len(text.encode("utf-8")))
