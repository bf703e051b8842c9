"""What a newcomer tripped over, each in a real browser at 1280×720, 1400×900 and in presenter mode where
it applies, with a screenshot of the fixed view: Tokenize opened by its name (every page by its name: test_a11y.py), a sample that suggests its settings, an
upload that always ends in a tokenizer or a message, a merge-count chart for a small tokenizer, Compare with eight
tokenizers, whole pattern names, a spinner while a rerun waits, a binary corpus, control characters, the note about
an uploaded tokenizer, and the first visit after a server start."""

from __future__ import annotations

import contextlib
import re
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from classroom.stores import FolderStore
from tokenizer import formats, train
from ui.content import corpora

from .conftest import SCREENSHOTS, StreamlitServer, assert_no_exception, choose, tab, wait_idle

pytestmark = pytest.mark.browser

#: (id, width, height, presenter mode)
VIEWS = [("1280x720", 1280, 720, False), ("1400x900", 1400, 900, False), ("present", 1280, 720, True)]
EIGHT = ["r50k_base", "cl100k_base", "o200k_base", "llama3", "qwen2.5", "qwen3.6", "tekken", "deepseek_v4"]
# Is an element shown whole? Every ancestor that clips (overflow other than visible) must hold all of its box.
SHOWN_WHOLE = """e => {
    const r = e.getBoundingClientRect();
    if (r.width === 0 || e.scrollWidth > e.clientWidth + 1) return false;
    for (let a = e.parentElement; a; a = a.parentElement) {
        const s = getComputedStyle(a);
        if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
        const b = a.getBoundingClientRect();
        if (r.left < b.left - 1 || r.right > b.right + 1) return false;
    }
    return true;
}"""
# Wait (up to 20 s) until the element's right edge is within ``right``; resolves either way, the caller then checks.
FITS_WITHIN = """(e, right) => new Promise((done) => {
    const t0 = performance.now();
    const poll = () => (e.getBoundingClientRect().right <= right + 1 || performance.now() - t0 > 20000)
        ? done(true) : requestAnimationFrame(poll);
    poll();
})"""
# Does anything inside scroll sideways (a table wider than the page)?
SCROLLS_SIDEWAYS = """e => [e, ...e.querySelectorAll('*')].some(x => {
    const s = getComputedStyle(x);
    return (s.overflowX === 'auto' || s.overflowX === 'scroll') && x.scrollWidth > x.clientWidth + 1;
})"""


@contextlib.contextmanager
def views_tab(tabs, server, views: list[tuple]):
    """A new tab (a session of its own) at the first of ``views``; ``pg.url_for(path)`` adds ?present=1 in presenter
    mode, ``pg.views`` are the sizes ``at_each_size`` goes through."""
    name, width, height, present = views[0]

    def url(path: str) -> str:
        return server.url + path + (("&" if "?" in path else "?") + "present=1" if present else "")

    with tab(tabs, server, width, height, 120_000) as pg:
        pg.name, pg.views, pg.url_for, pg.present = name, views, url, present
        yield pg


@pytest.fixture(params=VIEWS, ids=[v[0] for v in VIEWS])
def view(request, tabs, server):
    """A new tab at one of the three sizes, for a test that acts."""
    with views_tab(tabs, server, [request.param]) as pg:
        yield pg


#: the views a check of layout alone goes through in one tab: the two sizes in turn, or presenter mode
LAYOUTS = {"normal": VIEWS[:2], "present": VIEWS[2:]}


@pytest.fixture(params=list(LAYOUTS))
def layouts(request, tabs, server):
    """For a test that only looks: one tab per mode, which ``at_each_size`` resizes to each of the mode's sizes in turn
    (as a window is resized), instead of a tab and a page open per size. A test that acts takes ``view``."""
    with views_tab(tabs, server, LAYOUTS[request.param]) as pg:
        yield pg


