"""A tokenizer's name, a file's name and a message quoting what a student typed are shown as typed on every page:
each Markdown element that holds one has its metacharacters escaped (``md``) or holds it in a code span it cannot
close (``code``), so no bold, link, image or HTML of the student's own reaches another page or the student."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from classroom.stores import FolderStore
from tokenizer import train
from ui.render.markdown import code, md

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = "**bold** [x](http://e.com) <b>h</b>"
#: what HOSTILE would render as if it were read as Markdown: bold, a link, an HTML tag
RAW = ("**bold**", "[x](", "<b>")
CORPUS = "low lower lowest newer wider " * 20


def bodies(at: AppTest) -> list[str]:
    """The Markdown source of every element Streamlit renders as Markdown (messages, text, labels, help)."""
    out = []
    for kind in ("markdown", "caption", "error", "warning", "success", "info", "title", "header", "subheader", "toast"):
        out += [e.value for e in at.get(kind)]
    for kind in ("expander", "tab"):
        out += [e.label for e in at.get(kind)]
    widgets = ("metric", "button", "button_group", "checkbox", "toggle", "selectbox", "multiselect", "radio")
    for kind in (*widgets, "text_input", "text_area", "number_input", "slider", "select_slider", "download_button"):
        for e in at.get(kind):
            out += [getattr(e.proto, "label", ""), getattr(e.proto, "help", "")]  # both are Markdown
    return [b for b in out if isinstance(b, str) and b]


def shown_literally(at: AppTest, text: str = HOSTILE) -> list[str]:
    """The bodies that show ``text``; asserts that none of them has it as Markdown."""
    assert not at.exception, at.exception
    found = []
    for body in bodies(at):
        safe = body.replace(code(text), "")  # a code span shows its content as typed
        assert not any(r in safe for r in RAW), body
        if md(text) in body or code(text) in body or md(repr(text)) in body:
            found.append(body)
    return found


def planted(workspace, n: int = 1, **kwargs) -> list[str]:
    store = FolderStore(workspace)
    return [
        "user:" + store.add(train(CORPUS, 270 + i, pattern="gpt2", name=f"{HOSTILE} {i}", **kwargs), corpus=CORPUS)
        for i in range(n)
    ]


def page(name: str, **query) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / f"{name}.py"), default_timeout=120)
    for k, v in query.items():
        at.query_params[k] = v
    return at.run()


def test_the_helpers_escape_every_markdown_metacharacter():
    escaped = md(HOSTILE)
    assert escaped == r"\*\*bold\*\* \[x\]\(http\://e\.com\) \<b\>h\</b\>"
    assert not any(r in escaped for r in RAW)
    assert code("a ` b") == "``a ` b``" and code("``x") == "``` ``x ```"


def test_tokenize_shows_a_users_special_token_as_typed(workspace):
    special = "`" + HOSTILE  # a backtick of its own: it cannot close the code span that shows it
    [key] = planted(workspace, special_tokens=[special])
    at = page("tokenize", tokenizer=key, text="lower newer")
    assert any(code(special) in b for b in shown_literally(at, special))


def test_compare_shows_users_tokenizer_names_as_typed(workspace):
    keys = planted(workspace, 2)
    at = page("compare", tokenizers=",".join(keys), text="lower newer")
    assert shown_literally(at)


def test_overlap_shows_users_tokenizer_names_as_typed(workspace):
    keys = planted(workspace, 2)
    at = page("overlap", tokenizers=",".join(keys))
    found = shown_literally(at)
    assert any("Only in" in b for b in found) and any(b.startswith(md(HOSTILE)) for b in found)  # metrics and tabs


def test_vocabulary_and_its_merge_tree_note_show_what_was_typed(workspace):
    [key] = planted(workspace)
    at = page("vocabulary")
    at.selectbox(key="vocab.tokenizer").set_value(key).run()
    assert not at.exception
    at.text_input(key="vocab.tree_text").input(HOSTILE).run()
    notes = [w.value for w in at.warning if "is not one token" in w.value]
    assert notes and shown_literally(at)


def test_step_through_shows_a_users_tokenizer_name_as_typed(workspace):
    [key] = planted(workspace)
    at = page("step", mode="training", tokenizer=key)
    shown_literally(at)  # whatever it shows of the name is literal
    assert not at.exception


def test_train_shows_a_users_tokenizer_name_as_typed(workspace):
    planted(workspace)
    at = page("train")
    shown_literally(at)
    at.button(key="train.delete").click().run()
    assert any(f"Delete **{md(HOSTILE)} 0**" in w.value for w in at.warning)
    assert shown_literally(at)


@pytest.mark.parametrize(
    ("name", "query", "says"),
    [
        ("tokenize", {"tokenizer": HOSTILE}, "The link names tokenizer"),
        ("step", {"mode": "training", "tokenizer": HOSTILE}, "The link asks for tokenizer"),
        ("overlap", {"tokenizers": HOSTILE}, "The link names tokenizers"),
        ("compare", {"tokenizers": HOSTILE}, "The link names tokenizers"),
    ],
)
def test_a_link_naming_an_unknown_tokenizer_is_quoted_as_typed(workspace, name, query, says):
    planted(workspace)
    at = page(name, **query)
    [warning] = [w.value for w in at.warning if says in w.value]
    assert md(HOSTILE) in warning and not any(r in warning for r in RAW), warning
    shown_literally(at)


def test_an_error_the_library_raises_quoting_the_student_is_shown_as_typed(monkeypatch):
    """``errors.shown`` (every page's red box for a ValueError) escapes the message and its prefix."""
    at = AppTest.from_string(
        "import streamlit as st\n"
        "from ui.common import errors\n"
        f"with errors.shown(prefix={HOSTILE!r} + ': '):\n"
        f"    raise ValueError('unknown tokenizer ' + repr({HOSTILE!r}))\n"
    ).run()
    [message] = [e.value for e in at.error]
    assert message == md(f"{HOSTILE}: unknown tokenizer {HOSTILE!r}")
