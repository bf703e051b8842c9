"""What a newcomer still found, each in Chromium at the widths a person uses, with a screenshot of the
fixed view: pages as tall and as wide as what they show, heatmaps that name every row and column, decoding ids on
Tokenize, one numbering of a merge on every page, and Compare's tokenizers picked at once and shared by a link."""

from __future__ import annotations

import contextlib
import re
import time

import pytest
from playwright.sync_api import expect

from ui.content import corpora

from .conftest import SCREENSHOTS, assert_no_exception, paste, tab, wait_idle

pytestmark = pytest.mark.browser

#: (id, width, height): a wide desktop and a phone
WIDE_AND_PHONE = [("1920", 1920, 1080), ("390", 390, 844)]

#: How far the page scrolls past what it shows: its own bottom padding (Streamlit's block container's) plus a little,
#: and how far it may scroll sideways (none); the last visible content is the lowest box of an element with no child
#: elements (or a drawing, a form control), leaving out what is hidden for screen readers.
EXTENT = """() => {
    const main = document.querySelector('[data-testid="stMain"]');
    const block = document.querySelector('[data-testid="stMainBlockContainer"]');
    const top = main.getBoundingClientRect().top - main.scrollTop;
    let bottom = 0;
    for (const e of main.querySelectorAll('*')) {
        if (e.closest('.bpe-sr') || (e.closest('svg') && e.tagName !== 'svg')) continue;
        const whole = ['svg', 'canvas', 'textarea', 'input', 'img', 'button'].includes(e.tagName.toLowerCase());
        if (e.children.length && !whole) continue;
        const r = e.getBoundingClientRect();
        if (r.width === 0 || r.height === 0 || getComputedStyle(e).visibility === 'hidden') continue;
        bottom = Math.max(bottom, r.bottom - top);
    }
    const doc = document.documentElement;
    return {height: main.scrollHeight, bottom, padding: parseFloat(getComputedStyle(block).paddingBottom),
            wide: Math.max(main.scrollWidth - main.clientWidth, doc.scrollWidth - doc.clientWidth)};
}"""


@contextlib.contextmanager
def sized(tabs, server, width: int, height: int):
    with tab(tabs, server, width, height, 120_000) as pg:
        yield pg


