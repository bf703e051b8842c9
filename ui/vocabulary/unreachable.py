"""Unreachable and odd tokens of any tokenizer (the "SolidGoldMagikarp" question made precise).

A token is **unreachable from its own text** when encoding its own bytes does not give
it back: ``encode(decode_bytes([t])) != [t]``. Two things can cause that:

* the split pattern cuts its text into several chunks before BPE runs (o200k's ``" I'"``
  becomes ``" I" | "'"``), so BPE never sees its bytes together;
* BPE itself builds other tokens from its bytes: an earlier merge takes a byte the
  token's own merge needed (``a + bc`` after ``a + b`` was learned);
* the model normalizes text before it splits (Qwen's NFC), and the token's text is not in
  that form: Qwen 2.5's ``"ί"`` (U+1F77) is read as ``"ί"`` (U+03AF), so no text gives it.

A token that is **not valid UTF-8 on its own** (``<E4 BD>``, part of a character) has no
text to encode; it only ever comes out inside a longer byte sequence. Its BPE check
still runs on its bytes.

Plain data, no Streamlit: the page computes ``find_odd_tokens`` once per tokenizer
(``ui.common.cache``) with a progress bar; about 2 s for o200k's 200,000 tokens on the
project's machine.
"""

from __future__ import annotations

import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from tokenizer import Tokenizer
from tokenizer.display import visible

#: Tokens checked between two progress reports.
BATCH = 5_000
COLUMNS = ["id", "token", "bytes", "rank", "why", "encodes as"]
SPLIT = "split by the pattern"
BPE = "BPE builds other tokens"
NORMALIZED = "normalized first"


@dataclass(frozen=True)
class OddTokens:
    """What ``find_odd_tokens`` found: two tables (``COLUMNS``), how many tokens it checked, how long it took."""

    unreachable: pd.DataFrame
    partial: pd.DataFrame
    checked: int
    seconds: float


def _pieces(tok: Tokenizer, ids: list[int]) -> str:
    vocab = tok.vocab
    return " | ".join(visible(vocab[i]) for i in ids[:16]) + (" | …" if len(ids) > 16 else "")


def find_odd_tokens(tok: Tokenizer, progress: Callable[[int, int], None] | None = None) -> OddTokens:
    """Check every ordinary token (special tokens are reached another way).

    >>> from tokenizer import Tokenizer
    >>> tok = Tokenizer({(97, 98): 256, (98, 99): 257, (97, 257): 258})  # ab, bc, a+bc
    >>> odd = find_odd_tokens(tok)
    >>> odd.unreachable[["id", "token", "why", "encodes as"]].values.tolist()
    [[258, 'abc', 'BPE builds other tokens', 'ab | c']]
    >>> odd.partial["id"].tolist()[:3], odd.checked
    ([128, 129, 130], 259)
    """
    t0 = time.perf_counter()
    vocab = tok.vocab
    rank_of = tok.rank_of
    specials = tok.special_ids
    form = tok.normalizer if isinstance(tok.normalizer, str) else None
    ids = [i for i in sorted(vocab) if i not in specials]
    unreachable: list[dict] = []
    partial: list[dict] = []
    total = len(ids)
    for n, tid in enumerate(ids):
        if progress is not None and n % BATCH == 0:
            progress(n, total)
        data = vocab[tid]
        row = None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if text is not None and form is not None and not unicodedata.is_normalized(form, text):
            row = {
                "why": f"{NORMALIZED} ({form}): {visible(unicodedata.normalize(form, text).encode('utf-8'))}",
                "encodes as": _pieces(tok, tok.encode_ordinary(text)),
            }
        elif text is None:  # no text to encode: BPE alone on its bytes
            got = tok.encode_bytes(data)
            if got != [tid]:
                row = {"why": BPE, "encodes as": _pieces(tok, got)}
        else:
            chunks = tok.split(text)
            if len(chunks) > 1:
                row = {
                    "why": SPLIT + ": " + " | ".join(visible(c.encode("utf-8")) for c in chunks),
                    "encodes as": _pieces(tok, tok.encode_ordinary(text)),
                }
            else:
                # one chunk: encode_ordinary is BPE on its bytes (fast: the encoder knows which tokens encode to themselves)
                got = tok.encode_ordinary(text)
                if got != [tid]:
                    row = {"why": BPE, "encodes as": _pieces(tok, got)}
        if row is None and text is not None:
            continue
        base = {"id": tid, "token": visible(data), "bytes": len(data), "rank": rank_of.get(tid)}
        if row is not None:
            unreachable.append({**base, **row})
        if text is None:
            partial.append({**base, "why": "not valid UTF-8 on its own", "encodes as": ""})
    if progress is not None:
        progress(total, total)

    def frame(rows: list[dict]) -> pd.DataFrame:
        df = pd.DataFrame(rows, columns=COLUMNS)
        df["rank"] = pd.array(df["rank"], dtype="Int64")
        return df

    return OddTokens(frame(unreachable), frame(partial), total, time.perf_counter() - t0)
