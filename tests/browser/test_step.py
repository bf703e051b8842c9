"""Step through in a real browser: the stepping runs in the page (ui/step/stepper.js), exact to ui/step/model.py.

Latency is measured in the page, from the key or click event to the frame that shows the
new step; server messages are the websocket frames the page sends (``framesent``).
"""

from __future__ import annotations

import re
import statistics
import time

import pytest
from drawn import render

from classroom.stores import FolderStore
from tests import step_reference as reference
from tokenizer import load_encoding
from ui.content import corpora
from ui.content.samples import DEFAULT_TEXT
from ui.render import records
from ui.step import model

from .conftest import StreamlitServer, assert_no_exception, open_list, screenshot, wait_idle
from .test_shell import assert_inside_the_app

pytestmark = pytest.mark.browser
STEP = ".bpe-stepper [data-fig=step] .v"


def shown(page) -> tuple[int, int]:
    a, b = page.locator(STEP).inner_text().split(" of ")
    return int(a.replace(",", "")), int(b.replace(",", ""))


def url_step(page) -> int:
    return int(re.search(r"[?&]step=(\d+)", page.url).group(1))


def open_step(page, url: str) -> None:
    page.goto(url)
    page.locator(".bpe-stepper[data-k]").wait_for(timeout=60_000)
    wait_idle(page)


def wait_step(page, k: int) -> None:
    page.wait_for_function(f"document.querySelector('.bpe-stepper')?.dataset.k === '{k}'", timeout=10_000)


class Frames:
    """The websocket messages the page sends to the server (register before the page opens)."""

    def __init__(self, page):
        self.sent: list[float] = []
        page.on("websocket", lambda ws: ws.on("framesent", lambda _: self.sent.append(time.monotonic())))

    def since(self, t: float) -> int:
        return sum(1 for s in self.sent if s >= t)


#: How long stepping rests before the page tells the server the step (ms): stepper.js's REPORT_AFTER. Written out here,
#: not read from there, so that a page that waits less (down to telling every step) fails the tests.
REPORT_AFTER = 1000

#: In the page, from now on: when each key went down (just before the stepper's own handler, which draws the step)
#: and what the stepper showed once it was let go; and when the page sent the server a message.
KEYS_AND_SENDS = """() => {
  window.__keys = [];
  window.__sends = [];
  if (window.__keysOn) return;
  window.__keysOn = true;
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (...args) {
    window.__sends.push(performance.now());
    return send.apply(this, args);
  };
  window.addEventListener("keydown", () => window.__keys.push({ at: performance.now() }), true);
  window.addEventListener("keyup", () => {
    const st = document.querySelector(".bpe-stepper");
    const fills = {};
    for (const f of st.querySelectorAll(".bpe-st-code pre .fill")) fills[f.dataset.fill] = f.innerText;
    Object.assign(window.__keys[window.__keys.length - 1], {
      k: Number(st.dataset.k), shown: st.querySelector("[data-fig=step] .v").innerText, fills });
  }, true);
}"""


def press_keys(page, keys: list[str]) -> list[dict]:
    """Press ``keys`` back to back and return what the stepper showed after each: ``{"k": its data-k, "shown": the
    Step figure ("13 of 600"), "fills": the code's filled-in values by name}``; and check that the page did not ask
    the server while they were pressed: every message it sent came at least REPORT_AFTER after the key before it.

    Counting the websocket frames after a loop that waits for the page after every key fails on a busy machine,
    where those waits can outlast the rest and the page rightly tells the server in the middle. Here the keys go
    back to back, as a person stepping presses them, and their times and the messages are taken in the page, on
    its clock, so a rest is told from a message while stepping however slow the machine is. A page that tells the
    server every step fails (its message comes less than REPORT_AFTER after a key), at once or after a rest shorter
    than the time between two keys.
    """
    page.evaluate(KEYS_AND_SENDS)
    for key in keys:
        page.keyboard.press(key)
    page.wait_for_function(f"window.__keys.filter((p) => 'k' in p).length >= {len(keys)}")
    pressed, sends = page.evaluate("[window.__keys, window.__sends]")
    for sent in sends:
        before = [p["at"] for p in pressed if p["at"] <= sent]
        assert not before or sent - before[-1] >= REPORT_AFTER - 5, (  # 5 ms: the page's clock is coarsened
            f"a message {sent - before[-1]:.0f} ms after a key, while stepping (the page waits {REPORT_AFTER} ms)"
        )
    return pressed