def shot(page, name: str, *, bottom: bool = False) -> None:
    """One screen of the page as a person sees it; ``bottom``: scrolled to its end (where a blank would show)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    if bottom:
        page.evaluate("() => { const m = document.querySelector('[data-testid=\"stMain\"]'); m.scrollTop = m.scrollHeight; }")
    page.mouse.move(0, 0)
    page.wait_for_timeout(300)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


def assert_no_blank_below_or_beside(page, label: str) -> None:
    m = page.evaluate(EXTENT)
    print(label, m)
    assert m["bottom"] > 300, m  # the page drew something
    assert m["height"] <= m["bottom"] + m["padding"] + 60, f"{label}: the page scrolls past its content: {m}"
    assert m["wide"] <= 1, f"{label}: the page scrolls sideways: {m}"


@pytest.mark.parametrize("size", WIDE_AND_PHONE, ids=[s[0] for s in WIDE_AND_PHONE])
def test_pages_end_where_their_content_ends(tabs, server, trained, size):
    """The screen readers' tables take no room: Tokenize with a long paste, Step through training, Pre-tokenize; nor
    does anything else push the page sideways (Compare's statistics chart, Step through's word ladder)."""
    name, width, height = size
    with sized(tabs, server, width, height) as pg:
        pg.goto(server.url + "/")
        wait_idle(pg, timeout=120_000)
        long = corpora.text("about-bpe")
        long = (long * (1 + 6_700 // len(long)))[:6_700]
        paste(pg, long)
        expect(pg.locator(".bpe-live .bpe-spans").first).to_be_visible(timeout=90_000)
        pg.wait_for_timeout(1_500)  # the screen readers' table is filled a block per frame
        wait_idle(pg)
        assert_no_blank_below_or_beside(pg, f"tokenize@{name}")
        shot(pg, f"newcomer33-tokenize-long-{name}", bottom=True)

        pg.goto(server.url + f"/step?mode=training&tokenizer={trained}&step=40")
        pg.locator(".bpe-stepper[data-k]").wait_for(timeout=60_000)
        wait_idle(pg)
        pg.wait_for_timeout(800)  # the screen readers' table follows once stepping rests
        assert pg.locator(".bpe-st-sr .bpe-sr table tr").count() > 100  # the table is there, only out of sight
        assert_no_blank_below_or_beside(pg, f"step@{name}")
        shot(pg, f"newcomer33-step-training-{name}", bottom=True)

        pg.goto(server.url + "/pretokenize")
        wait_idle(pg, timeout=120_000)
        pg.locator(".bpe-row").first.wait_for()
        assert_no_blank_below_or_beside(pg, f"pretokenize@{name}")
        shot(pg, f"newcomer33-pretokenize-{name}", bottom=True)

        # and what else was wider than a phone: Compare's statistics chart, Step through's word ladder
        for path, what in [("/compare", "compare"), ("/step?mode=encoding&tokenizer=cl100k_base", "step-encoding")]:
            pg.goto(server.url + path)
            wait_idle(pg, timeout=120_000)
            pg.wait_for_timeout(1_000)  # the charts lay out
            assert_no_blank_below_or_beside(pg, f"{what}@{name}")
            shot(pg, f"newcomer33-{what}-{name}")
        assert_no_exception(pg)


# ----------------------------------------------------------------------------- heatmaps name every row and column

#: Every axis label of a chart as drawn: its text, whether it is shown (Streamlit's theme hides labels that touch by
#: setting their opacity to 0), whether it lies inside the chart's drawing, and whether it crosses another label of
#: its axis; a label's box is its text's own box turned as the text is (a slanted label is a slanted rectangle), and
#: two are apart when some edge of one separates them (convex shapes). A text's box holds its last glyph's advance,
#: a little wider than its ink: "inside" allows 3 px.
AXIS_LABELS = """chart => {
    const svg = chart.querySelector('svg'), box = svg.getBoundingClientRect();
    const corners = (t) => {
        const b = t.getBBox(), m = t.getScreenCTM(), p = svg.createSVGPoint();
        return [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height], [b.x, b.y + b.height]]
            .map(([x, y]) => { p.x = x; p.y = y; const q = p.matrixTransform(m); return [q.x, q.y]; });
    };
    const apart = (a, b) => [a, b].some((poly) => poly.some((p, i) => {
        const q = poly[(i + 1) % 4], n = [q[1] - p[1], p[0] - q[0]];
        const proj = (s) => s.map(([x, y]) => x * n[0] + y * n[1]);
        const pa = proj(a), pb = proj(b);
        return Math.max(...pa) <= Math.min(...pb) + 0.5 || Math.max(...pb) <= Math.min(...pa) + 0.5;
    }));
    return [...chart.querySelectorAll('g.role-axis')].map((axis) => {
        const texts = [...axis.querySelectorAll('g.role-axis-label text')];
        const polys = texts.map(corners);
        return texts.map((t, i) => ({
            text: [...t.querySelectorAll('tspan')].map((s) => s.textContent).join(' ') || t.textContent,
            shown: getComputedStyle(t).opacity !== '0' && t.getAttribute('opacity') !== '0',
            inside: polys[i].every(([x, y]) => x >= box.left - 3 && x <= box.right + 3 && y >= box.top - 3 && y <= box.bottom + 3),
            crosses: polys.filter((q, j) => j !== i && !apart(polys[i], q)).length,
        }));
    });
}"""

EIGHT = ["r50k_base", "cl100k_base", "o200k_base", "llama3", "qwen2.5", "qwen3.6", "tekken", "deepseek_v4"]
SIX = EIGHT[:3] + ["llama3", "qwen2.5", "tekken"]


def squash(s: str) -> str:
    return "".join(s.split())


def assert_every_name(page, title: str, columns: list[str], rows: list[str] | None, label: str) -> None:
    """Every column of the chart headed by its whole name (and every row: by ``rows``, or 10 or more rows if None),
    each label shown, inside the drawing and crossing no other."""
    chart = page.locator('[data-testid="stVegaLiteChart"]').filter(has_text=title)
    chart.scroll_into_view_if_needed()
    page.wait_for_timeout(1_500)  # a resized chart draws again
    axes = chart.evaluate(AXIS_LABELS)
    assert len(axes) == 2, f"{label}: {axes}"
    drawn = [[squash(t["text"]) for t in axis] for axis in axes]
    assert [squash(c) for c in columns] in drawn, f"{label}: no axis names every column: {drawn}"
    other = axes[1 - drawn.index([squash(c) for c in columns])] if rows != columns else axes[1]
    if rows is None:
        assert len(other) >= 10, f"{label}: {other}"
    else:
        assert [squash(t["text"]) for t in other] == [squash(r) for r in rows], f"{label}: {other}"
    for t in axes[0] + axes[1]:
        assert t["shown"] and t["inside"] and not t["crosses"] and "…" not in t["text"], f"{label}: {t}"
    shot(page, f"newcomer33-{label}")
    chart.screenshot(path=str(SCREENSHOTS / f"newcomer33-{label}-chart.png"))


@pytest.mark.parametrize("keys", [SIX, EIGHT], ids=["six", "eight"])
def test_the_heatmaps_name_every_column_and_row(tabs, server, keys):
    from ui.common.tokenizers import OFFICIAL

    names = [OFFICIAL[k] for k in keys]
    with sized(tabs, server, 1280, 900) as pg:
        pg.goto(server.url + "/compare?tokenizers=" + ",".join(keys))
        wait_idle(pg, timeout=240_000)
        for width in (1280, 1600, 1920):
            pg.set_viewport_size({"width": width, "height": 900})
            assert_every_name(pg, "Token tax", names, None, f"tax-{len(keys)}-{width}")
        if len(keys) == len(SIX):  # Overlap's grid with six (eight vocabularies take a minute to compare)
            pg.goto(server.url + "/overlap?tokenizers=" + ",".join(keys))
            wait_idle(pg, timeout=240_000)
            for width in (1280, 1600, 1920):
                pg.set_viewport_size({"width": width, "height": 900})
                assert_every_name(pg, "Jaccard similarity", names, names, f"jaccard-{len(keys)}-{width}")
        assert_no_exception(pg)


# ----------------------------------------------------------------------------- Tokenize: the box before the tokens


def hold_back(pg, module: str, url: str):
    """Open ``url`` with the browser module ``module`` held back (as a slow machine or network would) until the page
    has asked for it; returns the function that lets it through."""
    held = []
    pattern = re.compile("/" + re.escape(module) + "$")
    pg.route(pattern, lambda route: held.append(route))
    pg.goto(url)
    for _ in range(1200):
        if held:
            break
        pg.wait_for_timeout(100)
    assert held, f"the page never asked for {module}"

    def release() -> None:
        for route in held:
            route.continue_()
        pg.unroute(pattern)

    return release


def test_tokenize_shows_its_text_box_before_its_tokens(tabs, server):
    """While the browser still loads the live view's modules (held back here, as a slow machine or network would),
    the text box is there with the text, and a placeholder where the tokens go; what is typed into it then stays
    when the view takes over, and its tokens follow. (The first visit showed an empty area for seconds.)"""
    with sized(tabs, server, 1280, 720) as pg:
        release = hold_back(pg, "tokenize.js", server.url + "/?tokenizer=cl100k_base&text=Held%20back")
        box = pg.get_by_label("Text", exact=True)
        expect(box).to_be_visible()
        expect(box).to_have_value("Held back")
        expect(pg.locator(".bpe-live-wait")).to_be_visible()
        assert pg.locator(".bpe-live-spans [data-i]").count() == 0  # the tokens are not drawn yet
        shot(pg, "newcomer33-tokenize-box-first")
        box.click()
        box.press("End")
        box.press_sequentially(" and typed")
        release()
        expect(pg.locator(".bpe-live .bpe-spans").first).to_contain_text("typed", timeout=60_000)
        expect(pg.locator(".bpe-live-early")).to_have_count(0)
        expect(box).to_have_value("Held back and typed")
        expect(box).to_be_focused()
        wait_idle(pg, timeout=60_000)
        assert_no_exception(pg)


# ----------------------------------------------------------------------------- Step through: Play on a busy machine

#: Play pressed, then its steps as frames show them: ``dataset.k`` at each frame while playing, each frame held
#: ``busy`` ms (a busy machine: the page gets fewer frames a second than the speed has steps)
PAINTED = """(busy) => new Promise((done) => {
    const root = document.querySelector('.bpe-stepper');
    const out = [];
    const tick = () => {
        out.push(+root.dataset.k);
        const t = performance.now();
        while (performance.now() - t < busy) {}
        if (root.dataset.playing === '1') requestAnimationFrame(tick); else done(out);
    };
    root.querySelector('button[data-act="play"]').click();
    requestAnimationFrame(tick);
})"""


def test_play_paints_every_step_when_frames_are_slow(tabs, server):
    """At 30 steps a second with frames 80 ms apart, every step is on screen in turn, none skipped (13 of 64 were
    left unpainted on a loaded machine): Play slows to the rate the page paints."""
    with sized(tabs, server, 1280, 900) as pg:
        pg.goto(
            server.url
            + "/step?mode=encoding&tokenizer=r50k_base&step=0&text=The%20quick%20brown%20fox%20jumps%20over%20the%20lazy%20dog."
        )
        pg.locator(".bpe-stepper[data-k]").wait_for(timeout=60_000)
        wait_idle(pg, timeout=60_000)
        n = int(pg.locator(".bpe-stepper [data-act=slider], .bpe-stepper input[type=range]").first.get_attribute("max"))
        assert n >= 20, n
        pg.get_by_label("Speed").select_option("fastest")
        seen = pg.evaluate(PAINTED, 80)  # presses Play, then watches
        assert seen == sorted(seen), seen  # in order
        drawn = sorted(set(seen))
        assert drawn[-1] == n, seen
        assert drawn == list(range(drawn[0], n + 1)), f"steps never painted: {sorted(set(range(drawn[0], n + 1)) - set(drawn))}"
        assert drawn[0] <= 1, seen  # watched from the start
        assert_no_exception(pg)


# ----------------------------------------------------------------------------- whole labels on buttons

#: The buttons of the main area whose label is cut (an ellipsis: some element inside is wider than its box)
CUT_BUTTONS = """() => [...document.querySelectorAll('[data-testid="stMain"] button')]
    .filter(b => b.getBoundingClientRect().width > 0)
    .filter(b => [b, ...b.querySelectorAll('*')].some(e => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflow !== 'visible'))
    .map(b => b.innerText.trim())"""


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)], ids=["1280", "1920"])
def test_lesson_buttons_show_their_whole_label(tabs, server, size):
    """The Lesson's Back and Next chapter buttons say all they say ("Next chapt…" at 1280 px)."""
    with sized(tabs, server, *size) as pg:
        pg.goto(server.url + "/lesson")
        wait_idle(pg, timeout=120_000)
        expect(pg.get_by_role("button", name="Next chapter ▶")).to_be_visible()
        assert pg.evaluate(CUT_BUTTONS) == []
        assert_no_exception(pg)


