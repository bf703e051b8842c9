"""What the Train page computes, as plain data: settings checks, the merges table and
the compression curve (also used by Step through). No Streamlit here; the page
draws what these return.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from tokenizer import Tokenizer, TrainingTrace, registry, validate_pattern
from tokenizer.display import visible
from ui.common.upload import MAX_UPLOAD_BYTES, MAX_UPLOAD_MB

#: The largest vocabulary the Train page trains: GPT-2's size. Training time grows
#: with it (10 MB of text to 8,192 tokens takes about 3 s); small corpora stop early
#: anyway when no pair is left to merge.
MAX_VOCAB = 50_257
MIN_VOCAB = 256
#: A training corpus from any source (paste, sample, upload) is at most this big.
MAX_CORPUS_BYTES = MAX_UPLOAD_BYTES

#: Split-pattern choices in menu order: value for ``train(pattern=...)`` and label.
PATTERN_CHOICES: dict[str, str] = {
    **registry.pattern_choices(),
    "none": "None: the whole text is one chunk",
    "custom": "Custom regex…",
}
VALIDATION_SAMPLE = "Hello world, it's 2024! I'M here: 你好 😄\n\tdef f(x): return x**2"
# Long runs of one kind of character: where a backtracking pattern shows it (``(a|aa)+$``).
STRESS_SAMPLE = "a" * 40 + "!" + " " * 40 + "x" + "1" * 40 + "\n" * 20 + "é" * 40 + "?"

#: Rows of the merges table sent to the browser at once (the rest: pick a start rank).
MERGE_ROWS = 2_000
#: Points per curve in the charts (longer curves are thinned evenly, ends kept).
CHART_POINTS = 1_500


def check_corpus(text: str) -> None:
    """ValueError for a corpus training cannot use (empty, or above the size limit)."""
    if not text or not text.strip():
        raise ValueError("The corpus is empty: pick a sample, paste some text or upload a file, then train.")
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_CORPUS_BYTES:
        raise ValueError(
            f"The corpus is {size / 1024 / 1024:.1f} MB; BPE Lab trains on at most {MAX_UPLOAD_MB} MB: use a smaller part of it."
        )


def check_vocab_size(value) -> int:
    """The vocab size as an int, or ValueError naming the allowed range.

    >>> check_vocab_size(100)
    Traceback (most recent call last):
    ...
    ValueError: Vocab size 100 is too small: it must be at least 256 (one token per byte value), at most 50,257.
    """
    if value is None:
        raise ValueError(f"Type a vocab size between {MIN_VOCAB} and {MAX_VOCAB:,}.")
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError(f"Vocab size must be a whole number between {MIN_VOCAB} and {MAX_VOCAB:,}, got {value}.")
        value = int(value)
    if value < MIN_VOCAB:
        raise ValueError(
            f"Vocab size {value} is too small: it must be at least {MIN_VOCAB} (one token per byte value), at most {MAX_VOCAB:,}."
        )
    if value > MAX_VOCAB:
        raise ValueError(f"Vocab size {value:,} is too large: BPE Lab trains at most {MAX_VOCAB:,} tokens (GPT-2's size).")
    return value


def parse_special_tokens(text: str) -> list[str]:
    """Comma- or newline-separated special tokens, without blanks or repeats.

    >>> parse_special_tokens("<|endoftext|>, <|pad|>,,<|endoftext|>")
    ['<|endoftext|>', '<|pad|>']
    """
    parts = [p.strip() for p in text.replace("\n", ",").split(",")]
    return list(dict.fromkeys(p for p in parts if p))


def pattern_for(choice: str, custom: str = "") -> str | None:
    """The ``pattern`` argument for ``train``; ValueError for an empty custom regex."""
    if choice == "none":
        return None
    if choice == "custom":
        if not custom.strip():
            raise ValueError("Type a custom split regex, or pick one of the built-in patterns.")
        return custom
    return choice


def validate_custom(pattern: str, corpus_head: str = "") -> tuple[list[str] | None, str | None]:
    """Try a custom pattern on a sample and the corpus's start: ``(chunks, None)`` or ``(None, error)``.

    The core runs user patterns with a timeout, so a catastrophic one fails in about
    two seconds (cache the result per pattern).
    """
    if not pattern.strip():
        return None, "Type a regex: each match becomes one chunk, and merges never cross chunks."
    try:
        chunks = validate_pattern(pattern, VALIDATION_SAMPLE)
        for text in (STRESS_SAMPLE, corpus_head):
            if text:
                validate_pattern(pattern, text)
    except ValueError as e:
        return None, str(e)
    return chunks, None


@dataclass(frozen=True)
class Suggestion:
    """A sample's suggested settings where they differ from the chosen ones: for a sentence and for a button."""

    vocab_size: int
    pattern: str  # a key of PATTERN_CHOICES
    text: str  # "1,000 tokens and the GPT-4 (cl100k_base) split pattern"
    label: str  # "1,000 · GPT-4 (cl100k_base)"


