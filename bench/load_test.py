"""A class of simulated students against the classroom deployment (`make serve`), over Streamlit's websocket protocol.

    .venv/bin/python bench/load_test.py                       # starts its own deployment; N = 1, 10, 20, 40
    .venv/bin/python bench/load_test.py --students 40 --workers 2 --validate
    .venv/bin/python bench/load_test.py --url http://127.0.0.1:8501 --students 10   # a running `make serve`
    .venv/bin/python bench/load_test.py --overlap             # a rerun alone, then while five others train
    .venv/bin/python bench/load_test.py --students 40 --profile /tmp/class40   # and where the server's CPU goes (py-spy)
    .venv/bin/python bench/load_test.py --lesson --students 40 --workers 2   # 1 teacher and 40 students following

Each student (``bench/stclient.py``: one cookie jar, one websocket, as a browser tab)
does the issue's scenario, with 2-5 s of thinking between actions:

1. opens Tokenize (index.html and the static assets a browser fetches, then the first run),
2. types a sentence in three bursts (the page sends the text when typing pauses: one message a burst, none
   per key), then pastes a 2,000-character text (its own: sample sentences shuffled per student),
3. switches the tokenizer to GPT-2, cl100k and o200k,
4. opens Compare,
5. opens Train, sets the vocab size to 1,000 and trains on the built-in Python docstrings,
6. opens Step through, switches to training mode, steps five times (in the page, as the browser
   does since the stepping moved there: no message), and the page tells the server the step once,
7. opens Vocabulary.

Students start spread over ``--ramp`` seconds. Printed per N: p50 / p95 / max per
action, errors (exceptions on the page, ``st.error`` boxes, protocol failures,
timeouts), and the server's memory: the summed RSS of every process of the
deployment (app processes, nginx's master and workers), sampled every half second,
before (idle), at its peak, and after the sessions' time-to-live (the websockets
closed, ``--session-ttl`` + 15 s later). Memory is summed per process, so pages
shared between processes are counted in each.

``--profile PREFIX`` samples every Python process of the deployment with py-spy
(requirements-dev.txt; only the thread holding the GIL, so a sample is Python at work,
not a thread waiting for its turn) while each class runs, writes the stacks to
``PREFIX-<N>.txt`` (py-spy's raw format: one stack and its sample count a line) and
prints where the samples fall: per process kind, the functions of BPE Lab's own code
(``ui``, ``tokenizer``, ``classroom``) that most samples pass through, each with its
share, and the innermost functions of the samples outside our code.

``--lesson`` runs the lesson in a class instead (``lesson_class``): one teacher moves through
the Lesson page (Next every 2-5 s, the class's answers checked every 2 s as the teacher's page
does) and N students follow it, each running the page's one-second check as the browser's timer
does and answering each chapter's question 2-5 s after reaching it. Printed: the follow latency
(from the teacher's Next to the student's page showing that place) p50 / p95 / max, every
action's times, errors, the server's CPU per student over the whole lesson, and how many answers
the teacher's page counted against how many were sent.

``--validate`` first drives the same steps with Chromium (Playwright) and compares
the rerun messages it sends with ours (pages, widgets by key, how each value is
encoded, fragments), and records the static assets Chromium loads, which our
students then fetch too. It is a benchmark, not a test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# appended, not put first: under pytest, tests/ has modules of the same names as bench/ (corpus)
for _p in (str(ROOT), str(ROOT / "bench")):
    if _p not in sys.path:
        sys.path.append(_p)

from stclient import ProtocolError, Student  # noqa: E402

from ui.content.samples import SAMPLES  # noqa: E402
from ui.lesson import model as lesson_model  # noqa: E402

ACTIONS = [
    "page open (HTML + assets)",
    "page open (first run)",
    "type (sent when typing pauses)",
    "paste 2,000 chars",
    "switch tokenizer",
    "open Compare",
    "open Train",
    "set vocab size",
    "train (vocab 1000)",
    "open Step through",
    "Step: training mode",
    "Step: report the step",
    "open Vocabulary",
]


def student_text(i: int, n: int = 2000) -> str:
    """A 2,000-character text of its own for student ``i``: the samples' sentences, shuffled."""
    rng = random.Random(i)
    words = " ".join(SAMPLES.values()).split()
    out, size = [], 0
    while size < n:
        w = rng.choice(words)
        out.append(w)
        size += len(w) + 1
    return " ".join(out)[:n]


# ----------------------------------------------------------------------------- one student


class Recorder:
    def __init__(self) -> None:
        self.times: dict[str, list[float]] = defaultdict(list)
        self.errors: list[str] = []
        self.bytes_down = 0

    def add(self, action: str, seconds: float) -> None:
        self.times[action].append(seconds)