def at_each_size(page):
    """Resize ``page`` (from ``layouts``) to each of its sizes; yields the size's name once the page is laid out."""
    for name, width, height, _ in page.views:
        if page.viewport_size != {"width": width, "height": height}:
            page.set_viewport_size({"width": width, "height": height})
            page.wait_for_timeout(800)  # let charts and tables lay out at the new size
            wait_idle(page)
        page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
        yield name


@pytest.fixture
def workspace(server):
    """The browser server's workspace (what a test adds to it is deleted afterwards: conftest's ``workspace_as_found``)."""
    return FolderStore(server.workspace)


def shot(page, name: str, locator=None) -> None:
    """artifacts/screenshots/newcomer-<name>.png: the element (scrolled to), or the screen."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.mouse.move(0, 0)
    page.wait_for_timeout(300)
    path = str(SCREENSHOTS / f"newcomer-{name}.png")
    if locator is None:
        page.screenshot(path=path)
    else:
        # the screen where the element is, not Locator.screenshot, which waits for it to be stable: a spinner may be
        # gone by then (the screenshot documents; the test has already found the element)
        locator.scroll_into_view_if_needed()
        box = locator.bounding_box()
        page.screenshot(path=path, clip=box) if box and box["width"] and box["height"] else page.screenshot(path=path)


def select(page, label: str, option: str) -> None:
    choose(page, page.locator('[data-testid="stSelectbox"]').filter(has_text=label).locator("input").first, option)
    wait_idle(page)


def vocab_box(page):
    return page.get_by_label("Vocab size", exact=True).and_(page.locator("input"))


# ----------------------------------------------------------------------------- 4. every page opens by its name
# (each page by its name: test_a11y.py, in the page open that checks its accessibility)


def test_tokenize_by_its_name_keeps_the_link(layouts, server):
    page = layouts
    page.goto(page.url_for("/tokenize?tokenizer=r50k_base&text=" + quote("Opened by its name")))
    wait_idle(page)
    page.wait_for_timeout(500)
    for size in at_each_size(page):
        expect(page.locator("h1").first).to_have_text("🔤 Tokenize")
        assert page.get_by_text("Page not found").count() == 0
        assert page.url.startswith(server.url + "/?") and "text=Opened+by+its+name" in page.url  # at / with its link
        assert ("present=1" in page.url) == page.present
        expect(page.locator(".bpe-present")).to_have_count(int(page.present))  # waits: a loaded machine draws it later
        assert_no_exception(page)
        shot(page, f"tokenize-by-name-{size}")


def test_a_fresh_server_answers_warm_and_by_name(browser, tmp_path):
    """The first visit after `make run` does not wait on "Loading the official encodings" (serve.py loads them before
    the server answers), and /tokenize works in the "pages folder" mode a fresh server starts in (shell.alias)."""
    srv = StreamlitServer(tmp_path / "ws").start()
    try:
        assert "BPE Lab: ready in" in srv.log.read_text()  # printed before the health check answered
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        page = context.new_page()
        page.set_default_timeout(90_000)
        page.add_init_script(
            """new MutationObserver(() => {
                if (document.body && document.body.innerText.includes('Loading the official encodings')) window.sawLoading = true;
            }).observe(document, {subtree: true, childList: true, characterData: true});"""
        )
        page.goto(srv.url + "/tokenize")
        wait_idle(page, timeout=90_000)
        page.wait_for_timeout(500)
        expect(page.locator("h1").first).to_have_text("🔤 Tokenize")
        assert page.get_by_text("Page not found").count() == 0
        assert not page.evaluate("() => window.sawLoading === true")
        assert_no_exception(page)
        context.close()
    finally:
        srv.stop()


# ----------------------------------------------------------------------------- 2. a sample suggests, never overwrites


def test_a_sample_never_overwrites_the_vocab_size(view, server):
    page = view
    page.goto(view.url_for("/train"))
    wait_idle(page)
    vocab_box(page).fill("2000")
    vocab_box(page).press("Enter")
    wait_idle(page)
    select(page, "Sample", corpora.label("honolulu"))
    expect(vocab_box(page)).to_have_value("2000")  # it became 257 before
    hint = page.get_by_text("suggests 257 tokens and no split pattern")
    expect(hint).to_be_visible()
    button = page.get_by_role("button", name="Use the suggested 257 · no split")
    button.scroll_into_view_if_needed()
    shot(page, f"train-suggestion-{view.name}")
    button.click()
    wait_idle(page)
    expect(vocab_box(page)).to_have_value("257")
    expect(page.get_by_text("suggests 257 tokens")).to_have_count(0)
    assert_no_exception(page)


# ----------------------------------------------------------------------------- 3. every upload ends in a tokenizer or a message


def tokenizer_files(name: str) -> dict[str, bytes]:
    import json

    tok = train(corpora.text("about-bpe"), 400, pattern="gpt4", name=name)
    return {
        f"{name}.tiktoken": formats.dumps_tiktoken(tok),
        f"{name}.tokenizer.json": json.dumps(formats.to_hf_json(tok)).encode(),
    }


def tokenizer_uploader(page):
    upload = page.locator('[data-testid="stExpander"] details').filter(has_text="Upload a tokenizer file")
    if upload.get_attribute("open") is None:
        page.get_by_text("Upload a tokenizer file").click()
    return page.locator('[data-testid="stFileUploader"]').filter(has_text="tokenizer.json").locator('input[type="file"]')


def as_file(name: str, data: bytes) -> dict:
    return {"name": name, "mimeType": "application/octet-stream", "buffer": data}


def test_the_uploader_outlives_its_own_upload(page, server, workspace):
    """The root cause of the silent upload: the message an upload leaves appeared above the uploader, so the browser
    dropped the uploader and drew a new one; a file picked or dropped on the old one meanwhile was lost."""
    page.goto(server.url + "/train")
    wait_idle(page)
    files = tokenizer_files("newcomer-first")
    uploader = tokenizer_uploader(page).element_handle()
    uploader.set_input_files(as_file("newcomer-first.tiktoken", files["newcomer-first.tiktoken"]))
    page.get_by_text("Uploaded newcomer-first.tiktoken as newcomer-first").wait_for()
    wait_idle(page)
    assert uploader.evaluate("e => e.isConnected")  # the same uploader, still on the page


def test_a_second_upload_right_after_the_first(page, server, workspace):
    """A tokenizer.json uploaded right after the tiktoken file of the same tokenizer is read (it once did nothing), and
    found to be the same tokenizer: kept once, not as a "(2)" copy."""
    page.goto(server.url + "/train")
    wait_idle(page)
    files = tokenizer_files("newcomer-twice")
    uploader = tokenizer_uploader(page)
    (first, first_data), (second, second_data) = files.items()
    with page.expect_request_finished(lambda r: "upload_file" in r.url and r.method == "PUT"):
        uploader.set_input_files(as_file(first, first_data))  # on the server: its rerun starts
    uploader.set_input_files(as_file(second, second_data))  # while the first one's rerun is still arriving
    page.get_by_text("newcomer-twice.tokenizer.json is the same tokenizer as newcomer-twice").wait_for()
    wait_idle(page)
    assert sorted(e.name for e in workspace.entries() if e.name.startswith("newcomer-twice")) == ["newcomer-twice"]
    expect(page.get_by_text("No pair counts: the file this tokenizer was uploaded from")).to_be_visible()
    assert_no_exception(page)
    page.set_viewport_size({"width": 1400, "height": 1800})
    page.wait_for_timeout(800)
    shot(page, "upload-twice")


def test_a_binary_corpus_says_what_it_is(page, server):
    page.goto(server.url + "/train")
    wait_idle(page)
    page.get_by_role("radio", name="Upload a file").click()  # the corpus source
    wait_idle(page)
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4
    page.locator('[data-testid="stFileUploader"]').filter(has_text="A text file").locator('input[type="file"]').set_input_files(
        as_file("photo.png", png)
    )
    wait_idle(page)
    message = page.get_by_text("photo.png is not UTF-8 text: it looks like a PNG image")
    expect(message).to_be_visible()  # before: a red "!" on the file chip, nothing else
    expect(page.get_by_text("copy its text and paste it under")).to_be_visible()
    assert_no_exception(page)
    shot(page, "binary-corpus")


def test_a_new_session_opens_on_a_trained_tokenizer_without_a_greeting(page, server, workspace):
    """The note about an uploaded tokenizer ("No training text is stored…") is said where it applies, not to every new
    session."""
    text = corpora.text("about-bpe")
    workspace.add(train(text, 300, pattern="gpt4", name="newcomer trained"), corpus=text)
    workspace.import_bytes(tokenizer_files("newcomer-uploaded")["newcomer-uploaded.tiktoken"], "newcomer-uploaded.tiktoken")
    page.goto(server.url + "/train")
    wait_idle(page)
    results = page.get_by_role("combobox", name="Results for")
    expect(results).to_have_value(re.compile(r"^newcomer trained · "), timeout=30_000)  # not the newer, uploaded one
    expect(page.locator('[data-testid="stAlert"]').filter(has_text="No training text")).to_have_count(0)
    assert_no_exception(page)


# ----------------------------------------------------------------------------- 5. the merge-count chart of a small tokenizer


def test_the_merge_count_chart_draws_for_a_small_tokenizer(layouts, server, workspace):
    """Trained once per mode; the chart is then read at each of the mode's sizes, as the window is resized."""
    page = layouts
    page.goto(page.url_for("/train"))
    wait_idle(page)
    vocab_box(page).fill("300")
    vocab_box(page).press("Enter")
    wait_idle(page)
    page.get_by_role("button", name=re.compile("Train$")).click()
    page.get_by_text(re.compile(r"Done: 44 merges")).wait_for()
    wait_idle(page)
    chart = page.locator('[data-testid="stVegaLiteChart"]').filter(has_text="Pair counts, merge by merge")
    for size in at_each_size(page):
        chart.scroll_into_view_if_needed()
        page.wait_for_timeout(800)
        heights = chart.locator("g.mark-rect path").evaluate_all("ps => ps.map(p => p.getBBox().height)")
        assert len(heights) == 44 and all(h > 0 for h in heights), size  # a bar per merge, each of some height
        ticks = chart.locator("g.role-axis").filter(has_text="count of the merged pair").locator("g.role-axis-label text")
        assert ticks.count() >= 2, size  # a y axis with numbers on it
        assert_no_exception(page)
        shot(page, f"train-merge-counts-300-{size}", chart)


