"""The lesson in a class, in real browsers against `make serve`'s deployment (nginx, two app processes, one database:
SQLite, then PostgreSQL): a teacher and three students, one of them on each app process for sure; follow, stop
following and rejoin; the class's answers, aggregated for the teacher alone; a student's forged attempts to lead
refused."""

from __future__ import annotations

import re
import subprocess
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from postgres import PostgresServer

from classroom.database import owner_of
from ui.lesson import model

from .conftest import ClassroomServer, assert_no_exception, screenshot, wait_idle

pytestmark = [pytest.mark.browser]

SECRET = "a-teacher-secret-for-the-browser-test"
#: How long a page may take to show the teacher's move: generous, as on a busy machine (speed is bench/load_test.py's).
MOVE_TIMEOUT = 30_000


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def classroom(request, tmp_path_factory):
    """The deployment with its default database (SQLite), then with a real PostgreSQL as replicas would share."""
    env = {"BPE_LAB_TEACHER_SECRET": SECRET}
    pg = PostgresServer().start() if request.param == "postgresql" else None
    if pg is not None:
        env["BPE_LAB_DATABASE_URL"] = pg.url
    srv = ClassroomServer(tmp_path_factory.mktemp("lesson"), workers=2, env=env)
    try:
        yield srv.start()
    finally:
        srv.stop()
        if pg is not None:
            pg.stop()


def app_urls(classroom) -> list[str]:
    """Each app process's own address (behind nginx), so a student can be put on either for sure."""
    urls = []
    for pid in classroom.children()["app"]:
        args = subprocess.run(["ps", "-ww", "-o", "args=", "-p", str(pid)], capture_output=True, text=True).stdout.split()
        urls.append(f"http://127.0.0.1:{args[args.index('--server.port') + 1]}")
    return sorted(urls)


#: Every message the page's websocket receives, as text (Streamlit's are protobuf: an element's text is in it as UTF-8).
RECORD_MESSAGES = """
window.bpeLabReceived = [];
const Native = window.WebSocket;
window.WebSocket = class extends Native {
  constructor(...args) {
    super(...args);
    const keep = (buffer) => window.bpeLabReceived.push(new TextDecoder().decode(buffer));
    this.addEventListener("message", (event) => {
      if (event.data instanceof ArrayBuffer) keep(event.data);
      else if (event.data instanceof Blob) event.data.arrayBuffer().then(keep);
      else window.bpeLabReceived.push(String(event.data));
    });
  }
};
"""


def address(url: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(url).query, keep_blank_values=True)


def following(chapter: int, step: int) -> str:
    """The line a follower's page draws (only in a run of the whole page) for the teacher's place."""
    return f"Following the teacher: chapter {chapter}, step {step}."


#: The page's place: the chapter from the address bar, the step from the stepper (0 in a chapter without one).
PLACE_JS = """() => {
  const q = new URLSearchParams(location.search);
  const stepper = document.querySelector('.bpe-stepper[data-k]');
  return [Number(q.get('chapter') || 0), stepper ? Number(stepper.dataset.k) : 0, q.get('step')];
}"""