LIVE = "tokenize.live"  # the live Tokenize view (ui/tokenize/live.py): the text box is a component
_seq = iter(range(1, 1 << 30))


def send_text(s: Student, text: str):
    """What the Tokenize page sends when typing pauses (or a paste lands and the box is left): the text, once.

    The live view (a component that tokenizes in the page) sends it as its ``text`` trigger, ``full`` when typing
    has stopped; the plain text box (st.text_area) sends its value when it is left.
    """
    if s.has(LIVE):
        return s.rerun(event=(LIVE, "text", {"text": text, "seq": next(_seq), "full": True}))
    s.set_text("tokenize.text", text)
    return s.rerun()


async def scenario(
    i: int, base: str, rec: Recorder, think: tuple[float, float], assets: list[str] | None, rng: random.Random
) -> None:
    s = Student(base)

    async def pause() -> None:
        await asyncio.sleep(rng.uniform(*think))

    async def step(action: str, coro) -> None:
        r = await coro
        rec.add(action, r.seconds)
        for e in r.exceptions:
            rec.errors.append(f"student {i}, {action}: exception {e}")
        for e in r.errors:
            rec.errors.append(f"student {i}, {action}: st.error {e[:200]}")

    try:
        rec.add("page open (HTML + assets)", await s.load_page("/", assets))
        await s.connect()
        await step("page open (first run)", s.open())
        await pause()
        typed = student_text(i, 60)
        for cut in (20, 40, 60):  # three bursts of keys, each followed by a pause: one message each
            await asyncio.sleep(rng.uniform(think[0] / 4, think[1] / 4))  # a burst of keys and the pause after it
            await step("type (sent when typing pauses)", send_text(s, typed[:cut]))
        await pause()
        await step("paste 2,000 chars", send_text(s, student_text(i)))
        for name in ("r50k_base", "cl100k_base", "o200k_base"):
            await pause()
            s.choose("tokenize.tokenizer", name)
            await step("switch tokenizer", s.rerun())
        await pause()
        await step("open Compare", s.navigate("compare"))
        await pause()
        await step("open Train", s.navigate("train"))
        await pause()
        s.set_int("train.vocab_size", 1000)
        await step("set vocab size", s.rerun())
        await pause()
        await step("train (vocab 1000)", s.rerun(trigger="train.go"))
        await pause()
        await step("open Step through", s.navigate("step"))
        await pause()
        s.segment("step.mode", "Training")
        await step("Step: training mode", s.rerun())
        await asyncio.sleep(rng.uniform(think[0] / 2, think[1] / 2) * 5)  # five steps in the page, no message
        s.report_step(5)
        await step("Step: report the step", s.rerun(fragment_of="step.stepper"))
        await pause()
        await step("open Vocabulary", s.navigate("vocabulary"))
    except (ProtocolError, OSError, Exception) as e:  # every failure is counted, the run goes on
        rec.errors.append(f"student {i}: {type(e).__name__}: {e}")
    finally:
        rec.bytes_down += s.bytes_down
        await s.close()


# ----------------------------------------------------------------------------- a hostile student

#: A tokenizer.json Split that gets through the load-time probes but backtracks catastrophically on a run of
#: "y": every text of them costs its worker the regex time limit (the app process itself never waits on it).
HOSTILE_SPLIT = r"(?:y|y){1,21}$|\s+|."
#: The pattern that froze a class server: refused at load, so a saved copy shows as damaged.
FREEZER_SPLIT = r"(?:.|.){1,21}$"
HOSTILE_ACTIONS = ["hostile: type on Tokenize", "hostile: Step through", "hostile: open Train"]


def _hf_doc(pattern: str) -> dict:
    from tokenizer.display import bytes_to_unicode

    table = bytes_to_unicode()
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}
    split = {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False}
    return {
        "version": "1.0",
        "added_tokens": [],
        "normalizer": None,
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [split, byte_level]},
        "decoder": byte_level,
        "model": {
            "type": "BPE",
            "vocab": {table[b]: b for b in range(256)},
            "merges": [],
        },
    }


def plant_hostile(data: Path, browser_key: str) -> None:
    """Put the two hostile files in a browser's workspace, as if uploaded: one that backtracks on some texts, and
    the freezing one as a copy saved before uploads were probed (written with its probe skipped)."""
    from classroom import database
    from tokenizer import Tokenizer
    from tokenizer.formats.hf import from_hf_json
    from tokenizer.pretokenize.hf import HFPreTokenizer

    db = database.Database(f"sqlite:///{data / 'workspaces.sqlite3'}")
    try:
        store = database.DatabaseStore(db, database.owner_of(browser_key))
        store.add(from_hf_json(_hf_doc(HOSTILE_SPLIT), name="hostile-y"), source="uploaded")
        spec = {"normalizer": None, "pre_tokenizer": _hf_doc(FREEZER_SPLIT)["pre_tokenizer"], "added_tokens": []}
        store.add(Tokenizer(pipeline=HFPreTokenizer(spec, trusted=True), name="freezer"), source="uploaded")
    finally:
        db.close()


