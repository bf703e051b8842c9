"""Real-browser fixtures: a `streamlit run` server on a free port and Debian's Chromium (both from bench/harness.py).

Playwright drives /usr/bin/chromium (installed by `make browser`); it never downloads
a browser. Screenshots go to artifacts/screenshots/ (a CI artifact).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from harness import CHROMIUM, CHROMIUM_ARGS, StreamlitServer, free_port, wait_idle

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "artifacts" / "screenshots"


#: How long an ``expect(...)`` waits for the page by default (Playwright's own default is 5 s). `make test` runs the
#: browser tests beside a second worker's scans, where a component's first drawing can take longer than 5 s; what
#: must be fast is held to its budget by the `latency` tests, which measure it and run alone.
EXPECT_TIMEOUT = 20_000


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=EXPECT_TIMEOUT)

    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"{CHROMIUM} is missing: run `make browser` (apt-get install chromium); the browser suite never downloads one"
        )
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    srv = StreamlitServer(tmp_path_factory.mktemp("workspace")).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="session")
def tabs(browser, server):
    """The browser context (one per test worker) that the tests' pages open in, as tabs of one browser.

    Opening a page in a fresh context makes Chromium compile the app's scripts again; a new tab of this context, with
    the tab ``keeper`` holding the site's renderer process (``--process-per-site``), starts with them compiled
    (docs/performance.md, "The test suite"). A tab closes after its test and ``forget`` clears what the site stored in the browser, so each
    test still starts as a new visitor with a session of its own. Tests of what a browser keeps (cookies, a reload,
    two students) open contexts of their own.
    """
    context = browser.new_context()
    keeper = context.new_page()
    keeper.goto(server.url + "/_stcore/health")
    yield context
    context.close()


@contextlib.contextmanager
def tab(tabs, server, width: int, height: int, timeout: float):
    """A new tab of ``tabs`` at ``width`` x ``height`` with a default timeout; forgotten and closed after the test."""
    pg = tabs.new_page()
    pg.set_viewport_size({"width": width, "height": height})
    pg.set_default_timeout(timeout)
    try:
        yield pg
    finally:
        forget(tabs, pg, server.url)


def forget(context, pg, *urls: str) -> None:
    """Close ``pg`` and clear what the sites at ``urls`` and the page's own stored in ``context`` (cookies, local and
    session storage, Cache Storage, IndexedDB), so the next tab is a new visitor; the compiled scripts stay."""
    origins = {f"{p.scheme}://{p.netloc}" for p in map(urlsplit, (*urls, pg.url)) if p.scheme in ("http", "https")}
    try:
        cdp = context.new_cdp_session(context.pages[0])  # the keeper: a tab the test closed or crashed can still be forgotten
        for origin in sorted(origins):
            cdp.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
        cdp.detach()
    finally:
        if not pg.is_closed():
            pg.close()
        context.clear_cookies()


@pytest.fixture(autouse=True)
def workspace_as_found(request):
    """Whatever a test adds to the session server's workspace (a tokenizer trained on the page, one it stored) is
    deleted after it, so every test finds the library as the test before it did. Compare opens with the newest
    tokenizer of yours beside its three: a tokenizer left by whichever module ran earlier on the same worker gave it a
    fourth row (test_compare failed that way when the modules came in another order)."""
    if "server" not in request.fixturenames:
        yield
        return
    from classroom.stores import FolderStore

    store = FolderStore(request.getfixturevalue("server").workspace)
    before = set(store.keys())
    yield
    for key in set(store.keys()) - before:
        store.delete(key)


@pytest.fixture
def page(tabs, server):
    with tab(tabs, server, 1400, 1000, 30_000) as pg:
        yield pg


@pytest.fixture
def projector(tabs, server):
    """A page the size of a classroom projector (1280x720), where presenter mode is checked."""
    with tab(tabs, server, 1280, 720, 60_000) as pg:
        yield pg


def choose(page, box, option: str) -> None:
    """Choose ``option`` in a selectbox (``box``: the box's input) as a person does: open its list, click the option.

    Streamlit's list (react-aria's, not modal) closes at any scroll of a scroller around the box, and the browser
    fires ``scroll`` at its next frame, not when it scrolls. A click scrolls its target into view and presses a few
    milliseconds later, so on a busy machine that frame can come after the press has opened the list: it closes at
    once and the option never shows. So the box is first left at rest (not inside something still moving, such as
    an expander opening, which clips it and makes the click retry with a scroll), scrolled into view, and a frame
    let pass, so the click has nothing left to scroll. The box must then say its list is open, and if anything else
    closes it, the option is not found and the test fails.
    """
    open_list(page, box)
    page.get_by_role("option", name=option, exact=True).click()


def open_list(page, box) -> None:
    """Open a selectbox's list (``box``: its input) with no scroll left pending (see ``choose``)."""
    from playwright.sync_api import expect

    page.wait_for_function(
        """el => { for (let n = el; n; n = n.parentElement) if (n.getAnimations().some((a) => a.playState === "running")) return false;
                   return true; }""",
        arg=box.element_handle(),
    )
    box.scroll_into_view_if_needed()
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    box.click()
    expect(box).to_have_attribute("aria-expanded", "true")


#: the axe-core impacts a page must not have (moderate and minor findings are printed)
SERIOUS = ("serious", "critical")