#: The placeholder drawn where Step through's stepper goes until it is drawn: its text, or "" when there is none
STEP_PLACEHOLDER = """() => {
    const style = [...document.querySelectorAll('[data-testid="stBidiComponentRegular"] > div > style')].map(s => s.parentElement);
    const c = style.map(d => getComputedStyle(d, '::after').content).find(c => c && c !== 'none');
    return c ? c.replace(/^"|"$/g, '') : '';
}"""


def test_step_through_says_it_is_loading_before_the_stepper_shows(tabs, server):
    """While the stepper's modules load (held back here, as a slow machine would), the place where it goes says so
    instead of staying an empty box; once drawn, the stepper alone is there."""
    with sized(tabs, server, 1280, 720) as pg:
        release = hold_back(pg, "stepper.js", server.url + "/step?mode=encoding&tokenizer=r50k_base&step=0&text=Hello%20world")
        pg.wait_for_function(f"({STEP_PLACEHOLDER})() !== ''", timeout=60_000)
        assert pg.evaluate(STEP_PLACEHOLDER) == "Loading the steps…"
        shot(pg, "newcomer33-step-loading")
        release()
        pg.locator(".bpe-stepper[data-k]").wait_for(timeout=60_000)
        assert pg.evaluate(STEP_PLACEHOLDER) == ""
        assert_no_exception(pg)