async def hostile_scenario(base: str, data: Path, rec: Recorder, rounds: int, think: tuple[float, float]) -> list[str]:
    """One student with the hostile files picks them on Tokenize and Step through and types their text, again and
    again; returns the messages the pages gave them (each should say the pattern was stopped or refused)."""
    s = Student(base)
    said: list[str] = []

    async def step(action: str, coro) -> None:
        r = await coro
        rec.add(action, r.seconds)
        said.extend(r.errors)
        for e in r.exceptions:
            rec.errors.append(f"hostile student, {action}: exception {e}")

    try:
        await s.load_page("/", [])
        key = s.cookies.get("bpe_lab_browser")
        if not key:
            raise ProtocolError("the proxy gave no browser cookie")
        plant_hostile(data, key)
        await s.connect()
        await s.open()
        s.choose("tokenize.tokenizer", "hostile-y")
        await s.rerun()
        for i in range(rounds):
            await asyncio.sleep(random.uniform(*think) / 2)
            await step("hostile: type on Tokenize", send_text(s, "y" * (300 + i)))
        await step("hostile: Step through", s.navigate("step"))
        s.choose("step.encoding.tokenizer", "hostile-y")
        s.set_text("step.text", "y" * 300)
        await step("hostile: Step through", s.rerun())
        r = await s.navigate("train")
        rec.add("hostile: open Train", r.seconds)
        said.extend(w for w in r.warnings if "backtracks" in w)  # the freezing file, listed as damaged
    except (ProtocolError, OSError, Exception) as e:
        rec.errors.append(f"hostile student: {type(e).__name__}: {e}")
    finally:
        await s.close()
    return said


async def run_hostile(
    base: str, data: Path, n: int, think: tuple[float, float], seed: int
) -> tuple[Recorder, Recorder, list[str]]:
    """``n`` students doing the scenario while one hostile student does ``hostile_scenario`` throughout."""
    rec, bad = Recorder(), Recorder()
    rng = random.Random(seed)
    # first, unmeasured, a few students on every process: each trains the built-in corpus once and keeps it
    await asyncio.gather(*(scenario(100 + i, base, Recorder(), (0.0, 0.1), [], random.Random(i)) for i in range(4)))

    async def one(i: int) -> None:
        await asyncio.sleep(i * 0.5)
        await scenario(i, base, rec, think, [], random.Random(rng.random()))

    results = await asyncio.gather(hostile_scenario(base, data, bad, 8, think), *(one(i) for i in range(n)))
    return rec, bad, results[0]


# ----------------------------------------------------------------------------- the lesson in a class

LESSON_ACTIONS = [
    "page open (HTML + assets)",
    "lesson: open (first run)",
    "lesson: follow the teacher",
    "follow check (every 1 s)",
    "follow latency (teacher's move to the student's page)",
    "answer",
    "teacher: Next chapter",
    "teacher: a step (the stepper's report)",
    "teacher: the answers (every 2 s)",
]
#: A follower's page says where the teacher is (ui/lesson/follow.py); the teacher's says the chapter it leads in.
PLACE = re.compile(r"Following the teacher: chapter (\d+), step (\d+)\.")
LEADS_IN = re.compile(r"You lead the class\*\* in chapter (\d+)")
ANSWERED = re.compile(r"(\d+) answered")
#: The teacher's steps in each stepping chapter (their stepper reports them as the browser would when stepping pauses).
LESSON_STEPS = 2
LESSON_CHAPTERS = lesson_model.N
STEPPING = tuple(c.n for c in lesson_model.CHAPTERS if c.stepper)
TEACHER_SECRET = "load-test-teacher-secret-0123456789"
ANSWER_KEY, CHECK_KEY = "lesson.answer.", "lesson.check."


def place_of(result) -> tuple[int, int] | None:
    """The teacher's chapter and step as a follower's run drew them, or None when it drew none."""
    for text in result.texts:
        m = PLACE.search(text)
        if m:
            return int(m.group(1)), int(m.group(2))
    return None


def lesson_path() -> list[tuple[int, int]]:
    """The teacher's way through the lesson: every chapter, and in a stepping chapter its first steps one by one."""
    path = []
    for chapter in range(1, LESSON_CHAPTERS + 1):
        path += [(chapter, step) for step in range(LESSON_STEPS + 1 if chapter in STEPPING else 1)]
    return path


