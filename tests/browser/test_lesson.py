"""The Lesson page in Chromium: every chapter, at a projector's 1280x720 in presenter mode and at 1400x900, moved
through with Next and with the keys; the chapter and the step in the address bar; the figure on the first screen;
a question answered wrong, then right."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from ui.lesson import model

from .conftest import assert_no_exception, screenshot, tab, wait_idle

pytestmark = pytest.mark.browser

#: what a chapter's figure is drawn as: token or chunk rows, the stepper, a chart
FIGURE = ".bpe-stepper[data-k], .bpe-row, [data-testid='stVegaLiteChart']"


def url_chapter(page) -> int:
    return int(re.search(r"[?&]chapter=(\d+)", page.url).group(1))


def figure_top(page) -> float:
    fig = page.locator(FIGURE).first
    fig.wait_for(timeout=60_000)
    box = fig.bounding_box()
    assert box is not None
    return box["y"]


def at_chapter(page, n: int) -> None:
    page.wait_for_url(re.compile(rf"[?&]chapter={n}(&|$)"), timeout=30_000)
    wait_idle(page)
    expect(page.get_by_text(f"{n}. {model.chapter(n).title}", exact=False).first).to_be_visible()


@pytest.fixture
def wide(tabs, server):
    with tab(tabs, server, 1400, 900, 60_000) as pg:
        yield pg


def test_presenter_mode_puts_every_chapters_figure_on_the_first_screen(projector, server):
    projector.goto(server.url + "/lesson?chapter=1&present=1")
    wait_idle(projector)
    for n in range(1, model.N + 1):
        at_chapter(projector, n)
        assert "present=1" in projector.url
        top = figure_top(projector)
        print(f"chapter {n}: the figure starts at {top:.0f} px")
        # on the first screen, with room to show some of it (a top at 700 px would be a sliver)
        assert top < 720 - 150, f"chapter {n}: the figure starts at {top:.0f} px of a 720 px projector's first screen"
        # the explanation is folded away, one click from the screen
        about = projector.get_by_text(f"{n}. {model.chapter(n).title}", exact=False).first
        assert projector.locator('[data-testid="stExpander"] details').first.evaluate("d => d.open") is False
        if n in (1, 3, 4, 7, 9):
            screenshot(projector, f"lesson-present-{n}")
        if n == 1:
            about.click()
            expect(projector.get_by_text("code points", exact=False).first).to_be_visible()
        assert_no_exception(projector)
        if n < model.N:
            projector.get_by_role("button", name="Next chapter ▶").click()


def test_a_student_goes_through_every_chapter_with_next_and_the_keys(wide, server):
    wide.goto(server.url + "/lesson")
    wait_idle(wide)
    for n in range(1, model.N + 1):
        at_chapter(wide, n)
        assert url_chapter(wide) == n
        top = figure_top(wide)
        assert top < 720, f"chapter {n}: the figure starts at {top:.0f} px"
        if model.chapter(n).stepper:
            wide.wait_for_url(re.compile(r"[?&]step=\d+"), timeout=30_000)
        if n in (2, 5):
            screenshot(wide, f"lesson-{n}")
        assert_no_exception(wide)
        if n == model.N:
            break
        wide.locator("h1").first.click()  # the keys act when no text box has the cursor
        if n % 3 == 1:
            wide.get_by_role("button", name="Next chapter ▶").click()
        elif n % 3 == 2 or model.chapter(n).stepper:
            wide.keyboard.press("PageDown")
        else:
            wide.keyboard.press("ArrowRight")
    # and back: PageUp, ← where no stepper takes it, and the Back button
    wide.locator("h1").first.click()
    wide.keyboard.press("PageUp")
    at_chapter(wide, 8)
    wide.locator("h1").first.click()
    wide.keyboard.press("ArrowLeft")
    at_chapter(wide, 7)
    wide.get_by_role("button", name="◀ Back").click()
    at_chapter(wide, 6)


def test_a_link_opens_chapter_3_at_step_2_and_the_address_follows_the_stepper(wide, server):
    wide.goto(server.url + "/lesson?chapter=3&step=2")
    wide.locator(".bpe-stepper[data-k]").wait_for(timeout=60_000)
    wait_idle(wide)
    assert wide.locator(".bpe-stepper").get_attribute("data-k") == "2"
    expect(wide.get_by_text("Repeat: merge after merge").first).to_be_visible()
    wide.locator("h1").first.click()
    wide.keyboard.press("ArrowRight")  # the stepper's key in a stepping chapter: one step, the chapter stays
    wide.wait_for_function("document.querySelector('.bpe-stepper')?.dataset.k === '3'", timeout=10_000)
    wide.wait_for_url(re.compile(r"[?&]step=3(&|$)"), timeout=10_000)
    assert url_chapter(wide) == 3
    screenshot(wide, "lesson-3-step-3")


def test_own_text_and_a_question_answered_wrong_then_right(wide, server):
    wide.goto(server.url + "/lesson?chapter=1")
    wait_idle(wide)
    box = wide.get_by_label("Your text (edit it, or pick an example)")
    box.fill("naïve 😄")
    box.press("Enter")
    wait_idle(wide)
    expect(wide.locator(".bpe-row").nth(1)).to_contain_text("11 tokens")
    prompt = wide.get_by_text(re.compile(r"How many UTF-8 bytes is")).first.inner_text()
    subject = re.search(r"is (.+)\?$", prompt.strip()).group(1).strip("`")
    right = len(subject.encode("utf-8"))
    answer = wide.get_by_label("Your answer (a number)")
    answer.fill(str(right + 1))
    wide.get_by_role("button", name="Check").click()
    wait_idle(wide)
    expect(wide.get_by_text(re.compile(rf"Not {right + 1}: it is {right}\."))).to_be_visible()
    answer.fill(str(right))
    wide.get_by_role("button", name="Check").click()
    wait_idle(wide)
    expect(wide.get_by_text(re.compile(rf"Right: {right}\."))).to_be_visible()
    screenshot(wide, "lesson-1-answered")


def _prompt(form) -> str:
    """The question's text as the page wrote it (spaces kept): the form's first markdown."""
    return form.locator('[data-testid="stMarkdownContainer"]').first.text_content()


def _solve(page, n: int, form, prompt: str) -> tuple[str, str, str]:
    """(kind, right, wrong) for the question in ``form``, computed here from the core and the page's own text."""
    import tiktoken

    from tokenizer import load_encoding, train
    from tokenizer.bpe import textbook
    from tokenizer.display import visible

    def between(a: str, b: str) -> str:
        return prompt.split(a, 1)[1].split(b, 1)[0]

    def number(right: int) -> tuple[str, str, str]:
        return "number", str(right), str(right + 1)

    # the example a question asks about is in its prompt's code spans, as the page wrote them
    codes = [c.text_content() for c in form.locator('[data-testid="stMarkdownContainer"]').first.locator("code").all()]
    options = [o.text_content() for o in form.locator('[data-testid="stRadio"] [role="radiogroup"] label').all()]
    if n == 1:
        return number(len(codes[0].encode("utf-8")))
    if n == 2:
        text = codes[0]
        stats = textbook.get_stats(list(text.encode()))
        pair = next(p for p in stats if stats[p] == max(stats.values()))
        right = chr(pair[0]) + chr(pair[1])
        return "choice", right, next(o for o in options if o != right)
    if n == 3:
        text, label = codes
        tok = train(text, 256 + len(text), pattern=None)
        return number(
            next(
                m.new_id for m in tok.merge_list if f"{visible(tok.vocab[m.pair[0]])} + {visible(tok.vocab[m.pair[1]])}" == label
            )
        )
    if n == 4:
        tok = train(model.PARAGRAPH, 300, pattern=None)
        rank = {visible(tok.vocab[m.new_id]): m.rank for m in tok.merge_list}
        right = min(options, key=rank.__getitem__)
        return "choice", right, next(o for o in options if o != right)
    if n == 5:
        vocab, text = int(between("(vocabulary ", ")")), codes[0]
        return number(len(train(model.PARAGRAPH, vocab, pattern=None).encode(text)))
    if n == 6:
        return number(len(load_encoding("r50k_base").split(codes[0])))
    if n == 7:
        code = form.locator('[data-testid="stCode"] code').first.text_content()
        a, b = (len(tiktoken.get_encoding(e).encode_ordinary(code)) for e in ("gpt2", "cl100k_base"))
        return "numbers", f"{a},{b}", f"{a + 1},{b}"
    if n == 8:
        who = between("does ", " give")
        name = {"GPT-2": "gpt2", "GPT-4 (cl100k)": "cl100k_base", "GPT-4o (o200k)": "o200k_base"}[who]
        return number(len(tiktoken.get_encoding(name).encode(codes[0], disallowed_special=())))
    if "exactly" in prompt:
        k = int(between("exactly ", " tokens"))
        return "text", " hello" * k, " hello" * (k + 1)  # " hello" is one o200k token
    tok = load_encoding("o200k_base")
    back = {o: tok.encode_ordinary(tok.vocab[int(o.split(":")[0])].decode("utf-8")) == [int(o.split(":")[0])] for o in options}
    right = next(o for o, ok in back.items() if not ok)
    return "choice", right, next(o for o in options if o != right)


