"""``streamlit run app.py``, the Streamlit convention (and what Streamlit's hosting runs), opens every page."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.test_entry_point import HEADINGS

from .conftest import StreamlitServer, assert_no_exception, tab, wait_idle

pytestmark = pytest.mark.browser


def test_streamlit_run_app_py_opens_every_page_in_local_mode(browser, tmp_path):
    srv = StreamlitServer(tmp_path / "ws", script="app.py").start()
    context = browser.new_context()
    try:
        for name, heading in HEADINGS.items():
            with tab(context, srv, 1400, 1000, 60_000) as page:
                page.goto(srv.url + ("/" if name == "tokenize" else f"/{name}"))
                wait_idle(page, timeout=90_000)
                expect(page.locator("h1").first).to_contain_text(heading)
                expect(page.locator('[data-testid="stSidebar"]')).to_contain_text(
                    f"Local mode: tokenizers are saved in {srv.workspace}."
                )
                assert_no_exception(page)
    finally:
        context.close()
        srv.stop()
