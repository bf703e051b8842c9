"""The browser encoder in Chromium against tiktoken and the Python core, and the live view's keystroke latency.

    .venv/bin/python bench/bench_browser.py [--encodings cl100k_base,o200k_base,llama3,llama2,gemma4] [--chars 1000000] [--runs 5]
                                            [--typing cl100k_base,llama2,gemma4]

Starts ``streamlit run serve.py`` on a free port (a workspace of its own) and drives
Debian's Chromium with Playwright. Four parts:

1. model files: raw and gzipped size of every rank-based and SentencePiece-style
   encoding's file (what a browser downloads once);
2. encoding speed: the same text (code and prose in many scripts, ``--chars`` long)
   encoded cold (no chunk cached) by ``bpe.js`` in the page, with the split pattern
   written out (``explicit``) and with the browser's own checked ``\\p{…}`` (``native``),
   by tiktoken and by the core; medians of ``--runs``, and ratios to tiktoken; a
   SentencePiece-style model (no pattern, no chunk cache) by ``spm.js``, in the
   ``explicit`` column;
3. what a first visit costs in the page: reading the model file and building the
   lookup table, and checking the browser's Unicode properties (once per tab);
4. keystroke to spans on the Tokenize page (``--typing``): for a short text and for one of
   20,000 characters, median and 95th percentile of ``--keys`` keys.
"""

from __future__ import annotations

import argparse
import gzip
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import tiktoken  # noqa: E402
from texts import code_and_prose  # noqa: E402  (bench/texts.py)

import tokenizer  # noqa: E402
from tokenizer import load_encoding, registry  # noqa: E402
from ui.web import model as web  # noqa: E402