class Lesson:
    """What the teacher did, shared with the students' coroutines (one event loop, one clock)."""

    def __init__(self, moves: int, students: int) -> None:
        self.path = lesson_path()[: moves + 1]
        self.students = students
        self.at: dict[tuple[int, int], float] = {}  # place -> perf_counter when the teacher moved there
        self.started = asyncio.Event()
        self.done = False
        self.sent: dict[int, int] = defaultdict(int)  # chapter -> answers the students sent
        self.counted: dict[int, int] = {}  # chapter -> how many answered, as the teacher's page last said
        self.last: tuple[int, int] | None = None  # where the teacher ended
        self.shown: dict[int, tuple[int, int] | None] = {}  # student -> where their page was at the end


async def teacher_scenario(base: str, secret: str, lesson: Lesson, rec: Recorder, think, rng: random.Random) -> None:
    s = Student(base)
    place = lesson.path[0]

    async def watch_answers(seconds: float, until_all: bool = False) -> None:
        """Think for ``seconds`` while the page's answers fragments rerun every two seconds (the last one's count); with
        ``until_all``, stop as soon as every student has answered, as a teacher would move on."""
        end = time.perf_counter() + seconds
        while (left := end - time.perf_counter()) > 0:
            await asyncio.sleep(min(2.0, left))
            if s.auto_reruns and time.perf_counter() < end + 0.01:
                r = await s.rerun(auto_fragment=list(s.auto_reruns)[-1])
                rec.add("teacher: the answers (every 2 s)", r.seconds)
                found = [ANSWERED.search(t) for t in r.texts]
                if any(found):
                    lesson.counted[place[0]] = int(next(f for f in found if f).group(1))
                if until_all and lesson.counted.get(place[0], 0) >= lesson.students:
                    return

    def leads_in(r) -> int | None:
        found = [LEADS_IN.search(t) for t in r.texts]
        return next((int(f.group(1)) for f in found if f), None)

    try:
        rec.add("page open (HTML + assets)", await s.load_page(f"/lesson?teacher={secret}&chapter=1&step=0"))
        await s.connect()
        r = await s.open("lesson")
        rec.add("lesson: open (first run)", r.seconds)
        if leads_in(r) != place[0] or not s.has("lesson.next"):
            raise ProtocolError(f"the teacher's first page leads in chapter {leads_in(r)}, not {place[0]}")
        lesson.at[place] = time.perf_counter()
        lesson.started.set()
        steps = 0  # the stepper's last step in the teacher's chapter (none in a chapter without one)
        for target in lesson.path[1:]:
            if target[0] == place[0] and target[1] > steps:
                continue  # a short trace: the teacher goes on to the next chapter
            await watch_answers(rng.uniform(*think))
            if target[0] != place[0]:  # before the next chapter, the class's answers to this one (a time limit)
                await watch_answers(think[1] * 2 + 3, until_all=True)
            lesson.at[target] = time.perf_counter()
            if target[0] != place[0]:
                r = await s.rerun(trigger="lesson.next")
                rec.add("teacher: Next chapter", r.seconds)
                if leads_in(r) != target[0]:
                    raise ProtocolError(f"the teacher pressed Next to chapter {target[0]}, the page leads in {leads_in(r)}")
                steps = s.component_data("lesson.stepper")["trace"]["n"] if s.has("lesson.stepper") else 0
            else:
                s.report_step(target[1], key="lesson.stepper")
                r = await s.rerun(fragment_of="lesson.stepper")
                rec.add("teacher: a step (the stepper's report)", r.seconds)
            rec.errors.extend(f"teacher, to {target}: {e}" for e in r.exceptions + r.errors)
            place = target
        lesson.last = place
        await watch_answers(think[1] * 2 + 3)  # the last chapter's answers come in
    except Exception as e:  # every failure is counted, the run goes on
        rec.errors.append(f"teacher: {type(e).__name__}: {e}")
    finally:
        lesson.done = True
        lesson.started.set()
        rec.bytes_down += s.bytes_down
        await s.close()


def questions_of(s: Student, chapter: int) -> list[str]:
    """The ids of the chapter's questions the page drew (each form's Check button is ``lesson.check.<id>``)."""
    return [k[len(CHECK_KEY) :] for k in s.widgets if k.startswith(f"{CHECK_KEY}{chapter}.")]