# ----------------------------------------------------------------------------- 6. Compare with eight tokenizers


def test_compare_reads_with_eight_tokenizers(layouts, server):
    page = layouts
    page.goto(page.url_for("/compare?tokenizers=" + ",".join(EIGHT) + "&text=" + quote("Hello 你好, don't: 1234567")))
    wait_idle(page, timeout=240_000)
    from ui.common.tokenizers import OFFICIAL

    labels = [OFFICIAL[k] for k in EIGHT]
    main = page.locator('[data-testid="stMain"]')
    for size in at_each_size(page):
        height = page.viewport_size["height"]
        right = page.locator('[data-testid="stMainBlockContainer"]').bounding_box()
        right = right["x"] + right["width"]

        tax = page.locator('[data-testid="stVegaLiteChart"]').filter(has_text="Token tax: the same passage")
        tax.scroll_into_view_if_needed()
        page.wait_for_timeout(1000)
        box = tax.bounding_box()
        assert box["height"] <= height, box  # one screen (it was about 2,000 px of thin bars)
        heads = "".join(tax.locator("g.role-axis-label text").all_text_contents()).replace(" ", "")
        assert all(label.replace(" ", "") in heads for label in labels)  # every column headed by its full name
        shot(page, f"compare-token-tax-{size}", tax)

        board = page.locator('[data-testid="stVegaLiteChart"]').filter(has_text="English prose")
        if page.present:  # secondary: folded away in presenter mode
            page.get_by_text("Sample set: compression per tokenizer").first.click()
            wait_idle(page)
        board.scroll_into_view_if_needed()
        page.wait_for_timeout(1000)
        legend = board.locator("g.role-legend-label text").all_text_contents()
        assert legend == labels  # whole names: "Qwe…" before
        groups = board.locator("g.role-axis-label text").all_text_contents()
        assert "Chinese andJapanese" in groups and not any("…" in g for g in groups)  # two lines, each whole
        shot(page, f"compare-leaderboard-{size}", board)

        tables = main.locator('[data-testid="stTable"], [data-testid="stDataFrame"]')
        assert tables.count() >= 3  # statistics, differences, token tax, leaderboard
        for t in tables.all():
            t.scroll_into_view_if_needed()
            # a table is first drawn at its content's width and then fitted to the page (on a machine loaded by three
            # test workers, one was caught 1,466 px wide at 1280): what must hold is where it settles
            t.evaluate(FITS_WITHIN, right)
            assert not t.evaluate(SCROLLS_SIDEWAYS), t.inner_text()[:200]
            b = t.bounding_box()
            assert b["x"] + b["width"] <= right + 1, (b, right)
        assert_no_exception(page)