# ----------------------------------------------------------------------------- decoding ids on Tokenize


@pytest.mark.parametrize("size", [("1280", 1280, 720), ("390", 390, 844)], ids=["1280", "390"])
def test_ids_pasted_on_tokenize_show_their_text_and_tokens(tabs, server, size):
    import tiktoken

    name, width, height = size
    with sized(tabs, server, width, height) as pg:
        pg.goto(server.url + "/?tokenizer=o200k_base")
        wait_idle(pg, timeout=120_000)
        pg.get_by_role("radio", name="Ids", exact=True).click()
        wait_idle(pg)
        text = "Hello 你好 — tokens!\n  indented"
        ids = tiktoken.get_encoding("o200k_base").encode(text)
        box = pg.get_by_label("Token ids", exact=True)
        box.fill(" ".join(map(str, ids)))
        box.press("Control+Enter")
        wait_idle(pg)
        expect(pg.locator("pre.bpe-decoded")).to_have_text(text)
        spans = pg.locator(".bpe-spans .t")
        assert [int(i) for i in spans.evaluate_all("s => s.map((e) => e.dataset.id)")] == ids
        shot(pg, f"newcomer33-decode-{name}")

        box.fill(f"[{ids[0]}, 999999]")
        box.press("Control+Enter")
        wait_idle(pg)
        alert = pg.locator('[data-testid="stAlert"]').filter(has_text="999999")
        expect(alert).to_contain_text("not in the vocabulary of GPT-4o (o200k_base)")
        expect(alert).to_contain_text("tokens, with ids from 0 to")
        assert pg.locator("pre.bpe-decoded").count() == 0
        shot(pg, f"newcomer33-decode-unknown-{name}")
        assert_no_exception(pg)


