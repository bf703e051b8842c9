"""The classroom deployment (`make serve`: nginx in front of app processes, shared mode, a database), in a real browser.

A tokenizer trained in shared mode survives a reload and a restart of the whole
deployment; another browser can neither see it nor reach it by link; killing the
app processes shows Streamlit's reconnect and then the student's work; SIGTERM stops
every process the command started.
"""

from __future__ import annotations

import os
import re
import signal
import time

import pytest

from .conftest import ClassroomServer, assert_no_exception, screenshot, wait_idle

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def classroom(tmp_path_factory):
    srv = ClassroomServer(tmp_path_factory.mktemp("classroom")).start()
    yield srv
    srv.stop()


def new_page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1400})
    page = context.new_page()
    page.set_default_timeout(60_000)
    return context, page


def train(page, url: str, name: str) -> str:
    """Train a tiny tokenizer on the Train page; returns its workspace key."""
    page.goto(url + "/train")
    wait_idle(page)
    page.get_by_role("radio", name="Paste text").click()
    wait_idle(page)
    page.get_by_role("textbox", name="Training text").fill("Honolulu honolulu " * 20)
    page.get_by_role("textbox", name="Name", exact=True).first.fill(name)
    page.get_by_role("textbox", name="Name", exact=True).first.press("Enter")
    wait_idle(page)
    page.get_by_role("button", name=re.compile("Train$")).click()
    page.get_by_text(re.compile(f"Trained {name}")).wait_for()
    wait_idle(page)
    page.goto(url + "/step?mode=training")
    wait_idle(page)
    return (
        re.search(r"tokenizer=user%3A([\w-]+)|tokenizer=user:([\w-]+)", page.url)
        .group(0)
        .split("%3A" if "%3A" in page.url else ":")[-1]
    )


def shown_result(page) -> str:
    return page.get_by_role("combobox", name="Results for").input_value()


def _app_port(classroom) -> int:
    import subprocess

    pid = classroom.children()["app"][0]
    args = subprocess.run(["ps", "-ww", "-o", "args=", "-p", str(pid)], capture_output=True, text=True).stdout.split()
    return int(args[args.index("--server.port") + 1])


def test_nginx_serves_streamlits_own_assets_compressed(classroom):
    """classroom/deploy.py copies the installed Streamlit's static folder (package data, the one thing it reads
    from Streamlit's files) for nginx: what nginx serves, gzipped, is byte for byte what an app process serves."""
    import gzip
    import urllib.request

    def get(url: str, encoding: str | None = None) -> tuple[bytes, str | None]:
        req = urllib.request.Request(url, headers={"Accept-Encoding": encoding} if encoding else {})
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.read(), r.headers.get("Content-Encoding")

    app = f"http://127.0.0.1:{_app_port(classroom)}"
    index, _ = get(classroom.url + "/")
    assets = re.findall(r'(?:src|href)="\.?/?(static/[^"]+\.(?:js|css))"', index.decode())
    assert assets, index[:500]
    sizes = {}
    for asset in assets:
        body, encoding = get(f"{classroom.url}/{asset}", "gzip")
        own = get(f"{app}/{asset}")[0]
        assert (gzip.decompress(body) if encoding == "gzip" else body) == own, asset
        sizes[asset] = (len(own), encoding)
    biggest = max(sizes, key=lambda a: sizes[a][0])
    assert sizes[biggest][1] == "gzip", sizes  # the main bundle (megabytes) goes out compressed; tiny files may not


def test_nginx_serves_the_live_views_hashed_files_for_a_year(classroom):
    """The model files and modules the app writes to its static folder (named by their content) come from nginx
    itself, compressed, with a cache lifetime of a year; byte for byte what the app process serves."""
    import gzip
    import urllib.request

    from tokenizer import train
    from ui.web import model as web

    def get(url: str) -> tuple[bytes, dict]:
        req = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"})
        with urllib.request.urlopen(req, timeout=30) as r:
            body = r.read()
            return (gzip.decompress(body) if r.headers.get("Content-Encoding") == "gzip" else body), dict(r.headers)

    data = web.model_file(train("a classroom of forty " * 30, 300, pattern="gpt4"))
    paths = [web.publish_model(data, web.STATIC), web.publish_assets(web.STATIC) + "bpe.js"]
    app = f"http://127.0.0.1:{_app_port(classroom)}"
    for path in paths:
        body, headers = get(f"{classroom.url}/{path}")
        assert body == get(f"{app}/{path}")[0], path
        assert "immutable" in headers.get("Cache-Control", "") and "max-age=31536000" in headers["Cache-Control"], headers
        assert headers.get("Content-Encoding") == "gzip", headers
    assert body == (web.WEB / "bpe.js").read_bytes()
    assert headers["Content-Type"].split(";")[0] in ("application/javascript", "text/javascript")  # a module worker needs it