# ----------------------------------------------------------------------------- Pre-tokenize's pattern names


def test_every_pattern_name_shows_whole(layouts, server):
    page = layouts
    page.goto(page.url_for("/pretokenize"))
    wait_idle(page)
    chips = page.locator('[data-testid="stElementContainer"]').filter(has_text="Split patterns")
    for size in at_each_size(page):
        for label in ["GPT-2 (r50k_base)", "GPT-4 (cl100k_base)", "GPT-4o (o200k_base)", "Qwen 2.5 (Qwen 1, 2)", "No split"]:
            chip = chips.get_by_text(label, exact=True)
            assert chip.first.evaluate(SHOWN_WHOLE), f"{label} at {size}"  # "Qwen…" was cut off
        assert_no_exception(page)
        shot(
            page,
            f"pretokenize-patterns-{size}",
            page.locator('[data-testid="stElementContainer"]').filter(has_text="Split patterns").last,
        )


# ----------------------------------------------------------------------------- 8. a wait says what it waits for


def test_a_slow_regex_shows_a_spinner(view, server):
    page = view
    page.goto(view.url_for("/pretokenize"))
    wait_idle(page)
    text = page.get_by_label("Text to split", exact=True)
    text.fill("a" * 40 + "!")
    text.press("Control+Enter")
    wait_idle(page)
    regex = page.get_by_role("textbox", name="…and your own regex")
    regex.fill("(a|aa)+$")  # catastrophic: stopped after 2 s
    regex.press("Enter")
    spinner = page.locator('[data-testid="stSpinner"]').filter(has_text="Splitting the text with Your regex")
    spinner.wait_for(timeout=10_000)
    shot(page, f"spinner-{view.name}", spinner)
    wait_idle(page)
    expect(page.get_by_text("took longer than").first).to_be_visible()
    assert_no_exception(page)


# ----------------------------------------------------------------------------- control characters


def test_a_carriage_return_in_a_token_shows_as_its_byte(page, server):
    """o200k's id 125141 is "\\r\\n\\r\\n//": with whitespace hidden its carriage returns drew as empty boxes."""
    page.goto(server.url + "/compare?tokenizers=o200k_base&text=" + quote("x = 1;\r\n\r\n// done"))
    wait_idle(page)
    row = page.locator(".bpe-row").first
    expect(row.locator(".t .hx", has_text="<0D>").first).to_be_visible()
    assert row.locator(".t .hx", has_text="<0D>").count() == "x = 1;\r\n\r\n// done".count("\r")
    assert_no_exception(page)
    row.scroll_into_view_if_needed()
    shot(page, "control-characters")