# ----------------------------------------------------------------------------- one numbering of a merge


def test_one_merge_has_one_number_on_every_page(tabs, server):
    """cl100k_base's "token" (id 5,963) is built by the merge of rank 5,707: Step through, Tokenize's tree and
    Vocabulary's tree and table all say "rank 5,707", and the tree's line says the id is 256 + the rank."""
    from urllib.parse import quote

    from tokenizer import load_encoding

    tok = load_encoding("cl100k_base")
    tid = tok.encode_single_token("token")
    rank = tok.rank_of[tid]
    assert (tid, rank) == (5963, 5707)
    with sized(tabs, server, 1400, 900) as pg:
        pg.goto(server.url + f"/step?mode=encoding&tokenizer=cl100k_base&text={quote('token')}&step=4")
        pg.locator(".bpe-stepper[data-k]").wait_for(timeout=60_000)
        wait_idle(pg)
        last = pg.locator(".bpe-st-cards .bpe-card .lbl").first
        expect(last).to_have_text(re.compile(rf"^Step \d+ applies rank {rank:,}$"))
        shot(pg, "newcomer33-rank-step")

        pg.goto(server.url + "/?tokenizer=cl100k_base&text=token")
        wait_idle(pg, timeout=90_000)
        pg.locator(".bpe-live .bpe-spans .t").first.click()
        tree = pg.locator(".bpe-tree")
        expect(tree.locator(".node.root .meta")).to_have_text(f"id {tid} · rank {rank:,}")
        expect(pg.get_by_text(f"Rank {rank:,}: the merge's place in the merge list")).to_be_visible()
        expect(pg.get_by_text(f"Its id, {tid:,}, is 256 + the rank", exact=False)).to_be_visible()
        shot(pg, "newcomer33-rank-tokenize")

        pg.goto(server.url + "/vocabulary")
        wait_idle(pg, timeout=90_000)
        box = pg.get_by_label("Token id", exact=True)
        box.fill(str(tid))
        box.press("Enter")
        wait_idle(pg)
        expect(pg.locator(".bpe-tree .node.root .meta")).to_have_text(f"id {tid} · rank {rank:,}")
        expect(pg.get_by_text(f"Rank {rank:,}: the merge's place in the merge list")).to_be_visible()
        assert pg.locator(".bpe-tree .meta").filter(has_text=re.compile(r"· merge ")).count() == 0
        shot(pg, "newcomer33-rank-vocabulary")
        assert_no_exception(pg)