def suggestion(corpus, vocab_size, pattern: str) -> Suggestion | None:
    """What a built-in corpus suggests (``corpus.vocab_size``, ``corpus.pattern``) where the settings differ, or None.

    >>> from ui.content.corpora import CORPORA
    >>> suggestion(CORPORA["honolulu"], 2000, "gpt4").text
    '257 tokens and no split pattern'
    >>> suggestion(CORPORA["stdlib-source"], 2000, "gpt4").label
    '1,000'
    >>> suggestion(CORPORA["honolulu"], 257, "none") is None
    True
    """
    want_vocab, want_pattern = corpus.vocab_size, corpus.pattern or "none"
    texts, labels = [], []
    if vocab_size != want_vocab:
        texts.append(f"{want_vocab:,} tokens")
        labels.append(f"{want_vocab:,}")
    if pattern != want_pattern:
        name = PATTERN_CHOICES[want_pattern]
        texts.append("no split pattern" if want_pattern == "none" else f"the {name} split pattern")
        labels.append("no split" if want_pattern == "none" else name)
    if not texts:
        return None
    return Suggestion(want_vocab, want_pattern, " and ".join(texts), " · ".join(labels))


def default_name(corpus_title: str, vocab_size: int, pattern_choice: str) -> str:
    """The name a tokenizer gets when none is typed.

    >>> default_name("Honolulu", 257, "none")
    'Honolulu · 257 · none'
    """
    return f"{corpus_title[:40].strip()} · {vocab_size} · {pattern_choice}"


def merges_frame(tok: Tokenizer, start: int = 0, rows: int | None = MERGE_ROWS) -> pd.DataFrame:
    """The merges table: step (1-based), left, right, new token, count, ids.

    >>> from tokenizer import train
    >>> merges_frame(train("aaabdaaabac", 259, pattern=None))[["step", "left", "right", "new token", "count"]].values.tolist()
    [[1, 'a', 'a', 'aa', 4], [2, 'aa', 'a', 'aaa', 2], [3, 'aaa', 'b', 'aaab', 2]]
    """
    vocab = tok.vocab
    merges = tok.merge_list[start : None if rows is None else start + rows]
    return pd.DataFrame(
        {
            "step": [m.rank + 1 for m in merges],
            "left": [visible(vocab[m.pair[0]]) for m in merges],
            "right": [visible(vocab[m.pair[1]]) for m in merges],
            "new token": [visible(vocab[m.new_id]) for m in merges],
            "count": pd.array([m.count for m in merges], dtype="Int64"),
            "id": [m.new_id for m in merges],
            "left id": [m.pair[0] for m in merges],
            "right id": [m.pair[1] for m in merges],
            "bytes": [len(vocab[m.new_id]) for m in merges],
        }
    )


NO_COUNTS = (
    "No pair counts: the file this tokenizer was uploaded from keeps only the order of the merges "
    "(tiktoken and tokenizer.json files do), not how often each pair occurred."
)


def has_counts(tok: Tokenizer) -> bool:
    """Whether the merges carry the pair counts training saw (trained here, or a BPE Lab JSON file): all or none.

    >>> from tokenizer import train
    >>> tok = train("aaabdaaabac", 259, pattern=None)
    >>> has_counts(tok), has_counts(Tokenizer.from_ranks({v: k for k, v in tok.vocab.items()}, pattern=None))
    (True, False)
    """
    return bool(tok.merge_list) and tok.merge_list[0].count is not None


def missing_note(tok: Tokenizer, *, has_counts: bool) -> str:
    """What a tokenizer without a stored training text (uploaded) has no chart of, and where it still works."""
    missing = "compression curve" if has_counts else "merge-count chart or compression curve"
    return (
        f"No training text is stored with {tok.name or 'this tokenizer'} (it was uploaded), so there is no {missing} here. "
        "Tokenize, Compare, Vocabulary and Step through (encoding mode) work with it."
    )


def first_shown(entries, preferred: str | None = None):
    """The workspace key whose results Train opens on: ``preferred`` (the tokenizer chosen last on any page) if it is
    one of ``entries``, else the newest with a training text, else the newest.

    Not simply the newest: a new session would then open on an uploaded tokenizer's "no training text" note.

    >>> from ui.common.workspace import Entry
    >>> es = [Entry("t", "t", "1", 300, "gpt4", "trained", True), Entry("u", "u", "2", 300, "gpt4", "uploaded", False)]
    >>> first_shown(es), first_shown(es, "u"), first_shown(es[1:])
    ('t', 'u', 'u')
    """
    entries = list(entries)
    if not entries:
        return None
    keys = [e.key for e in entries]
    if preferred in keys:
        return preferred
    with_text = [e.key for e in entries if e.has_corpus]
    return (with_text or keys)[-1]


def thin(n: int, points: int = CHART_POINTS) -> list[int]:
    """Evenly spread indices ``0..n-1`` (all of them when ``n <= points``), last one kept.

    >>> thin(10, 4)
    [0, 3, 6, 9]
    """
    if n <= points:
        return list(range(n))
    step = (n - 1) / (points - 1)
    return sorted({round(i * step) for i in range(points)})


