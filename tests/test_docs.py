"""The README and docs/ cannot drift from the code: every command, snippet, link and path in them is run or checked.

- every ``make X`` named in code exists in the Makefile;
- every ``python -m tokenizer ...`` line of a fenced block runs and exits 0 on a tiny input (``provision``,
  which would rewrite the shared data folder, and the CLI named in running text parse with ``--help``);
- every ``>>>`` snippet runs as a doctest, the BPE Lab JSON example loads and encodes as it says;
- every benchmark command names a script that exists and options that script takes;
- every link goes to a file of the repository, and every ``#anchor`` to a heading of it;
- every repository path and ``tokenizer.x.y`` / ``ui.x.y`` / ``classroom.x.y`` name in the documents exists,
  and so does every entry of docs/architecture.md's tree;
- the models, their families and the pages the documents list are the registry's and app.py's.
"""

from __future__ import annotations

import ast
import doctest
import functools
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
#: the documents, beside the README
DOC_FILES = ("api.md", "architecture.md", "classroom.md", "formats.md", "models.md", "pages.md", "performance.md")
DOCUMENTS = [README, *(DOCS / name for name in DOC_FILES)]


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def fenced(path: Path) -> list[tuple[str, str]]:
    """``(language, body)`` of every fenced code block of a Markdown file."""
    return [(m.group(1), m.group(2)) for m in re.finditer(r"^```(\w*)\n(.*?)^```$", _text(path), flags=re.S | re.M)]


def inline_code(path: Path) -> list[str]:
    """Every inline code span outside the fenced blocks, whitespace (line breaks) made single spaces."""
    prose = re.sub(r"^```\w*\n.*?^```$", "", _text(path), flags=re.S | re.M)
    return [" ".join(m.group(1).split()) for m in re.finditer(r"`([^`]+)`", prose)]


def code_lines(path: Path, language: str | None = None) -> list[str]:
    """Every line of the fenced blocks (of one language), its comment removed."""
    out = []
    for lang, body in fenced(path):
        if language is None or lang == language:
            out += [shlex_strip_comment(line) for line in body.splitlines()]
    return [line for line in out if line]


def shlex_strip_comment(line: str) -> str:
    """A shell line without its trailing ``# comment`` (a ``#`` inside quotes is kept)."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=False)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    try:
        kept = list(lexer)
    except ValueError:  # unbalanced quotes: not a shell line
        return line.strip()
    return shlex.join(kept) if kept else ""


def test_the_readme_is_one_screen_and_links_every_document():
    lines = _text(README).splitlines()
    assert len(lines) < 200
    readme = _text(README)
    for name in DOC_FILES:
        assert (DOCS / name).is_file()
        assert f"(docs/{name})" in readme  # linked from the README
    assert {"make run", "make test", "make serve"} <= {" ".join(line.split()[:2]) for line in code_lines(README, "sh")}
    # one screenshot, small enough for a repository
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", readme)
    assert len(images) == 1 and (ROOT / images[0]).stat().st_size < 300_000


def _make_targets() -> set[str]:
    return set(re.findall(r"^([A-Za-z][\w-]*):", _text(ROOT / "Makefile"), flags=re.M))


def test_every_make_target_named_exists():
    named = {}
    for path in DOCUMENTS:
        code = [*inline_code(path), *code_lines(path)]
        for snippet in code:
            for target in re.findall(r"(?:^|[\s;(])make ([a-z][\w-]*)", snippet):
                named.setdefault(target, path.name)
    assert {"run", "test", "serve", "test-fast", "bench"} <= set(named)  # the check sees the commands
    missing = {t: where for t, where in named.items() if t not in _make_targets()}
    assert missing == {}


def test_the_make_target_check_is_not_vacuous():
    assert "run" in _make_targets() and "no-such-target" not in _make_targets()
    assert shlex_strip_comment('make run   # start it on "#1"') == "make run"
    assert shlex_strip_comment("python -m tokenizer train corpus.txt --special '<|endoftext|>'") == (
        "python -m tokenizer train corpus.txt --special '<|endoftext|>'"
    )


# ----------------------------------------------------------------------------- the command line

CORPUS = "The quick brown fox jumps over the lazy dog. <|endoftext|> Hello world, hello tokenizers! 你好 🤚\n" * 30


def _cli_commands() -> list[tuple[str, list[str]]]:
    """``(document, argv after 'python -m tokenizer')`` of every CLI line in the documents, in order."""
    out = []
    for path in DOCUMENTS:
        for line in code_lines(path, "sh"):
            if line.startswith("python -m tokenizer "):
                out.append((path.name, shlex.split(line)[3:]))
        for span in inline_code(path):  # named in running text: it must parse
            if span.startswith("python -m tokenizer "):
                out.append((path.name, [*shlex.split(span)[3:], "--help"]))
    return out


@pytest.fixture
def folder(tmp_path):
    """A folder holding the small files the documents' examples name."""
    (tmp_path / "corpus.txt").write_text(CORPUS, encoding="utf-8")
    (tmp_path / "notes.txt").write_text("Notes: " + CORPUS[:500], encoding="utf-8")
    parallel = tmp_path / "parallel"  # one text per language (train --method parity)
    parallel.mkdir()
    (parallel / "English.txt").write_text("The weather is nice today. I am going to the park.", encoding="utf-8")
    (parallel / "German.txt").write_text("Das Wetter ist heute schön. Ich gehe in den Park.", encoding="utf-8")
    return tmp_path


