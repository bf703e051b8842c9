"""How fast the Train, Step through and Vocabulary pages are, against their targets.

    .venv/bin/python bench/bench_train_step.py [--runs 20] [--chars 6000]

1. Training a 200 kB corpus (the standard-library docstrings sample) to 1,000
   tokens through the Train page in AppTest, progress bar and saving included;
   and the core alone. Target: under 2 s.
2. Step through (``--step`` for this part alone): the size of the trace the server
   sends the page once (JSON bytes) and the time to build it, for the default text
   and a ``--chars``-character text under GPT-2, cl100k and o200k, and for the
   tokenizer trained in 1 at each "Training text shown" (``--largest``: also a
   50,257-token training, the largest the Train page makes); then, in Chromium
   against a real server, Next from the key or click to the frame that shows it
   (median, p95), Play at the fastest speed (steps shown per second) and the
   messages the page sent the server meanwhile. Targets: Next under
   0.1 s at p95, Play at least 10 (aim 30) steps a second, one message per five
   steps at most.
3. The Vocabulary page: first build of o200k's table, then a rerun with a regex
   filter over its 200,000 tokens.
4. ``--scenario``: the load test's student, alone, against a real server
   (``streamlit run serve.py`` in shared mode, over the websocket protocol with
   ``bench/stclient.py``): every rerun of the scenario, each page opened in a session
   that has just trained (the per-rerun costs: opening Step through, switching
   its mode, the step reported after five steps in the page, opening Vocabulary and Compare). ``--runs`` sessions, medians.

Before timing, the process starts up as the app's server does (``shell.start_up``:
the official encodings loaded, then ``gc.freeze()``), and each page is run once.
Prints the median and the slowest run in milliseconds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
WORKSPACE = tempfile.mkdtemp(prefix="bpe-bench-")
os.environ["BPE_LAB_WORKSPACE"] = WORKSPACE
os.environ["BPE_LAB_SHARED"] = "0"

import tokenizer  # noqa: E402

tokenizer.configure()  # as the app does at start-up
from streamlit.testing.v1 import AppTest  # noqa: E402

from classroom import workspaces  # noqa: E402
from classroom.stores import FolderStore  # noqa: E402
from tokenizer import train  # noqa: E402
from ui.common import shell  # noqa: E402
from ui.content import corpora  # noqa: E402

workspaces.configure(shared=False)  # as serve.py does at start-up: the folder store above


def page(name: str, **query) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / name), default_timeout=120)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, at.exception
    return at


def timed(action) -> float:
    t = time.perf_counter()
    at = action()
    ms = (time.perf_counter() - t) * 1000
    assert not at.exception, at.exception
    return ms


def report(label: str, times: list[float]) -> None:
    print(f"  {label:<52} median {statistics.median(times):7.1f} ms   slowest {max(times):7.1f} ms   (n={len(times)})")


def bench_train(runs: int) -> str:
    print("Train: 200 kB of text to 1,000 tokens")
    text = corpora.text("stdlib-docstrings")[:200_000]
    core = []
    for _ in range(runs):
        t = time.perf_counter()
        tok = train(text, 1000, pattern="gpt4", progress=lambda done, total: None)
        core.append((time.perf_counter() - t) * 1000)
    report(f"core train() ({len(text.encode()):,} bytes, {tok.num_merges} merges)", core)
    at = page("train.py")
    at.segmented_control(key="train.source").set_value("paste").run()
    at.text_area(key="train.paste").input(text).run()
    at.number_input(key="train.vocab_size").set_value(1000).run()
    page_runs = [timed(lambda: at.button(key="train.go").click().run()) for _ in range(max(3, runs // 4))]
    report("Train page rerun: train + progress bar + save + results", page_runs)
    return FolderStore(Path(WORKSPACE)).entries()[-1].key


def bench_step_payload(runs: int, chars: int, key: str, largest: bool) -> None:
    """What Step through sends the page once per trace (bytes of JSON), and the server's time to build it."""
    from tokenizer import load_encoding
    from ui.content.samples import DEFAULT_TEXT
    from ui.step import model, payload

    def row(label: str, build) -> int:
        times = []
        for _ in range(max(3, runs // 4)):
            t = time.perf_counter()
            _, body = build()
            times.append((time.perf_counter() - t) * 1000)
        print(f"  {label:<66} {payload.size_label(len(body)):>8}   built in median {statistics.median(times):7.1f} ms")
        return len(body)

    print(
        f"Step through: the trace sent to the page once (limit {payload.size_label(payload.MAX_BYTES)}), and the server's time to build it"
    )
    long_text = corpora.text("stdlib-docstrings")
    for name in ("r50k_base", "cl100k_base", "o200k_base"):
        tok = load_encoding(name)
        for label, text in (("the default text", DEFAULT_TEXT), (f"{chars:,} characters", long_text[:chars])):
            row(
                f"encoding, {name}, {label} ({len(text):,} characters)",
                lambda tok=tok, text=text: payload.dumps(payload.encoding_payload(tok, tok.encode_trace(text))),
            )
    tok = load_encoding("cl100k_base")
    sample = (long_text * 3)[:100_000]
    size = row(
        f"encoding, cl100k_base, {len(sample):,} characters",
        lambda: payload.dumps(payload.encoding_payload(tok, tok.encode_trace(sample))),
    )
    print(
        f"  -> about {size / len(sample):.1f} bytes per character of English: a text of about {payload.MAX_BYTES / (size / len(sample)):,.0f} characters reaches the limit"
    )
    store = FolderStore(Path(WORKSPACE))
    trained, trace, corpus = store.get(key), store.training_trace(key), store.corpus(key)
    for excerpt in model.EXCERPT_CHOICES:
        etrace = model.excerpt_trace(trained, corpus[:excerpt])
        row(
            f"training, {trained.name} ({trained.num_merges:,} merges), {excerpt:,} characters shown",
            lambda etrace=etrace: payload.dumps(payload.training_payload(trained, trace, etrace, corpus_chars=len(corpus))),
        )
    w = [len(json.dumps(payload.top_pairs_window(trained, trace, k))) for k in (0, 300, 700)]
    print(f"  a window of top pairs ({payload.WINDOW} steps): {payload.size_label(int(statistics.median(w)))}")
    if largest:
        sys.path.insert(0, str(ROOT / "bench"))
        from corpora import large

        _, text = large()  # 10 MB: 3 MB of it runs out of pairs after about 33,500 merges
        t = time.perf_counter()
        big = train(text, 50_257, pattern="gpt4")
        print(
            f"  (trained {256 + big.num_merges:,} tokens on {len(text):,} characters of the bench corpus in {time.perf_counter() - t:.0f} s)"
        )
        etrace = model.excerpt_trace(big, text[: model.EXCERPT_CHOICES[-1]])
        row(
            f"training, the largest vocabulary ({256 + big.num_merges:,} tokens), {model.EXCERPT_CHOICES[-1]:,} characters shown",
            lambda: payload.dumps(payload.training_payload(big, big.training, etrace, corpus_chars=len(text))),
        )


STEP_PAGE_JS = """async ([n, mode]) => {
  const root = () => document.querySelector('.bpe-stepper');
  const lat = [];
  const next = [...root().querySelectorAll('button')].find((b) => b.dataset.act === 'next');
  for (let i = 0; i < n; i++) {
    const k = +root().dataset.k;
    const t0 = performance.now();
    if (mode === 'key') document.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));
    else next.click();
    await new Promise((r) => requestAnimationFrame(() => r()));  // the frame that shows the step
    if (+root().dataset.k !== k + 1) throw new Error('no step');
    lat.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 30));
  }
  return lat;
}"""
PLAY_JS = """() => new Promise((done) => {
  const seen = new Set(); const t0 = performance.now();
  const tick = () => { seen.add(document.querySelector('.bpe-stepper').dataset.k);
    if (performance.now() - t0 < 3000) requestAnimationFrame(tick); else done(seen.size / 3); };
  requestAnimationFrame(tick); })"""


def bench_step_browser(runs: int, chars: int) -> None:
    """Stepping in the page (Chromium against a real server): Next from the key to the frame that shows it, and Play."""
    from harness import CHROMIUM, CHROMIUM_ARGS, StreamlitServer, wait_idle
    from playwright.sync_api import sync_playwright

    ws = Path(tempfile.mkdtemp(prefix="bpe-bench-step-")) / "ws"
    srv = StreamlitServer(ws).start()
    text = corpora.text("stdlib-docstrings")[:chars]
    print(
        f"Step through in the page (Chromium, load average {os.getloadavg()[0]:.1f}): Next ({runs * 2} presses), Play at 30 steps/s"
    )
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            sent = []
            page.on("websocket", lambda w: w.on("framesent", lambda _: sent.append(1)))

            def measure(label: str, url: str, fill: str | None = None, shown: int | None = None) -> None:
                page.goto(srv.url + url)
                page.locator(".bpe-stepper[data-k]").wait_for(timeout=120_000)
                wait_idle(page, timeout=120_000)
                if shown is not None:
                    trace = page.locator(".bpe-stepper").get_attribute("data-trace")
                    page.get_by_role("combobox", name="Training text shown").click()
                    page.get_by_role("option", name=f"first {shown:,} characters").click()
                    page.wait_for_function(f"document.querySelector('.bpe-stepper')?.dataset.trace !== {trace!r}")
                    wait_idle(page, timeout=120_000)
                if fill is not None:
                    box = page.get_by_role("textbox", name="Text to encode")
                    box.fill(fill)
                    box.press("Control+Enter")
                    page.wait_for_function(
                        f"document.querySelector('.bpe-stepper')?.dataset.trace !== {page.locator('.bpe-stepper').get_attribute('data-trace')!r}"
                    )
                    wait_idle(page, timeout=120_000)
                page.evaluate(STEP_PAGE_JS, [3, "key"])  # warm up
                before = len(sent)
                lat = page.evaluate(STEP_PAGE_JS, [runs, "key"]) + page.evaluate(STEP_PAGE_JS, [runs, "click"])
                during = len(sent) - before
                page.locator('.bpe-stepper select[data-act="speed"]').select_option("fastest")
                page.locator('.bpe-stepper button[data-act="play"]').click()
                rate = page.evaluate(PLAY_JS)
                page.locator('.bpe-stepper button[data-act="play"]').click()
                spans = page.locator(".bpe-stepper .bpe-spans .t").count()
                q = statistics.quantiles(lat, n=20)
                print(
                    f"  {label:<52} Next median {statistics.median(lat):6.1f} ms, p95 {q[-1]:6.1f} ms; "
                    f"Play {rate:5.1f} steps/s; {spans:,} spans; {during} messages during {len(lat)} steps"
                )

            measure("encoding, cl100k, the default text", "/step?mode=encoding&tokenizer=cl100k_base&step=0")
            measure(f"encoding, cl100k, {len(text):,} characters", "/step?mode=encoding&tokenizer=cl100k_base&step=0", text)
            import tokenizer as core

            corpus = corpora.text("stdlib-docstrings")
            key = FolderStore(ws).add(core.train(corpus, 1000, pattern="gpt4", name="docstrings 1000"), corpus=corpus)
            url = f"/step?mode=training&tokenizer=user:{key}&step=0"
            measure("training, docstrings 1000, 3,000 characters shown", url)
            measure("training, docstrings 1000, 10,000 characters shown", url, shown=10_000)
            browser.close()
    finally:
        srv.stop()


def bench_vocab(runs: int) -> None:
    print("Vocabulary: o200k_base (200,000 tokens)")
    at = page("vocabulary.py")
    first = timed(lambda: at.selectbox(key="vocab.tokenizer").set_value("o200k_base").run())
    report("first view of o200k (table built once per server)", [first])
    times = [timed(lambda i=i: at.number_input(key="vocab.id_from").set_value(1000 + i).run()) for i in range(runs)]
    report("rerun with a new id range", times)
    times = [
        timed(lambda i=i: at.text_input(key="vocab.regex").input(rf"^\s\w+ing{'s' * (i % 2)}$").run())
        for i in range(max(3, runs // 4))
    ]
    report("rerun with a regex filter over 200k tokens", times)


def bench_scenario(runs: int, root: Path = ROOT) -> None:
    """The load test's scenario for one student at a time, against one real app process, ``runs`` sessions.

    Per action: the wall time the student waited, and the CPU time the server spent (the app process and its
    training workers), which other programs on a busy machine inflate much less. ``root``: the checkout to
    serve (another worktree, to compare with an older version: its ``serve.py``, or ``app.py`` when it has none).
    """
    import asyncio
    import signal
    import socket
    import subprocess
    import urllib.request
    from collections import defaultdict

    sys.path.insert(0, str(ROOT / "bench"))
    from load_test import student_text
    from stclient import Student

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    data = Path(tempfile.mkdtemp(prefix="bpe-scenario-"))
    for name in ("tiktoken-cache", "cache", "encodings"):
        if (ROOT / "data" / name).exists():
            (data / name).symlink_to(ROOT / "data" / name)
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "BPE_LAB_DATABASE_URL", "TIKTOKEN_CACHE_DIR")}
    env.update(BPE_LAB_SHARED="1", BPE_LAB_DATA_DIR=str(data), BPE_LAB_MAX_TOKENIZERS="1000", BPE_LAB_MAX_MB="10000")
    log = open(data / "server.log", "w")
    entry = root / "serve.py" if (root / "serve.py").exists() else root / "app.py"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            str(entry),
            "--server.port",
            str(port),
            "--server.headless",
            "true",
            "--server.address",
            "127.0.0.1",
            "--browser.gatherUsageStats",
            "false",
            "--server.fileWatcherType",
            "none",
        ],
        cwd=root,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    from load_test import cpu_seconds, descendants

    def server_cpu() -> float:
        return cpu_seconds([proc.pid, *descendants(proc.pid)])

    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                urllib.request.urlopen(base + "/_stcore/health", timeout=1)
                break
            except OSError:
                time.sleep(0.2)
        times: dict[str, list[float]] = defaultdict(list)
        cpu: dict[str, list[float]] = defaultdict(list)

        async def one(i: int) -> None:
            s = Student(base)
            await s.load_page("/")
            await s.connect()

            async def t(label: str, coro) -> None:
                c0 = server_cpu()
                r = await coro
                await asyncio.sleep(0.05)  # the last deltas are written after script_finished is sent
                cpu[label].append((server_cpu() - c0) * 1000)
                assert not r.exceptions and not r.errors, (label, r.exceptions, r.errors)
                times[label].append(r.seconds * 1000)

            await t("open Tokenize (first run)", s.open())
            s.set_text("tokenize.text", student_text(i))
            await t("paste 2,000 characters", s.rerun())
            for name in ("r50k_base", "cl100k_base", "o200k_base"):
                s.choose("tokenize.tokenizer", name)
                await t("switch tokenizer", s.rerun())
            await t("open Compare", s.navigate("compare"))
            await t("open Train", s.navigate("train"))
            s.set_int("train.vocab_size", 1000)
            await t("set vocab size", s.rerun())
            await t("train (docstrings, vocab 1000)", s.rerun(trigger="train.go"))
            await t("open Step through", s.navigate("step"))
            s.segment("step.mode", "Training")
            await t("Step through: training mode", s.rerun())
            s.report_step(5)  # five steps in the page, then the step told once
            await t("Step through: report the step", s.rerun(fragment_of="step.stepper"))
            await t("open Vocabulary", s.navigate("vocabulary"))
            await s.close()

        for i in range(runs + 1):
            asyncio.run(one(i))
            if i == 0:  # warm: the first session pays for what the process builds once
                times.clear()
                cpu.clear()
        print(
            f"The load test's scenario, one student at a time, one app process of {root} "
            f"({runs} sessions; load average {os.getloadavg()[0]:.2f}); wall ms the student waited, server CPU ms"
        )
        for label, v in times.items():
            print(
                f"  {label:<34} wall median {statistics.median(v):7.1f}   server CPU median {statistics.median(cpu[label]):7.1f}"
                f"   (n={len(v)})"
            )
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--chars", type=int, default=6000)
    ap.add_argument("--scenario", action="store_true", help="only the load test's scenario against a real server (4.)")
    ap.add_argument("--step", action="store_true", help="only Step through (2.): what it sends and how fast it steps in the page")
    ap.add_argument(
        "--largest", action="store_true", help="with 2.: also train the largest vocabulary (50,257) and measure its payload"
    )
    ap.add_argument("--root", type=Path, default=ROOT, help="with --scenario: the BPE Lab checkout to serve (default: this one)")
    args = ap.parse_args()
    if args.scenario:
        bench_scenario(args.runs, args.root.resolve())
        return
    if args.step:
        key = bench_train(1)
        bench_step_payload(args.runs, args.chars, key, args.largest)
        bench_step_browser(args.runs, args.chars)
        return
    shell.start_up()
    key = bench_train(args.runs)
    bench_step_payload(args.runs, args.chars, key, args.largest)
    bench_step_browser(args.runs, args.chars)
    bench_vocab(args.runs)


if __name__ == "__main__":
    main()
