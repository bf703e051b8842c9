"""The core returns data and the pages render it: nothing under tokenizer/ imports Streamlit, nor do ui/'s models and renderers."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_tokenizer_package_never_imports_streamlit():
    offenders = []
    for path in (ROOT / "tokenizer").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            if any(n.split(".")[0] == "streamlit" for n in names):
                offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


def test_no_openai_rank_files_in_the_repository():
    import subprocess

    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    assert [f for f in files if f.endswith((".tiktoken", ".tiktoken.gz", "encoder.json", "vocab.bpe"))] == []


def _tokenizer_modules() -> dict[str, Path]:
    """Every module of the package by its dotted name inside it (``core``, ``bpe.encoder``, ``formats``
    for ``formats/__init__.py``), the package's own ``__init__`` and ``__main__`` aside."""
    out = {}
    for path in (ROOT / "tokenizer").rglob("*.py"):
        parts = path.relative_to(ROOT / "tokenizer").with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if parts and parts != ("__main__",):
            out[".".join(parts)] = path
    return out


def test_importing_the_package_changes_nothing_outside_it(tmp_path):
    """No import-time side effects: the environment is untouched and nothing is written."""
    import json
    import os
    import subprocess
    import sys

    modules = sorted(_tokenizer_modules())
    assert {"core", "bpe.textbook", "bpe.encoder", "pretokenize.splitter", "models.registry", "formats.hf"} <= set(modules)
    code = (
        "import importlib, json, os\n"
        "before = dict(os.environ)\n"
        "importlib.import_module('tokenizer')\n"
        f"for m in {modules!r}:\n"
        "    importlib.import_module('tokenizer.' + m)\n"
        "print(json.dumps([before == dict(os.environ), sorted(set(os.environ) ^ set(before))]))\n"
    )
    data = tmp_path / "data"  # does not exist: importing must not create it
    env = {k: v for k, v in os.environ.items() if k != "TIKTOKEN_CACHE_DIR"} | {"BPE_LAB_DATA_DIR": str(data)}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == [True, []]
    assert not data.exists()


