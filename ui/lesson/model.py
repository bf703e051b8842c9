"""The lesson: nine chapters that tell the BPE story in the seeds' order, and the questions the app checks.

Plain data, no Streamlit. A chapter is its texts (a few sentences, one "what to notice" line), the
seeds' examples as defaults, the kind of figure it shows and the full page that opens the same state.
A question is drawn by ``questions(chapter, seed, env)``, a pure function of the chapter and a
per-student seed: the example it asks about comes from the seed, and its answer is computed from the
``tokenizer`` core (never a stored key), so neighbours get different numbers. ``Question.check`` says
right or wrong and why.

>>> [c.title for c in CHAPTERS][:3]
['Text is bytes', 'Count the pairs', 'Repeat: merge after merge']
>>> q = questions(1, 7)[0]
>>> q.check(str(len(q.subject.encode("utf-8")))).correct, q.check("0").correct
(True, False)
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import pandas as pd

from tokenizer import GPT2_PATTERN, Tokenizer, load_encoding, train
from tokenizer.bpe import textbook
from tokenizer.display import visible
from ui.render.markdown import code

#: The seeds' texts, as the notebooks write them.
PARAGRAPH = "Hi there! What are you doing? Do you know what the weather is like today? If you do, where would you go?"
TEST_TEXT = "Hi there! You look amazing today. You should go out!"
PYTHON = 'def greet(name):\n    if name:\n        print("Hello, " + name)\n    return 12345 + 678\n'
SPECIAL = "<|endoftext|>"
#: Stepper chapters keep their texts short: every step of them goes to the browser.
MAX_STEP_TEXT = 400
#: The most merges a "repeat until no pair is left twice" training makes.
MAX_MERGES = 200


@dataclass(frozen=True)
class Chapter:
    """One chapter: ``n`` (1-9), its title, a few sentences, the line under the figure, the seeds' examples.

    ``stepper`` is the stepper's mode for the chapters that step (``"training"``, ``"encoding"``), else None.
    """

    n: int
    title: str
    text: str
    notice: str
    examples: tuple[str, ...]
    stepper: str | None = None
    multiline: bool = False


CHAPTERS: tuple[Chapter, ...] = (
    Chapter(
        1,
        "Text is bytes",
        "A string is a sequence of Unicode **code points**; a tokenizer sees their **UTF-8 bytes**. ASCII takes one "
        "byte a character, most other scripts two or three, an emoji four. So every text is a list of numbers from "
        "0 to 255, and nothing is ever unknown.",
        "Count the rows: the same text is more bytes than characters as soon as it leaves ASCII (20 characters, 29 bytes).",
        ("Hello 你好", "Hello tokenizer 😄🤪🧐!"),
    ),
    Chapter(
        2,
        "Count the pairs",
        "Look at every two neighbouring bytes and count how often each **pair** occurs. The most frequent pair is "
        "**merged** into one new token, with the first unused id: **256**. Step once to see it happen.",
        "The orange pair is the most frequent one; after one step each place it stood is one token, id 256.",
        ("abcab", "aaabdaaabac"),
        stepper="training",
    ),
    Chapter(
        3,
        "Repeat: merge after merge",
        "Count again and merge again: 256, 257, 258… each merge can use tokens made before it, so tokens grow. "
        "Here training goes on while some pair still occurs twice. When two pairs are equally frequent, "
        "**the one met first in the text wins**.",
        "Watch the vocabulary grow by one token a step while the text shrinks by as many tokens as the pair occurred.",
        ("the cat in the hat", "Honolulu"),
        stepper="training",
    ),
    Chapter(
        4,
        "Train on a paragraph",
        "Training is that loop run for a chosen number of merges: **vocabulary size = 256 + merges**. More merges "
        "make the text shorter, with diminishing returns, at the price of a bigger vocabulary (the model's "
        "embedding table).",
        "The first merges save the most; the curve flattens as the pairs left become rare.",
        (PARAGRAPH,),
        multiline=True,
    ),
    Chapter(
        5,
        "Encode and decode",
        "To **encode** new text, start from its bytes and apply the learned merges, **lowest rank first**, until none "
        'applies. To **decode**, join the tokens\' bytes and read them as UTF-8, with `errors="replace"`: a token can be '
        "half a character (id 128 alone is no character at all).",
        "Encoding uses only the merges learned on the paragraph: a word it never saw stays in small pieces.",
        (TEST_TEXT,),
        stepper="encoding",
    ),
    Chapter(
        6,
        "The split pattern",
        "Before BPE, GPT-2 cuts the text into **chunks** with a regular expression (words with their leading space, "
        "numbers, punctuation, spaces), and merges never cross a chunk. Its contractions are lower case only: "
        "`I'm` keeps `'m`, `I'M` splits into `'` and `M`.",
        "The dashes are chunk boundaries: no token ever spans one. Compare the two patterns on `I'M`.",
        ("I'm. I'M", "Hello world!!! 123 don't DON'T"),
    ),
    Chapter(
        7,
        "GPT-2 against GPT-4 and GPT-4o",
        "Bigger vocabularies and better patterns: GPT-2 has 50,257 tokens, GPT-4's cl100k 100,277, GPT-4o's o200k "
        "about 200,000. GPT-4 groups runs of spaces (Python's indentation) and cuts numbers into pieces of at most "
        "three digits. Below the rows: GPT-2's ids 240-270, where the bytes end and the merges begin.",
        "Count each row's tokens: the same code costs GPT-2 far more, mostly in the indentation.",
        (PYTHON, "3.14159 + 2718281 = 1234567890"),
        multiline=True,
    ),
    Chapter(
        8,
        "Special tokens",
        f"`{SPECIAL}` marks where one document ends and the next begins. Typed as text it is just characters, cut into "
        "several ordinary tokens; allowed as a special token it is **one** token with an id of its own (50256 in "
        "GPT-2), which no ordinary text can produce.",
        "Same characters, two tokenizations: the special token is one span, the text is many.",
        (f"Hello world{SPECIAL}The next document", f"{SPECIAL}"),
    ),
    Chapter(
        9,
        "What tokenization costs",
        "The vocabulary was learned mostly on English: other languages pay a **token tax**. Some tokens almost never "
        "occur in real text (` SolidGoldMagikarp`), some can never be produced at all; digits come in odd groups, "
        "which makes arithmetic hard; a trailing space changes the tokens.",
        "Count the rows' tokens, then open the token tax: the same meaning costs some languages several times more.",
        (" SolidGoldMagikarp", "12345 + 67890 = 80235", "Hello world ", "Hello world"),
    ),
)
N = len(CHAPTERS)


def chapter(n: int) -> Chapter:
    """Chapter ``n`` (1-based), ValueError outside 1..9.

    >>> chapter(3).examples
    ('the cat in the hat', 'Honolulu')
    """
    if not 1 <= n <= N:
        raise ValueError(f"there is no chapter {n}: the lesson has chapters 1 to {N}")
    return CHAPTERS[n - 1]


def clamp(n: object, default: int = 1) -> int:
    """A chapter number from a URL parameter: a digit string in range, else ``default``.

    >>> clamp("3"), clamp("12"), clamp("x"), clamp("0")
    (3, 9, 1, 1)
    """
    s = str(n).strip()
    if not s.isdigit():
        return default
    return max(1, min(N, int(s)))


# ----------------------------------------------------------------------------- what the figures show


def bytes_table(text: str) -> pd.DataFrame:
    """Each character of ``text``: its code point and its UTF-8 bytes.

    >>> bytes_table("a你").values.tolist()
    [['a', 'U+0061', 97, '97', 1], ['你', 'U+4F60', 20320, '228 189 160', 3]]
    """
    rows = [
        {
            "character": visible(ch.encode("utf-8")),
            "code point": f"U+{ord(ch):04X}",
            "ord": ord(ch),
            "UTF-8 bytes": " ".join(str(b) for b in ch.encode("utf-8")),
            "bytes": len(ch.encode("utf-8")),
        }
        for ch in text
    ]
    return pd.DataFrame(rows, columns=["character", "code point", "ord", "UTF-8 bytes", "bytes"])


def pair_frame(text: str, top: int = 10) -> pd.DataFrame:
    """The byte pairs of ``text`` with their counts, most frequent first (ties: first met first), as Step through's
    top-pairs chart wants them (``pair``, ``count``, ``next``).

    >>> pair_frame("abcab").values.tolist()
    [['a + b', 2, True], ['b + c', 1, False], ['c + a', 1, False]]
    """
    stats = textbook.get_stats(list(text.encode("utf-8")))
    ordered = sorted(stats, key=lambda p: -stats[p])[:top]  # sorted is stable: equal counts keep the first-met order
    base = Tokenizer()
    return pd.DataFrame(
        [
            {"pair": f"{visible(base.vocab[a])} + {visible(base.vocab[b])}", "count": stats[(a, b)], "next": i == 0}
            for i, (a, b) in enumerate(ordered)
        ],
        columns=["pair", "count", "next"],
    )


def repeated_merges(text: str, limit: int = MAX_MERGES) -> int:
    """How many merges training makes on ``text`` (no split pattern) while the pair it takes occurs at least twice.

    >>> repeated_merges("the cat in the hat"), repeated_merges("Honolulu"), repeated_merges("abc")
    (4, 1, 0)
    """
    data = text.encode("utf-8")
    if len(data) < 2:
        return 0
    tok = train(text, 256 + min(limit, len(data)), pattern=None)
    return next((m.rank for m in tok.merge_list if (m.count or 0) < 2), tok.num_merges)


@functools.cache
def paragraph_merges() -> int:
    """``repeated_merges`` of the built-in paragraph (chapters 4 and 5): a constant, computed once per process."""
    return repeated_merges(PARAGRAPH)


def stepping_tokenizer(text: str, merges: int | None = None) -> Tokenizer:
    """The tokenizer the stepper replays on ``text``: trained on it with no split pattern, ``merges`` merges
    (by default until no pair occurs twice, at least one).

    >>> stepping_tokenizer("aaabdaaabac").encode("aaabdaaabac")
    [258, 100, 258, 97, 99]
    """
    k = max(1, repeated_merges(text)) if merges is None else merges
    return train(text, 256 + k, pattern=None, name=f"lesson · {text[:24]}")


def ties(text: str, merges: int) -> list[str]:
    """The tie-breaks of the first ``merges`` merges of ``text`` (no split pattern), said in words.

    >>> ties("the cat in the hat", 4)[0]
    "merge 1 (id 256): 't' + 'h', 'h' + 'e', 'e' + '·' and 'a' + 't' all occur 2 times; 't' + 'h' comes first in the text, so it wins."
    """
    base = Tokenizer()
    vocab = dict(base.vocab)
    ids = list(text.encode("utf-8"))
    out = []
    for k in range(merges):
        stats = textbook.get_stats(ids)
        if not stats:
            break
        best = max(stats.values())
        tied = [p for p, c in stats.items() if c == best]
        pair = tied[0]
        new = 256 + k

        def label(p):
            return f"{visible(vocab[p[0]])!r} + {visible(vocab[p[1]])!r}"

        if len(tied) > 1:
            names = [label(p) for p in tied[:4]] + (["…"] if len(tied) > 4 else [])
            listed = ", ".join(names[:-1]) + " and " + names[-1]
            out.append(
                f"merge {k + 1} (id {new}): {listed} all occur {best} times; {label(pair)} comes first in the text, so it wins."
            )
        ids = textbook.merge(ids, pair, new)
        vocab[new] = vocab[pair[0]] + vocab[pair[1]]
    return out


def merges_frame(tok: Tokenizer) -> pd.DataFrame:
    """The merges table: rank, the two halves, the new id and token, and the pair's count when it was merged.

    >>> merges_frame(train("aaabdaaabac", 258, pattern=None)).values.tolist()
    [[1, 'a', 'a', 256, 'aa', 4], [2, 'aa', 'a', 257, 'aaa', 2]]
    """
    v = tok.vocab
    rows = [
        {
            "merge": m.rank + 1,
            "left": visible(v[m.pair[0]]),
            "right": visible(v[m.pair[1]]),
            "new id": m.new_id,
            "token": visible(v[m.new_id]),
            "count": m.count,
        }
        for m in tok.merge_list
    ]
    return pd.DataFrame(rows, columns=["merge", "left", "right", "new id", "token", "count"])


def compression_frame(tok: Tokenizer, text: str) -> pd.DataFrame:
    """Bytes per token on ``text`` after each number of merges (what Train's compression chart draws).

    >>> compression_frame(train("aaabdaaabac", 258, pattern=None), "aaabdaaabac")["tokens"].tolist()
    [11, 9, 7]
    """
    n_bytes, lengths = tok.merge_curve(text)
    return pd.DataFrame(
        {
            "merges": range(len(lengths)),
            "vocab size": [256 + k for k in range(len(lengths))],
            "tokens": lengths,
            "bytes per token": [n_bytes / max(1, t) for t in lengths],
        }
    )


def gpt2_ids(tok: Tokenizer, start: int = 240, stop: int = 270) -> pd.DataFrame:
    """An encoding's ids ``start``..``stop - 1`` and their bytes, as the seed lists GPT-2's.

    >>> gpt2_ids(Tokenizer(), 97, 99).values.tolist()
    [[97, 'a', '61'], [98, 'b', '62']]
    """
    v = tok.vocab
    return pd.DataFrame(
        [{"id": i, "token": visible(v[i]), "bytes": v[i].hex(" ").upper()} for i in range(start, stop) if i in v],
        columns=["id", "token", "bytes"],
    )


# ----------------------------------------------------------------------------- the questions


@dataclass(frozen=True)
class Feedback:
    correct: bool
    message: str


@dataclass(frozen=True)
class Question:
    """A question about ``subject`` (the text or pair it asks about).

    ``kind`` says how it is answered: ``"number"`` (a whole number), ``"choice"`` (one of ``choices``),
    ``"text"`` (a text the app checks), ``"numbers"`` (one number per label in ``choices``, answered as
    ``"a, b"``). ``id`` is the same for every student (the class's answers to it are counted together);
    ``expected`` is the answer computed from the core (for a text question, the target it is checked against).
    """

    id: str
    prompt: str
    kind: str
    subject: str
    expected: object
    checker: Callable[[str], Feedback] = field(repr=False, compare=False)
    choices: tuple[str, ...] = ()
    why: str = ""
    detail: tuple[tuple[str, object], ...] = ()  # what the figure that shows why needs (the merges, the encoding)

    def check(self, answer: str) -> Feedback:
        """Right or wrong, and what the core computed (a ValueError's message for an answer that is not one)."""
        answer = str(answer)
        return self.checker(answer if self.kind == "text" else answer.strip())  # a text's spaces are tokens too


class Env:
    """Where questions get the official encodings and their unreachable tokens (the page passes its shared ones)."""

    def __init__(
        self, encoding: Callable[[str], Tokenizer] | None = None, unreachable: Callable[[str], Sequence[int]] | None = None
    ):
        self.encoding = encoding or _encoding
        self.unreachable = unreachable or (lambda name: _unreachable(name))


@functools.lru_cache(maxsize=4)
def _encoding(name: str) -> Tokenizer:
    return load_encoding(name)


@functools.lru_cache(maxsize=4)
def _unreachable(name: str) -> tuple[int, ...]:
    from ui.vocabulary.unreachable import find_odd_tokens  # the Vocabulary page's analysis

    return tuple(int(i) for i in find_odd_tokens(_encoding(name)).unreachable["id"])


def parse_int(answer: str) -> int | None:
    """A whole number a student typed (``"1,234"`` and spaces allowed), or None.

    >>> parse_int(" 1,234 "), parse_int("12a"), parse_int("-3")
    (1234, None, None)
    """
    s = answer.replace(",", "").replace("_", "").strip()
    return int(s) if s.isdigit() else None


def _number_check(expected: int, why: str) -> Callable[[str], Feedback]:
    def check(answer: str) -> Feedback:
        got = parse_int(answer)
        if got is None:
            return Feedback(False, "Type a whole number.")
        if got == expected:
            return Feedback(True, f"Right: {expected:,}. {why}")
        return Feedback(False, f"Not {got:,}: it is {expected:,}. {why}")

    return check


def _pairs_in_order(data: bytes) -> list[tuple[int, int]]:
    return list(textbook.get_stats(list(data)))


def _pair_label(pair: tuple[int, int]) -> str:
    return f"{chr(pair[0])}{chr(pair[1])}"


_WORDS_1 = ("Hello", "你好", "😄", "naïve", "Straße", "日本語", "🤪", "tokenizer", "über", "€5", "café", "Ωmega", "🧐", "ok")
_ALPHABET = "abcd"
_SNIPPETS = (
    "for i in range({n}):\n{pad}total += i * {m}\n",
    "if x > {m}:\n{pad}print('big', x)\nelse:\n{pad}print({n})\n",
    "def f(a):\n{pad}return a + {m}\n",
    "while n < {m}:\n{pad}n = n * 2 + {n}\n",
)
_CONTRACTIONS = ("I'm", "I'M", "don't", "DON'T", "you'll", "YOU'LL", "it's", "IT'S", "we've", "WE'VE", "they'd")
_FILLERS = (" hello", " world", " 123", " 2024", "!!", "?", " ok", "  ", " x", "...", " yes")
_WORDS_5 = (
    "Hi there!",
    "What are you doing?",
    "You look out!",
    "where would you go?",
    "Do you know?",
    "the weather today",
    "How are you?",
)


def _text_of_bytes(rng: random.Random) -> str:
    return " ".join(rng.sample(_WORDS_1, rng.randint(2, 4)))


def _pair_text(rng: random.Random) -> str:
    """A short string over a small alphabet in which some pair occurs at least twice."""
    while True:
        text = "".join(rng.choice(_ALPHABET) for _ in range(rng.randint(8, 14)))
        stats = textbook.get_stats(list(text.encode()))
        if max(stats.values()) >= 2:
            return text


def questions(n: int, seed: int, env: Env | None = None) -> list[Question]:
    """Chapter ``n``'s questions for the student whose seed is ``seed`` (a pure function of both and the core).

    >>> [q.kind for q in questions(7, 1)]
    ['numbers']
    """
    env = env or Env()
    rng = random.Random(f"lesson:{n}:{seed}")
    return _MAKERS[chapter(n).n](rng, env)


def _q1(rng, env) -> list[Question]:
    text = _text_of_bytes(rng)
    expected = len(text.encode("utf-8"))
    wide = [f"{visible(c.encode())} {len(c.encode())}" for c in dict.fromkeys(text) if len(c.encode()) > 1]
    why = f"{len(text)} characters, {expected} bytes: " + (
        ", ".join(wide) + "." if wide else "each character is ASCII, one byte."
    )
    return [
        Question(
            "1.bytes",
            f"How many UTF-8 bytes is {code(text)}?",
            "number",
            text,
            expected,
            _number_check(expected, why),
            why=why,
        )
    ]


def _q2(rng, env) -> list[Question]:
    text = _pair_text(rng)
    pairs = _pairs_in_order(text.encode())
    (first, new_id, count), *_ = textbook.train(text, 257)
    labels = tuple(_pair_label(p) for p in pairs)
    answer = _pair_label(first)
    stats = textbook.get_stats(list(text.encode()))
    tied = [_pair_label(p) for p, c in stats.items() if c == count]
    why = f"{code(answer)} occurs {count} times" + (
        f"; {', '.join(code(t) for t in tied[1:])} as often, but {code(answer)} comes first in the text."
        if len(tied) > 1
        else "."
    )

    def check(got: str) -> Feedback:
        if got not in labels:
            return Feedback(False, f"Pick one of the pairs of {code(text)}.")
        return Feedback(
            got == answer,
            ("Right. " if got == answer else f"Not {code(got)} ({stats[(ord(got[0]), ord(got[1]))]} times). ") + why,
        )

    return [
        Question(
            "2.pair",
            f"Which pair of {code(text)} does training merge first (into id 256)?",
            "choice",
            text,
            answer,
            check,
            labels,
            why,
        )
    ]


def _q3(rng, env) -> list[Question]:
    while True:
        text = _pair_text(rng) + _pair_text(rng)
        k = repeated_merges(text)
        if k >= 2:
            break
    tok = stepping_tokenizer(text, k)
    m = tok.merge_list[rng.randrange(k)]
    label = f"{visible(tok.vocab[m.pair[0]])} + {visible(tok.vocab[m.pair[1]])}"
    why = f"{code(label)} is merge {m.rank + 1}, so its id is 256 + {m.rank} = {m.new_id}."
    return [
        Question(
            "3.id",
            f"Train on {code(text)} until no pair occurs twice. Which id does the merge of {code(label)} create?",
            "number",
            text,
            m.new_id,
            _number_check(m.new_id, why),
            why=why,
        )
    ]


@functools.lru_cache(maxsize=2)
def paragraph_tokenizer(vocab_size: int = 300) -> Tokenizer:
    """The seed's paragraph trained with no split pattern (chapters 4 and 5's questions).

    >>> paragraph_tokenizer(259).encode("you")
    [121, 256]
    """
    return train(PARAGRAPH, vocab_size, pattern=None, name=f"lesson · the paragraph · {vocab_size}")


def _q4(rng, env) -> list[Question]:
    tok = paragraph_tokenizer()
    merges = [m for m in tok.merge_list if (m.count or 0) >= 2]  # the merges a repeated pair made
    picked = rng.sample(merges, 4)
    first = min(picked, key=lambda m: m.rank)
    labels = tuple(visible(tok.vocab[m.new_id]) for m in picked)
    answer = visible(tok.vocab[first.new_id])
    why = (
        ", ".join(f"{code(visible(tok.vocab[m.new_id]))} is merge {m.rank + 1}" for m in sorted(picked, key=lambda m: m.rank))
        + "."
    )

    def check(got: str) -> Feedback:
        if got not in labels:
            return Feedback(False, "Pick one of the four tokens.")
        return Feedback(got == answer, ("Right: " if got == answer else f"Not {code(got)}: ") + why)

    return [
        Question(
            "4.first",
            "Training on the paragraph above: which of these tokens is learned **first**?",
            "choice",
            " | ".join(labels),
            answer,
            check,
            labels,
            why,
        )
    ]


def _q5(rng, env) -> list[Question]:
    merges = rng.randint(3, paragraph_merges())
    text = rng.choice(_WORDS_5)
    tok = paragraph_tokenizer(256 + merges)
    ids = tok.encode(text)
    why = f"With {merges} merges, {code(text)} is {len(text.encode())} bytes and encodes to {len(ids)} tokens: " + " | ".join(
        visible(tok.vocab[i]) for i in ids
    )
    return [
        Question(
            "5.count",
            f"Train on the paragraph with **{merges} merges** (vocabulary {256 + merges}). How many tokens is {code(text)}?",
            "number",
            text,
            len(ids),
            _number_check(len(ids), why),
            why=why,
            detail=(("merges", merges),),
        )
    ]


def _q6(rng, env) -> list[Question]:
    parts = [rng.choice(_CONTRACTIONS)] + rng.sample(_FILLERS, 2) + [" " + rng.choice(_CONTRACTIONS)]
    rng.shuffle(parts)
    text = "".join(parts).strip() or "I'M"
    chunks = textbook.split(text, GPT2_PATTERN)
    why = f"{len(chunks)} chunks: " + " | ".join(visible(c.encode()) for c in chunks)
    return [
        Question(
            "6.chunks",
            f"How many chunks does GPT-2's split pattern cut {code(text)} into?",
            "number",
            text,
            len(chunks),
            _number_check(len(chunks), why),
            why=why,
        )
    ]


def _q7(rng, env) -> list[Question]:
    pad = " " * rng.choice((4, 8))
    # no newline at the end: the page shows the code in a block that would hide it, and it is a token
    text = rng.choice(_SNIPPETS).format(pad=pad, n=rng.randint(2, 99999), m=rng.randint(2, 9999)).rstrip("\n")
    gpt2, gpt4 = (len(env.encoding(name).encode_ordinary(text)) for name in ("r50k_base", "cl100k_base"))
    why = f"GPT-2 gives {gpt2} tokens, GPT-4 (cl100k) {gpt4}."

    def check(got: str) -> Feedback:
        parts = (
            [parse_int(p) for p in got.replace(";", ",").split(",") if p.strip()]
            if "," in got or ";" in got
            else [parse_int(p) for p in got.split()]
        )
        if len(parts) != 2 or None in parts:
            return Feedback(False, "Give two whole numbers: GPT-2's count, then cl100k's.")
        ok = parts == [gpt2, gpt4]
        return Feedback(ok, ("Right. " if ok else f"Not {parts[0]} and {parts[1]}. ") + why)

    return [
        Question(
            "7.counts",
            "How many tokens do **GPT-2** (r50k_base) and **GPT-4** (cl100k_base) give for this code?",
            "numbers",
            text,
            (gpt2, gpt4),
            check,
            ("GPT-2", "cl100k"),
            why,
        )
    ]


_ENCODINGS_8 = {"r50k_base": "GPT-2", "cl100k_base": "GPT-4 (cl100k)", "o200k_base": "GPT-4o (o200k)"}


def _q8(rng, env) -> list[Question]:
    name = rng.choice(list(_ENCODINGS_8))
    text = rng.choice(("Hello", "The end.", "done", "Bye!", "42")) + SPECIAL + rng.choice(("Next", " A new one", "Chapter 2", ""))
    tok = env.encoding(name)
    as_text = tok.encode_ordinary(text)
    as_special = tok.encode(text, allowed_special="all")
    why = (
        f"As text, {_ENCODINGS_8[name]} cuts it into {len(as_text)} tokens: "
        + " | ".join(visible(tok.vocab[i]) for i in as_text)
        + f"; allowed as a special token, {len(as_special)}."
    )
    return [
        Question(
            "8.text",
            f"How many tokens does **{_ENCODINGS_8[name]}** give for {code(text)} when `{SPECIAL}` is read as **ordinary text**?",
            "number",
            text,
            len(as_text),
            _number_check(len(as_text), why),
            why=why,
            detail=(("encoding", name),),
        )
    ]


@functools.lru_cache(maxsize=64)
def _lookalikes(tok: Tokenizer, tail: bytes) -> tuple[int, ...]:
    """The short ASCII tokens among a vocabulary's first 100,000 that hold ``tail``: a scan of the vocabulary, the
    same for every student who draws that tail (the tokenizer is an official encoding, one object per process)."""
    vocab = tok.vocab
    return tuple(i for i in range(256, 100_000) if tail in vocab.get(i, b"") and vocab[i].isascii() and len(vocab[i]) <= 12)


def _q9(rng, env) -> list[Question]:
    target = rng.randint(4, 15)
    o200k = env.encoding("o200k_base")

    def check_text(got: str) -> Feedback:
        if not got:
            return Feedback(False, "Type a text.")
        ids = o200k.encode_ordinary(got)
        cut = " | ".join(visible(o200k.vocab[i]) for i in ids[:40]) + (" | …" if len(ids) > 40 else "")
        ok = len(ids) == target
        return Feedback(ok, ("Right: " if ok else f"Not quite: {len(ids)} tokens, not {target}: ") + cut)

    vocab_name = "o200k_base"
    tok = env.encoding(vocab_name)
    # the ones a class can look at: ASCII (o200k's others are spam phrases from its training data)
    odd = sorted(i for i in env.unreachable(vocab_name) if tok.vocab[i].isascii())
    if not odd:
        raise ValueError(f"{vocab_name} has no unreachable token: the question needs one")
    target_id = rng.choice(odd)
    odd_set = set(odd)
    # ordinary tokens that look alike (same first byte class), so the answer is not the odd-looking one by its looks
    tail = tok.vocab[target_id].strip()[-2:]  # "//", "I'": decoys that look like it, so looks do not give it away
    pool = [i for i in _lookalikes(tok, tail) if i not in odd_set]
    decoys = rng.sample(pool, 5)
    ids = [target_id, *decoys]
    rng.shuffle(ids)
    labels = tuple(f"{i}: {visible(tok.vocab[i])}" for i in ids)
    answer = labels[ids.index(target_id)]

    def back(tid: int) -> list[int]:
        data = tok.vocab[tid]
        try:
            return tok.encode_ordinary(data.decode("utf-8"))
        except UnicodeDecodeError:
            return tok.encode_bytes(data)

    def check_id(got: str) -> Feedback:
        if got not in labels:
            return Feedback(False, "Pick one of the six tokens.")
        tid = ids[labels.index(got)]
        pieces = " | ".join(visible(tok.vocab[i]) for i in back(tid)[:16])
        if tid == target_id:
            return Feedback(True, f"Right: the text of token {tid} encodes as {pieces}, never as token {tid}.")
        return Feedback(False, f"Token {tid}'s text encodes back to itself ({pieces}). Try the others on the Tokenize page.")

    return [
        Question(
            "9.exact",
            f"Write a text that **GPT-4o** (o200k_base) cuts into exactly **{target}** tokens.",
            "text",
            str(target),
            target,
            check_text,
            why=f"Any text of {target} tokens under o200k_base.",
        ),
        Question(
            "9.unreachable",
            "One of these tokens of **GPT-4o** (o200k_base) is never produced by its own text: encoding the token's text "
            "gives other tokens. Which one?",
            "choice",
            " | ".join(labels),
            answer,
            check_id,
            labels,
            why=f"{len(odd)} of o200k's tokens are like that (the Vocabulary page lists them, with why).",
        ),
    ]


_MAKERS = {1: _q1, 2: _q2, 3: _q3, 4: _q4, 5: _q5, 6: _q6, 7: _q7, 8: _q8, 9: _q9}
