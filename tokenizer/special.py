"""Special tokens: checked, found in text, and allowed or refused with tiktoken's rules.

A special token (``<|endoftext|>``) is one id that no text encodes to unless the caller
allows it: ``encode(text, allowed_special=..., disallowed_special=...)`` means what it
means in tiktoken. The pre-tokenizer then cuts the text at the allowed ones first; each
piece between them goes on to the split pattern and BPE.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Iterable, Mapping

import regex

from .errors import MAX_ID, InvalidType, check_int, check_utf8, type_name

#: The longest special token, in characters: every real one is a short marker (``<|endoftext|>``), and a
#: long one costs training and encoding time that grows with its length.
MAX_SPECIAL_CHARS = 256


def check_special_length(tok: str) -> None:
    """ValueError naming the limit when a special token is longer than ``MAX_SPECIAL_CHARS``.

    >>> check_special_length("x" * 300)
    Traceback (most recent call last):
    ...
    ValueError: special token 'xxxxxxxxxxxxxxxxxxxx'… is 300 characters long; special tokens are at most 256 characters (markers such as <|endoftext|>): shorten it
    """
    if len(tok) > MAX_SPECIAL_CHARS:
        raise ValueError(
            f"special token {tok[:20]!r}{'…' if len(tok) > 20 else ''} is {len(tok):,} characters long; special tokens are "
            f"at most {MAX_SPECIAL_CHARS} characters (markers such as <|endoftext|>): shorten it"
        )


def check_special_tokens(special_tokens, what: str = "special_tokens") -> dict[str, int]:
    """``{token string: id}`` checked: non-empty strings of at most ``MAX_SPECIAL_CHARS`` with whole-number ids (None: none)."""
    if special_tokens is None:
        return {}
    if not isinstance(special_tokens, Mapping):
        raise InvalidType(f"{what} must be a dict {{token string: id}}, not {type_name(special_tokens)}")
    out = {}
    for tok, tid in special_tokens.items():
        if not isinstance(tok, str) or not tok:
            raise ValueError(f"special token {tok!r} must be a non-empty string")
        check_special_length(tok)
        check_utf8(tok, f"special token {tok!r}")
        out[tok] = check_int(tid, f"the id of special token {tok!r}", 0, MAX_ID)
    return out


def allowed_and_disallowed(specials: Collection[str], allowed_special, disallowed_special) -> tuple[set[str], set[str]]:
    """``(allowed, disallowed)`` special-token strings, with tiktoken's semantics.

    >>> allowed_and_disallowed({"<|a|>", "<|b|>"}, {"<|a|>", "<|z|>"}, "all")
    ({'<|a|>'}, {'<|b|>'})
    """
    specials = set(specials)
    if isinstance(allowed_special, str) and allowed_special == "all":
        allowed = specials
    else:
        allowed = _string_set(allowed_special, "allowed_special") & specials  # tiktoken ignores unknown names
    if isinstance(disallowed_special, str) and disallowed_special == "all":
        disallowed = specials - allowed
    elif not disallowed_special:  # (), set(), None: no check, as in tiktoken
        disallowed = set()
    else:
        disallowed = {s for s in _string_set(disallowed_special, "disallowed_special") if s}
    return allowed, disallowed


def check_disallowed(text: str, disallowed: Collection[str]) -> None:
    """tiktoken's error (``raise_disallowed_special_token``) if ``text`` holds one of ``disallowed``.

    >>> check_disallowed("a<|end|>", {"<|end|>"})
    Traceback (most recent call last):
    ...
    ValueError: Encountered text corresponding to disallowed special token '<|end|>'.
    ...
    """
    if disallowed:
        m = special_regex(tuple(sorted(disallowed))).search(text)
        if m:
            raise_disallowed_special_token(m.group())


@functools.lru_cache(maxsize=64)
def special_regex(tokens: tuple[str, ...]):
    """A regex that finds any of ``tokens``; longest first, so a token that is a prefix of another never wins."""
    ordered = sorted(tokens, key=len, reverse=True)
    return regex.compile("|".join(regex.escape(t) for t in ordered))


def raise_disallowed_special_token(token: str):
    """tiktoken's error, word for word: it names the two arguments that change it."""
    raise ValueError(
        f"Encountered text corresponding to disallowed special token {token!r}.\n"
        "If you want this text to be encoded as a special token, "
        f"pass it to `allowed_special`, e.g. `allowed_special={{{token!r}, ...}}`.\n"
        f"If you want this text to be encoded as normal text, disable the check for this token "
        f"by passing `disallowed_special=(enc.special_tokens_set - {{{token!r}}})`.\n"
        "To disable this check for all special tokens, pass `disallowed_special=()`.\n"
    )


def _string_set(value, what: str) -> set[str]:
    """A collection of strings as a set (``allowed_special``/``disallowed_special``)."""
    if isinstance(value, str):
        raise InvalidType(
            f"{what} must be 'all' or a collection of special-token strings, e.g. {{'<|endoftext|>'}}, not the string {value!r}"
        )
    if value is None or not isinstance(value, Iterable):
        raise InvalidType(f"{what} must be 'all' or a collection of special-token strings, not {type_name(value)}")
    out = set()
    for x in value:
        if not isinstance(x, str):
            raise InvalidType(f"{what} must hold special-token strings, found {x!r}")
        out.add(x)
    return out
