"""Training corpora for the Train page: the seeds' classics, short texts of our own, and
larger corpora read at run time from this machine's Python standard library.

No third-party prose ships in the repository and nothing is fetched from the web:
the classics are a few words each, the short samples were written for BPE Lab, and
the large corpora are built from the ``.py`` files every Python installation has
(their source, or only their docstrings, which are English prose). Plain Python,
no Streamlit: the page caches ``text(key)`` itself.

Collecting the docstrings parses dozens of files at every app process's start
(docs/performance.md), so the docstring corpus is kept in the data folder's cache
(``tokenizer.models.disk_cache``) under a key of everything it depends on: this Python's
version, the files read (their paths and bytes), the arguments and this module's source.
"""

from __future__ import annotations

import ast
import functools
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

from tokenizer.models import disk_cache


@dataclass(frozen=True)
class Corpus:
    """A built-in corpus and the settings that show it off best."""

    key: str
    title: str
    group: str  # "Classic", "Short sample", "Python standard library"
    note: str
    vocab_size: int
    pattern: str | None  # None, or a name from tokenizer.PATTERNS


# The seeds' examples, word for word (see /work/shared/seeds/README.md).
CLASSICS: dict[str, str] = {
    "aaabdaaabac": "aaabdaaabac",
    "honolulu": "Honolulu",
    "cat-in-hat": "the cat in the hat",
    "hello-nihao": "Hello 你好",
    "emoji-line": "Hello tokenizer 😄🤪🧐!",
}

# Written for BPE Lab.
OWN: dict[str, str] = {
    "low-lower": ("low low low low low lower lower newest newest newest newest newest newest widest widest widest"),
    "about-bpe": (
        "Byte pair encoding starts from bytes. Every text is a sequence of numbers from 0 to 255, "
        "and at first every byte is a token of its own. Then the trainer counts every pair of "
        "neighbouring tokens, picks the pair it sees most often, and gives that pair a new number. "
        "The text gets shorter: wherever the pair stood, one token now stands instead of two. "
        "Then it counts again, and merges again, and again, until the vocabulary has the size "
        "you asked for.\n\n"
        "Nothing in this procedure knows about words. Yet after a few hundred merges the tokens "
        "look like pieces of words: the, ing, tion, er, and a space followed by the first letters "
        "of common words. After a few thousand merges many whole words are single tokens. Rare "
        "words stay in pieces, and a word the trainer never saw is spelled with bytes.\n\n"
        "A split pattern changes what may be merged. With no pattern, a token can cover the end "
        "of one word and the start of the next. With the GPT-2 or GPT-4 pattern, the text is first "
        "cut into chunks, roughly words with their leading space, runs of digits and runs of "
        "punctuation, and merges never cross a chunk boundary. That is why a space usually sits "
        "at the front of a token and not at its end.\n\n"
        "Encoding a new text replays the merges in the order they were learned. The first merge "
        "is applied everywhere it fits, then the second, and so on. Decoding is simpler: look up "
        "the bytes of every token and join them. Because every byte has a token, any text can be "
        "encoded, even one full of emoji 😄🤪🧐 or of characters from other scripts: 你好, привет, "
        "नमस्ते."
    ),
    "counting": (
        "one two three four five six seven eight nine ten\n"
        "ten nine eight seven six five four three two one\n"
        "one and one make two, two and two make four, four and four make eight\n"
        "1 2 3 4 5 6 7 8 9 10 11 12 100 1000 10000 100000 1000000\n"
    )
    * 4,
    "code": (
        "def count_pairs(ids):\n"
        "    counts = {}\n"
        "    for pair in zip(ids, ids[1:]):\n"
        "        counts[pair] = counts.get(pair, 0) + 1\n"
        "    return counts\n\n\n"
        "def replace_pair(ids, pair, new_id):\n"
        "    out = []\n"
        "    i = 0\n"
        "    while i < len(ids):\n"
        "        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:\n"
        "            out.append(new_id)\n"
        "            i += 2\n"
        "        else:\n"
        "            out.append(ids[i])\n"
        "            i += 1\n"
        "    return out\n\n\n"
        "def train(text, vocab_size):\n"
        "    ids = list(text.encode('utf-8'))\n"
        "    merges = {}\n"
        "    for new_id in range(256, vocab_size):\n"
        "        counts = count_pairs(ids)\n"
        "        if not counts:\n"
        "            break\n"
        "        pair = max(counts, key=counts.get)\n"
        "        ids = replace_pair(ids, pair, new_id)\n"
        "        merges[pair] = new_id\n"
        "    return merges\n"
    ),
}

# Modules read for the standard-library corpora, in this order, skipping any that a
# Python version lacks. Docstring-rich, long-lived modules: the text is nearly the
# same on every Python from 3.11 on.
STDLIB_MODULES = (
    "textwrap",
    "string",
    "heapq",
    "bisect",
    "functools",
    "difflib",
    "random",
    "statistics",
    "fractions",
    "calendar",
    "argparse",
    "dataclasses",
    "enum",
    "pathlib",
    "shutil",
    "typing",
    "inspect",
    "pprint",
    "csv",
    "gettext",
    "locale",
    "tarfile",
    "zipfile",
    "pickle",
    "subprocess",
    "threading",
    "logging/__init__",
    "email/message",
    "json/__init__",
    "json/decoder",
    "http/client",
    "urllib/parse",
    "collections/__init__",
    "unittest/case",
    "asyncio/events",
    "decimal",
    "_pydecimal",
    "doctest",
    "pydoc",
    "tokenize",
    "ast",
    "datetime",
    "_pyio",
    "mailbox",
    "configparser",
    "optparse",
)
STDLIB_SOURCE_CHARS = 300_000
STDLIB_DOCSTRING_CHARS = 250_000
#: The docstring corpus's file in the data folder's cache (one document: a new key replaces the old).
DOCSTRINGS_CACHE = "stdlib-docstrings.json"
#: The source this process runs, read when it was imported (a file edited since then must not key an old result).
_CODE = disk_cache.file_digest(__file__)