def accessibility_findings(page) -> tuple[list[str], list[str]]:
    """axe-core's violations on the page as it is: (serious or critical, the rest), each as 'rule (impact): n nodes,
    first: <html> (axe's reason)'."""
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page).response["violations"]

    def line(v: dict) -> str:
        first = v["nodes"][0]
        why = " ".join(first.get("failureSummary", "").split())[:300]  # axe's reason: the colours and ratio it measured
        return f"{v['id']} ({v['impact']}): {len(v['nodes'])} nodes, first: {first['html'][:160]} ({why})"

    return [line(v) for v in found if v["impact"] in SERIOUS], [line(v) for v in found if v["impact"] not in SERIOUS]


def assert_accessible(page, label: str) -> None:
    """No serious or critical axe-core violation on the page once it is drawn and still (tests/browser/test_a11y.py,
    and each page in presenter mode in test_present.py)."""
    from playwright.sync_api import expect

    wait_idle(page, timeout=60_000)
    if page.locator(".bpe-live").count():  # Tokenize's live view: drawn in the page once its model loads, and it may
        # tell the server the text a moment later (a rerun fades the page, which axe would read as low contrast)
        expect(page.locator(".bpe-live .bpe-spans").first).to_be_visible(timeout=90_000)
        page.wait_for_timeout(1_500)
        wait_idle(page, timeout=60_000)
    # an element left from the run before fades while the next run has not replaced it yet (axe reads a fading <code>
    # in a caption as low contrast: Compare failed that way once in CI); the page is read once none is left
    expect(page.locator('[data-testid="stElementContainer"][data-stale="true"]')).to_have_count(0, timeout=60_000)
    wait_idle(page, timeout=60_000)
    # and once no fade is running (CI on two workers still caught Compare's caption <code> mid-fade): a real contrast
    # problem stays after its animation ends, a fade does not
    page.wait_for_function(
        "() => document.getAnimations().every((a) => a.playState !== 'running' || a.effect.getTiming().iterations === Infinity)",
        timeout=30_000,
    )
    assert_no_exception(page)
    bad, other = accessibility_findings(page)
    if bad:
        # CI on two workers twice read Compare's caption <code> as low contrast, with every finite animation over; run
        # alone, under CPU load and after the same modules, it never was. A real problem is still there two seconds
        # later; what the first read saw is printed either way, with axe's colours and ratio
        print(f"{label}: first read: {bad}")
        page.wait_for_timeout(2_000)
        wait_idle(page, timeout=60_000)
        bad, other = accessibility_findings(page)
    print(f"{label}: {other or 'no other findings'}")
    assert bad == []


def screenshot(page, name: str, *, height: int | None = None) -> Path:
    """Save artifacts/screenshots/<name>.png of what a person sees now.

    Streamlit scrolls inside its own container, so a "full page" shot is one screen:
    pass ``height`` to make the screen that tall first. The mouse is moved away so
    no hover tooltip covers the page.
    """
    if height is not None:
        page.set_viewport_size({"width": 1400, "height": height})
        page.wait_for_timeout(800)  # let charts and tables lay out at the new size
        wait_idle(page)
    page.mouse.move(0, 0)
    page.wait_for_timeout(400)  # hover tooltips fade
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def paste(page, text: str) -> None:
    """Type into the "Text" box as a person would paste, then submit with Ctrl+Enter."""
    box = page.get_by_label("Text", exact=True)
    box.fill(text)
    box.press("Control+Enter")
    wait_idle(page)


def assert_no_exception(page) -> None:
    errors = page.locator('[data-testid="stException"]')
    assert errors.count() == 0, errors.first.inner_text()


@pytest.fixture
def trained(server):
    """A tokenizer of the user's in the browser server's workspace for one test (Train shows its results, Step its
    training); ``workspace_as_found`` deletes it afterwards."""
    import tokenizer
    from classroom.stores import FolderStore
    from ui.content import corpora

    tokenizer.configure()
    text = corpora.text("about-bpe")
    store = FolderStore(server.workspace)
    key = store.add(tokenizer.train(text, 600, pattern="gpt4", name="essay 600"), corpus=text)
    return "user:" + key


class ClassroomServer:
    """`make serve`'s command (python -m classroom): nginx in front of app processes, a data folder of its own.

    The data folder links to the provisioned rank files and merge cache, so the app
    processes start as fast as in a real deployment; the workspaces database is fresh.
    """

    def __init__(self, data: Path, workers: int = 2, env: dict | None = None):
        self.data = data
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.workers = workers
        self.extra_env = env or {}
        self.proc: subprocess.Popen | None = None
        self.log = data / f"classroom-{self.port}.log"
        data.mkdir(parents=True, exist_ok=True)
        for name in ("tiktoken-cache", "cache", "encodings"):
            if (ROOT / "data" / name).exists() and not (data / name).exists():
                (data / name).symlink_to(ROOT / "data" / name)

    def start(self) -> ClassroomServer:
        env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "BPE_LAB_DATABASE_URL", "TIKTOKEN_CACHE_DIR")}
        env.update({"BPE_LAB_DATA_DIR": str(self.data), "PORT": str(self.port), "WORKERS": str(self.workers)}, **self.extra_env)
        self._logf = open(self.log, "a")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "classroom"],
            cwd=ROOT,
            env=env,
            stdout=self._logf,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
        deadline = time.time() + 180
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"python -m classroom exited early:\n{self.log.read_text()}")
            if "BPE Lab for a class:" in self.log.read_text():
                return self
            time.sleep(0.3)
        raise RuntimeError(f"the classroom did not start in 180 s:\n{self.log.read_text()}")

    def children(self) -> dict[str, list[int]]:
        """The programs its supervisord runs, by kind: ``{"app": [pids], "nginx": [pid], "other": [the event listener]}``."""
        from processes import programs

        return programs(self.proc.pid)

    def stop(self) -> int | None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._logf.close()
        return self.proc.returncode if self.proc else None
