"""The code behind the step in Chromium: Step through shows tokenizer/bpe/textbook.py's own source with the current
step's values written in, and they follow the step in the page (no server rerun), in both modes and on a projector."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from ui.step import code

from .conftest import accessibility_findings, assert_no_exception, screenshot, wait_idle
from .test_step import open_step, press_keys, wait_step

pytestmark = pytest.mark.browser

PRE = ".bpe-st-code pre"


def shown_code(page) -> tuple[str, dict[str, str]]:
    """The listing without the filled-in values, and the values by fill."""
    source = page.locator(PRE).evaluate(
        """pre => [...pre.querySelectorAll('.ln')].map(ln => ln.firstChild.textContent).join('\\n')"""
    )
    fills = {f.get_attribute("data-fill"): f.inner_text() for f in page.locator(f"{PRE} .fill").all()}
    return source, fills


def test_training_the_code_is_the_textbooks_and_its_values_are_the_steps(page, server, trained):
    from classroom.stores import FolderStore

    tok = FolderStore(server.workspace).get(trained.removeprefix("user:"))
    open_step(page, server.url + f"/step?mode=training&tokenizer={trained}&step=12")
    source, fills = shown_code(page)
    assert source == code.panel("training")["source"]  # the module's own source, line for line
    m = tok.merge_list[12]
    assert fills["new_id"] == f"# step 13: new_id = {m.new_id}"
    assert fills["pair_count"].startswith(f"# → pair = ({m.pair[0]}, {m.pair[1]}) ")
    assert fills["pair_count"].endswith(f"stats[pair] = {m.count:,}")
    # Next, in the page: the values follow at once, and the server hears nothing until stepping rests
    page.locator("h1").first.click()
    seen = press_keys(page, ["ArrowRight"] * 5)  # and no message to the server while they are pressed
    assert [s["k"] for s in seen] == list(range(13, 18))
    for s in seen:
        m = tok.merge_list[s["k"]]
        assert s["fills"]["new_id"] == f"# step {s['k'] + 1}: new_id = {m.new_id}"
        assert f"stats[pair] = {m.count:,}" in s["fills"]["pair_count"]
    page.locator(".bpe-stepper button[data-act=last]").click()
    expect(page.locator(f"{PRE} .fill[data-fill=new_id]")).to_have_text(re.compile(r"^# training ended: [\d,]+ merges$"))
    assert_no_exception(page)


def test_encoding_the_code_is_encode_and_its_values_the_step_just_made(page, server):
    from tokenizer import load_encoding

    open_step(page, server.url + "/step?mode=encoding&tokenizer=cl100k_base&step=0&text=Hello%20tokenization")
    source, fills = shown_code(page)
    assert source == code.panel("encoding")["source"]
    assert "no merge yet" in fills["pair_rank"]
    trace = load_encoding("cl100k_base").encode_trace("Hello tokenization")
    page.locator(".bpe-stepper button[data-act=next]").click()
    wait_step(page, 1)
    s = trace.steps[0]
    expect(page.locator(f"{PRE} .fill[data-fill=pair_rank]")).to_contain_text(f"pair = ({s.pair[0]}, {s.pair[1]}) ")
    expect(page.locator(f"{PRE} .fill[data-fill=pair_rank]")).to_contain_text(f"rank {s.rank:,}")
    expect(page.locator(f"{PRE} .fill[data-fill=merged]")).to_contain_text(f"merges[pair] = {s.new_id} ")
    assert_no_exception(page)


def test_on_a_projector_the_code_is_folded_and_opens_readable(projector, server, trained):
    page = projector
    open_step(page, server.url + f"/step?mode=training&tokenizer={trained}&step=30&present=1")
    page.locator(".bpe-present").wait_for(state="attached")
    box = page.locator(".bpe-st-code")
    expect(box).not_to_have_attribute("open", "")  # the step itself comes first
    box.locator("summary").click()
    expect(box).to_have_attribute("open", "")
    box.locator("summary").scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    wait_idle(page)
    fill = page.locator(f"{PRE} .fill[data-fill=pair_count]")
    expect(fill).to_be_visible()
    # opened, the listing shows the loop's filled-in lines, not only the helpers above them
    inside = fill.evaluate(
        "f => { const p = f.closest('pre').getBoundingClientRect(), r = f.getBoundingClientRect(); return r.top >= p.top && r.bottom <= p.bottom; }"
    )
    assert inside
    bad, _ = accessibility_findings(page)
    assert bad == []
    page.locator(PRE).evaluate("p => p.scrollIntoView({block: 'end'})")
    page.wait_for_timeout(300)
    screenshot(page, "present-step-code")