LATENCY = """() => {
  window.__lat = [];
  const mark = (e) => { window.__t0 = e.timeStamp; };
  document.addEventListener("keydown", mark, true);
  document.addEventListener("click", mark, true);
  const fig = document.querySelector(".bpe-stepper [data-fig=step] .v");
  new MutationObserver(() => {
    const t0 = window.__t0;
    requestAnimationFrame(() => window.__lat.push(performance.now() - t0));  // the frame that shows it
  }).observe(fig, { childList: true, characterData: true, subtree: true });
}"""


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


@pytest.mark.latency
def test_next_shows_the_next_step_at_once_without_asking_the_server(page, server):
    """p95 under 0.1 s from the key or click to the frame that shows the step; measured robustly on a busy machine:
    after five warm-up steps, three rounds of 30 (keys, clicks, keys), the median of the rounds' p95."""
    frames = Frames(page)
    open_step(page, server.url + "/step?mode=encoding&tokenizer=cl100k_base&step=0")
    n = shown(page)[1]
    assert n > 95
    page.evaluate(LATENCY)
    t = time.monotonic()
    page.locator("h1").first.click()  # the focus on the page, not in a field
    nxt = page.get_by_role("button", name="Next ▶")
    k = 0
    rounds = []
    for how in ("warm-up", "keys", "clicks", "keys"):
        page.evaluate("window.__lat = []")
        for _ in range(5 if how == "warm-up" else 30):
            k += 1
            if how == "clicks":
                nxt.click()
            else:
                page.keyboard.press("ArrowRight")
            wait_step(page, k)
        if how != "warm-up":
            page.wait_for_function("window.__lat.length >= 30")
            rounds.append(p95(page.evaluate("window.__lat")))
    print("Next, p95 per round (ms):", [round(r, 1) for r in rounds])
    assert statistics.median(rounds) < 100
    page.wait_for_timeout(2000)  # the step is told once stepping has paused
    sent = frames.since(t)
    assert 1 <= sent <= k // 5, sent
    assert url_step(page) == k and shown(page) == (k, n)
    assert_no_exception(page)


