"""The shell around every page: shared state, the stylesheet, the sidebar, and the way in.

``app.py`` builds the navigation and hands the chosen page to ``run``; every file in
``pages/`` starts with ``open_page(__file__, view.STATE)``. Between them, each page
starts the same way however it was reached: the session's shared values and the
page's defaults set, the one stylesheet on the page, the sidebar drawn, and (when
reached through app.py) the wide layout.

**Deep links on a fresh server.** Streamlit starts an app whose entry point has a
``pages/`` folder next to it in its older "pages folder" mode, and leaves that mode
for good as soon as any session calls ``st.navigation``. In that mode a link such as
``/step?step=12``, opened before anyone has loaded the app, runs ``pages/step.py``
alone: no app.py, so no wide layout, no sidebar of ours, and the folder's file
names as the navigation. ``run`` marks every run it makes. A page that finds no
mark calls ``st.navigation`` itself (hidden, with app.py and this page, as the old
mode lists them; the call leaves the old mode) and then ``st.rerun()``: the rerun
goes through app.py, which opens the same page (same URL path) with the same
query parameters. A page run on its own on purpose
(``AppTest.from_file("pages/step.py")``, ``streamlit run pages/step.py``) has no
``app.py`` and ``pages/`` next to its entry point, so ``st.Page`` cannot find them
and the page runs alone, as written. A page never asks twice in a row, so nothing
can loop.
"""

from __future__ import annotations

import contextvars
import gc
from pathlib import Path

import streamlit as st
from streamlit.errors import StreamlitAPIException

import tokenizer
from tokenizer.models.provision import ESSENTIAL
from ui.render import STYLESHEET

from . import presenter, state, tokenizers, workspace

#: The app's entry point (``streamlit run app.py``), relative to the project root.
ENTRY_POINT = "app.py"
# True while app.py's run() runs a page (each script run has its own thread, so its own value).
_through_app: contextvars.ContextVar[bool] = contextvars.ContextVar("bpe_lab_through_app", default=False)
# Set when a page asked for a rerun through app.py; cleared by the next run of app.py.
_REDIRECTED = "shell.redirected"


def run(page) -> None:
    """Run the page ``st.navigation`` chose, inside the shell (called by app.py, once per run)."""
    start_up()
    st.session_state[_REDIRECTED] = False
    state.SHARED.init()
    presenter.restore()
    if presenter.on():
        st.set_page_config(initial_sidebar_state="collapsed")  # presenter mode: the sidebar starts folded away
    inject_style()
    sidebar()
    presenter.publish()
    mark = _through_app.set(True)
    try:
        # one regex time budget for the whole rerun: however many calls a page makes with a
        # custom split pattern (validate, train, encode), together they get about two seconds
        with tokenizer.time_limit():
            page.run()
    finally:
        _through_app.reset(mark)


def alias(target: st.Page, url_path: str) -> st.Page:
    """A hidden page at ``/<url_path>`` that opens ``target`` with the same query parameters.

    For the default page: Streamlit serves it at ``/`` only, so its name in the
    address bar (``/tokenize``, also what a link opened on a fresh server reaches
    through ``_rerun_through_app``) would otherwise say "Page not found".
    """

    def go() -> None:
        st.switch_page(target, query_params=[(k, v) for k in st.query_params for v in st.query_params.get_all(k)])

    return st.Page(go, title=target.title, icon=target.icon, url_path=url_path, visibility="hidden")


def open_page(file: str, page_state: state.PageState) -> None:
    """The first line of every page file: make sure the page runs inside the shell, then set its defaults.

    ``file`` is the page file's ``__file__``.
    """
    if not _through_app.get():
        _rerun_through_app(Path(file).name)
        state.SHARED.init()
        presenter.restore()
        inject_style()
        presenter.marker()
    page_state.init()
    workspace_notices()


def _rerun_through_app(file_name: str) -> None:
    """Leave Streamlit's "pages folder" mode and rerun through app.py (see the module docstring); returns when the page is meant to run alone."""
    if st.session_state.get(_REDIRECTED):
        return  # asked once already and app.py did not run: run alone rather than loop
    try:
        # as Streamlit's pages-folder mode lists them: the entry point (the default page, at "/") and this page,
        # under the URL path of its file name; both relative to the entry point, as app.py writes them
        entry, this = st.Page(ENTRY_POINT, default=True), st.Page(f"pages/{file_name}")
    except StreamlitAPIException:
        return  # the entry point has no app.py and pages/ next to it: this page is the entry point (AppTest, `streamlit run pages/x.py`)
    st.session_state[_REDIRECTED] = True
    st.navigation([entry, this], position="hidden")  # public API; leaves the "pages folder" mode for the whole server
    st.rerun()


def workspace_notices() -> None:
    """What the page must say about the user's saved work first (shared mode): an expired workspace, no cookie, no database."""
    icons = {"error": "⚠️", "warning": "🗂️", "info": "ℹ️"}
    with st.container():  # one slot, however many: the page below keeps its place (a widget that moves is redrawn)
        for notice in workspace.notices():
            getattr(st, notice.kind)(notice.message, icon=icons[notice.kind])


def inject_style() -> None:
    """Put the one stylesheet (ui/render/style.css) on the page; once per run."""
    st.html(STYLESHEET)


def sidebar() -> None:
    """The sidebar every page shares (below the page navigation)."""
    with st.sidebar:
        presenter.switch()
        presenter.marker()
        if presenter.on():
            return  # folded away, and short enough never to scroll at presenter mode's size
        st.caption(
            "**BPE Lab** shows how byte-level BPE tokenizers (OpenAI's GPT-2 to GPT-4o, open models such as Llama, "
            "Qwen and Mistral, and your own) turn text into tokens, one merge at a time."
        )
        st.caption(workspace.describe())


# no spinner: the server's start-up (classroom.asgi) runs it before any session exists, where one has no page
@st.cache_resource(show_spinner=False)
def start_up() -> bool:
    """Once per server process: ``tokenizer.configure()``, load OpenAI's three encodings, then ``gc.freeze()``.

    ``gc.freeze()`` keeps collections during reruns from walking the long-lived tables (docs/performance.md). Only
    ``provision.ESSENTIAL``, which every page starts with; the others load when someone first picks one.
    """
    tokenizer.configure()  # tiktoken, wherever it is imported, reads the provisioned files offline
    for name in ESSENTIAL:
        if tokenizers.available(name):
            tokenizers.official(name)
    gc.freeze()
    return True
