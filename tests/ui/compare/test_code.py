"""ui/compare/code.py: our program in many programming languages, and that the programs are equivalent."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys

import pytest

from ui.compare import code

SAMPLE = "The cat and the hat. THE END, the end! 42 cats; 42 hats\nand a cat\tand 7 dogs. Ünïcode İs x1 X1 x1\n"


def test_at_least_ten_languages_each_one_file_and_every_file_listed():
    assert len(code.PROGRAMS) >= 10
    listed = set(code.files().values())
    on_disk = {p.name for p in code.FOLDER.iterdir() if p.is_file()}
    assert listed == on_disk  # no program without an entry, no entry without its file
    assert list(code.texts())[0] == code.REFERENCE


@pytest.mark.parametrize("language", list(code.PROGRAMS))
def test_each_program_says_what_it_does_and_is_text(language):
    text = code.texts()[language]
    assert text.endswith("\n") and "\r" not in text
    assert "Print the ten most frequent words of the standard input." in "\n".join(text.splitlines()[:3])
    assert text.isascii()  # the tax compares languages, not scripts: no string or comment in another alphabet
    assert len(text) < 2_000


def test_the_python_program_compiles():
    ast.parse(code.texts()["Python"])


def run(cmd: list[str], stdin: str) -> str:
    return subprocess.run(cmd, input=stdin, capture_output=True, text=True, check=True, timeout=60).stdout


def test_the_python_and_javascript_programs_print_the_same_lines():
    """Equivalent programs: the same input gives the same output (node runs the ES module as it is)."""
    node = shutil.which("node")
    assert node, "node is part of set-up (make test runs node --test)"
    py = run([sys.executable, str(code.FOLDER / "top_words.py")], SAMPLE)
    js = run([node, str(code.FOLDER / "top_words.js")], SAMPLE)
    assert py == js
    assert py.splitlines()[:4] == ["    4 the", "    3 and", "    3 x1", "    2 42"]  # counted by hand from SAMPLE
    assert len(py.splitlines()) == 10


def test_highlighting_names():
    assert code.highlight("Python") == "python" and code.highlight("Bash") == "bash"
