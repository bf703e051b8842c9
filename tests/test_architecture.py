"""The core returns data and the pages render it: nothing under tokenizer/ imports Streamlit."""

import ast
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