class Browser:
    """One person's browser: its own context (so its own cookie), one tab, and the page texts it received."""

    def __init__(self, browser, base: str, name: str, cookies: list[dict] | None = None, viewport=(1400, 1000)):
        self.context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
        if cookies:
            self.context.add_cookies(cookies)
        self.page = self.context.new_page()
        self.page.set_default_timeout(60_000)
        self.base, self.name = base, name
        self.page.add_init_script(RECORD_MESSAGES)

    def received(self, text: str | None = None) -> int:
        """How many of the server's messages since ``forget`` this page received (that hold ``text``)."""
        return self.page.evaluate("(t) => window.bpeLabReceived.filter((m) => t === null || m.includes(t)).length", text)

    def forget(self) -> None:
        self.page.evaluate("() => { window.bpeLabReceived.length = 0; }")

    def open(self, query: str = "") -> Browser:
        self.page.goto(f"{self.base}/lesson{query}")
        wait_idle(self.page)
        return self

    def toggle(self):
        return self.page.get_by_role("switch", name="Follow the teacher")

    def follow(self, on: bool = True) -> None:
        if self.toggle().is_checked() != on:
            self.page.get_by_text("Follow the teacher", exact=True).click()
        wait_idle(self.page)

    def at(self, chapter: int, step: int = 0, timeout: float = MOVE_TIMEOUT) -> None:
        """Wait until the page shows ``chapter`` (the address bar and the chapter's title) and, in a stepping chapter,
        its stepper stands at ``step`` and the address bar says so."""
        stepping = model.chapter(chapter).stepper is not None
        try:
            self.page.wait_for_function(
                f"([chapter, step]) => {{ const [c, k, s] = ({PLACE_JS})(); "
                "return c === chapter && (step === null ? s === null : k === step && s === String(step)); }",
                arg=[chapter, step if stepping else None],
                timeout=timeout,
            )
        except PlaywrightTimeout:
            screenshot(self.page, f"lesson-class-not-at-{chapter}-{step}")
            raise AssertionError(f"{self.name}: not at {(chapter, step)}: {self.page.evaluate(PLACE_JS)}") from None
        self.page.get_by_text(f"{chapter}. {model.chapter(chapter).title}", exact=False).first.wait_for(timeout=timeout)

    def place(self) -> tuple[int, int]:
        chapter, step, _ = self.page.evaluate(PLACE_JS)
        return chapter, step

    def press(self, label: str) -> None:
        self.page.get_by_role("button", name=label, exact=True).click()
        wait_idle(self.page)

    def step(self, times: int) -> None:
        """The stepper's → key, ``times`` over (the keys act when no text box has the cursor)."""
        self.page.locator("h1").first.click()
        for _ in range(times):
            self.page.keyboard.press("ArrowRight")

    def answer_bytes(self, right: bool) -> None:
        """Chapter 1's question, about this browser's own example: how many UTF-8 bytes, right or one off."""
        prompt = self.page.get_by_text(re.compile(r"How many UTF-8 bytes is")).first.inner_text()
        subject = re.search(r"is (.+)\?$", prompt.strip()).group(1).strip("`")
        n = len(subject.encode("utf-8"))
        self.page.get_by_label("Your answer (a number)").fill(str(n if right else n + 1))
        self.page.get_by_role("button", name="Check").click()
        wait_idle(self.page)
        self.page.get_by_text(re.compile(r"^Right: " if right else r"^Not ")).first.wait_for()

    def leads(self) -> bool:
        return self.page.get_by_text("You lead the class").count() == 1

    def cookie(self) -> str:
        [c] = [c for c in self.context.cookies() if c["name"] == "bpe_lab_browser"]
        return c["value"]

    def close(self) -> None:
        self.context.close()


def test_the_banner_prints_the_teacher_link(classroom):
    log = classroom.log.read_text()
    assert f"The teacher leads the lesson from http://localhost:{classroom.port}/lesson?teacher={SECRET}" in log


def test_a_teacher_leads_three_students_on_both_app_processes(browser, classroom):
    apps = app_urls(classroom)
    assert len(apps) == 2
    teacher = Browser(browser, classroom.url, "teacher").open(f"?teacher={SECRET}&chapter=1")
    students = [
        Browser(browser, classroom.url, "through nginx"),
        Browser(browser, apps[0], "on app 1"),  # the teacher is on one of the two processes: a student is on the other
        Browser(browser, apps[1], "on app 2"),
    ]
    try:
        assert teacher.leads()
        assert SECRET not in teacher.page.url and "teacher" not in address(teacher.page.url)  # gone after use
        teacher.at(1)
        for s in students:
            s.open("?chapter=4")
            assert not s.leads()
            s.at(4)  # exploring on their own
            s.follow()
            s.at(1)  # the teacher's place at once
            assert s.page.get_by_role("button", name="Next chapter ▶").is_disabled()  # the teacher moves them
        markers = [s.page.evaluate("() => (window.bpeLabNoReload = Math.random())") for s in students]

        # answers: the latest of each browser counts, the teacher sees how they spread and nobody else does
        students[0].answer_bytes(right=True)
        students[1].answer_bytes(right=False)
        students[2].answer_bytes(right=False)
        students[2].answer_bytes(right=True)  # tried again
        teacher.page.get_by_text("3 answered: 2 right, 1 wrong.").wait_for(timeout=MOVE_TIMEOUT)
        chart = teacher.page.locator('[data-testid="stVegaLiteChart"]')
        chart.first.wait_for()
        screenshot(teacher.page, "lesson-teacher-answers")
        for s in students:
            assert s.page.get_by_text("The class's answers").count() == 0
            assert s.page.get_by_text(re.compile(r"\d+ answered")).count() == 0
            assert s.page.locator('[data-testid="stVegaLiteChart"]').count() == 0

        # the teacher moves to a stepping chapter and steps in the browser: every follower follows, chapter and
        # step, without a reload
        for s in students:
            s.forget()
        teacher.press("Next chapter ▶")
        teacher.at(2, 0)
        for s in students:
            s.at(2, 0)
        teacher.press("Next chapter ▶")
        teacher.at(3, 0)
        for s in students:
            s.at(3, 0)
        teacher.step(2)
        teacher.at(3, 2)  # the stepper's report, when stepping pauses, reaches the class
        for s, marker in zip(students, markers, strict=True):
            s.at(3, 2)
            assert s.received(following(3, 2)) > 0  # the page ran again, and the test below can see that
            assert s.page.evaluate("() => window.bpeLabNoReload") == marker, s.name
            assert address(s.page.url) == {"chapter": ["3"], "step": ["2"]}, s.page.url  # a link to what they see

        # while the teacher stays put, a follower's page is not run again: only the one-second check runs, whose
        # messages never carry the page's own text
        for s in students:
            s.forget()
        teacher.page.wait_for_timeout(4000)
        for s in students:
            assert s.received() > 0, s.name  # the check ran...
            assert s.received(following(3, 2)) == 0, s.name  # ...and the page did not
            assert s.place() == (3, 2)

        # one student stops following and explores; the others keep following; then they rejoin
        explorer = students[0]
        explorer.follow(False)
        explorer.press("Next chapter ▶")
        explorer.at(4)
        teacher.press("Next chapter ▶")
        teacher.press("Next chapter ▶")
        teacher.at(5, 0)
        for s in students[1:]:
            s.at(5, 0)
        explorer.page.wait_for_timeout(3000)
        assert explorer.place() == (4, 0)  # left where they went
        assert teacher.place() == (5, 0)  # and the teacher is not moved by a student's Next
        explorer.follow(True)
        explorer.at(5, 0)
        screenshot(students[1].page, "lesson-student-following")

        # the teacher's browser keeps leading after a reload (it is marked in the database, not in a session)
        teacher.open("?chapter=5")
        assert teacher.leads()
        for s in (teacher, *students):
            assert_no_exception(s.page)
    finally:
        for b in (teacher, *students):
            b.close()