def test_every_command_line_in_the_documents_parses(folder, monkeypatch):
    """Each line's subcommand, options and values are the CLI's own (its parser reads them; nothing runs)."""
    from tokenizer import cli

    monkeypatch.chdir(folder)
    commands = _cli_commands()
    assert {"train", "encode", "decode", "compare", "export", "provision"} <= {argv[0] for _, argv in commands}
    for where, argv in commands:
        if argv[-1] == "--help":
            argv = argv[:-1]
        args = cli.build_parser().parse_args(argv)  # a wrong option or value exits with status 2
        assert args.func.__name__ == f"cmd_{argv[0]}", f"{where}: python -m tokenizer {shlex.join(argv)}"
    with pytest.raises(SystemExit):  # the check can fail
        cli.build_parser().parse_args(["encode", "--no-such-option", "x"])


@pytest.mark.slow
def test_every_command_line_in_the_documents_runs(folder):
    """Each line for real, in a fresh process, on a tiny input (Compare's loads six models: about 10-20 s)."""
    commands = _cli_commands()
    commands.sort(key=lambda c: c[1][0] != "train")  # train first: the others read the tokenizer it writes (mine.json)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for where, argv in commands:
        if argv[0] == "provision" and "--help" not in argv:
            argv = [*argv, "--help"]  # it would rewrite the data folder other processes read: parse only
        out = subprocess.run(
            [sys.executable, "-m", "tokenizer", *argv], cwd=folder, env=env, capture_output=True, text=True, timeout=300
        )
        assert out.returncode == 0, f"{where}: python -m tokenizer {shlex.join(argv)}\n{out.stderr[-2000:]}"
        if argv[-1] != "--help":
            assert out.stdout.strip() or out.stderr.strip()  # every command says something
    assert (folder / "mine.json").is_file() and (folder / "mine.tokenizer.json").is_file()


# ----------------------------------------------------------------------------- snippets


def test_every_snippet_runs_as_a_doctest(folder, monkeypatch):
    monkeypatch.chdir(folder)
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    examples = 0
    for path in DOCUMENTS:
        namespace: dict = {}  # the snippets of one document run one after another, like a session
        for i, (lang, body) in enumerate(fenced(path)):
            if lang == "python":
                assert ">>>" in body, f"{path.name}: a python block is written as a doctest (```pycon) or not at all"
            if ">>>" not in body:
                continue
            test = parser.get_doctest(body, namespace, f"{path.name}[{i}]", str(path), 0)
            result = runner.run(test, clear_globs=False)
            namespace = test.globs
            examples += result.attempted
            assert result.failed == 0, f"{path.name}: a snippet's output differs (see above)"
    assert examples >= 15  # docs/api.md's examples were found and run


def test_the_bpe_lab_json_example_is_a_file_that_loads():
    from tokenizer import formats

    blocks = [body for lang, body in fenced(DOCS / "formats.md") if lang == "json"]
    assert len(blocks) == 1
    tok = formats.loads(blocks[0])
    assert tok.encode("aaabdaaabac") == [258, 100, 258, 97, 99]  # what the text says, and the textbook's example
    assert tok.encode("<|endoftext|>", allowed_special="all") == [259]