CHROMIUM = "/usr/bin/chromium"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(workspace: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = dict(os.environ, BPE_LAB_WORKSPACE=str(workspace), BPE_LAB_SHARED="0")
    env["BPE_LAB_DATABASE_URL"] = f"sqlite:///{workspace / 'ws.sqlite3'}"
    cmd = [sys.executable, "-m", "streamlit", "run", str(ROOT / "serve.py"), "--server.port", str(port)]
    cmd += ["--server.address", "127.0.0.1", "--server.headless", "true", "--server.fileWatcherType", "none"]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            urllib.request.urlopen(url + "/_stcore/health", timeout=2)
            return proc, url
        except OSError:
            time.sleep(0.3)
    proc.terminate()
    raise SystemExit("streamlit did not start")


def median_ms(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def sizes() -> None:
    print("Model files (downloaded once per browser, then cached):")
    print(f"  {'encoding':<15} {'merges':>8} {'raw':>9} {'gzipped':>9}")
    for name in registry.names():
        if registry.spec(name).staged:
            continue
        tok = load_encoding(name)
        data = web.model_file(tok, check_shortcuts=False)
        print(f"  {name:<15} {tok.num_merges:>8,} {len(data) / 1e6:>7.2f} MB {len(gzip.compress(data, 6)) / 1e6:>6.2f} MB")


def speed(page, url: str, names: list[str], text: str, runs: int) -> None:
    print(f"\nEncoding {len(text):,} characters cold (medians of {runs}; ratio: time / tiktoken's):")
    print(f"  {'encoding':<13} {'tiktoken':>9} {'core':>13} {'browser explicit':>18} {'browser native':>16}  load  check")
    for name in names:
        tok = load_encoding(name)
        ref = tiktoken.get_encoding(name) if name in tiktoken.list_encoding_names() else None
        model_url = url + "/" + web.publish_model(web.model_file(tok, check_shortcuts=False))
        got = page.evaluate(
            """async ([name, url, text, runs]) => {
                const { bpe, pattern, spm } = window.lab;
                let t = performance.now();
                const buffer = await (await fetch(url)).arrayBuffer();
                const enc = spm.isSpmModel(buffer) ? new spm.SpmEncoder(spm.parseSpmModel(buffer)) : new bpe.Encoder(bpe.parseModel(buffer));
                const load = performance.now() - t;
                const time = () => { const out = []; for (let i = 0; i < runs; i++) { enc.cache?.clear(); const t0 = performance.now(); enc.encode(text); out.push(performance.now() - t0); }
                                     out.sort((a, b) => a - b); return out[Math.floor(out.length / 2)]; };
                const explicit = time();
                const n = enc.encode(text).ids.length;
                if (enc.pattern === null) return { load, explicit, check: null, native: null, n, differs: {} };
                t = performance.now();
                const diffs = {};
                for (const [p, r] of Object.entries(enc.pattern.props)) diffs[p] = pattern.finish(pattern.checkProperty(p, r));
                const check = performance.now() - t;
                enc.useNative(diffs);
                const native = time();
                const differs = Object.fromEntries(Object.entries(diffs).map(([p, d]) => [p, d ? d.extra.length + d.missing.length : null]));
                return { load, explicit, check, native, n, differs };
            }""",
            [name, model_url, text, runs],
        )

        def core(tok=tok):
            tok.clear_cache()
            tok.encode(text, disallowed_special=())

        core_ms = median_ms(core, runs)
        ids = tok.encode(text, disallowed_special=())
        assert got["n"] == len(ids), (name, got["n"], len(ids))
        if got["native"] is None:  # SentencePiece-style: spm.js, no pattern to split natively
            r = lambda ms: f"{ms:6.0f} ms"  # noqa: E731
            print(f"  {name:<13} {'-':>9} {r(core_ms):>13} {r(got['explicit']):>18} {'-':>16}  {got['load']:4.0f}  {'-':>5}")
            continue
        if ref is not None:
            tik = median_ms(lambda ref=ref: ref.encode(text, disallowed_special=()), runs)
            r = lambda ms, tik=tik: f"{ms:6.0f} ms {ms / tik:4.1f}x"  # noqa: E731
            print(
                f"  {name:<13} {tik:6.0f} ms {r(core_ms):>13} {r(got['explicit']):>18} {r(got['native']):>16}  {got['load']:4.0f}  {got['check']:5.0f}"
            )
        else:
            r = lambda ms: f"{ms:6.0f} ms"  # noqa: E731
            print(
                f"  {name:<13} {'-':>9} {r(core_ms):>13} {r(got['explicit']):>18} {r(got['native']):>16}  {got['load']:4.0f}  {got['check']:5.0f}"
            )
        print(f"  {'':<13} browser \\p{{…}} differs from regex's Unicode 16 in code points: {got['differs']}")


def latency(browser, url: str, keys: int, name: str = "cl100k_base") -> None:
    print(f"\nKeystroke to spans on the Tokenize page ({name}, {keys} keys, 120 ms apart):")
    for label, chars in (("short text", 60), ("20,000 characters", 20_000)):
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        text = ("The quick brown fox — 1234567 — 你好世界 😄\n" * (chars // 40 + 1))[:chars]
        page.goto(url + "/?tokenizer=" + name)
        page.wait_for_selector(".bpe-live textarea", timeout=120_000)
        page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=120_000)
        page.locator(".bpe-live textarea").evaluate(
            "(ta, t) => { ta.value = t; ta.dispatchEvent(new Event('input', {bubbles: true})); }", text
        )
        page.wait_for_function(
            "() => { const v = document.querySelector('.bpe-live'); return v.dataset.seq === v.dataset.typed; }", timeout=60_000
        )
        page.wait_for_timeout(2500)  # the server hears the text and reruns; then type
        page.locator(".bpe-live textarea").press("Control+End")
        page.evaluate(
            """() => { const v = document.querySelector('.bpe-live'); window.__keys = []; window.__drawn = {};
                       v.querySelector('textarea').addEventListener('beforeinput', () => window.__keys.push(performance.now()), true);
                       new MutationObserver(() => { window.__drawn[v.dataset.seq] ??= performance.now(); }).observe(v, { attributes: true, attributeFilter: ['data-seq'] }); }"""
        )
        out = []
        for i in range(keys):
            page.keyboard.type("ab"[i % 2])
            typed = page.evaluate("() => Number(document.querySelector('.bpe-live').dataset.typed)")
            page.wait_for_function("(s) => window.__drawn[String(s)] !== undefined", arg=typed, timeout=30_000)
            out.append(page.evaluate("(s) => window.__drawn[String(s)] - window.__keys[window.__keys.length - 1]", typed))
            page.wait_for_timeout(120)
        out.sort()
        p95 = out[min(len(out) - 1, int(round(0.95 * (len(out) - 1))))]
        print(f"  {label:<18} median {statistics.median(out):5.1f} ms, 95th percentile {p95:5.1f} ms")
        page.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--encodings", default="cl100k_base,o200k_base,llama3,llama2,gemma4")
    ap.add_argument("--chars", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--keys", type=int, default=30)
    ap.add_argument("--typing", default="cl100k_base,llama2,gemma4", help="the tokenizers typed into on the Tokenize page")
    args = ap.parse_args()
    tokenizer.configure()
    from playwright.sync_api import sync_playwright

    sizes()
    workspace = Path(tempfile.mkdtemp(prefix="bpe-bench-browser-"))
    proc, url = start_server(workspace)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"], headless=True)
            print(f"\nChromium {browser.version}")
            page = browser.new_page()
            page.set_default_timeout(600_000)
            page.goto(url + "/_stcore/health")
            base = url + "/" + web.publish_assets()
            page.evaluate(
                "async (base) => { window.lab = { bpe: await import(base + 'bpe.js'), pattern: await import(base + 'pattern.js'), spm: await import(base + 'spm.js') }; }",
                base,
            )
            speed(page, url, args.encodings.split(","), code_and_prose(args.chars), args.runs)
            page.close()
            for name in args.typing.split(","):
                latency(browser, url, args.keys, name)
            browser.close()
    finally:
        proc.terminate()
        proc.wait(10)


if __name__ == "__main__":
    main()
