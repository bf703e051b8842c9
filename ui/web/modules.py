"""One script for a Streamlit component from an ES module and the modules it imports, each loaded as written.

``st.components.v2.component(js=...)`` takes the text of one module, which Streamlit
loads from a ``blob:`` address: a relative ``import ... from "./spans.js"`` inside it
has nothing to resolve against. So the script carries the text of every module the
entry needs (each once), and gives each module an address of its own in the page: a
``data:`` URL holding its text, in which the relative import specifiers have been
replaced by the addresses of the modules they name. Nothing else in a module's text
changes: every module keeps its own scope, exactly as node's test runner and eslint
see it. The script then re-exports the entry module's default export.

A module's address is made from its text alone, so the same module file has the same
address in every component of the page, and two components share one instance of it
(the browser keeps one module per address).

Only static imports with a relative specifier (``./x.js``, ``../web/x.js``) inside
``ui/`` are allowed; anything else is a ``ValueError`` naming the file.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

UI = Path(__file__).resolve().parents[1]
# import x from "...";  import { a, b } from "...";  import * as m from "...";  export { x } from "...";  import "...";
_SPECIFIER = re.compile(r"""^[ \t]*(?:import|export)\s*(?:[\w*\s{},$]*?\bfrom\s*)?(?P<q>["'])(?P<spec>[^"'\n]+)(?P=q)""", re.M)
_DYNAMIC = re.compile(r"\bimport\s*\(")
_MARK = "\x00"  # around a module's name where its address goes (never in a source file)

# The loader: each module's text with its imports' addresses filled in, dependencies first.
_LOADER = """\
const urls = new Map();
for (const [name, text] of MODULES) {
  const linked = text.replace(/\\u0000([^\\u0000]*)\\u0000/g, (_, dep) => urls.get(dep));
  urls.set(name, "data:text/javascript;charset=utf-8," + encodeURIComponent(linked));
}
const entry = await import(urls.get(MODULES[MODULES.length - 1][0]));
export default entry.default;
"""


def _name(path: Path, root: Path) -> str:
    return path.relative_to(root.parent).as_posix() if path.is_relative_to(root.parent) else path.name


def _imports(path: Path, source: str, root: Path) -> list[tuple[re.Match, Path]]:
    found = []
    for m in _SPECIFIER.finditer(source):
        spec = m["spec"]
        if not spec.startswith(("./", "../")):
            raise ValueError(f"{path}: import {spec!r} is not a relative path: the page has no other way to load a module")
        target = (path.parent / spec).resolve()
        if not target.is_relative_to(root):
            raise ValueError(f"{path}: import {spec!r} leads outside {root}")
        if not target.is_file():
            raise ValueError(f"{path}: import {spec!r}: no such file {target}")
        found.append((m, target))
    return found


def modules(entry: Path, *, root: Path = UI) -> list[tuple[str, str]]:
    """``[(name, text), ...]``: every module ``entry`` needs, dependencies first and ``entry`` last, each
    import specifier replaced by its module's name between two ``\\0`` marks."""
    root = Path(root).resolve()
    done: dict[Path, str] = {}
    order: list[tuple[str, str]] = []

    def visit(path: Path, stack: tuple[Path, ...]) -> str:
        if path in done:
            return done[path]
        if path in stack:
            raise ValueError("import cycle: " + " -> ".join(p.name for p in (*stack, path)))
        source = path.read_text(encoding="utf-8")
        if _MARK in source:
            raise ValueError(f"{path}: a NUL character in a module")
        if _DYNAMIC.search(source):
            raise ValueError(f"{path}: a dynamic import() cannot be given an address; import statically")
        out, last = [], 0
        for m, target in _imports(path, source, root):
            dep = visit(target, (*stack, path))
            out += [source[last : m.start("q")], '"', _MARK, dep, _MARK, '"']
            last = m.end()
        out.append(source[last:])
        name = _name(path, root)
        order.append((name, "".join(out) + f"\n//# sourceURL=bpe-lab/{name}\n"))
        done[path] = name
        return name

    visit(Path(entry).resolve(), ())
    return order


def script(entry: Path, *, root: Path = UI) -> str:
    """The text to give ``st.components.v2.component(js=...)``: ``entry``'s default export, its imports resolved.

    >>> s = script(UI / "step" / "stepper.js"); s.count("//# sourceURL=bpe-lab/ui/web/spans.js")
    1
    """
    listed = json.dumps(modules(entry, root=root), ensure_ascii=True)
    return f"// {_name(Path(entry).resolve(), Path(root).resolve())} and the modules it imports (ui/web/modules.py)\nconst MODULES = {listed};\n{_LOADER}"