def test_every_benchmark_command_names_a_script_and_options_it_takes():
    seen = 0
    for path in DOCUMENTS:
        commands = [line for line in code_lines(path, "sh")] + inline_code(path)
        for command in commands:
            try:
                words = shlex.split(command)
            except ValueError:  # an unbalanced quote in a code span of running text
                words = command.split()
            for i, word in enumerate(words):
                if re.fullmatch(r"bench/\w+\.(py|mjs)", word):
                    script = ROOT / word
                    assert script.is_file(), f"{path.name}: {word}"
                    source = _text(script)
                    for option in words[i + 1 :]:
                        if option.startswith("--"):
                            name = option.split("=")[0]
                            # argparse names "--rounds"; node's parseArgs, in bench/*.mjs, "rounds"
                            name = name if word.endswith(".py") else name[2:]
                            assert f'"{name}"' in source, f"{path.name}: {word} takes no {option}"
                    seen += 1
    assert seen >= 8


def test_every_benchmark_table_says_its_command():
    sections = re.split(r"^## ", _text(DOCS / "performance.md"), flags=re.M)[1:]
    with_tables = [s for s in sections if re.search(r"^\|-", s, flags=re.M)]  # a table's header rule
    assert len(with_tables) >= 8
    for section in with_tables:
        assert re.search(r"make bench|bench/\w+\.(py|mjs)", section), section.splitlines()[0]


def test_the_classroom_commands_take_the_options_named():
    source = "".join(_text(p) for p in (ROOT / "classroom").glob("*.py"))
    seen = 0
    for path in DOCUMENTS:
        for command in [*code_lines(path, "sh"), *inline_code(path)]:
            if command.startswith("python -m classroom"):
                for option in re.findall(r"--[\w-]+", command):
                    assert f'"{option}"' in source, f"{path.name}: python -m classroom takes no {option}"
                seen += 1
    assert seen >= 2


# ----------------------------------------------------------------------------- links and paths


def slug(heading: str) -> str:
    """GitHub's anchor for a heading.

    >>> slug("Bring your own tokenizer.json"), slug("The `tokenizer` package"), slug("A class on one server: the load test")
    ('bring-your-own-tokenizerjson', 'the-tokenizer-package', 'a-class-on-one-server-the-load-test')
    """
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    prose = re.sub(r"^```\w*\n.*?^```$", "", _text(path), flags=re.S | re.M)
    return {slug(h) for h in re.findall(r"^#+ (.+)$", prose, flags=re.M)}


def links(path: Path) -> list[str]:
    prose = re.sub(r"^```\w*\n.*?^```$", "", _text(path), flags=re.S | re.M)
    return re.findall(r"\]\(([^)\s]+)\)", prose)


def test_every_link_goes_to_a_file_and_heading_that_exist():
    checked = 0
    for path in DOCUMENTS:
        for link in links(path):
            if re.match(r"https?://", link):
                continue
            target, _, anchor = link.partition("#")
            file = (path.parent / target).resolve() if target else path
            assert file.is_relative_to(ROOT) and file.exists(), f"{path.name}: {link}"
            if anchor:
                assert anchor in anchors(file), f"{path.name}: {link}: no such heading in {file.name}"
            checked += 1
    assert checked >= 40


@functools.cache
def _top_level() -> frozenset[str]:
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    return frozenset({f.split("/")[0] for f in files} | {"docs"})


def _expand(word: str) -> list[str]:
    """``stepper.{py,js}`` as ``stepper.py``, ``stepper.js``."""
    m = re.search(r"\{([^{}]*)\}", word)
    if not m:
        return [word]
    return [w for alt in m.group(1).split(",") for w in _expand(word[: m.start()] + alt + word[m.end() :])]


def _repo_paths(words: list[str]) -> list[str]:
    top = _top_level()
    out = []
    for word in words:
        word = word.strip(".,;:()'\"")
        if not word or any(c in word for c in "<>*|$") or "://" in word:
            continue
        for w in _expand(word):
            first = w.split("/")[0]
            if first in top and ("/" in w or (ROOT / first).is_file()):
                out.append(w)
    return out


def test_every_repository_path_named_exists():
    named = []
    for path in DOCUMENTS:
        for span in inline_code(path):
            named += [(path.name, p) for p in _repo_paths(span.split())]
    assert len(named) >= 60
    assert [(where, p) for where, p in named if not (ROOT / p).exists()] == []