# ----------------------------------------------------------------------------- Compare: several picks, one update


def pick(pg, menu, label: str, n: int) -> None:
    """Pick ``label`` in the open ``menu``, as a person does: until its chip shows (the ``n``-th). On a loaded machine
    a click can land while the dropdown is drawn again (its list changes with every pick) and select nothing, which a
    person sees and clicks again; a chip that shows and then goes is not clicked again: the callers count the chips."""
    chips = menu.locator("[data-tag]")
    for _ in range(3):
        pg.get_by_role("option", name=label, exact=True).click()
        try:
            expect(chips).to_have_count(n, timeout=8_000)
            return
        except AssertionError:
            if chips.count() == n:
                return
            if chips.count() != n - 1 or chips.filter(has_text=label).count():
                raise
    expect(chips).to_have_count(n)


def test_compare_takes_several_picks_at_once_and_shares_its_setup(tabs, server):
    from ui.common import tokenizers as tk

    with sized(tabs, server, 1280, 900) as pg:
        pg.goto(server.url + "/compare?tokenizers=r50k_base,o200k_base&text=" + "Hello%20world")
        wait_idle(pg, timeout=120_000)
        rows = pg.locator(".bpe-row")
        expect(rows).to_have_count(2)
        menu = pg.locator('[data-testid="stMultiSelect"]')
        apply = pg.get_by_role("button", name="Apply", exact=True)
        expect(apply).to_be_disabled()
        chips = menu.locator("[data-tag]")
        expect(chips).to_have_count(2)
        added = ["cl100k_base", "llama3", "qwen2.5", "tekken"]
        for n, key in enumerate(added, start=3):
            # as a person on a slow machine: each pick's chip is there, and the menu's run over, before the next pick
            menu.locator("input").click()
            pick(pg, menu, tk.menu_label(key, tk.OFFICIAL[key]), n)
            wait_idle(pg)
            pg.keyboard.press("Escape")
            expect(chips).to_have_count(n)  # no run that started before this pick took it back
            expect(rows).to_have_count(2)  # the page below waits for Apply
            expect(apply).to_be_enabled()
        shot(pg, "newcomer33-compare-picked")
        apply.click()
        wait_idle(pg, timeout=120_000)
        expect(rows).to_have_count(6)
        expect(chips).to_have_count(6)
        expect(apply).to_be_disabled()

        pg.get_by_text("Share this comparison", exact=True).click()
        link = pg.locator('[data-testid="stCode"]').filter(has_text="/compare?").inner_text().strip()
        assert "tokenizers=r50k_base%2Co200k_base%2Ccl100k_base%2Cllama3%2Cqwen2.5%2Ctekken" in link
        assert "text=Hello+world" in link
        shot(pg, "newcomer33-compare-share")
    with sized(tabs, server, 1280, 900) as other:  # someone else opens the link
        other.goto(link)
        wait_idle(other, timeout=120_000)
        expect(other.locator(".bpe-row")).to_have_count(6)
        heads = other.locator(".bpe-row-head b").all_inner_texts()
        assert heads == [tk.OFFICIAL[k] for k in ["r50k_base", "o200k_base", *added]]
        assert_no_exception(other)