@pytest.mark.latency
def test_play_at_the_fastest_speed(page, server):
    frames = Frames(page)
    open_step(page, server.url + "/step?mode=encoding&tokenizer=r50k_base&step=0")  # the page's default text
    n = shown(page)[1]
    assert n > 120
    page.get_by_label("Speed").select_option("fastest")
    t = time.monotonic()
    page.get_by_role("button", name="▶ Play").click()
    seen = page.evaluate(
        """() => new Promise((done) => {
             const out = []; const t0 = performance.now();
             const tick = () => { out.push([performance.now() - t0, +document.querySelector('.bpe-stepper').dataset.k]);
                                  if (performance.now() - t0 < 3000) requestAnimationFrame(tick); else done(out); };
             requestAnimationFrame(tick); })"""
    )
    steps = len({k for _, k in seen})
    rate = steps / 3.0
    print(f"Play at the fastest speed: {rate:.1f} steps a second shown")
    assert rate >= 10
    page.get_by_role("button", name="⏸ Pause").click()
    k = int(page.locator(".bpe-stepper").get_attribute("data-k"))
    page.wait_for_timeout(1500)
    assert frames.since(t) <= max(1, k // 5), (frames.since(t), k)
    assert url_step(page) == k and 0 < k < n
    page.wait_for_timeout(800)
    assert shown(page)[0] == k  # paused: nothing moves
    assert_no_exception(page)


def test_play_stops_by_itself_at_the_last_step(page, server):
    open_step(page, server.url + "/step?mode=encoding&tokenizer=r50k_base&step=0&text=Honolulu")
    n = shown(page)[1]
    page.get_by_label("Speed").select_option("fast")
    page.get_by_role("button", name="▶ Play").click()
    wait_step(page, n)
    page.get_by_role("button", name="▶ Play").wait_for()  # Pause turned back into Play
    assert page.get_by_role("button", name="Next ▶").is_disabled()
    page.wait_for_timeout(1000)
    assert url_step(page) == n and shown(page) == (n, n)
    page.get_by_role("button", name="▶ Play").click()  # at the end, Play starts again from the start
    page.wait_for_function("+document.querySelector('.bpe-stepper').dataset.k < 3")
    page.get_by_role("button", name="⏸ Pause").click()
    assert_no_exception(page)


def test_first_prev_last_and_the_slider(page, server):
    frames = Frames(page)
    open_step(page, server.url + "/step?mode=encoding&tokenizer=cl100k_base&step=5")
    t = time.monotonic()
    n = shown(page)[1]
    page.get_by_role("button", name="◀ Prev").click()
    assert shown(page)[0] == 4
    page.get_by_role("button", name="Last ⏭").click()
    assert shown(page) == (n, n) and page.get_by_role("button", name="Next ▶").is_disabled()
    page.get_by_role("button", name="⏮ First").click()
    assert shown(page)[0] == 0 and page.get_by_role("button", name="◀ Prev").is_disabled()
    page.get_by_role("slider").fill("50")
    assert shown(page)[0] == 50
    x = page.locator(".bpe-st-chart .cursor").first.get_attribute("x1")
    page.get_by_role("slider").fill("120")
    assert shown(page)[0] == 120 and page.locator(".bpe-st-chart .cursor").first.get_attribute("x1") != x  # the cursor follows
    assert frames.since(t) == 0  # nothing asked of the server yet
    page.wait_for_timeout(2000)
    assert frames.since(t) == 1 and url_step(page) == 120
    screenshot(page, "step-encoding", height=2000)
    assert_no_exception(page)


def _drawn(view, **options) -> str:
    """The Python model's view drawn by the renderer every page uses (ui/web/draw.js)."""
    return render([{"kind": "spans", "tokens": records.tokens(view.spans), "options": options}])[0]


def _python_spans(view) -> str:
    html = _drawn(view, showWhitespace=True, highlight=sorted(view.highlight), cuts=sorted(view.cuts), tooltips=False)
    return html.split('<div class="bpe-sr">')[0]


def _python_table(view) -> str:
    return '<div class="bpe-sr">' + _drawn(view, caption="The text").split('<div class="bpe-sr">')[1]


def _same_dom(page, python_html: str, selector: str) -> tuple[list[str], list[str]]:
    """(the page's element, the Python HTML as the browser reads it), both serialised by the browser: the element's
    own tag and attributes, then each span and cut in order (the page holds them in one block per line)."""
    return page.evaluate(
        """([html, sel]) => {
             const flat = (e) => [e.cloneNode(false).outerHTML,
                                  ...[...e.children].flatMap((c) => c.classList.contains('ln') ? [...c.children] : [c]).map((c) => c.outerHTML)];
             const d = document.createElement('div'); d.innerHTML = html;
             return [flat(document.querySelector(sel)), flat(d.firstElementChild)]; }""",
        [python_html, selector],
    )


def test_the_page_shows_what_the_python_model_shows_encoding(page, server):
    text = DEFAULT_TEXT
    open_step(page, server.url + "/step?mode=encoding&tokenizer=cl100k_base&step=0")
    etrace = load_encoding("cl100k_base").encode_trace(text)
    n = len(etrace.steps)
    assert shown(page) == (0, n)
    for k in (0, 1, 2, 17, n // 2, n - 1, n, 3):
        page.get_by_role("slider").fill(str(k))
        view = reference.encoding_view(etrace, k)
        mine, python = _same_dom(page, _python_spans(view), ".bpe-stepper .bpe-spans")
        assert mine == python, k
        if view.step:
            assert page.locator(".bpe-st-cards .bpe-card .lbl").first.inner_text() == f"Step {k} applies rank {view.step.rank:,}"
    page.wait_for_timeout(600)  # the screen-reader table follows once stepping rests
    mine, python = _same_dom(page, _python_table(view), ".bpe-stepper .bpe-st-sr .bpe-sr")
    assert mine == python
    assert_no_exception(page)


def test_the_page_shows_what_the_python_model_shows_training(page, server, trained):
    open_step(page, server.url + f"/step?mode=training&tokenizer={trained}&step=0")
    store = FolderStore(server.workspace)
    key = trained.split(":", 1)[1]
    tok = store.get(key)
    trace = store.training_trace(key)
    excerpt = store.corpus(key)[: model.EXCERPT_DEFAULT]
    etrace = model.excerpt_trace(tok, excerpt)
    n = tok.num_merges
    for k in (0, 1, 12, 100, n - 1, n, 5):
        page.get_by_role("slider").fill(str(k))
        view = reference.training_view(tok, trace, etrace, k)
        mine, python = _same_dom(page, _python_spans(view), ".bpe-stepper .bpe-spans")
        assert mine == python, k
        assert page.locator(".bpe-stepper [data-fig=training-tokens] .v").inner_text() == f"{view.tokens:,}"
        if k < n:  # the top pairs come from the server once stepping pauses, and equal the model's
            page.wait_for_function(
                f"document.querySelector('.bpe-st-pairs caption')?.innerText === 'Top pairs after {k:,} merge{'' if k == 1 else 's'}'"
            )
            frame = model.top_pairs_frame(tok, trace, k)
            rows = page.locator(".bpe-st-pairs table tr").all_inner_texts()[1:]
            assert [r.split("\t") for r in rows] == [
                [p.rstrip(), f"{c:,}", m] for p, c, m in zip(frame["pair"], frame["count"], frame["merges into"])
            ], k
        else:
            assert page.get_by_text("No pair is merged after the last step.").count() == 1
    assert page.locator(".bpe-st-cards").get_by_text("Step 6 merges").count() == 1
    assert page.locator(".bpe-st-cards").get_by_text("Step 5 minted").count() == 1
    screenshot(page, "step-training", height=2200)
    assert_no_exception(page)


def test_training_mode_with_a_demo_tokenizer(page, server):
    page.goto(server.url + "/step?mode=training")
    wait_idle(page, timeout=60_000)
    demo = page.get_by_role("button", name=re.compile("Train a demo tokenizer"))
    demo.or_(page.locator(".bpe-stepper")).first.wait_for()  # a fresh workspace offers the demo
    if demo.count():
        demo.click()
    page.locator(".bpe-stepper[data-mode=training]").wait_for(timeout=60_000)
    wait_idle(page)
    page.get_by_role("button", name="Next ▶").click()
    page.get_by_role("button", name="Next ▶").click()
    assert shown(page)[0] == 2
    assert page.get_by_text(re.compile("Step 3 merges")).count() == 1
    assert page.locator(".bpe-spans .t.hl").count() > 0
    assert page.locator(".bpe-spans .cut").count() > 0  # the GPT-4 pattern's chunk boundaries
    assert_no_exception(page)


@pytest.mark.parametrize("mode", ["encoding", "training"])
def test_a_reload_and_a_copied_link_land_on_the_same_step(browser, page, server, trained, mode):
    tok = "cl100k_base" if mode == "encoding" else trained
    open_step(page, server.url + f"/step?mode={mode}&tokenizer={tok}&step=12")
    assert shown(page)[0] == 12  # the deep link
    page.locator("h1").first.click()
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    wait_step(page, 17)
    page.wait_for_url(re.compile(r"[?&]step=17(&|$)"), timeout=2_000)  # the address bar follows as soon as the keys rest
    page.wait_for_timeout(2500)  # and the server has heard: a rerun for something else keeps the step
    trace = page.locator(".bpe-stepper").get_attribute("data-trace")
    if mode == "encoding":
        page.get_by_role("textbox", name="Word").fill("Honolulu")
        page.get_by_role("textbox", name="Word").press("Enter")
        wait_idle(page)
    else:  # a new excerpt is a new trace: it opens where the user was
        open_list(page, page.get_by_role("combobox", name="Training text shown"))
        page.get_by_role("option", name="first 1,000 characters").click()
        page.wait_for_function(f"document.querySelector('.bpe-stepper')?.dataset.trace !== {trace!r}")
        wait_idle(page)
    assert shown(page)[0] == 17 and url_step(page) == 17
    link = page.url
    page.reload()
    page.locator(".bpe-stepper[data-k]").wait_for()
    wait_idle(page)
    assert shown(page)[0] == 17 and url_step(page) == 17
    other = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        p2 = other.new_page()
        open_step(p2, link)
        assert shown(p2)[0] == 17 and f"mode={mode}" in p2.url
    finally:
        other.close()
    assert_no_exception(page)


def test_a_link_to_step_12_on_a_fresh_server(browser, tmp_path):
    """The first visitor of a just-started server opens a teacher's link: it still goes through app.py."""
    srv = StreamlitServer(tmp_path / "ws").start()
    try:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        page.set_default_timeout(60_000)
        open_step(page, srv.url + "/step?mode=encoding&tokenizer=r50k_base&step=12&text=tokenization%20and%20Honolulu")
        assert shown(page)[0] == 12
        nav = page.locator('[data-testid="stSidebarNav"]').inner_text()
        assert "Step through" in nav and "vocabulary" not in nav  # the app's navigation, not the folder's
        assert_inside_the_app(page)  # sidebar, wide layout, no "Page not found"
        assert "tokenization and Honolulu" in page.get_by_role("textbox", name="Text to encode").input_value()
        assert "step=12" in page.url
        screenshot(page, "step-link-fresh-server")
        context.close()
    finally:
        srv.stop()


def test_a_link_steps_through_qwens_own_merges(page, server):
    open_step(page, server.url + "/step?mode=encoding&tokenizer=qwen2.5&step=3&text=tokenization+你好")
    assert shown(page)[0] == 3
    assert page.get_by_role("combobox", name="Tokenizer").input_value() == "Qwen · Qwen 2.5 (Qwen 1, 2)"
    page.get_by_role("button", name=re.compile("Last")).click()
    ids = [int(i) for i in page.locator(".bpe-spans .t").evaluate_all("els => els.map(e => e.dataset.id)")]
    assert ids == load_encoding("qwen2.5").encode("tokenization 你好")
    assert_no_exception(page)


def test_presenter_mode_puts_the_step_on_the_first_screen_of_a_projector(projector, server):
    page = projector
    open_step(page, server.url + "/step?mode=encoding&tokenizer=cl100k_base&step=40&present=1")
    page.locator(".bpe-present").wait_for(state="attached")

    def on_screen(locator, whole: bool = True) -> None:
        box = locator.bounding_box()
        assert box is not None and box["y"] >= 0 and box["x"] >= 0
        assert (box["y"] + box["height"] if whole else box["y"] + 40) <= 720, box
        assert box["x"] + box["width"] <= 1280, box

    on_screen(page.get_by_role("button", name="Next ▶"))
    on_screen(page.locator(".bpe-st-cards .bpe-card").first)  # the merge just made
    on_screen(page.locator(".bpe-stepper .bpe-spans .t").first)  # the text, token by token
    on_screen(page.locator(".bpe-stepper .bpe-spans"), whole=False)
    on_screen(page.locator(STEP))
    screenshot(page, "present-step-first-screen")
    assert float(page.locator(".bpe-stepper .bpe-spans .t").first.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")) >= 28


def test_a_trace_too_big_to_send_is_refused(page, server):
    text = corpora.text("stdlib-source")
    big = (text * (1 + 300_000 // len(text)))[:250_000]
    open_step(page, server.url + "/step?mode=encoding&tokenizer=r50k_base&step=0")
    box = page.get_by_role("textbox", name="Text to encode")
    box.evaluate(  # a paste: the value at once (typing 250,000 characters through fill() takes minutes on a busy machine)
        """(el, text) => { Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set.call(el, text);
                           el.dispatchEvent(new Event('input', { bubbles: true })); }""",
        big,
    )
    box.press("Control+Enter")
    page.get_by_text(re.compile(r"steps come to [\d.]+ MB, more than the 1.0 MB")).wait_for(timeout=120_000)
    wait_idle(page, timeout=120_000)
    assert page.get_by_text(re.compile(r"shorten the text to about [\d,]+ characters \(it has 250,000\)")).count() == 1
    assert page.locator(".bpe-stepper").count() == 0
    assert_no_exception(page)