CORPORA: dict[str, Corpus] = {
    c.key: c
    for c in [
        Corpus(
            "stdlib-docstrings",
            "Python docstrings (≈250 kB of English)",
            "Python standard library",
            "The docstrings of well-known standard-library modules, read from this machine's Python at run time.",
            1000,
            "gpt4",
        ),
        Corpus(
            "stdlib-source",
            "Python source code (≈300 kB)",
            "Python standard library",
            "The source of well-known standard-library modules, read from this machine's Python at run time.",
            1000,
            "gpt4",
        ),
        Corpus(
            "about-bpe",
            "How BPE works (a short essay)",
            "Short sample",
            "Four paragraphs about byte pair encoding, written for BPE Lab.",
            400,
            "gpt4",
        ),
        Corpus(
            "low-lower",
            "low, lower, newest, widest",
            "Short sample",
            "The textbook word list: watch 'est' and 'low' appear.",
            270,
            "gpt2",
        ),
        Corpus(
            "counting",
            "Counting words and numbers",
            "Short sample",
            "Repeated number words and digits: see how digits group under each split pattern.",
            300,
            "gpt4",
        ),
        Corpus(
            "code",
            "A tiny BPE trainer in Python",
            "Short sample",
            "Code: indentation and repeated identifiers become tokens.",
            350,
            "gpt4",
        ),
        Corpus(
            "aaabdaaabac",
            "aaabdaaabac",
            "Classic",
            "The Wikipedia example: three merges give aa, aaa and aaab (ties go to the pair seen first).",
            259,
            None,
        ),
        Corpus("honolulu", "Honolulu", "Classic", "One merge is enough to see 'lu' become a token.", 257, None),
        Corpus("cat-in-hat", "the cat in the hat", "Classic", "The walk-through sentence from the seeds.", 264, None),
        Corpus("hello-nihao", "Hello 你好", "Classic", "Chinese characters are three bytes each in UTF-8.", 262, None),
        Corpus(
            "emoji-line", "Hello tokenizer 😄🤪🧐!", "Classic", "Emoji are four bytes each; ten merges as in the seed.", 266, None
        ),
    ]
}


def stdlib_dir() -> Path:
    return Path(sysconfig.get_paths()["stdlib"])


def _module_files(root: Path) -> list[Path]:
    return [root / f"{m}.py" for m in STDLIB_MODULES if (root / f"{m}.py").is_file()]


def _docstrings(source: str) -> list[str]:
    r"""The module, class and function docstrings of one file, in order of appearance.

    >>> _docstrings('def f():\n    "This docstring is long enough to be kept as prose."\n')
    ['This docstring is long enough to be kept as prose.']
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node)
            if doc and len(doc) > 40:
                out.append(doc)
    return out


@functools.lru_cache(maxsize=4)
def stdlib_text(kind: str = "docstrings", max_chars: int | None = None, root: str | None = None) -> str:
    """A corpus of about ``max_chars`` characters from the standard library's ``.py`` files.

    ``kind`` is ``"source"`` (files joined whole) or ``"docstrings"`` (their
    docstrings only, read from the data folder's cache when it has them for these very
    files). ValueError when this Python ships no ``.py`` sources.
    """
    base = Path(root) if root else stdlib_dir()
    limit = max_chars or (STDLIB_SOURCE_CHARS if kind == "source" else STDLIB_DOCSTRING_CHARS)
    files = _module_files(base)
    if kind == "source":  # reading the files is all the work
        return _collect(base, files, kind, limit)
    key = _docstrings_key(base, files, kind, limit)
    cached = disk_cache.read_json(DOCSTRINGS_CACHE, key)
    if isinstance(cached, str):
        return cached
    text = _collect(base, files, kind, limit)
    disk_cache.write_json(DOCSTRINGS_CACHE, key, text)
    return text


def _docstrings_key(base: Path, files: list[Path], kind: str, limit: int) -> str:
    """The cache key of a corpus: every input of ``_collect`` and the code that runs it (``ast``'s is this Python's)."""
    return disk_cache.digest(
        {
            "what": "ui.content.corpora.stdlib_text",
            "python": sys.version,
            "root": str(base),
            "modules": list(STDLIB_MODULES),
            "files": [[str(p), disk_cache.file_digest(p)] for p in files],
            "kind": kind,
            "limit": limit,
            "code": _CODE,
        }
    )


def _collect(base: Path, files: list[Path], kind: str, limit: int) -> str:
    parts: list[str] = []
    size = 0
    for path in files:
        try:
            source = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        pieces = [source] if kind == "source" else _docstrings(source)
        for piece in pieces:
            parts.append(piece)
            size += len(piece) + 2
            if size >= limit:
                return "\n\n".join(parts)[:limit]
    if not parts:
        raise ValueError(
            f"this Python has no standard-library sources in {base} (only compiled files?); "
            "pick another sample, paste text or upload a file"
        )
    return "\n\n".join(parts)


def text(key: str) -> str:
    """The text of a built-in corpus by key."""
    if key in CLASSICS:
        return CLASSICS[key]
    if key in OWN:
        return OWN[key]
    if key == "stdlib-source":
        return stdlib_text("source")
    if key == "stdlib-docstrings":
        return stdlib_text("docstrings")
    raise ValueError(f"unknown corpus {key!r}: pick one from the list")


def label(key: str) -> str:
    c = CORPORA[key]
    return f"{c.group} · {c.title}"