def test_compare_keeps_picks_made_while_the_menu_runs(tabs, server):
    """Picks made quickly, each while the menu's run for the one before is still going (a slow machine), all stay:
    a run that started before a pick does not put the menu back to what it saw."""
    from ui.common import tokenizers as tk

    with sized(tabs, server, 1280, 900) as pg:
        pg.goto(server.url + "/compare?tokenizers=r50k_base&text=" + "Hello%20world")
        wait_idle(pg, timeout=120_000)
        menu = pg.locator('[data-testid="stMultiSelect"]')
        chips = menu.locator("[data-tag]")
        expect(chips).to_have_count(1)
        added = ["o200k_base", "cl100k_base", "llama3", "qwen2.5", "tekken"]
        menu.locator("input").click()
        for n, key in enumerate(added, start=2):
            pick(pg, menu, tk.menu_label(key, tk.OFFICIAL[key]), n)  # and straight on to the next, its run going
        pg.keyboard.press("Escape")
        wait_idle(pg, timeout=120_000)
        expect(chips).to_have_count(6)
        pg.get_by_role("button", name="Apply", exact=True).click()
        wait_idle(pg, timeout=120_000)
        expect(pg.locator(".bpe-row")).to_have_count(6)
        expect(chips).to_have_count(6)
        assert_no_exception(pg)


# ----------------------------------------------------------------------------- Overlap's progress in presenter mode

#: Every progress bar's box and every spinner's (Streamlit's own and a cached function's), as [left, top, right, bottom]
INDICATORS = """() => [...document.querySelectorAll('[data-testid="stProgress"], [data-testid="stSpinner"]')]
    .map(e => { const r = e.getBoundingClientRect(); return [e.dataset.testid, r.left, r.top, r.right, r.bottom]; })
    .filter(b => b[3] > b[1] && b[4] > b[2])"""


def test_overlap_progress_is_not_drawn_over_a_spinner_in_presenter_mode(tabs, server):
    """Encoding one vocabulary with another shows a progress bar: in presenter mode nothing else is drawn on it (the
    cached computation's spinner was, the two labels on one line). A pair no other test computes, so the server has
    not kept it."""
    with sized(tabs, server, 1280, 720) as pg:
        pg.goto(server.url + "/overlap?present=1&tokenizers=cl100k_base,p50k_base")
        seen = []
        deadline = time.monotonic() + 240  # a wait, not a measure: a fresh server's first comparison takes a while
        while time.monotonic() < deadline:  # every 50 ms while the page computes
            boxes = pg.evaluate(INDICATORS)
            if any(b[0] == "stProgress" for b in boxes):
                seen.append(boxes)
            if pg.get_by_text("How many pieces each token becomes").count():
                break
            pg.wait_for_timeout(50)
        wait_idle(pg, timeout=180_000)
        assert seen, "the split's progress bar never showed"
        for boxes in seen:
            for i, a in enumerate(boxes):
                for b in boxes[i + 1 :]:
                    apart = a[3] <= b[1] or b[3] <= a[1] or a[4] <= b[2] or b[4] <= a[2]
                    assert apart, f"{a[0]} at {a[1:]} and {b[0]} at {b[1:]} overlap"
        assert_no_exception(pg)