def give_answer(s: Student, qid: str, rng: random.Random) -> None:
    """Fill a question's answer as a student would: a choice picked, a number or a text typed (right or not)."""
    key = ANSWER_KEY + qid
    if s.has(key) and s.widget(key).kind == "radio":
        s.choose(key, rng.choice(list(s.widget(key).proto.options)))
    elif s.has(key):
        s.set_text(key, str(rng.randint(1, 40)) if s.widget(key).kind == "text_input" else "hello world " * rng.randint(1, 3))
    else:  # one number per label: lesson.answer.<id>.0, .1, ...
        for sub in [k for k in s.widgets if k.startswith(key + ".")]:
            s.set_text(sub, str(rng.randint(1, 40)))


async def follower_scenario(i: int, base: str, lesson: Lesson, rec: Recorder, think, rng: random.Random) -> None:
    s = Student(base)
    shown = None

    feedback: set[str] = set()  # a wrong answer's st.error box, which the page keeps showing: the page working

    async def step(action: str, coro):
        r = await coro
        rec.add(action, r.seconds)
        if action == "answer":
            feedback.update(r.errors)
        rec.errors.extend(f"student {i}, {action}: {e[:200]}" for e in r.exceptions + [e for e in r.errors if e not in feedback])
        return r

    try:
        await lesson.started.wait()
        rec.add("page open (HTML + assets)", await s.load_page("/lesson"))
        await s.connect()
        await step("lesson: open (first run)", s.open("lesson"))
        s.set_bool("lesson.follow", True)
        shown = place_of(await step("lesson: follow the teacher", s.rerun()))
        answered: set[int] = set()
        answer_at = time.perf_counter() + rng.uniform(*think)
        while not lesson.done:
            tick = time.perf_counter()
            if shown is not None and shown[0] not in answered and tick >= answer_at:
                chapter = shown[0]
                qids = questions_of(s, chapter)
                if not qids:
                    raise ProtocolError(f"chapter {chapter} drew no question")
                for qid in qids:  # every question of the chapter: the teacher's page counts each one's answers
                    give_answer(s, qid, rng)
                    r = await step("answer", s.rerun(trigger=CHECK_KEY + qid))
                answered.add(chapter)
                lesson.sent[chapter] += 1
            elif s.auto_reruns:
                r = await step("follow check (every 1 s)", s.rerun(auto_fragment=list(s.auto_reruns)[-1]))
            else:
                raise ProtocolError("a following student's page asked for no check every second")
            now_at = place_of(r)
            if now_at is not None and now_at != shown:
                moved = lesson.at.get(now_at)
                if moved is not None:
                    rec.add("follow latency (teacher's move to the student's page)", time.perf_counter() - moved)
                if shown is None or now_at[0] != shown[0]:
                    answer_at = time.perf_counter() + rng.uniform(*think)
                shown = now_at
            await asyncio.sleep(max(0.0, 1.0 - (time.perf_counter() - tick)))  # the frontend's one-second timer
    except Exception as e:  # every failure is counted, the run goes on
        rec.errors.append(f"student {i}: {type(e).__name__}: {e}")
    finally:
        lesson.shown[i] = shown
        rec.bytes_down += s.bytes_down
        await s.close()


async def lesson_class(base: str, n: int, think, ramp: float, seed: int, secret: str, moves: int) -> tuple[Recorder, Lesson]:
    rec, lesson, rng = Recorder(), Lesson(moves, n), random.Random(seed)

    async def one(i: int) -> None:
        await asyncio.sleep(ramp * i / max(1, n - 1) if n > 1 else 0)
        await follower_scenario(i, base, lesson, rec, think, random.Random(rng.random()))

    await asyncio.gather(
        teacher_scenario(base, secret, lesson, rec, think, random.Random(rng.random())), *(one(i) for i in range(n))
    )
    return rec, lesson


# ----------------------------------------------------------------------------- the deployment and its memory


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Deployment:
    """`python -m classroom` (make serve) on a free port, with a data folder of its own (the rank files linked in)."""

    def __init__(self, workers: int, session_ttl: int, teacher_secret: str = TEACHER_SECRET):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.data = Path(tempfile.mkdtemp(prefix="bpe-load-"))
        for name in ("tiktoken-cache", "cache", "encodings"):
            if (ROOT / "data" / name).exists():
                (self.data / name).symlink_to(ROOT / "data" / name)
        env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "BPE_LAB_DATABASE_URL", "TIKTOKEN_CACHE_DIR")}
        env.update(
            BPE_LAB_DATA_DIR=str(self.data),
            PORT=str(self.port),
            WORKERS=str(workers),
            STREAMLIT_SERVER_DISCONNECTED_SESSION_TTL=str(session_ttl),
            BPE_LAB_TEACHER_SECRET=teacher_secret,
        )
        self.log = self.data / "classroom.log"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "classroom"],
            env=env,
            cwd=ROOT,
            stdout=open(self.log, "w"),
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
        deadline = time.time() + 240
        while "BPE Lab for a class:" not in self.log.read_text():
            if self.proc.poll() is not None or time.time() > deadline:
                raise SystemExit(f"the deployment did not start:\n{self.log.read_text()}")
            time.sleep(0.3)

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(60)


def descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            kids = Path(f"/proc/{p}/task/{p}/children").read_text().split()
        except OSError:
            continue
        for k in kids:
            out.append(int(k))
            todo.append(int(k))
    return out


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time of these processes (and of their children they waited for), in seconds."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for p in pids:
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += sum(int(x) for x in fields[11:15])  # utime, stime, cutime, cstime
        except (OSError, IndexError, ValueError):
            pass
    return total / tick


def rss_mb(pids: list[int]) -> float:
    total = 0
    for p in pids:
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


def breakdown(root: int) -> str:
    """RSS per kind of process: the app processes, their training workers, nginx."""
    kinds: dict[str, list[float]] = defaultdict(list)
    for p in descendants(root):
        try:
            cmd = Path(f"/proc/{p}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        kind = (
            "app"
            if "serve.py" in cmd
            else "training worker"
            if "classroom.workers" in cmd
            else "nginx"
            if "nginx" in cmd
            else "other"
        )
        kinds[kind].append(rss_mb([p]))
    return "; ".join(f"{k}: {', '.join(f'{m:.0f}' for m in sorted(v, reverse=True))} MB" for k, v in sorted(kinds.items()))


class MemorySampler:
    def __init__(self, root_pid: int | None):
        self.root = root_pid
        self.samples: list[tuple[float, float]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def now(self) -> float:
        return rss_mb(descendants(self.root)) if self.root else float("nan")

    def _run(self) -> None:
        while not self._stop.is_set():
            self.samples.append((time.time(), self.now()))
            self._stop.wait(0.5)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def peak(self) -> float:
        return max((m for _, m in self.samples), default=float("nan"))


# ----------------------------------------------------------------------------- where the CPU goes (py-spy)

OWN = ("ui/", "tokenizer/", "classroom/", "pages/", "serve.py")


class Profiler:
    """py-spy recording every Python process under ``root`` (the app processes and their training workers)."""

    def __init__(self, root: int, out: Path):
        self.out = out
        self.proc = subprocess.Popen(
            [str(Path(sys.executable).with_name("py-spy")), "record", "--pid", str(root), "--subprocesses", "--gil", "--format", "raw",
             "--nonblocking", "--rate", "50", "--output", str(out)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
        )  # fmt: skip

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGINT)  # py-spy writes its file on SIGINT
        self.proc.wait(60)


def profile_summary(raw: Path, top: int = 25) -> str:
    """Where the samples of a py-spy raw file fall: per process, and our functions by the share of samples they are in."""
    per_process: dict[str, int] = defaultdict(int)
    inclusive: dict[str, int] = defaultdict(int)
    outside: dict[str, int] = defaultdict(int)  # innermost function of a sample with none of ours in it
    total = 0
    for line in raw.read_text(errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        n = int(count)
        total += n
        frames = stack.split(";")
        procs = [f for f in frames if f.startswith("process ")]
        cmd = procs[-1] if procs else ""
        per_process["training worker" if "classroom.workers" in cmd else "app" if "serve.py" in cmd else "other"] += n
        if not any(o in f for f in frames for o in OWN if not f.startswith("process ")):
            outside[frames[-1]] += n
        seen = set()
        for f in frames:
            if not f.startswith("process ") and any(o in f for o in OWN) and f not in seen:
                seen.add(f)
                inclusive[f] += n
    if not total:
        return "no samples (is py-spy allowed to read the processes?)"
    rate = 50
    lines = [f"{total} samples ({total / rate:.1f} s of a thread holding the GIL, at {rate} Hz: more than CPU time on a "
             "crowded machine, where a thread may wait for a core while holding it); by process: "
             + ", ".join(f"{k} {v / total:.0%}" for k, v in sorted(per_process.items(), key=lambda kv: -kv[1]))]  # fmt: skip
    lines.append("| our function (and its callees) | share of samples | s |\n|---|---:|---:|")
    for f, n in sorted(inclusive.items(), key=lambda kv: -kv[1])[:top]:
        lines.append(f"| `{f}` | {n / total:.1%} | {n / rate:.1f} |")
    lines.append(f"\nOutside our code: {sum(outside.values()) / total:.1%} of the samples; innermost functions:")
    for f, n in sorted(outside.items(), key=lambda kv: -kv[1])[:10]:
        lines.append(f"- {n / total:.1%} `{f}`")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- running and printing


async def visit(base: str) -> None:
    """One visitor opens the page and leaves (a session connected and closed on every app process)."""
    for _ in range(4):  # cookies hash to processes: a few visitors reach every one of them
        s = Student(base)
        await s.load_page("/", [])
        await s.connect()
        await s.open()
        await s.close()


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, max(0, int(round(q * (len(s) - 1)))))]