def test_the_cookie_is_http_only_and_never_in_a_link(browser, classroom):
    context, page = new_page(browser)
    page.goto(classroom.url + "/")
    wait_idle(page)
    [cookie] = [c for c in context.cookies() if c["name"] == "bpe_lab_browser"]
    assert cookie["httpOnly"] and cookie["sameSite"] == "Lax" and re.fullmatch(r"[0-9a-f]{32}", cookie["value"])
    assert page.evaluate("document.cookie").find("bpe_lab_browser") == -1  # page scripts cannot read it
    page.get_by_label("Text", exact=True).fill("a link")
    page.get_by_label("Text", exact=True).press("Control+Enter")
    wait_idle(page)
    assert cookie["value"] not in page.url
    context.close()


def test_work_survives_a_reload_and_stays_private(browser, classroom):
    ctx_a, a = new_page(browser)
    key = train(a, classroom.url, "alice")
    a.goto(classroom.url + "/train")
    wait_idle(a)
    assert shown_result(a).startswith("alice · ")
    a.reload()
    wait_idle(a)
    assert shown_result(a).startswith("alice · ")  # a reload is a new session; the work is in the database
    ctx_b, b = new_page(browser)
    b.goto(classroom.url + "/train")
    wait_idle(b)
    b.get_by_text("Nothing trained yet").wait_for()
    assert b.get_by_text("alice").count() == 0
    b.goto(f"{classroom.url}/step?mode=training&tokenizer=user%3A{key}&step=3")  # Alice's link, opened by Bob
    wait_idle(b)
    assert b.get_by_text("alice").count() == 0
    b.goto(f"{classroom.url}/?tokenizer=user%3A{key}&text=hi")
    wait_idle(b)
    b.get_by_text(re.compile("which is not available here")).wait_for()
    assert_no_exception(b)
    screenshot(b, "classroom-other-browser")
    ctx_a.close()
    ctx_b.close()


def test_a_killed_app_process_costs_a_reconnect_not_the_work(browser, classroom):
    context, page = new_page(browser)
    train(page, classroom.url, "survivor")
    page.goto(classroom.url + "/train")
    wait_idle(page)
    apps = classroom.children()["app"]
    assert len(apps) == classroom.workers, (classroom.proc.poll(), classroom.log.read_text()[-3000:])
    for pid in apps:  # every app process, so the one holding this session is among them
        os.kill(pid, signal.SIGKILL)
    # Streamlit's own reconnect: the page greys out while it pings the server, then it is back
    app = page.locator('[data-testid="stApp"]')
    page.wait_for_function(
        "document.querySelector('[data-testid=stApp]').dataset.testConnectionState !== 'CONNECTED'", timeout=30_000
    )
    screenshot(page, "classroom-reconnecting")
    deadline = time.time() + 120
    while time.time() < deadline and len([p for p in classroom.children()["app"] if p not in apps]) < classroom.workers:
        time.sleep(0.5)
    page.wait_for_function(
        "document.querySelector('[data-testid=stApp]').dataset.testConnectionState === 'CONNECTED'", timeout=120_000
    )
    assert app.get_attribute("data-test-connection-state") == "CONNECTED"
    page.get_by_role("combobox", name="Results for").wait_for(timeout=120_000)
    wait_idle(page, timeout=120_000)
    assert shown_result(page).startswith("survivor · ")
    assert_no_exception(page)
    assert "exited: app-1 (terminated by SIGKILL; not expected)" in classroom.log.read_text()  # supervisord's log
    screenshot(page, "classroom-after-reconnect")
    context.close()


def test_work_survives_a_restart_of_the_deployment(browser, tmp_path):
    # one app process: what survives is in the database, which every process reads alike (the module's deployment
    # has two, for the tests about processes); each deployment's start is half the CPU
    first = ClassroomServer(tmp_path / "data", workers=1).start()
    try:
        context, page = new_page(browser)
        train(page, first.url, "lasting")
        state = context.storage_state()  # the browser's cookie, kept as a browser keeps it
        context.close()
    finally:
        assert first.stop() == 0
    assert first.children() == {"app": [], "nginx": [], "other": []}  # SIGTERM stopped every process it started
    second = ClassroomServer(tmp_path / "data", workers=1)
    second.port, second.url = first.port, first.url  # the same address, so the cookie goes with it
    second.start()
    try:
        context = browser.new_context(viewport={"width": 1400, "height": 1400}, storage_state=state)
        page = context.new_page()
        page.goto(second.url + "/train")
        wait_idle(page)
        assert shown_result(page).startswith("lasting · ")
        assert_no_exception(page)
        context.close()
    finally:
        second.stop()
