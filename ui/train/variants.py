"""What the Train page shows about the training variants, as plain data (no Streamlit).

The variants themselves are in ``tokenizer.bpe`` (``methods``): parity-aware merges over
parallel texts, tokens across words (SuperBPE's second stage), and continued training
from an existing tokenizer. This module has their menu, their defaults, the parallel
texts a user gives, and the tables and frames their results draw.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import pandas as pd

from tokenizer import Tokenizer
from tokenizer.bpe.methods import training_method, training_record
from tokenizer.bpe.parity import check_parallel
from tokenizer.display import visible
from tokenizer.trace import Span
from ui.compare import languages, token_tax
from ui.train.model import CHART_POINTS, MAX_CORPUS_BYTES, thin

#: The training methods in menu order: label, the one line that says what each does, and where it comes from.
METHODS: dict[str, tuple[str, str, str]] = {
    "bpe": (
        "Plain BPE",
        "Merge the most frequent pair of neighbouring tokens, again and again.",
        "Sennrich et al. 2016, arXiv:1508.07909",
    ),
    "parity": (
        "Parity-aware",
        "Parallel texts in several languages: each merge helps the language that is worst compressed at that step.",
        "Foroutan et al. 2025, arXiv:2508.04796",
    ),
    "superwords": (
        "Tokens across words",
        "Plain BPE up to a transition point, then the word boundaries are lifted, so tokens such as “ of the” appear.",
        "SuperBPE, Liu et al. 2025, arXiv:2503.13423",
    ),
    "continued": (
        "Continue a tokenizer",
        "Start from GPT-2's, cl100k's or one of your tokenizers and learn more merges on your text; every existing id stays.",
        "Purason et al. 2025, arXiv:2512.03989",
    ),
}
LINKS = {
    "bpe": "https://arxiv.org/abs/1508.07909",
    "parity": "https://arxiv.org/abs/2508.04796",
    "superwords": "https://arxiv.org/abs/2503.13423",
    "continued": "https://arxiv.org/abs/2512.03989",
}

#: Parity-aware training on the 22 built-in passages (4 kB): 256 merges already level the
#: languages out; plain BPE of that size leaves the costliest at twice English's tokens.
PARITY_VOCAB = 512
#: Official encodings a continued training may start from (registry names).
BASES = {"r50k_base": "GPT-2 (r50k_base, 50,257 ids)", "cl100k_base": "GPT-4 (cl100k_base, 100,277 ids)"}
NEW_MERGES = 1_000
MAX_NEW_MERGES = 50_000
#: Characters of the training text shown before and after (spans).
EXCERPT_CHARS = 600


def method_label(method: str) -> str:
    """The menu label of a method.

    >>> method_label("superwords")
    'Tokens across words'
    """
    return METHODS[method][0]


# ----------------------------------------------------------------------------- parity: the parallel texts


def builtin_parallel(chosen: Sequence[str]) -> dict[str, str]:
    """The token tax's passages (Compare) for the chosen languages, in the menu's order.

    >>> list(builtin_parallel(["Greek", "English"]))
    ['English', 'Greek']
    """
    return {lang: text for lang, text in languages.texts().items() if lang in set(chosen)}


def parse_parallel(text: str) -> dict[str, str]:
    """Parallel texts a user pasted or uploaded, in the token tax's formats (a JSON object ``{language: text}`` or
    list, or one ``Language: passage`` line per language), of any length; ValueError naming the fix.

    >>> parse_parallel('{"English": "Hi there.", "German": "Hallo."}')
    {'English': 'Hi there.', 'German': 'Hallo.'}
    >>> parse_parallel("English: Hi.\\nGerman: Hallo.")
    {'English': 'Hi.', 'German': 'Hallo.'}
    """
    # the token tax's reader (lines or JSON, read by tokenizer.formats.json_input), without its short-passage limits
    out = token_tax.parse_parallel(text, max_languages=None, max_passage_chars=None)
    check_parallel_texts(out)
    return out


def check_parallel_texts(texts: Mapping[str, str]) -> None:
    """ValueError unless there are two languages or more, within the corpus size limit.

    >>> check_parallel_texts({"English": "Hi."})
    Traceback (most recent call last):
    ...
    ValueError: Parity-aware training balances languages: give the same text in at least two languages.
    """
    if len(texts) < 2:
        raise ValueError("Parity-aware training balances languages: give the same text in at least two languages.")
    size = sum(len(t.encode("utf-8", "surrogatepass")) for t in texts.values())
    if size > MAX_CORPUS_BYTES:
        raise ValueError(
            f"The parallel texts are {size / 1024 / 1024:.1f} MB together; BPE Lab trains on at most "
            f"{MAX_CORPUS_BYTES // 1024 // 1024} MB: use a part of each."
        )
    check_parallel(dict(texts))


def parallel_frame(texts: Mapping[str, str]) -> pd.DataFrame:
    """One row per language: its script (when built in), characters and bytes.

    >>> parallel_frame({"English": "Hi.", "Greek": "Γεια."}).values.tolist()
    [['English', 'Latin', 3, 3], ['Greek', 'Greek', 5, 9]]
    """
    scripts = languages.scripts()
    return pd.DataFrame(
        {
            "language": list(texts),
            "script": [scripts.get(lang, "") for lang in texts],
            "characters": [len(t) for t in texts.values()],
            "bytes": [len(t.encode("utf-8")) for t in texts.values()],
        }
    )


# ----------------------------------------------------------------------------- parity: the token tax, plain vs parity-aware

PLAIN, PARITY = "plain BPE", "parity-aware"


def parity_frame(tok: Tokenizer) -> pd.DataFrame:
    """The token tax of the plain and the parity-aware tokenizer on the training texts, in ``token_tax.tax_frame``'s long form.

    From the training record (no text needed): each language's tokens under both, and the
    premium over the reference language (English when there, else the first).

    >>> from tokenizer.bpe.parity import train_parity
    >>> tok = train_parity({"English": "aaaa", "Other": "bcbcbc"}, 258, pattern=None, baseline=True)
    >>> parity_frame(tok)[["language", "tokenizer", "tokens", "premium"]].values.tolist()
    [['English', 'plain BPE', 2, 1.0], ['Other', 'plain BPE', 3, 1.5], ['English', 'parity-aware', 2, 1.0], ['Other', 'parity-aware', 3, 1.5]]
    """
    record = training_record(tok)
    langs = list(record.get("languages") or [])
    counts = {PARITY: record.get("language_tokens") or []}
    if record.get("plain_language_tokens"):
        counts = {PLAIN: record["plain_language_tokens"], **counts}
    reference = token_tax.default_reference(langs)
    scripts = languages.scripts()
    rows = []
    for label, tokens in counts.items():
        ref = tokens[langs.index(reference)] if reference in langs else 0
        for lang, n, size, chars in zip(langs, tokens, record.get("language_bytes") or [], record.get("text_chars") or []):
            rows.append(
                {
                    "language": lang,
                    "script": scripts.get(lang, ""),
                    "tokenizer": label,
                    "tokens": n,
                    "bytes": size,
                    "characters": chars,
                    "premium": round(n / ref, 3) if ref else float("nan"),
                }
            )
    return pd.DataFrame(rows, columns=["language", "script", "tokenizer", "tokens", "bytes", "characters", "premium"])


def parity_summary(tok: Tokenizer) -> dict[str, str]:
    """Headline numbers: the spread (most tokens over fewest) under each, and what parity costs in total tokens.

    >>> from tokenizer.bpe.parity import train_parity
    >>> tok = train_parity({"English": "aaaa", "Other": "bcbcbc"}, 258, pattern=None, baseline=True)
    >>> parity_summary(tok)
    {'Spread, plain BPE': '1.50×', 'Spread, parity-aware': '1.50×', 'Tokens, plain BPE': '5', 'Tokens, parity-aware': '5'}
    """
    record = training_record(tok)
    fair = record.get("language_tokens") or []
    plain = record.get("plain_language_tokens") or []
    out = {}
    if plain:
        out["Spread, plain BPE"] = f"{max(plain) / max(1, min(plain)):.2f}×"
    if fair:
        out["Spread, parity-aware"] = f"{max(fair) / max(1, min(fair)):.2f}×"
    if plain:
        out["Tokens, plain BPE"] = f"{sum(plain):,}"
    if fair:
        out["Tokens, parity-aware"] = f"{sum(fair):,}"
    return out


# ----------------------------------------------------------------------------- tokens across words


def transition_for(vocab_size: int, share: int) -> int:
    """The transition point (a vocab size) after ``share`` percent of the merges.

    >>> transition_for(1256, 80), transition_for(300, 100)
    (1056, 300)
    """
    return 256 + round((vocab_size - 256) * share / 100)


def superword_curves(tok: Tokenizer, plain: Tokenizer | None, trace, plain_trace) -> pd.DataFrame:
    """Bytes per token on the training text after each number of merges: the two-stage training, and plain BPE.

    Long form (``merges, vocab size, bytes per token, tokenizer``), thinned to ``CHART_POINTS`` per curve.
    """
    rows = []
    for label, t, tr in (("tokens across words", tok, trace), (PLAIN, plain, plain_trace)):
        if t is None or tr is None:
            continue
        for k in thin(t.num_merges + 1, CHART_POINTS):
            n = tr.length_at(k)
            rows.append(
                {
                    "merges": k,
                    "vocab size": 256 + k,
                    "bytes per token": round(tr.initial_tokens / n, 4) if n else None,
                    "tokenizer": label,
                }
            )
    return pd.DataFrame(rows, columns=["merges", "vocab size", "bytes per token", "tokenizer"])


def crosses_words(token: bytes) -> bool:
    """Whether a token holds more than one word: a space with text on both sides.

    >>> crosses_words(b" of the"), crosses_words(b" the"), crosses_words(b"  "), crosses_words(b"a, b")
    (True, False, False, True)
    """
    inner = token.strip(b" ")
    return b" " in inner


def across_spans(spans: Sequence[Span]) -> set[int]:
    """Indices of the spans whose token crosses words (outlined on the page)."""
    return {s.index for s in spans if not s.special and crosses_words(s.bytes)}


def superword_table(tok: Tokenizer, rows: int = 40) -> pd.DataFrame:
    """The tokens stage 2 learned that cross words, most frequent first (``token, count, id, step``)."""
    record = training_record(tok)
    start = int(record.get("stage1_merges") or 0)
    vocab = tok.vocab
    found = [m for m in tok.merge_list[start:] if crosses_words(vocab[m.new_id])]
    found.sort(key=lambda m: (-(m.count or 0), m.rank))
    found = found[:rows]
    return pd.DataFrame(
        {
            "token": [visible(vocab[m.new_id]) for m in found],
            "count": pd.array([m.count for m in found], dtype="Int64"),
            "id": [m.new_id for m in found],
            "step": [m.rank + 1 for m in found],
        }
    )


# ----------------------------------------------------------------------------- continued training


def new_tokens_table(tok: Tokenizer, rows: int = 40) -> pd.DataFrame:
    """The merges learned on top of the base, in the order learned (``step, token, count, id``)."""
    start = int(training_record(tok).get("base_merges") or 0)
    vocab = tok.vocab
    merges = tok.merge_list[start : start + rows]
    return pd.DataFrame(
        {
            "step": [m.rank + 1 for m in merges],
            "token": [visible(vocab[m.new_id]) for m in merges],
            "count": pd.array([m.count for m in merges], dtype="Int64"),
            "id": [m.new_id for m in merges],
        }
    )


def new_spans(spans: Sequence[Span], first_new_id: int) -> set[int]:
    """Indices of the spans whose token is new (minted by continued training)."""
    return {s.index for s in spans if not s.special and s.id >= first_new_id}


def busiest_excerpt(
    tok: Tokenizer, text: str, pick: Callable[[Sequence[Span]], set[int]], *, chars: int = EXCERPT_CHARS, search: int = 30_000
) -> str:
    """Whole lines of ``text``, about ``chars`` long, where ``pick`` finds the most of ``tok``'s tokens (within the
    first ``search`` characters; the earliest such stretch): the part of the text that shows what changed.

    >>> from tokenizer import Tokenizer
    >>> busiest_excerpt(Tokenizer(), "aaa\\nbbb\\nab\\n", lambda spans: {s.index for s in spans if s.bytes == b"b"}, chars=3)
    'bbb\\n'
    """
    blocks, block = [], ""
    for line in text[:search].splitlines(keepends=True):
        block += line
        if len(block) >= chars:
            blocks.append(block)
            block = ""
    if block:
        blocks.append(block)
    if not blocks:
        return text[:chars]
    best = max(blocks, key=lambda b: len(pick(tok.encode_spans(b, disallowed_special=()))))
    return best[: 2 * chars]


def method_of(tok: Tokenizer) -> str:
    """How ``tok`` was trained (``"bpe"`` unless a variant)."""
    return training_method(tok)