def _answer(form, kind: str, value: str) -> None:
    if kind == "choice":
        # the label whose whole text is the value: has_text would also match "the" for "he"
        labels = form.locator('[data-testid="stRadio"] [role="radiogroup"] label')
        next(o for o in labels.all() if o.text_content() == value).click()
    elif kind == "numbers":
        for box, part in zip(form.locator("input").all(), value.split(",")):
            box.fill(part)
    elif kind == "text":
        form.locator("textarea").fill(value)
    else:
        form.locator("input").fill(value)
    form.get_by_role("button", name="Check").click()


#: a student's own text per chapter (short: the stepping chapters' trace goes to the browser)
OWN = {
    1: "Grüße 👋",
    2: "xyxyz",
    3: "banana bandana",
    4: "low lower lowest low",
    5: "Hi you",
    6: "YOU'LL see",
    7: "x  =  42",
    8: "a<|endoftext|>b",
    9: "99999 + 1",
}


def _own_text(page, n: int) -> None:
    """Type the student's own text into the chapter's box; the figure must change."""
    fig = page.locator(FIGURE).first
    before = fig.get_attribute("data-trace") or fig.inner_text()
    box = page.get_by_label("Your text (edit it, or pick an example)")
    box.fill(OWN[n])
    box.press("Control+Enter" if model.chapter(n).multiline else "Enter")
    wait_idle(page, timeout=60_000)
    page.wait_for_function(
        "([sel, before]) => { const f = document.querySelector(sel); return f && (f.dataset.trace || f.innerText) !== before; }",
        arg=[FIGURE, before],
        timeout=30_000,
    )


