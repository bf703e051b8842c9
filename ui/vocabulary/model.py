"""What the Vocabulary page computes, as plain data: the vocab table of any tokenizer,
its filters, the longest tokens and how often each token is produced on a text.

No Streamlit here. The page builds ``vocab_frame`` once per tokenizer
(``ui.common.cache``: for every session with an official encoding): about half a
second for o200k's 200,000 tokens, then every filter is a pandas mask over it.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Collection

import pandas as pd
import regex

from tokenizer import Tokenizer
from tokenizer.display import gpt2_form, visible
from tokenizer.pretokenize.splitter import within_wall_time

#: Rows of a filtered table sent to the browser at once.
ROWS = 1_000
#: Seconds a user regex may spend on the whole vocabulary.
REGEX_TIMEOUT = 2.0
KINDS = {
    "all": "All tokens",
    "byte": "Single bytes",
    "merged": "Merged tokens",
    "character": "Single characters",  # SentencePiece-style: the pieces merges start from
    "whole": "Whole-chunk tokens",
    "special": "Special tokens",
}


def vocab_frame(tok: Tokenizer) -> pd.DataFrame:
    """One row per token id: id, token (visible), bytes, merged from, left/right ids, rank, GPT-2 form.

    ``text`` (the bytes decoded with U+FFFD for broken characters) is what the regex
    filter searches; ``kind`` is byte, merged, whole (a token no merge builds, given only
    for a chunk equal to it: ``Tokenizer.whole_tokens``, in Llama 3 and Qwen 3.5) or special.

    >>> from tokenizer import train
    >>> df = vocab_frame(train("aaabdaaabac", 259, pattern=None))
    >>> row = df.loc[258]
    >>> row["token"], int(row["bytes"]), row["merged from"], int(row["rank"])
    ('aaab', 4, 'aaa + b', 2)
    """
    vocab = tok.vocab
    parents = tok.parents
    rank_of = tok.rank_of
    specials = tok.special_ids
    ids = sorted(vocab)
    data = [vocab[i] for i in ids]
    vis = {}

    def v(tid: int) -> str:
        s = vis.get(tid)
        if s is None:
            s = vis[tid] = visible(vocab[tid])
        return s

    left = [parents[i][0] if i in parents else None for i in ids]
    right = [parents[i][1] if i in parents else None for i in ids]
    df = pd.DataFrame(
        {
            "id": ids,
            "token": [v(i) for i in ids],
            "bytes": [len(b) for b in data],
            "merged from": [f"{v(a)} + {v(b)}" if a is not None else "" for a, b in zip(left, right)],
            "left id": pd.array(left, dtype="Int64"),
            "right id": pd.array(right, dtype="Int64"),
            "rank": pd.array([rank_of.get(i) for i in ids], dtype="Int64"),  # 0-based: the merge list's order
            "GPT-2 form": [b.decode("utf-8", "replace") if i in specials else gpt2_form(b) for i, b in zip(ids, data)],
            "kind": [_kind(i, specials, parents, tok.whole_tokens) for i in ids],
            "text": [b.decode("utf-8", "replace") for b in data],
        }
    )
    df.index = pd.Index(ids, name=None)
    if tok.kind == "sentencepiece":
        # the file's own spelling (▁the, <0x41>) instead of GPT-2's; a piece of one character is where merges start
        df = df.drop(columns=["GPT-2 form"])
        pieces = tok.model.pieces
        df.insert(len(df.columns) - 2, "piece", [pieces[i] if i < len(pieces) else v(i) for i in ids])
        leaf = (df["kind"] == "byte") & ~df["id"].map(tok.is_byte_token)
        df.loc[leaf, "kind"] = "character"
    return df


def _kind(tid: int, specials, parents, whole) -> str:
    if tid in specials:
        return "special"
    if tid in parents:
        return "merged"
    return "whole" if tid in whole else "byte"


def special_table(tok: Tokenizer, chat_tokens: Collection[str] = ()) -> pd.DataFrame:
    """One row per special token, by id: its text and what it is for (the chat format, a numbered placeholder).

    >>> special_table(Tokenizer(special_tokens={"<|eot|>": 300, "<|reserved_1|>": 301}), {"<|eot|>"}).values.tolist()
    [[300, '<|eot|>', 'chat format'], [301, '<|reserved_1|>', 'placeholder']]
    """
    rows = sorted(tok.special_tokens.items(), key=lambda kv: kv[1])
    use = ["chat format" if s in chat_tokens else ("placeholder" if _PLACEHOLDER.search(s) else "") for s, _ in rows]
    return pd.DataFrame({"id": [i for _, i in rows], "token": [s for s, _ in rows], "use": use})


#: numbered placeholder names (Llama's reserved tokens, Tekken's fillers, Qwen's extras)
_PLACEHOLDER = regex.compile(r"reserved|^<SPECIAL_\d+>$|^<\|extra_\d+\|>$")


def regex_mask(texts: pd.Series, pattern: str, timeout: float = REGEX_TIMEOUT) -> pd.Series:
    """Rows whose text the regex matches anywhere (``regex.search``), under a total time limit.

    >>> regex_mask(pd.Series(["the", " the", "cat"]), r"^\\s").tolist()
    [False, True, False]
    """
    try:
        rx = regex.compile(pattern)
    except regex.error as e:
        raise ValueError(
            f"The filter is not a valid regex: {e}. Check brackets and escapes (\\s is whitespace, ^ the start)."
        ) from None
    deadline = time.monotonic() + timeout

    def search_all() -> list[bool]:
        out = []
        for t in texts:
            left = deadline - time.monotonic()  # an abandoned run stops here too, at the next row
            if left <= 0:
                raise TimeoutError
            out.append(rx.search(t, timeout=left, concurrent=True) is not None)
        return out

    try:
        out = within_wall_time(timeout, search_all)
    except TimeoutError:
        raise ValueError(
            f"The filter regex took longer than {timeout:g} s over the vocabulary and was stopped; "
            "it probably backtracks badly (nested quantifiers such as (a+)+): simplify it."
        ) from None
    return pd.Series(out, index=texts.index, dtype=bool)


def filter_vocab(
    df: pd.DataFrame,
    *,
    id_from: int | None = None,
    id_to: int | None = None,
    min_bytes: int | None = None,
    max_bytes: int | None = None,
    pattern: str = "",
    kind: str = "all",
) -> pd.DataFrame:
    """The rows inside an id range and a byte-length range whose text matches ``pattern``.

    >>> from tokenizer import train
    >>> df = vocab_frame(train("aaabdaaabac", 259, pattern=None))
    >>> filter_vocab(df, id_from=97, id_to=300, min_bytes=2)["token"].tolist()
    ['aa', 'aaa', 'aaab']
    """
    mask = pd.Series(True, index=df.index)
    if id_from is not None:
        mask &= df["id"] >= id_from
    if id_to is not None:
        mask &= df["id"] <= id_to
    if min_bytes is not None:
        mask &= df["bytes"] >= min_bytes
    if max_bytes is not None:
        mask &= df["bytes"] <= max_bytes
    if kind != "all":
        mask &= df["kind"] == kind
    out = df[mask]
    if pattern:
        out = out[regex_mask(out["text"], pattern)]
    return out


def longest(df: pd.DataFrame, n: int = 15) -> pd.DataFrame:
    """The ``n`` longest ordinary tokens (by bytes; ties: lower id first).

    >>> from tokenizer import train
    >>> longest(vocab_frame(train("aaabdaaabac", 259, pattern=None)), 2)["token"].tolist()
    ['aaab', 'aaa']
    """
    plain = df[df["kind"] != "special"]
    return plain.sort_values(["bytes", "id"], ascending=[False, True], kind="stable").head(n)


def length_counts(df: pd.DataFrame) -> pd.DataFrame:
    """``bytes, tokens``: how many ordinary tokens have each byte length.

    >>> from tokenizer import train
    >>> length_counts(vocab_frame(train("aaabdaaabac", 259, pattern=None))).values.tolist()
    [[1, 256], [2, 1], [3, 1], [4, 1]]
    """
    plain = df[df["kind"] != "special"]
    counts = plain["bytes"].value_counts().sort_index()
    return pd.DataFrame({"bytes": counts.index.astype(int), "tokens": counts.values})


def usage_counts(tok: Tokenizer, text: str) -> Counter:
    """How often each id is produced when ``text`` is encoded (special strings as text).

    >>> from tokenizer import train
    >>> usage_counts(train("aaabdaaabac", 259, pattern=None), "aaab aa")
    Counter({258: 1, 32: 1, 256: 1})
    """
    return Counter(tok.encode(text, disallowed_special=()))


def usage(df: pd.DataFrame, counts: Counter, *, rare_max: int = 2) -> dict[str, pd.DataFrame | int]:
    """Never and rarely produced merged tokens on a text.

    ``never``: merged tokens the text never produces, earliest-learned first (a token
    learned early but never used is only a stepping stone to longer ones, or comes
    from text unlike this one). ``rare``: produced 1..``rare_max`` times, rarest first.

    >>> from tokenizer import train
    >>> tok = train("aaabdaaabac", 259, pattern=None)
    >>> u = usage(vocab_frame(tok), usage_counts(tok, "aaabdaaabac"))
    >>> u["never"]["token"].tolist(), u["used"]
    (['aa', 'aaa'], 1)
    """
    merged = df[df["kind"] == "merged"]
    produced = merged["id"].map(lambda i: counts.get(i, 0))
    never = merged[produced == 0].sort_values("rank", kind="stable")
    rare_mask = (produced > 0) & (produced <= rare_max)
    rare = merged[rare_mask].assign(produced=produced[rare_mask]).sort_values(["produced", "rank"], kind="stable")
    return {
        "never": never,
        "rare": rare,
        "used": int((produced > 0).sum()),
        "merged": len(merged),
        "tokens": sum(counts.values()),
    }
