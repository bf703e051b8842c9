"""The training variants in a real browser, in presenter mode at 1280×720: each trains from the Train page with a
progress bar, shows what it changed, passes axe-core, and Step through replays a parity-aware training."""

import re

import pytest
from playwright.sync_api import expect

from .conftest import accessibility_findings, assert_no_exception, screenshot, wait_idle

pytestmark = pytest.mark.browser


@pytest.fixture
def projector(projector):
    projector.set_default_timeout(120_000)  # a training runs inside some steps
    return projector


def choose_method(page, label: str) -> None:
    page.locator('[data-testid="stButtonGroup"]').filter(has=page.get_by_text("Parity-aware")).get_by_text(label).click()
    wait_idle(page)


def train_and_wait(page) -> None:
    page.get_by_role("button", name=re.compile("Train$")).click()
    page.locator('[data-testid="stProgress"]').wait_for()
    page.get_by_text(re.compile(r"Done: [\d,]+ merges in [\d.]+ s")).wait_for()
    wait_idle(page, timeout=120_000)
    assert_no_exception(page)


def results_on_screen(page, heading: str) -> None:
    """A screen tall enough for the variant's results, scrolled to them, its charts laid out."""
    page.set_viewport_size({"width": 1280, "height": 2000})
    page.wait_for_timeout(800)
    wait_idle(page)
    page.get_by_text(heading).first.evaluate("e => e.scrollIntoView({block: 'start'})")
    page.wait_for_timeout(800)


@pytest.mark.parametrize(
    "method, label, heading, check",
    [
        ("parity", "Parity-aware", "Parity-aware: what changed", "Spread, parity-aware"),
        ("superwords", "Tokens across words", "Tokens across words: what changed", "Tokens that cross words"),
        ("continued", "Continue a tokenizer", "Continue a tokenizer: what changed", "Tokens, r50k_base"),
    ],
    ids=["parity", "superwords", "continued"],
)
def test_each_variant_trains_and_shows_what_it_changed_in_presenter_mode(projector, server, method, label, heading, check):
    page = projector
    page.goto(server.url + "/train?present=1")
    page.locator(".bpe-present").wait_for(state="attached")
    wait_idle(page, timeout=60_000)
    choose_method(page, label)
    screenshot(page, f"present-train-{method}-settings")
    train_and_wait(page)
    expect(page.get_by_text(heading).first).to_be_visible()
    expect(page.locator('[data-testid="stMetricLabel"]').filter(has_text=check).first).to_be_visible()
    results_on_screen(page, heading)
    assert page.locator('[data-testid="stVegaLiteChart"]').count() >= 2
    bad, _ = accessibility_findings(page)
    assert bad == []
    screenshot(page, f"present-train-{method}")


def test_step_through_a_parity_training_in_presenter_mode(projector, server):
    """The language each step serves, and every language's length, change with the step in the page."""
    import tokenizer
    from classroom.stores import FolderStore
    from tokenizer.bpe.parity import join_parallel, train_parity
    from ui.compare import languages

    tokenizer.configure()
    texts = {lang: languages.texts()[lang] for lang in ("English", "Greek", "Hindi", "Chinese")}
    tok = train_parity(texts, 400, name="four languages")
    key = FolderStore(server.workspace).add(tok, corpus=join_parallel(texts))
    page = projector
    page.goto(server.url + f"/step?mode=training&tokenizer=user:{key}&step=12&present=1")
    page.locator(".bpe-present").wait_for(state="attached")
    page.locator(".bpe-stepper").wait_for()
    wait_idle(page, timeout=60_000)
    trace = tok.training
    served = list(texts)[trace.served[12]]
    note = page.locator(".bpe-st-variant")
    expect(note).to_have_text(re.compile(rf"^Step 13 serves {served}, the worst-compressed language now"))
    langs = page.locator(".bpe-st-langs")
    expect(langs.locator(".row.next .lbl")).to_have_text(served)
    expect(page.locator(".bpe-st-cards")).to_contain_text(f"in the {served} text")
    # Next, in the page: the note, the language served and the lengths follow without a server rerun
    page.locator(".bpe-stepper button[data-act=next]").click()
    expect(page.locator(".bpe-stepper")).to_have_attribute("data-k", "13")
    after = list(texts)[trace.served[13]]
    expect(note).to_contain_text(f"Step 14 serves {after},")
    expect(langs.locator(".row.next .lbl")).to_have_text(after)
    numbers = [int(t.replace(",", "")) for t in langs.locator(".row .n").all_inner_texts()]
    assert numbers == list(trace.language_tokens_at(13).values())
    expect(page.locator(".bpe-st-pairs .bpe-st-sub")).to_contain_text(f"in the {after} text", timeout=30_000)
    expect(page.locator(".bpe-st-pairs tr.next")).to_have_count(1, timeout=30_000)
    page.locator(".bpe-st-figs").scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    assert_no_exception(page)
    bad, _ = accessibility_findings(page)
    assert bad == []
    screenshot(page, "present-step-parity")


def test_step_through_tokens_across_words_changes_the_cut_at_the_transition(projector, server):
    import tokenizer
    from classroom.stores import FolderStore
    from tokenizer.bpe.superwords import train_superwords

    tokenizer.configure()
    text = ("of the cat and of the dog, in the house of the king; " * 30) + "the end of the day.\n"
    tok = train_superwords(text, 300, "gpt4", transition=280, name="across words")
    t = tok.training.stage1_merges
    key = FolderStore(server.workspace).add(tok, corpus=text)
    page = projector
    page.goto(server.url + f"/step?mode=training&tokenizer=user:{key}&step={t - 1}&present=1")
    page.locator(".bpe-stepper").wait_for()
    wait_idle(page, timeout=60_000)
    note = page.locator(".bpe-st-variant")
    expect(note).to_contain_text("Stage 1 (merges 1 to")
    cuts_before = page.locator(".bpe-st-spans .cut").count()
    page.locator(".bpe-stepper button[data-act=next]").click()
    expect(note).to_contain_text("Stage 2 starts")
    cuts_after = page.locator(".bpe-st-spans .cut").count()
    assert cuts_after < cuts_before  # the superword pattern's chunks hold several words
    page.locator(".bpe-stepper button[data-act=last]").click()
    expect(note).to_contain_text("Stage 2 (merges")
    assert_no_exception(page)
    bad, _ = accessibility_findings(page)
    assert bad == []
    screenshot(page, "present-step-superwords")
