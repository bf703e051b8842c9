"""The project's import graph: ``classroom -> ui -> tokenizer``, never back, and no cycle anywhere.

Every import of every module counts, at any depth of its code (inside functions too),
except under ``if TYPE_CHECKING:`` (annotations only, never run). A module is a file
under ``tokenizer/``, ``ui/`` or ``classroom/``, or one of the entry points (``app.py``,
``serve.py``, ``pages/*.py``).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("tokenizer", "ui", "classroom")
#: The UI's shared Streamlit glue stays small: what is not glue lives in a package of its own.
UI_COMMON_MAX_LINES = 1500


def modules() -> dict[str, Path]:
    """``{dotted name: file}`` of every module of the project (a package is its ``__init__``)."""
    out = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    for path in [ROOT / "app.py", ROOT / "serve.py", *(ROOT / "pages").glob("*.py")]:
        out[".".join(path.relative_to(ROOT).with_suffix("").parts)] = path
    return out


def _runtime_nodes(tree: ast.AST):
    """Every node, except inside ``if TYPE_CHECKING:``."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            yield from (n for child in node.orelse for n in [child, *_runtime_nodes(child)])
            continue
        yield node
        yield from _runtime_nodes(node)


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The project's modules that module ``name`` imports when it runs."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = alias.name
                while target and target not in known:  # import a.b.c runs a.b.c (the deepest module we have)
                    target = target.rpartition(".")[0]
                if target:
                    out.add(target)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            for alias in node.names:
                if f"{module}.{alias.name}" in known:
                    out.add(f"{module}.{alias.name}")  # from ui.common import workspace: the module
                elif module in known:
                    out.add(module)  # from tokenizer import Tokenizer: the package's __init__
    return out - {name}


def graph() -> dict[str, set[str]]:
    mods = modules()
    return {name: imports(name, path, set(mods)) for name, path in mods.items()}


def find_cycle(g: dict[str, set[str]]) -> list[str] | None:
    done: set[str] = set()

    def visit(m: str, path: list[str]) -> list[str] | None:
        if m in path:
            return path[path.index(m) :] + [m]
        if m in done:
            return None
        for n in sorted(g.get(m, ())):
            found = visit(n, path + [m])
            if found:
                return found
        done.add(m)
        return None

    for m in sorted(g):
        found = visit(m, [])
        if found:
            return found
    return None


def test_the_graph_sees_what_the_code_imports():
    g = graph()
    assert {"ui.common.workspace", "ui.common.training", "classroom.database", "classroom.identity"} <= g["classroom.workspaces"]
    assert "ui.common.shell" in g["classroom.asgi"]  # inside a function: counted
    assert "classroom.asgi" in g["serve"] and "classroom.asgi" in g["app"] and "tokenizer" in g["ui.common.tokenizers"]


def test_no_import_cycle_anywhere():
    cycle = find_cycle(graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_no_module_imports_another_by_a_name_in_a_string():
    """``importlib.import_module(name)`` and ``__import__`` hide an edge from the graph above (and so a cycle)."""
    hidden = [
        f"{name}:{node.lineno}"
        for name, path in modules().items()
        for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call)
        and (getattr(node.func, "attr", None) == "import_module" or getattr(node.func, "id", None) == "__import__")
    ]
    assert hidden == []


def test_the_cycle_check_can_fail():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_dependencies_run_from_the_server_to_the_ui_to_the_core():
    """``classroom -> ui -> tokenizer``: the core imports neither, the UI (and its pages) never the server. The entry
    points (app.py, serve.py) sit above all three."""
    offenders = []
    for name, deps in graph().items():
        top = name.split(".")[0]
        for dep in deps:
            up = dep.split(".")[0]
            if (top == "tokenizer" and up != "tokenizer") or (top in ("ui", "pages") and up == "classroom"):
                offenders.append(f"{name} -> {dep}")
    assert offenders == []


def test_ui_common_is_small():
    lines = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in (ROOT / "ui" / "common").glob("*.py"))
    assert lines < UI_COMMON_MAX_LINES, f"ui/common has {lines} lines"


def test_the_benchmarks_never_import_the_tests_nor_each_other_in_a_cycle():
    """bench/ holds what the benchmarks and the tests share (tests import it, never the reverse), with no cycle."""
    bench = {p.stem: p for p in (ROOT / "bench").glob("*.py")}
    of_tests = {"tests"} | {p.stem for p in (ROOT / "tests").glob("*.py")}  # tests.x, or x with tests/ on sys.path
    g, offenders = {}, []
    for name, path in bench.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        names += [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module and not n.level]
        offenders += [f"{name} -> {m}" for m in names if m.split(".")[0] in of_tests - set(bench)]
        offenders += [
            f"{name}: ROOT / 'tests'"
            for n in ast.walk(tree)
            if isinstance(n, ast.BinOp) and isinstance(n.right, ast.Constant) and n.right.value == "tests"
        ]
        g[name] = {m for m in names if m in bench} - {name}
    assert offenders == []
    assert find_cycle(g) is None, find_cycle(g)