def tree_entries(block: str) -> list[str]:
    """The paths of a tree drawn as ``name   description`` lines, two spaces of indent per level.

    >>> tree_entries("a/    x\\n  b.py, c.{py,js}   y\\n" + " " * 22 + "more about y\\n  d/\\n    e.py\\nf.py  z")
    ['a/', 'a/b.py', 'a/c.py', 'a/c.js', 'a/d/', 'a/d/e.py', 'f.py']
    """
    out, parents = [], []
    for line in block.splitlines():
        indent = len(line) - len(line.lstrip())
        m = re.match(r"(?:[^\s,{]|\{[^}\s]*\})+(?:, (?:[^\s,{]|\{[^}\s]*\})+)*", line.lstrip())
        if not line.strip() or indent >= 20 or not m:
            continue  # a description carried over to the next line
        level = indent // 2
        del parents[level:]
        names = m.group(0).split(", ")
        for name in names:
            out += ["".join(parents) + w for w in _expand(name)]
        if names[-1].endswith("/"):
            parents.append(names[-1])
    return out


def test_every_entry_of_the_architecture_tree_exists():
    blocks = [body for lang, body in fenced(DOCS / "architecture.md") if lang == "text"]
    assert len(blocks) == 1
    entries = [e for e in tree_entries(blocks[0]) if not any(c in e for c in "<>*")]
    assert {"tokenizer/bpe/textbook.py", "ui/step/stepper.js", "classroom/database.py", "serve.py"} <= set(entries)
    assert [e for e in entries if not (ROOT / e).exists()] == []
    # and the tree leaves out no module of the core
    core = {str(p.relative_to(ROOT)) for p in (ROOT / "tokenizer").rglob("*.py") if p.name not in ("__init__.py", "__main__.py")}
    assert core - set(entries) == set()


def _defined(path: Path) -> set[str]:
    """The names a module defines or imports at its top level."""
    names = set()
    for node in ast.parse(_text(path)).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return names