async def run_class(base: str, n: int, think: tuple[float, float], ramp: float, assets: list[str] | None, seed: int) -> Recorder:
    rec = Recorder()
    rng = random.Random(seed)

    async def one(i: int) -> None:
        await asyncio.sleep(ramp * i / max(1, n - 1) if n > 1 else 0)
        await scenario(i, base, rec, think, assets, random.Random(rng.random()))

    await asyncio.gather(*(one(i) for i in range(n)))
    return rec


def print_table(n: int, rec: Recorder, wall: float, mem: dict, cpu: float, actions: list[str] = ACTIONS) -> None:
    print(
        f"\n## {n} student{'s' if n != 1 else ''} ({wall:.0f} s, client CPU {cpu:.1f} s, load average {os.getloadavg()[0]:.2f}, "
        f"{rec.bytes_down / 1e6:.1f} MB received)"
    )
    print("| action | n | p50 s | p95 s | max s |\n|---|---:|---:|---:|---:|")
    for a in actions:
        t = rec.times.get(a, [])
        if t:
            print(f"| {a} | {len(t)} | {statistics.median(t):.2f} | {pct(t, 0.95):.2f} | {max(t):.2f} |")
    print(f"\nerrors: {len(rec.errors)}")
    for e in rec.errors[:10]:
        print(f"  {e}")
    if mem:
        print(
            f"server CPU (every process of the deployment): {mem['server_cpu']:.1f} s, {mem['server_cpu'] / n:.2f} s per student "
            f"({mem['server_cpu'] / wall * 100:.0f}% of one core over the run)"
        )
        print(
            f"server memory (RSS of every process of the deployment): idle before {mem['before']:.0f} MB, "
            f"peak {mem['peak']:.0f} MB, {mem['ttl']:.0f} s after the last session ended (and one more visitor) {mem['after']:.0f} MB "
            f"({(mem['after'] - mem['before']) / mem['before'] * 100:+.1f}% of idle; peak - idle = "
            f"{(mem['peak'] - mem['before']) / n:.1f} MB per student)"
        )


