"""ui/common/shell.py: every page runs inside the shell, reached from the sidebar, a link, or on its own."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ui.common import shell

ROOT = Path(__file__).resolve().parents[3]
SIDEBAR = "**BPE Lab** shows how"


@pytest.fixture(autouse=True)
def workspace(tmp_path, monkeypatch):
    from classroom import workspaces

    monkeypatch.setenv("BPE_LAB_WORKSPACE", str(tmp_path / "ws"))
    monkeypatch.setenv("BPE_LAB_SHARED", "0")
    workspaces.configure(shared=False)
    yield
    workspaces.unconfigure()


def from_app() -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    assert not at.exception
    return at


def sidebar_text(at: AppTest) -> str:
    return " ".join(c.value for c in at.sidebar.caption)


def styles(at: AppTest) -> int:
    return sum(h.proto.body.startswith("<style>") for h in at.get("html"))


def test_the_app_draws_the_shell_once_per_run():
    at = from_app()
    assert SIDEBAR in sidebar_text(at)
    assert styles(at) == 1
    assert at.session_state["shared.text"]  # the shared values are set


def stepper_opens_at(at) -> int:
    """The step Step through's stepper opens at (its data: ui/step/stepper.py)."""
    [el] = [e for e in at.get("bidi_component") if e.proto.component_name == "bpe_lab_stepper"]
    return json.loads(el.proto.bytes)["goto"][1]


@pytest.mark.parametrize(
    "page, query, shows",
    [
        (
            "pages/step.py",
            {"mode": "encoding", "tokenizer": "r50k_base", "step": "12"},
            lambda at: stepper_opens_at(at) == 12,
        ),
        (
            "pages/compare.py",
            {"tokenizers": "o200k_base,bytes", "text": "Hello"},
            lambda at: at.multiselect(key="compare.tokenizers").value == ["o200k_base", "bytes"],
        ),
        ("pages/vocabulary.py", {}, lambda at: at.title[0].value.endswith("Vocabulary")),
    ],
)
def test_a_link_opened_in_streamlits_pages_folder_mode_goes_through_app_py(page, query, shows):
    """AppTest starts every run of app.py in Streamlit's "pages folder" mode (a pages/ folder sits next
    to it), as a fresh server does: a link to a page runs that page file alone first. It must rerun
    through app.py (sidebar, one stylesheet) with the link's query parameters."""
    at = from_app()
    at.switch_page(page)
    at.query_params.update(query)
    at.run()
    assert not at.exception
    assert SIDEBAR in sidebar_text(at)
    assert styles(at) == 1
    assert shows(at)
    assert at.session_state["shell.redirected"] is False  # app.py ran last


def test_without_the_rerun_a_linked_page_would_run_alone(monkeypatch):
    """The test above is not vacuous: with the rerun switched off, the page runs without app.py."""
    monkeypatch.setattr(shell, "_rerun_through_app", lambda file_name: None)
    at = from_app()
    at.switch_page("pages/step.py")
    at.run()
    assert not at.exception
    assert SIDEBAR not in sidebar_text(at)


@pytest.mark.parametrize("name", ["tokenize", "lesson", "pretokenize", "compare", "train", "step", "vocabulary"])
def test_a_page_run_on_its_own_runs_alone_with_the_stylesheet(name):
    at = AppTest.from_file(str(ROOT / "pages" / f"{name}.py"), default_timeout=120)
    at.run()
    assert not at.exception
    assert SIDEBAR not in sidebar_text(at)  # no app.py, and no attempt to reach it
    assert "shell.redirected" not in at.session_state
    assert styles(at) == 1
    at.run()
    assert styles(at) == 1


def test_each_page_opens_at_its_file_name():
    """A linked page reruns through app.py under the URL path Streamlit gave its file: they must agree. The default
    page is served at "/" only, so a hidden alias opens it from its file name (else /tokenize says "Page not
    found")."""
    tree = ast.parse((ROOT / "app.py").read_text(encoding="utf-8"))
    pages, default, aliases = {}, None, {}
    names = {n.targets[0].id: n.value for n in ast.walk(tree) if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Name)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "Page":
            stem = Path(node.args[0].value).stem
            kw = {k.arg: k.value.value for k in node.keywords}
            pages[stem] = kw["url_path"]
            if kw.get("default"):
                default = stem
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "alias":
            target = names[node.args[0].id]
            aliases[Path(target.args[0].value).stem] = node.args[1].value
    assert set(pages) == {p.stem for p in (ROOT / "pages").glob("*.py")}
    assert default == "tokenize" and aliases == {"tokenize": "tokenize"}
    assert all(url == stem for stem, url in pages.items() if stem != default)


def test_a_page_run_shares_one_regex_time_budget(monkeypatch):
    """Every call a rerun makes with a custom split pattern draws on one budget: the limit holds for a page rerun."""
    from tokenizer.pretokenize import splitter

    for name in ("start_up", "inject_style", "sidebar"):
        monkeypatch.setattr(shell, name, lambda: None)
    monkeypatch.setattr(shell.state.SHARED, "init", lambda: None)
    seen = []

    class Page:
        def run(self):
            seen.extend([splitter.current_budget(), splitter.current_budget()])

    shell.run(Page())
    assert seen[0] is seen[1] and seen[0].seconds == splitter.USER_PATTERN_TIMEOUT
    assert splitter.current_budget() is not seen[0]  # the next rerun gets a fresh one