def _module_file(parts: list[str]) -> Path | None:
    base = ROOT.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def resolve(dotted: str) -> bool:
    """Whether ``pkg.module.name`` names a module of the project, or a name a module defines."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        module = _module_file(parts[:i])
        if module:
            rest = parts[i:]
            return not rest or rest[0] in _defined(module)
    return False


#: names the documents give inside the core without its ``tokenizer.`` (``bpe.merges.recover_merges``)
SHORT_NAMES = {"bpe": "tokenizer.bpe", "formats": "tokenizer.formats", "pretokenize": "tokenizer.pretokenize"}
SHORT_NAMES |= {m: f"tokenizer.models.{m}" for m in ("registry", "fetch", "pretrained", "chat", "provision")}
SHORT_NAMES |= {"errors": "tokenizer.errors", "models": "tokenizer.models"}


def test_every_module_name_in_the_documents_exists():
    named = []
    for path in DOCUMENTS:
        for span in inline_code(path):
            for word in span.split():
                m = re.fullmatch(r"(\w+)((?:\.\w+)+)(?:\(.*)?[.,;:]?", word)
                if not m or m.group(2).rpartition(".")[2] in ("json", "py", "model", "tiktoken", "txt"):  # a file name
                    continue
                if m.group(1) in ("tokenizer", "ui", "classroom"):
                    named.append((path.name, m.group(1) + m.group(2)))
                elif m.group(1) in SHORT_NAMES:
                    named.append((path.name, SHORT_NAMES[m.group(1)] + m.group(2)))
    assert len(named) >= 20
    assert [(where, name) for where, name in named if not resolve(name)] == []
    assert resolve("ui.common.workspace.Store") and not resolve("ui.common.workspace.NoSuchThing")


def test_every_environment_variable_named_is_read_somewhere():
    sources = "".join(_text(p) for d in ("tokenizer", "ui", "classroom") for p in (ROOT / d).rglob("*.py"))
    sources += _text(ROOT / "Makefile") + _text(ROOT / "serve.py")
    named = {v for path in DOCUMENTS for v in re.findall(r"\bBPE_LAB_[A-Z_]+\b", _text(path))}
    assert "BPE_LAB_SHARED" in named
    assert {v for v in named if v not in sources} == set()


# ----------------------------------------------------------------------------- what the documents list


def _rows(path: Path) -> list[list[str]]:
    return [[c.strip() for c in line.strip().strip("|").split("|")] for line in _text(path).splitlines() if line.startswith("| ")]


def test_the_models_table_is_the_registry():
    from tokenizer.models import registry

    rows = {m.group(1): row for row in _rows(DOCS / "models.md") if (m := re.fullmatch(r"`([\w.]+)`.*", row[1]))}
    specs = registry.specs()
    assert set(rows) == {s.name for s in specs}
    for s in specs:
        family, names, _models, _file, package = rows[s.name][:5]
        assert family == s.family
        assert set(re.findall(r"`([^`]+)`", names)) - {s.name} <= set(s.aliases)  # every alias shown is one
        if package != "–":
            assert package.strip("`") == s.source.package


def test_every_model_family_is_named_where_the_models_are_listed():
    """The intro and Tokenize's menu name every family (DeepSeek V4 was once left out of both)."""
    from tokenizer.models import registry

    word = {
        "OpenAI": "OpenAI",
        "Meta": "Llama",
        "Qwen": "Qwen",
        "Mistral": "Mistral",
        "DeepSeek": "DeepSeek",
        "Microsoft": "Phi-4",
        "Google": "Gemma",
        "TII": "Falcon",
        "BigCode": "StarCoder2",
        "EleutherAI": "GPT-NeoX",
        "MosaicML": "MPT",
        "AI2": "OLMo",
        "Cohere": "Command-R",
    }
    assert {s.family for s in registry.specs()} == set(word)  # a new family is named here, and in the documents
    intro = _text(README).split("\n## ")[0]
    menu = next(p for p in _text(DOCS / "pages.md").split("\n\n") if "menu grouped" in p)
    for family, name in word.items():
        assert name in intro, family
        assert family in menu, family
    count = len(registry.specs())
    numbers = {10: "ten", 11: "eleven", 12: "twelve", 13: "thirteen"}
    for path in DOCUMENTS:  # "all eleven" encodings, if a count is given in words, is the registry's
        for said in re.findall(r"\ball (ten|eleven|twelve|thirteen)\b", _text(path)):
            assert said == numbers[count], f"{path.name}: 'all {said}', the registry has {count}"


def test_the_readme_lists_every_page_at_its_address():
    app = _text(ROOT / "app.py")
    pages = re.findall(r'st\.Page\("pages/\w+\.py", title="([^"]+)", icon="[^"]+", url_path="([\w-]+)"', app)
    assert len(pages) == 8
    readme = _text(README)
    for title, url_path in pages:
        address = "/" if url_path == "tokenize-home" else f"/{url_path}"
        assert f"**{title}** (`{address}`)" in readme, title
        assert f"**{title}**" in _text(DOCS / "pages.md"), title


def test_every_setting_the_server_reads_is_documented_and_every_limit_in_the_teachers_table():
    """Each ``BPE_LAB_*`` variable ``classroom`` and ``ui`` read is in docs/classroom.md; each number a teacher sets
    (``settings.number``) is a row of its "Limits a teacher can set", which says what it protects."""
    doc = _text(DOCS / "classroom.md")
    limits = doc.split("## Limits a teacher can set", 1)[1].split("\n## ", 1)[0]
    sources = [p for folder in ("classroom", "ui") for p in (ROOT / folder).rglob("*.py")]
    named = set()
    for path in sources:
        text = path.read_text(encoding="utf-8")
        named.update(re.findall(r"\bBPE_LAB_[A-Z_]+\b", text))
        constants = dict(re.findall(r'^(\w+) = "([A-Z_]+)"$', text, re.MULTILINE))
        for arg in re.findall(r"settings\.number\((\w+|\"[A-Z_]+\")", text):
            variable = arg.strip('"') if arg.startswith('"') else constants.get(arg)
            if variable not in (None, "PORT"):  # the port says where the class connects, not how much one may take
                assert re.search(rf"^\| [^|]+ \| `{variable}` \|", limits, re.MULTILINE), variable
    assert {"BPE_LAB_TRAIN_SECONDS", "BPE_LAB_MAX_MB"} <= named
    missing = sorted(n for n in named if f"`{n}`" not in doc)
    assert not missing, f"not in docs/classroom.md: {missing}"