async def overlap(base: str, rounds: int) -> None:
    """A Tokenize rerun (switching the tokenizer) alone, then while five other students train at the same moment
    (each on a pasted text of its own, 200,000 characters to 1,000 tokens: nothing is reused)."""
    solo = Student(base)
    await solo.load_page("/")
    await solo.connect()
    await solo.open()
    solo.set_text("tokenize.text", student_text(999))
    await solo.rerun()
    names = ["r50k_base", "cl100k_base", "o200k_base"]
    alone, during = [], []
    for r in range(rounds):
        solo.choose("tokenize.tokenizer", names[r % 3])
        alone.append((await solo.rerun()).seconds)
    trainers = []
    for i in range(5):  # each pastes a text of its own (200,000 characters), so every training is a real one
        t = Student(base)
        await t.load_page("/")
        await t.connect()
        await t.open()
        await t.navigate("train")
        t.segment("train.source", "Paste text")
        await t.rerun()
        t.set_text("train.paste", student_text(1000 + i, 200_000))
        t.set_int("train.vocab_size", 1000)
        await t.rerun()
        trainers.append(t)
    for r in range(rounds):
        tasks = [asyncio.create_task(t.rerun(trigger="train.go")) for t in trainers]
        await asyncio.sleep(0.05)  # the trainings are under way
        solo.choose("tokenize.tokenizer", names[r % 3])
        during.append((await solo.rerun()).seconds)
        train_times = [(await task).seconds for task in tasks]
    a, d = statistics.median(alone), statistics.median(during)
    print(f"\n## A Tokenize rerun alone and while five others train (medians of {rounds})")
    print(
        f"alone {a * 1000:.0f} ms; overlapping five trainings {d * 1000:.0f} ms ({d / a:.1f}x); "
        f"the trainings took {statistics.median(train_times):.2f} s (median of the last round)"
    )
    for s in [solo, *trainers]:
        await s.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", help="a running deployment (default: start `python -m classroom` on a free port)")
    ap.add_argument("--pid", type=int, help="with --url: the supervisor's pid, to sample the deployment's memory")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--students", default="1,10,20,40")
    ap.add_argument("--think", default="2,5", help="seconds of thinking between actions, min,max")
    ap.add_argument("--ramp", type=float, default=10.0, help="students start spread over this many seconds")
    ap.add_argument("--session-ttl", type=int, default=30, help="Streamlit's disconnectedSessionTTL for the deployment we start")
    ap.add_argument("--validate", action="store_true", help="compare our messages with Chromium's first; use its asset list")
    ap.add_argument("--overlap", action="store_true", help="only the overlap measurement")
    ap.add_argument("--hostile", action="store_true", help="only five students beside one with hostile tokenizer files")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--profile", metavar="PREFIX", help="record the deployment with py-spy per class, into PREFIX-<N>.txt")
    ap.add_argument("--lesson", action="store_true", help="the lesson in a class: 1 teacher and N students following")
    ap.add_argument(
        "--moves", type=int, default=len(lesson_path()) - 1, help="--lesson: the teacher's moves (chapters and steps)"
    )
    ap.add_argument(
        "--teacher-secret",
        default=os.environ.get("BPE_LAB_TEACHER_SECRET", TEACHER_SECRET),
        help="--lesson with --url: the secret",
    )
    args = ap.parse_args()
    think = tuple(float(x) for x in args.think.split(","))
    dep = None if args.url else Deployment(args.workers, args.session_ttl, args.teacher_secret)
    base = args.url or dep.url
    root_pid = args.pid if args.url else dep.proc.pid
    try:
        print(
            f"BPE Lab load test against {base} ({'its own deployment, ' + str(args.workers) + ' app processes' if dep else 'a running deployment'}); "
            f"{os.cpu_count()} cores; think {think[0]:g}-{think[1]:g} s; ramp {args.ramp:g} s"
        )
        assets = None
        if args.validate:
            from validate import compare_with_chromium

            assets = compare_with_chromium(base)
        if args.overlap:
            asyncio.run(overlap(base, 5))
            return
        if args.hostile:
            if not dep:
                raise SystemExit("--hostile plants files in the deployment's database: run it without --url")
            t0 = time.time()
            rec, bad, said = asyncio.run(run_hostile(base, dep.data, 5, think, args.seed))
            print_table(5, rec, time.time() - t0, {}, 0.0)
            print(f"\nthe hostile student's actions (each a message): {len(said)} messages")
            for a in HOSTILE_ACTIONS:
                t = bad.times.get(a, [])
                if t:
                    print(f"  {a}: n {len(t)}, p50 {statistics.median(t):.2f} s, max {max(t):.2f} s")
            for m in sorted(set(m[:160] for m in said)):
                print(f"  said: {m}")
            return
        sampler_pid = root_pid
        for n in (int(x) for x in args.students.split(",")):
            time.sleep(3)
            before = MemorySampler(sampler_pid).now()
            server0 = cpu_seconds(descendants(sampler_pid)) if sampler_pid else 0.0
            cpu0 = resource.getrusage(resource.RUSAGE_SELF)
            t0 = time.time()
            prof = Profiler(sampler_pid, Path(f"{args.profile}-{n}.txt")) if args.profile and sampler_pid else None
            with MemorySampler(sampler_pid) as mem:
                if args.lesson:
                    rec, lesson = asyncio.run(lesson_class(base, n, think, args.ramp, args.seed, args.teacher_secret, args.moves))
                else:
                    rec = asyncio.run(run_class(base, n, think, args.ramp, assets, args.seed))
            if prof:
                prof.stop()
            wall = time.time() - t0
            server_cpu = cpu_seconds(descendants(sampler_pid)) - server0 if sampler_pid else float("nan")
            cpu1 = resource.getrusage(resource.RUSAGE_SELF)
            cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
            info = {}
            if sampler_pid:
                wait = args.session_ttl + 5 if dep else 0
                time.sleep(wait)
                # Streamlit forgets closed sessions past their time-to-live when it next stores one (its session storage
                # reaps expired entries on a write): the next visitor's tab, opened and closed, is that write
                asyncio.run(visit(base))
                time.sleep(20)  # the app processes collect and trim every 15 s
                wait += 20
                info = {
                    "before": before,
                    "peak": mem.peak(),
                    "after": MemorySampler(sampler_pid).now(),
                    "ttl": wait,
                    "server_cpu": server_cpu,
                }
            print_table(n, rec, wall, info, cpu, LESSON_ACTIONS if args.lesson else ACTIONS)
            if args.lesson:
                print(
                    "answers the teacher's page counted / the students sent, per chapter: "
                    + ", ".join(f"{c}: {lesson.counted.get(c, 0)}/{lesson.sent[c]}" for c in sorted(lesson.sent))
                )
            if sampler_pid:
                print(f"  by process: {breakdown(sampler_pid)}")
            if prof:
                print(f"\nWhere the server's CPU went (py-spy, {prof.out}):\n{profile_summary(prof.out)}")
            sys.stdout.flush()
    finally:
        if dep:
            dep.stop()


if __name__ == "__main__":
    main()
