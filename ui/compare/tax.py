"""The token tax: how many more tokens the same passage costs in other languages.

A tokenizer trained mostly on English text spends few tokens on English and many on
scripts it saw less often: the same meaning costs more to send, fits less into a
context window and takes longer to generate. For parallel passages (the same text in
several languages) the *premium* of a language is its token count divided by the
reference language's (English) under the same tokenizer: 2.0 means twice the tokens.

Plain data, no Streamlit: ``Compare`` draws ``tax_frame`` as a chart and a table.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence

import pandas as pd

#: Parallel texts a user may paste or upload: at most this many languages and characters each.
MAX_LANGUAGES = 60
MAX_PASSAGE_CHARS = 5_000
FORMAT_HELP = (
    "One language per line: its name, a colon or a tab, then the passage (`English: The weather is nice today.`). "
    'A .json file may hold an object instead: `{"English": "…", "German": "…"}`.'
)


def parse_parallel(text: str) -> dict[str, str]:
    """``{language: passage}`` from pasted lines (``name: passage`` or ``name<TAB>passage``) or a JSON object.

    Blank lines and lines starting with ``#`` are skipped; a bad line is a ValueError that names it.

    >>> parse_parallel("English: Hello.\\n# a note\\nGerman\\tHallo.\\n")
    {'English': 'Hello.', 'German': 'Hallo.'}
    >>> parse_parallel('{"English": "Hi", "French": "Salut"}')
    {'English': 'Hi', 'French': 'Salut'}
    >>> parse_parallel("just a sentence")
    Traceback (most recent call last):
    ...
    ValueError: Line 1 has no language name: write it as `Language: passage` (a colon or a tab after the name).
    """
    stripped = text.strip()
    if not stripped:
        return {}
    if stripped.startswith("{"):
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError as e:
            raise ValueError(
                f'The JSON is not valid ({e.msg}, line {e.lineno}): give an object such as {{"English": "…"}}.'
            ) from None
        if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
            raise ValueError(
                'The JSON must be one object of language names and passages, such as {"English": "…", "German": "…"}.'
            )
        out = {k.strip(): v.strip() for k, v in data.items() if k.strip() and v.strip()}
    else:
        out = {}
        for n, line in enumerate(stripped.splitlines(), 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            cut = min((i for i in (line.find("\t"), line.find(":")) if i > 0), default=-1)
            if cut < 0:
                raise ValueError(
                    f"Line {n} has no language name: write it as `Language: passage` (a colon or a tab after the name)."
                )
            name, passage = line[:cut].strip(), line[cut + 1 :].strip()
            if not passage:
                raise ValueError(f"Line {n} ({name}) has no passage after the name.")
            if name in out:
                raise ValueError(f"{name} appears twice (line {n}): give each language one line.")
            out[name] = passage
    if len(out) > MAX_LANGUAGES:
        raise ValueError(f"{len(out)} languages: the token tax takes at most {MAX_LANGUAGES}.")
    long = [k for k, v in out.items() if len(v) > MAX_PASSAGE_CHARS]
    if long:
        raise ValueError(
            f"The passage for {long[0]} is longer than {MAX_PASSAGE_CHARS:,} characters: parallel passages should be short."
        )
    return out


def default_reference(languages: Sequence[str]) -> str | None:
    """English when it is there (any case), else the first language.

    >>> default_reference(["German", "english"]), default_reference(["Thai"]), default_reference([])
    ('english', 'Thai', None)
    """
    for lang in languages:
        if lang.strip().lower() == "english":
            return lang
    return languages[0] if languages else None


def tax_frame(
    passages: Mapping[str, str],
    tokenizers: Sequence[str],
    count: Callable[[int, str], int],
    *,
    reference: str,
    scripts: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Long form: one row per (language, tokenizer) with tokens, bytes, characters and the premium.

    ``count(i, language)`` is the number of tokens the ``i``-th tokenizer needs for
    that language's passage; ``premium`` divides it by the reference language's.

    >>> df = tax_frame({"English": "Hi.", "Greek": "Γεια."}, ["A"], lambda i, lang: {"English": 2, "Greek": 5}[lang], reference="English")
    >>> df[["language", "tokenizer", "tokens", "bytes", "premium"]].values.tolist()
    [['English', 'A', 2, 3, 1.0], ['Greek', 'A', 5, 9, 2.5]]
    """
    if reference not in passages:
        raise ValueError(f"The reference language {reference!r} has no passage: pick one of {', '.join(passages)}.")
    rows = []
    for i, label in enumerate(tokenizers):
        ref = count(i, reference)
        for lang, text in passages.items():
            n = count(i, lang)
            rows.append(
                {
                    "language": lang,
                    "script": (scripts or {}).get(lang, ""),
                    "tokenizer": label,
                    "tokens": n,
                    "bytes": len(text.encode("utf-8")),
                    "characters": len(text),
                    "premium": round(n / ref, 3) if ref else float("nan"),
                }
            )
    return pd.DataFrame(rows, columns=["language", "script", "tokenizer", "tokens", "bytes", "characters", "premium"])


def tokens_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Wide form for the page: one row per language, its bytes, and each tokenizer's tokens (the premiums are in the
    chart's cells). One column per tokenizer, so the table fits the page's width with many of them.

    >>> df = tax_frame({"English": "Hi.", "Greek": "Γεια."}, ["A", "B"], lambda i, lang: (2 + i) * (1 + (lang == "Greek")), reference="English")
    >>> tokens_table(df).to_dict("records")[1]
    {'language': 'Greek', 'script': '', 'bytes': 9, 'A': 4, 'B': 6}
    """
    if frame.empty:
        return pd.DataFrame()
    out = frame.drop_duplicates("language")[["language", "script", "bytes"]].reset_index(drop=True)
    for label in dict.fromkeys(frame["tokenizer"]):
        part = frame[frame["tokenizer"] == label].set_index("language")
        out[label] = out["language"].map(part["tokens"]).astype(int)
    return out


def language_order(frame: pd.DataFrame, reference: str) -> list[str]:
    """Languages for the chart: the reference first, then by premium under the first tokenizer, cheapest first.

    >>> df = tax_frame({"E": "a", "X": "b", "Y": "c"}, ["A"], lambda i, lang: {"E": 2, "X": 6, "Y": 4}[lang], reference="E")
    >>> language_order(df, "E")
    ['E', 'Y', 'X']
    """
    if frame.empty:
        return []
    first = frame[frame["tokenizer"] == frame["tokenizer"].iloc[0]]
    rest = first[first["language"] != reference].sort_values(["premium", "language"], kind="stable")["language"].tolist()
    return [reference, *rest]