def _runtime_nodes(tree: ast.AST):
    """Every node, except inside ``if TYPE_CHECKING:`` (imports for annotations, never run)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            yield from (n for child in node.orelse for n in [child, *_runtime_nodes(child)])
            continue
        yield node
        yield from _runtime_nodes(node)


def _imports_within_tokenizer(name: str, path: Path, modules: set[str]) -> set[str]:
    """The package's modules that module ``name`` imports when it runs, at any depth of its code, by dotted name.

    Importing ``a.b.c`` runs the packages ``a`` and ``a.b`` too: they count as imported, except the
    packages ``name`` is itself inside (they run before it does).
    """
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    targets: set[str] = set()
    for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)] + (node.module.split(".") if node.module else [])
            elif node.module and (node.module == "tokenizer" or node.module.startswith("tokenizer.")):
                base = node.module.split(".")[1:]
            else:
                continue
            for alias in node.names:  # from .bpe import encoder: a module; from .core import Tokenizer: a name
                full = ".".join([*base, alias.name])
                targets.add(full if full in modules else ".".join(base))
        elif isinstance(node, ast.Import):
            targets |= {a.name.split(".", 1)[1] for a in node.names if a.name.startswith("tokenizer.")}
    out = set()
    for t in targets:
        parts = t.split(".") if t else []
        out |= {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
    own = name.split(".")
    return (out - {".".join(own[:i]) for i in range(1, len(own))}) & modules


def _tokenizer_import_graph() -> dict[str, set[str]]:
    modules = _tokenizer_modules()
    return {m: _imports_within_tokenizer(m, path, set(modules)) - {m} for m, path in modules.items()}


def test_the_import_graph_inside_tokenizer_has_no_cycle():
    graph = _tokenizer_import_graph()
    assert graph["models.pretrained"] >= {"core", "models.fetch", "models.registry"}  # the parser sees what it should
    assert "models.pretrained" not in graph["models.fetch"] and "models.fetch" not in graph["models.registry"]
    done: set[str] = set()

    def visit(m: str, path: list[str]) -> None:
        if m in path:
            raise AssertionError("import cycle: " + " -> ".join(path[path.index(m) :] + [m]))
        if m in done:
            return
        for n in sorted(graph[m]):
            visit(n, path + [m])
        done.add(m)

    for m in sorted(graph):
        visit(m, [])


#: The package by stage, bottom up: a module imports only from its own level or below (docs/architecture.md, "The import graph").
TOKENIZER_LEVELS = (
    (
        "errors",
        "display",
        "trace",
        "protocol",
    ),  # checks at the boundary, readable bytes, the records pages draw, what a tokenizer offers
    ("special", "pretokenize", "bpe", "bpe.textbook", "bpe.encoder", "bpe.merges"),  # the stages a text goes through
    ("core", "spm"),  # the Tokenizer puts them together (spm: the same interface for SentencePiece-style BPE)
    # what makes or saves a Tokenizer: the trainer and its variants, the baselines, the file formats
    ("bpe.common", "bpe.trainer", "bpe.methods", "bpe.parity", "bpe.superwords", "bpe.continued", "baselines", "formats"),
    ("models",),  # the registered models, their files and chat formats
    ("cli",),
)


def _level(module: str) -> int:
    for part in (module, *(module.rsplit(".", i)[0] for i in range(1, module.count(".") + 1))):
        for level, names in enumerate(TOKENIZER_LEVELS):
            if part in names:
                return level
    raise AssertionError(f"tokenizer.{module} has no level in TOKENIZER_LEVELS: add it where it belongs")


def test_the_stages_of_tokenizer_import_only_downwards():
    graph = _tokenizer_import_graph()
    upward = sorted(f"{m} -> {n}" for m, imported in graph.items() for n in imported if _level(n) > _level(m))
    assert upward == []
    assert _level("pretokenize.splitter") < _level("core") < _level("formats.hf") < _level("models.pretrained")


def _pure_ui_modules() -> list[Path]:
    """ui/render/, ui/web/ (what the browser code is given), ui/content/, every ui/<page>/model.py, and the plain-Python
    parts of ui/common/ and of the pages."""
    ui = ROOT / "ui"
    common = [ui / "common" / f"{name}.py" for name in ("user_text", "upload")] + sorted((ui / "content").glob("*.py"))
    # the teaching and research views' plain-data parts
    parts = [
        ui / "compare" / "token_tax.py",
        ui / "compare" / "languages.py",
        ui / "compare" / "code.py",
        ui / "compare" / "coverage.py",
        ui / "tokenize" / "pieces.py",
        ui / "train" / "heldout.py",
        ui / "train" / "downloads.py",
        ui / "train" / "variants.py",
        ui / "vocabulary" / "unreachable.py",
        ui / "step" / "payload.py",  # the trace Step through sends to the browser
    ]
    return sorted({*(ui / "render").rglob("*.py"), *(ui / "web").rglob("*.py"), *ui.glob("*/model.py"), *common, *parts})


def test_pure_ui_modules_never_import_streamlit():
    """Models and renderers are plain Python: tested (and doctested) without a server, reusable anywhere."""
    modules = _pure_ui_modules()
    # tokenize, lesson, pretokenize, compare, overlap, train, step, vocabulary, and web (the browser's model files)
    assert len([p for p in modules if p.name == "model.py"]) == 9
    offenders = []
    for path in modules:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            if any(n.split(".")[0] == "streamlit" for n in names):
                offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []
    # nor through what they import
    import subprocess
    import sys

    names = [".".join(p.relative_to(ROOT).with_suffix("").parts) for p in modules if p.name != "__init__.py"]
    code = f"import importlib, sys\nfor n in {names!r}: importlib.import_module(n)\nprint(sorted(m for m in sys.modules if m.split('.')[0] == 'streamlit'))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"


#: The only Streamlit modules the project imports besides ``streamlit`` itself, each where it truly needs it.
#: Streamlit's public API is ``import streamlit as st`` (``st.*``, ``st.components.v2``, ``st.App``) and,
#: for tests and benchmarks, ``streamlit.testing.v1``; everything else is its implementation.
STREAMLIT_INTERNALS = {
    # st.Page raises this when app.py and pages/ are not next to the entry point: the only public signal
    # that a page runs on its own on purpose (ui/common/shell.py's module docstring; tests/ui/common/test_shell.py)
    ("ui/common/shell.py", "streamlit.errors"),
    # the load generator speaks Streamlit's websocket protocol (checked against Chromium by bench/validate.py,
    # against a real server by tests/bench/test_load_test.py)
    ("bench/stclient.py", "streamlit.proto.BackMsg_pb2"),
    ("bench/stclient.py", "streamlit.proto.ForwardMsg_pb2"),
}


def _project_sources() -> list[Path]:
    skip = {".venv", "data", "artifacts", ".git", "node_modules"}
    return [p for p in ROOT.rglob("*.py") if not skip & set(p.relative_to(ROOT).parts)]


def _streamlit_imports(path: Path) -> set[str]:
    """Every streamlit module a file imports, by its full name (``from streamlit import x`` counts as ``streamlit.x``)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "streamlit"}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and node.module.split(".")[0] == "streamlit":
            found |= {node.module} if node.module != "streamlit" else {f"streamlit.{a.name}" for a in node.names}
    return found


