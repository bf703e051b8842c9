"""The Compare page in a real browser: one text, a row of tokens per tokenizer, charts."""

from __future__ import annotations

import statistics
from urllib.parse import urlencode

import pytest
from merge_trees import core_labels
from model_packages import reference_encode, tiktoken_reference
from playwright.sync_api import expect

from classroom.stores import FolderStore
from tokenizer import registry, train

from .conftest import accessibility_findings, assert_no_exception, paste, screenshot, wait_idle

pytestmark = pytest.mark.browser

LABELS = {s.name: s.label for s in registry.specs()}
DEFAULT = ["r50k_base", "o200k_base", "llama3"]  # GPT-2, GPT-4o and an open model
XSS = "<img src=x onerror=\"document.title='pwned'\"><script>document.title='pwned'</script>"


def open_compare(page, server, **query) -> None:
    """Open the app, then the Compare page from the sidebar as a person would (or by a link)."""
    page.goto(server.url)
    wait_idle(page)
    if query:
        page.goto(server.url + "/compare?" + urlencode(query))
    else:
        page.locator('[data-testid="stSidebarNav"]').get_by_text("Compare").click()
    wait_idle(page)
    expect(page.locator(".bpe-row").first).to_be_visible(timeout=60_000)


def row(page, label: str):
    return page.locator(".bpe-row").filter(has=page.locator(".bpe-row-head b", has_text=label))


def test_one_row_per_tokenizer_with_tiktokens_counts(page, server):
    open_compare(page, server)
    text = "Hello 你好! I don't think 1234567890 tokens are enough 🤚🏾"
    paste(page, text)
    expect(page.locator(".bpe-row")).to_have_count(3)
    for key in DEFAULT:
        n = len(tiktoken_reference(key).encode(text))
        expect(row(page, LABELS[key]).locator(".bpe-row-head .n")).to_have_text(f"{n} tokens")
        expect(row(page, LABELS[key]).locator(".t")).to_have_count(n)
    # the boundary diff: some tokens faded (shared by all), some cuts marked
    assert page.locator(".bpe-row .t.dim").count() > 0
    assert page.locator(".bpe-row .cut").count() > 0
    expect(page.locator('[data-testid="stVegaLiteChart"]')).to_have_count(
        4
    )  # statistics, token tax, vocabulary used, leaderboard
    assert_no_exception(page)
    screenshot(page, "compare", height=3400)


def test_pasted_html_runs_nothing(page, server):
    open_compare(page, server)
    title = page.title()
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    paste(page, XSS)
    n = len(tiktoken_reference("llama3").encode(XSS))
    expect(row(page, LABELS["llama3"]).locator(".bpe-row-head .n")).to_have_text(f"{n} tokens")
    page.wait_for_timeout(500)
    assert page.title() == title != "pwned"
    assert dialogs == []
    rows = page.locator(".bpe-pickable")  # the rows' component (ui/compare/rows.js)
    expect(rows.locator(".bpe-row")).to_have_count(3)
    assert rows.locator("img").count() == 0 and rows.locator("script").count() == 0
    assert "<img src=x onerror=" in row(page, LABELS["o200k_base"]).locator(".bpe-spans").inner_text()
    assert_no_exception(page)


def test_a_link_opens_the_chosen_tokenizers(page, server):
    open_compare(page, server, tokenizers="o200k_base,bytes", text="Hello 你好")
    expect(page.locator(".bpe-row")).to_have_count(2)
    expect(row(page, "UTF-8 bytes").locator(".bpe-row-head .n")).to_have_text(f"{len('Hello 你好'.encode())} tokens")
    expect(row(page, LABELS["o200k_base"]).locator(".bpe-row-head .n")).to_have_text(
        f"{len(tiktoken_reference('o200k_base').encode('Hello 你好'))} tokens"
    )
    assert_no_exception(page)


FAMILIES = ["o200k_base", "llama3", "qwen2.5", "tekken", "deepseek_v4"]  # OpenAI, Meta, Qwen, Mistral, DeepSeek; and yours


def test_every_family_side_by_side(page, server):
    """OpenAI, Meta, Qwen, Mistral, DeepSeek and a tokenizer of yours, one row each, counted as their own references."""
    text = "Tokenizers split text differently: 你好世界, Привет, 1234567890, don't, def f(x): return x ** 2 🤚🏾"
    mine = train(text * 4 + "the quick brown fox jumps over the lazy dog " * 30, 400, name="mine")
    key = "user:" + FolderStore(server.workspace).add(mine)
    open_compare(page, server, tokenizers=",".join([*FAMILIES, key]), text=text)
    expect(page.locator(".bpe-row")).to_have_count(6)
    counts = {name: len(reference_encode(name)(text)) for name in FAMILIES}
    for name, n in counts.items():
        expect(row(page, LABELS[name]).locator(".bpe-row-head .n")).to_have_text(f"{n} tokens")
    expect(row(page, "mine").locator(".bpe-row-head .n")).to_have_text(f"{len(mine.encode(text))} tokens")
    # the menu shows each choice with its family first
    chosen = page.locator('[data-testid="stMultiSelect"]')
    for name in FAMILIES:
        expect(chosen).to_contain_text(f"{registry.spec(name).family} · {LABELS[name]}")
    expect(chosen).to_contain_text("Yours · mine")
    assert_no_exception(page)
    screenshot(page, "compare-six-families", height=1500)