@pytest.mark.parametrize("where", ["wide", "projector"])
def test_every_chapter_as_a_student_own_text_and_questions_wrong_then_right(request, server, where):
    wide = request.getfixturevalue(where)
    wide.goto(server.url + "/lesson" + ("?present=1" if where == "projector" else ""))
    wait_idle(wide)
    for n in range(1, model.N + 1):
        at_chapter(wide, n)
        _own_text(wide, n)
        forms = wide.locator('[data-testid="stForm"]')
        expect(forms.first).to_be_visible()
        for i in range(forms.count()):
            form = forms.nth(i)
            prompt = _prompt(form)
            kind, right, bad = _solve(wide, n, form, prompt)
            _answer(form, kind, bad)
            wait_idle(wide, timeout=60_000)
            expect(
                wide.locator('[data-testid="stAlert"]', has_text="❌"), f"chapter {n}: {prompt!r} answered {bad!r}"
            ).to_have_count(1)
            form = wide.locator('[data-testid="stForm"]').nth(i)
            _answer(form, kind, right)
            wait_idle(wide, timeout=60_000)
            alert = wide.locator('[data-testid="stAlert"]', has_text="❌")
            expect(alert, f"chapter {n}: {prompt!r} answered {right!r}").to_have_count(0)
            expect(wide.locator('[data-testid="stAlert"]', has_text="✅")).to_have_count(i + 1)
        if n == 9:
            screenshot(wide, f"lesson-9-answered-{where}")
        assert_no_exception(wide)
        if n < model.N:
            wide.get_by_role("button", name="Next chapter ▶").click()


def test_a_stepping_chapter_opens_the_same_steps_on_step_through(wide, server):
    wide.goto(server.url + "/lesson?chapter=3&step=2")
    wide.locator(".bpe-stepper[data-k]").wait_for(timeout=60_000)
    wait_idle(wide)
    wide.get_by_role("button", name=re.compile("Open these steps on Step through")).click()
    wait_idle(wide)
    wide.get_by_role("link", name=re.compile("Open these steps on Step through")).click()
    wide.wait_for_url(re.compile(r"/step\?.*mode=training"), timeout=30_000)
    wide.locator(".bpe-stepper[data-k]").wait_for(timeout=60_000)
    wait_idle(wide)
    assert wide.locator(".bpe-stepper").get_attribute("data-k") == "2"
    expect(wide.locator(".bpe-stepper [data-fig=step] .v")).to_have_text("2 of 4")
    assert_no_exception(wide)
