"""One small program in many programming languages, for the token tax of code on the Compare page.

Written for BPE Lab, like the passages of ``languages`` (not taken from any corpus or
website; the files in ``programs/`` are ours, under the project's own terms): the same
program, *print the ten most frequent words of the standard input* (lower-cased runs
of ASCII letters and digits, by count then alphabetically, as ``%5d word``), in each
language as a programmer would write it there: its usual library, naming, layout and
indentation (tabs in Go, two spaces in Ruby and Haskell, four elsewhere). The
programs are equivalent, not line for line; the Python, JavaScript, C, C++, Rust,
Java and Bash ones were run on the same input and print the same lines
(``tests/ui/compare/test_code.py`` runs the Python and JavaScript ones). Plain data,
no Streamlit.
"""

from __future__ import annotations

import functools
from pathlib import Path

FOLDER = Path(__file__).with_name("programs")
#: The reference of the code view: the premium of another language is its tokens ÷ this one's.
REFERENCE = "Python"

#: language -> (its file in ``programs/``, the language's name for ``st.code``'s highlighting)
PROGRAMS: dict[str, tuple[str, str]] = {
    "Python": ("top_words.py", "python"),
    "JavaScript": ("top_words.js", "javascript"),
    "TypeScript": ("top_words.ts", "typescript"),
    "Java": ("TopWords.java", "java"),
    "Kotlin": ("TopWords.kt", "kotlin"),
    "C#": ("TopWords.cs", "csharp"),
    "C": ("top_words.c", "c"),
    "C++": ("top_words.cpp", "cpp"),
    "Go": ("top_words.go", "go"),
    "Rust": ("top_words.rs", "rust"),
    "Swift": ("top_words.swift", "swift"),
    "Ruby": ("top_words.rb", "ruby"),
    "PHP": ("top_words.php", "php"),
    "Haskell": ("TopWords.hs", "haskell"),
    "Bash": ("top_words.sh", "bash"),
}


@functools.cache
def _read(name: str) -> str:
    return (FOLDER / name).read_text(encoding="utf-8")


def texts() -> dict[str, str]:
    """``{language: its program}``, Python first (the reference).

    >>> t = texts(); list(t)[:3], t["Python"].splitlines()[0]
    (['Python', 'JavaScript', 'TypeScript'], '\"\"\"Print the ten most frequent words of the standard input.\"\"\"')
    """
    return {lang: _read(file) for lang, (file, _) in PROGRAMS.items()}


def files() -> dict[str, str]:
    """``{language: file name}``.

    >>> files()["C++"]
    'top_words.cpp'
    """
    return {lang: file for lang, (file, _) in PROGRAMS.items()}


def highlight(language: str) -> str | None:
    """The name ``st.code`` highlights a language's program under (None: plain text).

    >>> highlight("C#"), highlight("Klingon")
    ('csharp', None)
    """
    entry = PROGRAMS.get(language)
    return entry[1] if entry else None
