"""ui/web/modules.py: a component's script loads its modules as they are written, imports resolved, in a real JS engine (node)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from ui.web import modules

NODE = shutil.which("node") or "node"  # make setup-dev brings it (eslint, node --test)


def run_default(tmp_path: Path, script: str, call: str = "m.default()") -> str:
    """Import ``script`` as a module in node and print ``call``'s JSON."""
    entry = tmp_path / "component.mjs"
    entry.write_text(script, encoding="utf-8")
    probe = tmp_path / "probe.mjs"
    probe.write_text(f'import * as m from "./component.mjs";\nconsole.log(JSON.stringify(await {call}));\n')
    return subprocess.run([NODE, str(probe)], capture_output=True, text=True, check=True).stdout.strip()


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


def test_imports_of_every_form_resolve_and_a_shared_module_is_one_instance(tmp_path):
    root = tmp_path / "ui"
    write(
        root,
        {
            "web/count.js": "let n = 0;\nexport function bump() { return ++n; }\nexport const NAME = 'count';\n",
            "web/twice.js": 'import { bump } from "./count.js";\nexport function twice() { bump(); return bump(); }\n',
            "web/side.js": "globalThis.sideEffect = 'ran';\n",
            "page/entry.js": (
                "// an entry module: imports over several lines, a namespace, a side effect, a re-export\n"
                "import {\n  bump,\n  NAME as label,\n} from '../web/count.js';\n"
                'import * as tw from "../web/twice.js";\n'
                'import "../web/side.js";\n'
                'export { NAME } from "../web/count.js";\n'
                "const note = \"import x from './nowhere.js' inside a string is left alone\";\n"
                "export default function () { return [label, tw.twice(), bump(), globalThis.sideEffect, note.length > 0]; }\n"
            ),
        },
    )
    script = modules.script(root / "page" / "entry.js", root=root)
    assert script.count("let n = 0;") == 1  # each module once, though two modules import it
    # twice() bumps the shared counter twice, then bump() once more: one instance of count.js for both importers
    assert run_default(tmp_path, script) == '["count",2,3,"ran",true]'


def test_the_step_component_and_its_shared_modules_load_in_a_js_engine(tmp_path):
    script = modules.script(modules.UI / "step" / "stepper.js")
    assert run_default(tmp_path, script, "typeof m.default") == '"function"'


@pytest.mark.parametrize(
    "files, message",
    [
        ({"a.js": 'import x from "lodash";\nexport default x;\n'}, "not a relative path"),
        ({"a.js": 'import x from "./missing.js";\nexport default x;\n'}, "no such file"),
        ({"a.js": 'import x from "../../outside.js";\nexport default x;\n'}, "leads outside"),
        ({"a.js": 'import "./b.js";\nexport default 1;\n', "b.js": 'import "./a.js";\n'}, "import cycle"),
        ({"a.js": 'export default () => import("./b.js");\n', "b.js": ""}, "dynamic import"),
    ],
    ids=["bare", "missing", "outside", "cycle", "dynamic"],
)
def test_what_cannot_be_given_an_address_is_refused_by_name(tmp_path, files, message):
    root = tmp_path / "ui" / "page"
    write(root, files)
    (tmp_path / "outside.js").write_text("export default 1;\n")
    with pytest.raises(ValueError, match=message):
        modules.script(root / "a.js", root=root)