def counts_frame(tok: Tokenizer) -> pd.DataFrame:
    """``step, count, token`` for the count-against-step chart (thinned for long runs)."""
    merges = tok.merge_list
    vocab = tok.vocab
    idx = thin(len(merges))
    return pd.DataFrame(
        {
            "step": [merges[i].rank + 1 for i in idx],
            "count": [merges[i].count for i in idx],
            "token": [visible(vocab[merges[i].new_id]) for i in idx],
        }
    )


def compression_frame(trace: TrainingTrace, num_merges: int, *, points: int = CHART_POINTS) -> pd.DataFrame:
    """``merges, vocab size, tokens, bytes per token`` after each number of merges (0..n).

    >>> from tokenizer import train
    >>> tok = train("aaabdaaabac", 259, pattern=None)
    >>> compression_frame(tok.training, 3)["tokens"].tolist()
    [11, 9, 7, 5]
    """
    ks = thin(num_merges + 1, points)
    total = trace.initial_tokens
    lengths = [trace.length_at(k) for k in ks]
    return pd.DataFrame(
        {
            "merges": ks,
            "vocab size": [256 + k for k in ks],
            "tokens": lengths,
            "bytes per token": [round(total / n, 4) if n else None for n in lengths],
        }
    )


def summary(tok: Tokenizer) -> dict[str, str]:
    """Headline numbers of a trained or uploaded tokenizer, formatted for ``st.metric``.

    >>> from tokenizer import train
    >>> list(summary(train("aaabdaaabac", 259, pattern=None)).items())[:3]
    [('Vocab size', '259'), ('Merges', '3'), ('Training text', '11 B')]
    """
    md = tok.metadata
    out = {"Vocab size": f"{256 + tok.num_merges + len(tok.special_tokens):,}", "Merges": f"{tok.num_merges:,}"}
    if md.get("corpus_bytes"):
        out["Training text"] = _size(int(md["corpus_bytes"]))
        before, after = int(md.get("tokens_before") or 0), int(md.get("tokens_after") or 0)
        if before and after:
            out["Bytes per token"] = f"{before / after:.2f}"
    if md.get("seconds") is not None and md.get("source", "trained") == "trained":
        out["Training time"] = f"{float(md['seconds']):.2f} s"
    return out


def same_tokenizer(a: Tokenizer, b: Tokenizer) -> bool:
    """Whether two tokenizers encode every text alike: the same tokens, merges in the same order, split pattern and
    special tokens (their names and where they came from may differ).

    >>> from tokenizer import train
    >>> same_tokenizer(train("aaabdaaabac", 259, pattern=None, name="x"), train("aaabdaaabac", 259, pattern=None, name="y"))
    True
    >>> same_tokenizer(train("aaabdaaabac", 259, pattern=None), train("aaabdaaabac", 258, pattern=None))
    False
    """
    return (
        a.num_merges == b.num_merges
        and a.pattern == b.pattern
        and dict(a.special_tokens) == dict(b.special_tokens)
        and [(m.pair, m.new_id) for m in a.merge_list] == [(m.pair, m.new_id) for m in b.merge_list]
        and a.vocab == b.vocab
    )


def vocab_note(tok: Tokenizer) -> str | None:
    """Why the vocab size is more than the "N tokens" the menus show (those count the bytes and the merges, what BPE
    builds): the special tokens. None when they are the same number.

    >>> from tokenizer import train
    >>> vocab_note(train("aaabdaaabac", 259, pattern=None)) is None
    True
    >>> vocab_note(train("aaabdaaabac", 259, pattern=None, special_tokens=["<|end|>"]))
    'Vocab size 260 counts every token: the 256 bytes, 3 merges and 1 special token. The menus show “259 tokens”: the bytes and the merges, the tokens BPE builds; a special token is added whole.'
    """
    specials = len(tok.special_tokens)
    if not specials:
        return None
    built = 256 + tok.num_merges
    return (
        f"Vocab size {built + specials:,} counts every token: the 256 bytes, {tok.num_merges:,} merge"
        f"{'s' if tok.num_merges != 1 else ''} and {specials:,} special token{'s' if specials != 1 else ''}. "
        f"The menus show “{built:,} tokens”: the bytes and the merges, the tokens BPE builds; a special token is added whole."
    )


def _size(n: int) -> str:
    """A byte count for people.

    >>> _size(1536), _size(12)
    ('1.5 kB', '12 B')
    """
    if n >= 1024 * 1024:
        return f"{n / 1024 / 1024:.1f} MB"
    if n >= 1024:
        return f"{n / 1024:.1f} kB"
    return f"{n} B"


def size_label(text: str) -> str:
    """Characters and bytes of a corpus, for people.

    >>> size_label("你好")
    '2 characters · 6 B'
    """
    return f"{len(text):,} characters · {_size(len(text.encode('utf-8', 'surrogatepass')))}"