# ----------------------------------------------------------------------------- start-up


def test_start_up_logs_no_warning(tabs, server):
    """The server loads its models before any session exists, with nothing in its log that reads as an error (it
    printed Streamlit's "missing ScriptRunContext! This warning can be ignored" seven times), and a page still opens."""
    with sized(tabs, server, 1280, 720) as pg:
        pg.goto(server.url + "/")
        wait_idle(pg, timeout=120_000)
        expect(pg.locator(".bpe-live .bpe-spans").first).to_be_visible(timeout=90_000)
    log = server.log.read_text()
    assert "BPE Lab: ready in" in log
    assert "ScriptRunContext" not in log and "Traceback" not in log, log[-3000:]


# ----------------------------------------------------------------------------- the text follows to Pre-tokenize


def test_pre_tokenize_takes_the_text_typed_on_another_page(tabs, server):
    with sized(tabs, server, 1280, 720) as pg:
        pg.goto(server.url + "/compare")
        wait_idle(pg, timeout=120_000)
        paste(pg, "Typed on Compare: 1234567 I'M HERE")
        pg.get_by_role("link", name="Pre-tokenize").click()
        wait_idle(pg, timeout=120_000)
        expect(pg.get_by_label("Text to split", exact=True)).to_have_value("Typed on Compare: 1234567 I'M HERE")
        expect(pg.locator(".bpe-row").first).to_contain_text("123")  # the rows split that text
        shot(pg, "newcomer33-pretokenize-follows")
        assert_no_exception(pg)


# ----------------------------------------------------------------------------- a merge tree wider than its panel


@pytest.mark.parametrize(
    "path", ["/?tokenizer=r50k_base&text=%20SolidGoldMagikarp", "/vocabulary"], ids=["tokenize", "vocabulary"]
)
def test_a_wide_merge_tree_says_it_scrolls_and_scrolls(tabs, server, path):
    """GPT-2's " SolidGoldMagikarp" (id 43,453) is wider than the panel at 1280 px: the page says so, the keyboard
    scrolls it, and its last box can be brought into view; a small tree says nothing."""
    with sized(tabs, server, 1280, 900) as pg:
        pg.goto(server.url + path)
        wait_idle(pg, timeout=120_000)
        if path == "/vocabulary":
            from ui.common.tokenizers import OFFICIAL

            from .conftest import choose

            choose(pg, pg.get_by_role("combobox", name="Tokenizer"), "OpenAI · " + OFFICIAL["r50k_base"])
            wait_idle(pg)
            box = pg.get_by_label("Token id", exact=True)
            box.fill("43453")
            box.press("Enter")
            wait_idle(pg)
        else:
            pg.locator(".bpe-live .bpe-spans .t").first.click()
            wait_idle(pg)
        tree = pg.locator(".bpe-tree").first
        expect(tree.locator(".node.root .meta")).to_have_text("id 43453 · rank 43,197")
        expect(pg.get_by_text("A wide tree: scroll it sideways to see all of it.")).to_be_visible()
        wide = tree.evaluate("e => [e.scrollWidth, e.clientWidth]")
        assert wide[0] > wide[1] + 50, wide  # it does not fit: the hint is not for nothing
        tree.focus()
        for _ in range(5):
            pg.keyboard.press("ArrowRight")
        pg.wait_for_timeout(500)
        assert tree.evaluate("e => e.scrollLeft") > 0
        last = tree.locator(".node.leaf").last
        tree.evaluate("e => { e.scrollLeft = e.scrollWidth; }")
        r, t = last.bounding_box(), tree.bounding_box()
        assert r["x"] + r["width"] <= t["x"] + t["width"] + 1  # the last byte can be seen
        shot(pg, f"newcomer33-wide-tree-{path.split('?')[0].strip('/') or 'tokenize'}")
        assert_no_exception(pg)