def test_streamlit_only_through_its_public_api():
    """No Streamlit module beyond its public API anywhere in the project, except the few listed, each isolated and tested.

    Tests and benchmarks may use ``streamlit.testing.v1`` (public: AppTest); this file holds the list.
    """
    used = set()
    for path in _project_sources():
        rel = str(path.relative_to(ROOT))
        for module in _streamlit_imports(path) - {"streamlit"}:
            if rel.startswith(("tests/", "bench/")) and module == "streamlit.testing.v1":
                continue
            used.add((rel, module))
    assert used == STREAMLIT_INTERNALS  # a new one is named here with its reason; one no longer needed is removed
    text_offenders = [
        str(p.relative_to(ROOT))
        for p in _project_sources()
        if p.name != "test_architecture.py"
        and re.search(r"streamlit\.runtime|PagesManager|streamlit\.web|_mpa_v1|\bst\._[a-z]", p.read_text(encoding="utf-8"))
    ]
    assert text_offenders == []  # nor through a string (importlib, a subprocess) or a private attribute of st


def test_the_architecture_check_sees_every_way_of_importing_streamlit(tmp_path):
    """The check above is not vacuous: each import form is seen under its full module name."""
    f = tmp_path / "x.py"
    f.write_text(
        "import streamlit as st\nimport streamlit.runtime.scriptrunner\nfrom streamlit.errors import E\n"
        "from streamlit import config\nfrom . import streamlit\n"
    )
    assert _streamlit_imports(f) == {"streamlit", "streamlit.runtime.scriptrunner", "streamlit.errors", "streamlit.config"}


def _probes(tree: ast.AST) -> list[str]:
    """``getattr(tok, ...)`` / ``hasattr(tok, ...)`` calls on a tokenizer, by the names code gives one."""
    return [
        f"{n.func.id}({n.args[0].id}, ...) line {n.lineno}"
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Name)
        and n.func.id in ("getattr", "hasattr")
        and n.args
        and isinstance(n.args[0], ast.Name)
        and n.args[0].id in ("tok", "t", "tokenizer", "other")
    ]


def test_tokenizers_are_asked_through_the_protocol_never_probed():
    """What a tokenizer is comes from ``tok.kind`` and ``isinstance``, not from which attributes it happens to have."""
    offenders = [
        f"{p.relative_to(ROOT)}: {probe}"
        for package in ("tokenizer", "ui", "classroom")
        for p in sorted((ROOT / package).rglob("*.py"))
        for probe in _probes(ast.parse(p.read_text(encoding="utf-8")))
    ]
    assert offenders == []


def test_the_probe_check_sees_a_probe():
    assert _probes(ast.parse("getattr(tok, 'vocab', None)\nhasattr(x, 'y')")) == ["getattr(tok, ...) line 1"]
