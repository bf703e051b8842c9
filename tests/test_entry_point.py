"""app.py is the main file, as Streamlit runs it: with nothing chosen before it, every page opens in local mode."""

from __future__ import annotations

import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

from classroom import workspaces
from ui.common import workspace

ROOT = Path(__file__).resolve().parents[1]
#: each page file and the heading it shows
HEADINGS = {
    "tokenize": "Tokenize",
    "lesson": "Lesson",
    "pretokenize": "Pre-tokenize",
    "compare": "Compare",
    "overlap": "Overlap",
    "train": "Train",
    "step": "Step through",
    "vocabulary": "Vocabulary",
}


def test_every_page_of_app_py_renders_with_no_workspace_chosen_before(tmp_path, monkeypatch):
    """What ``AppTest.from_file("app.py")`` and ``streamlit run app.py`` give: app.py's own start-up chooses local mode."""
    assert set(HEADINGS) == {p.stem for p in (ROOT / "pages").glob("*.py")}
    monkeypatch.setenv("BPE_LAB_WORKSPACE", str(tmp_path / "ws"))  # where local mode keeps tokenizers: not data/'s
    monkeypatch.setenv("BPE_LAB_STATIC_DIR", str(tmp_path / "static"))
    monkeypatch.delenv("BPE_LAB_SHARED", raising=False)
    workspaces.unconfigure()  # as a fresh process is, whatever ran before in this one
    assert not workspace.chosen()
    try:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
        at.run()
        assert not at.exception, at.exception
        assert workspace.chosen()
        for name, heading in HEADINGS.items():
            at.switch_page(f"pages/{name}.py").run()
            assert not at.exception, (name, at.exception)
            assert at.title[0].value.endswith(heading), name
            captions = " ".join(c.value for c in at.sidebar.caption)
            assert f"Local mode: tokenizers are saved in {tmp_path / 'ws'}." in captions, name
    finally:
        workspaces.unconfigure()


def test_serve_pys_choice_is_kept(tmp_path, monkeypatch):
    """app.py's start-up chooses only when nothing did: serve.py's start-up (here, a test's) runs first and wins."""
    monkeypatch.setenv("BPE_LAB_WORKSPACE", str(tmp_path / "chosen"))
    monkeypatch.delenv("BPE_LAB_SHARED", raising=False)
    workspaces.configure(shared=False)
    chosen = workspace.store()
    monkeypatch.setenv("BPE_LAB_WORKSPACE", str(tmp_path / "other"))
    try:
        from classroom import asgi

        asgi.start_local()
        assert workspace.store() is chosen
    finally:
        workspaces.unconfigure()


def test_every_pages_heading_is_its_menu_entry():
    """A newcomer sees the same name and icon in the menu and at the top of the page."""
    app = (ROOT / "app.py").read_text(encoding="utf-8")
    menu = re.findall(r'st\.Page\("pages/(\w+)\.py", title="([^"]+)", icon="([^"]+)"', app)
    assert {name for name, _, _ in menu} == set(HEADINGS)
    for name, title, icon in menu:
        source = (ROOT / "pages" / f"{name}.py").read_text(encoding="utf-8")
        assert f'st.title("{icon} {title}")' in source, name
        assert HEADINGS[name] == title