def test_the_class_controls_are_on_a_projectors_first_screen(browser, classroom):
    """At 1280x720 in presenter mode (whose sidebar starts folded) the teacher's lead and a student's Follow the
    teacher are on the first screen, above the chapter's figure."""
    teacher = Browser(browser, classroom.url, "teacher", viewport=(1280, 720)).open(f"?teacher={SECRET}&chapter=3&present=1")
    student = Browser(browser, classroom.url, "student", viewport=(1280, 720)).open("?chapter=3&present=1")
    try:
        for who, control in ((teacher, teacher.page.get_by_text("You lead the class")), (student, student.toggle())):
            box = control.bounding_box()
            assert box is not None and control.is_visible(), who.name
            assert 0 <= box["y"] and box["y"] + box["height"] <= 720, (who.name, box)
            figure = who.page.locator(".bpe-stepper[data-k]").first
            figure.wait_for()
            assert box["y"] < figure.bounding_box()["y"] < 720, who.name  # and the figure still starts on it
        screenshot(student.page, "lesson-present-student")
        for b in (teacher, student):
            assert_no_exception(b.page)
    finally:
        for b in (teacher, student):
            b.close()


def test_a_student_cannot_lead_whatever_they_send(browser, classroom):
    teacher = Browser(browser, classroom.url, "teacher").open(f"?teacher={SECRET}&chapter=3&step=1")
    assert teacher.leads()
    teacher.at(3, 1)
    teacher_cookie = teacher.cookie()
    student = Browser(browser, classroom.url, "student").open("?chapter=1")
    # a wrong secret, and the secret's look-alikes
    for forged in ["wrong", SECRET[:-1], SECRET + "x", SECRET.upper(), ""]:
        student.open(f"?teacher={forged}&chapter=5&step=0")
        assert not student.leads(), forged
        assert "teacher" not in address(student.page.url)
    student.page.get_by_text("That teacher link is not this server's").wait_for()
    # a student who finds the teacher's owner id (what the database keeps) and sends it as their cookie
    hashed = [
        {"name": "bpe_lab_browser", "value": owner_of(teacher_cookie), "url": classroom.url},
    ]
    tampered = [{"name": "bpe_lab_browser", "value": teacher_cookie[:-4] + "zzzz", "url": classroom.url}]
    not_a_key = [{"name": "bpe_lab_browser", "value": "short", "url": classroom.url}]  # no browser at all
    for cookies in (hashed, tampered, not_a_key):
        other = Browser(browser, classroom.url, "forger", cookies=cookies).open("?chapter=9")
        assert not other.leads()
        other.follow()
        other.at(3, 1)  # they may follow: the stepper opens at the teacher's step...
        other.step(2)  # ...and stepping their own stepper there moves nobody else
        other.page.wait_for_timeout(2500)
        assert teacher.place() == (3, 1)  # ...and nothing they do moves the teacher's class
        other.close()
    # the student's own Next and a hand-made address move the student alone
    student.follow(False)
    student.open("?chapter=8&step=3")
    student.at(8)
    watcher = Browser(browser, classroom.url, "watcher").open()
    watcher.follow()
    watcher.at(3, 1)
    for b in (teacher, student, watcher):
        assert_no_exception(b.page)
        b.close()
