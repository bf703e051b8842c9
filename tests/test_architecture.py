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


def _pure_ui_modules() -> list[Path]:
    """ui/render/, every ui/<page>/model.py, and the plain-Python parts of ui/common/."""
    ui = ROOT / "ui"
    common = [ui / "common" / f"{name}.py" for name in ("text", "samples", "corpora", "upload")]
    return sorted([*(ui / "render").rglob("*.py"), *ui.glob("*/model.py"), *common])


def test_pure_ui_modules_never_import_streamlit():
    """Models and renderers are plain Python: tested (and doctested) without a server, reusable anywhere."""
    modules = _pure_ui_modules()
    assert len([p for p in modules if p.name == "model.py"]) == 5  # tokenize, compare, train, step, vocabulary
    offenders = []
    for path in modules:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""] if isinstance(node, ast.ImportFrom) else []
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


def test_streamlit_only_through_its_public_api():
    """No private Streamlit modules or classes in the app (tests may use streamlit.testing)."""
    sources = [ROOT / "app.py", *(ROOT / "pages").glob("*.py"), *(ROOT / "ui").rglob("*.py")]
    offenders = [
        str(p.relative_to(ROOT))
        for p in sources
        if re.search(r"streamlit\.runtime|PagesManager|streamlit\.web|_mpa_v1", p.read_text(encoding="utf-8"))
    ]
    assert offenders == []
