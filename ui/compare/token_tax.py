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

from tokenizer.formats.json_input import decode_text, read_json

#: Parallel texts a user may paste or upload: at most this many languages and characters each.
MAX_LANGUAGES = 60
MAX_PASSAGE_CHARS = 5_000
FORMAT_HELP = (
    "One language per line: its name, a colon or a tab, then the passage (`English: The weather is nice today.`). "
    'A .json file may hold an object instead, `{"English": "…", "German": "…"}`, or a list such as '
    '`[{"language": "English", "text": "…"}, …]`.'
)
#: field names a JSON list of objects may use for the language and for its passage (any case)
LANGUAGE_FIELDS = ("language", "lang", "name")
PASSAGE_FIELDS = ("text", "passage", "translation", "sentence")
_SHAPE = (
    'give an object of language names and passages, such as {"English": "…", "German": "…"}, '
    'or a list such as [{"language": "English", "text": "…"}, …]'
)


def parse_parallel(
    text: str, *, max_languages: int | None = MAX_LANGUAGES, max_passage_chars: int | None = MAX_PASSAGE_CHARS
) -> dict[str, str]:
    """``{language: passage}`` from pasted lines (``name: passage`` or ``name<TAB>passage``) or JSON.

    Blank lines and lines starting with ``#`` are skipped, and so is a TSV header
    (``language<TAB>text``); a leading byte-order mark is dropped. Text that starts with
    ``{`` or ``[``, or that is JSON at all, is read as JSON (``tokenizer.formats.json_input``):
    an object of passages, a list of ``{"language": …, "text": …}`` objects or of
    ``[language, passage]`` pairs; any other JSON is refused, never read as lines. A bad
    line, an empty passage or a language given twice (also once with spaces around it) is a
    ValueError that names it. The token tax's limits apply unless given as None (parity-aware
    training reads whole texts, ``ui.train.variants``).

    >>> parse_parallel("English: Hello.\\n# a note\\nGerman\\tHallo.\\n")
    {'English': 'Hello.', 'German': 'Hallo.'}
    >>> parse_parallel('{"English": "Hi", "French": "Salut"}')
    {'English': 'Hi', 'French': 'Salut'}
    >>> parse_parallel('[{"language": "English", "text": "Hi"}, {"language": "French", "text": "Salut"}]')
    {'English': 'Hi', 'French': 'Salut'}
    >>> parse_parallel("just a sentence")
    Traceback (most recent call last):
    ...
    ValueError: Line 1 has no language name: write it as `Language: passage` (a colon or a tab after the name).
    """
    stripped = decode_text(text, "the text").strip()
    if not stripped:
        return {}
    data = _json_or_none(stripped)
    if data is not None:
        pairs = _json_pairs(data)
    else:
        pairs = _line_pairs(stripped)
    out: dict[str, str] = {}
    written: dict[str, str] = {}
    for where, name, passage in pairs:
        key = name.strip()
        if not key:
            raise ValueError(f"{where} has a passage but no language name: give each passage its language.")
        if not passage.strip():
            raise ValueError(f"{where} ({key}) has no passage after the name.")
        if key in out:
            same = f" (as {written[key]!r} and {name!r})" if written[key] != name else ""
            raise ValueError(f"{key} appears twice{same}, the second time in {where.lower()}: give each language one passage.")
        out[key], written[key] = passage.strip(), name
    if max_languages is not None and len(out) > max_languages:
        raise ValueError(f"{len(out)} languages: the token tax takes at most {max_languages}.")
    long = [k for k, v in out.items() if max_passage_chars is not None and len(v) > max_passage_chars]
    if long:
        raise ValueError(
            f"The passage for {long[0]} is longer than {max_passage_chars:,} characters: parallel passages should be short."
        )
    return out


def _json_or_none(text: str):
    """The text as JSON, or None when it is lines. Text that opens like JSON must be valid JSON."""
    if text[0] in "{[":
        try:
            return read_json(text, what="The JSON")
        except ValueError as e:
            raise ValueError(f"{e}. For JSON, {_SHAPE}; otherwise write one `Language: passage` per line.") from None
    try:
        data = read_json(text, what="The JSON")
    except ValueError:
        return None
    raise ValueError(
        f"The text is JSON ({_kind(data)}), not parallel passages: {_SHAPE}, or write one `Language: passage` per line."
    )


def _kind(value) -> str:
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, (int, float)):
        return "a number"
    return "a list" if isinstance(value, list) else "an object"


def _json_pairs(data) -> list[tuple[str, str, str]]:
    """``(where, name, passage)`` from an object of passages, a list of objects or a list of pairs."""
    if isinstance(data, dict):
        pairs = []
        for name, passage in data.items():
            if not isinstance(passage, str):
                raise ValueError(f"The JSON gives {name!r} {_kind(passage)}, not a passage: {_SHAPE}.")
            pairs.append((f"The entry {name!r}", name, passage))
        return pairs
    if not isinstance(data, list):
        raise ValueError(f"The JSON is {_kind(data)}: {_SHAPE}.")
    pairs = []
    for i, item in enumerate(data, 1):
        where = f"Item {i} of the JSON list"
        if isinstance(item, list) and len(item) == 2 and all(isinstance(x, str) for x in item):
            pairs.append((where, item[0], item[1]))
            continue
        if isinstance(item, dict):
            fields = {k.strip().lower(): k for k in item}
            lang = next((fields[f] for f in LANGUAGE_FIELDS if f in fields), None)
            passage = next((fields[f] for f in PASSAGE_FIELDS if f in fields), None)
            if lang is not None and passage is not None:
                if isinstance(item[lang], str) and isinstance(item[passage], str):
                    pairs.append((where, item[lang], item[passage]))
                    continue
                raise ValueError(f"{where} has a {lang!r} or {passage!r} that is not text: {_SHAPE}.")
            one = len(item) == 1 and not set(fields) & {*LANGUAGE_FIELDS, *PASSAGE_FIELDS}
            if one and isinstance(next(iter(item.values())), str):  # [{"English": "…"}, …]
                ((name, text),) = item.items()
                pairs.append((where, name, text))
                continue
        raise ValueError(
            f"{where} is {_kind(item)} without a language and a passage: {_SHAPE} "
            f"(the language may be called {', '.join(LANGUAGE_FIELDS)}; the passage {', '.join(PASSAGE_FIELDS)})."
        )
    return pairs


def _line_pairs(text: str) -> list[tuple[str, str, str]]:
    """``(where, name, passage)`` per ``name: passage`` or ``name<TAB>passage`` line."""
    pairs = []
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        cut = min((i for i in (line.find("\t"), line.find(":")) if i > 0), default=-1)
        if cut < 0:
            raise ValueError(f"Line {n} has no language name: write it as `Language: passage` (a colon or a tab after the name).")
        name, passage = line[:cut], line[cut + 1 :]
        if not pairs and name.strip().lower() in LANGUAGE_FIELDS and passage.strip().lower() in PASSAGE_FIELDS:
            continue  # a TSV header: language<TAB>text
        pairs.append((f"Line {n}", name, passage))
    return pairs


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