def nodes(panel) -> tuple[list[str], list[str]]:
    """The merge tree on the page: the merged boxes' labels (id and merge rank) and the leaves' (bytes), in order."""
    merged = [m.strip() for m in panel.locator(".bpe-tree .node:not(.leaf) .meta").all_inner_texts()]
    leaves = [m.strip() for m in panel.locator(".bpe-tree .node.leaf .meta").all_inner_texts()]
    return merged, leaves


def click_longest(page, label: str, tok, text: str):
    """Click the longest token of ``label``'s row; returns its id."""
    ids = tok.encode(text)
    i = max(range(len(ids)), key=lambda j: len(tok.decode_single_token_bytes(ids[j])))
    span = row(page, label).locator(".bpe-spans .t").nth(i)
    expect(span).to_have_attribute("data-id", str(ids[i]))
    span.click()
    wait_idle(page)
    return ids[i]


def test_a_click_shows_how_a_token_was_built(page, server):
    """Click a token in any row: its merge tree, down to its bytes, with the core's merge ranks, under its row;
    for an OpenAI encoding, a tokenizer.json (DeepSeek V4) and a tokenizer of yours."""
    from tokenizer import load_encoding

    text = "Tokenization of internationalization, 你好世界 and emoji 🤚🏾"
    mine = train(text * 6 + " internationalization tokenization" * 20, 420, name="mine")
    key = "user:" + FolderStore(server.workspace).add(mine)
    open_compare(page, server, tokenizers=f"o200k_base,deepseek_v4,{key}", text=text)
    expect(page.locator(".bpe-row")).to_have_count(3)
    expect(page.get_by_text("Click a token to see how it was built")).to_be_visible()
    assert page.locator(".bpe-built").count() == 0  # nothing until a click
    for label, tok in [
        (LABELS["o200k_base"], load_encoding("o200k_base")),
        (LABELS["deepseek_v4"], load_encoding("deepseek_v4")),
        ("mine", mine),
    ]:
        tid = click_longest(page, label, tok, text)
        panel = row(page, label).locator(".bpe-built")
        expect(panel).to_be_visible()
        expect(page.locator(".bpe-built")).to_have_count(1)  # one at a time: the last click's
        expect(row(page, label).locator(".bpe-spans .t.picked")).to_have_attribute("data-id", str(tid))
        expect(panel.locator(".bpe-built-head")).to_contain_text(f"id {tid}")
        merged, leaves = nodes(panel)
        assert (merged, leaves) == core_labels(tok, tid), label
        assert len(merged) == len(leaves) - 1 > 0
    bad, _ = accessibility_findings(page)  # axe-core with a tree open: its region, its close button, its colours
    assert bad == []
    screenshot(page, "compare-tree", height=2000)
    page.get_by_role("button", name="Close the merge tree").click()
    wait_idle(page)
    expect(page.locator(".bpe-built")).to_have_count(0)
    assert_no_exception(page)


# Click the i-th token of the first row; resolves to the milliseconds until its tree's heading is in the page.
CLICK_TO_TREE = """(i) => new Promise((resolve) => {
  const span = document.querySelector('.bpe-row').querySelectorAll('.bpe-spans .t')[i];
  const want = 'id ' + span.getAttribute('data-id') + ' ·';
  const t0 = performance.now();
  const seen = new MutationObserver(() => {
    const head = document.querySelector('.bpe-built-head');
    if (head && head.textContent.includes(want)) { seen.disconnect(); resolve(performance.now() - t0); }
  });
  seen.observe(document.body, { subtree: true, childList: true, characterData: true });
  span.dispatchEvent(new MouseEvent('click', { bubbles: true }));
})"""


def test_the_tree_in_presenter_mode(page, server):
    page.set_viewport_size({"width": 1280, "height": 720})
    text = "Tokenization, explained"
    open_compare(page, server, tokenizers="r50k_base,o200k_base", text=text, present="1")
    from tokenizer import load_encoding

    tok = load_encoding("r50k_base")
    tid = click_longest(page, LABELS["r50k_base"], tok, text)
    panel = row(page, LABELS["r50k_base"]).locator(".bpe-built")
    expect(panel).to_be_visible()
    assert nodes(panel) == core_labels(tok, tid)
    box = panel.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 1280  # on the projector's screen, no sideways scrolling
    assert accessibility_findings(page)[0] == []
    row(page, LABELS["r50k_base"]).evaluate("e => e.scrollIntoView({ block: 'start' })")  # the row, then its tree
    screenshot(page, "present-compare-tree")
    # a second click on the same token closes its tree
    row(page, LABELS["r50k_base"]).locator(".bpe-spans .t.picked").click()
    wait_idle(page)
    expect(page.locator(".bpe-built")).to_have_count(0)
    # how long a click takes to show its tree, timed in the page (printed, not asserted: README "How a token was built")
    took = [page.evaluate(CLICK_TO_TREE, i) for i in [0, 2, 0, 2, 0, 2, 0]]
    print(f"click to tree: median {statistics.median(took):.0f} ms of {len(took)}")
    expect(panel).to_be_visible()
    assert_no_exception(page)
