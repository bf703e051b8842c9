"""Does our simulated student send what Chromium sends? (``load_test.py --validate``)

Chromium (Debian's, driven by Playwright) and ``stclient.Student`` do the same steps
against the same deployment: open Tokenize, paste a text, pick GPT-2, open Compare,
open Train and press Train, open Step through, switch to training mode, step five times (the page tells
the server the step once).
Every ``BackMsg`` each one sends is reduced to what the server acts on
(``stclient.describe``: page hash or page name, fragment, the widgets by key and how
each value is encoded) and compared in order. Chromium also sends the values of the
widgets it did not touch; ours must be a subset, encoded the same way. Returns the
static assets Chromium loaded on the first page, which the simulated students fetch too.
"""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))

from harness import CHROMIUM, CHROMIUM_ARGS, wait_idle  # noqa: E402
from stclient import Student, describe, parse_back  # noqa: E402

TEXT = "Validation text: hello world, tokenization. " * 5


def chromium_run(base: str) -> tuple[list[dict], list[str]]:
    from playwright.sync_api import sync_playwright

    sent: list[dict] = []
    assets: list[str] = []

    def on_ws(ws):
        def frame(payload):
            m = parse_back(payload)
            if m.WhichOneof("type") == "rerun_script":
                sent.append(describe(m))

        ws.on("framesent", frame)

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        page = b.new_page(viewport={"width": 1400, "height": 1000})
        page.on("websocket", on_ws)
        page.on("request", lambda r: assets.append(urlsplit(r.url).path) if "/static/" in r.url else None)
        page.goto(base + "/")
        wait_idle(page)
        first_assets = list(dict.fromkeys(assets))
        box = page.get_by_label("Text", exact=True)
        box.fill(TEXT)
        box.press("Control+Enter")
        wait_idle(page)
        page.locator('[data-testid="stSelectbox"]').filter(has_text="Tokenizer").locator("input").first.click()
        page.get_by_role("option", name=re.compile("r50k_base")).click()
        wait_idle(page)
        page.get_by_test_id("stSidebarNavItems").get_by_role("link", name="Compare").click()
        wait_idle(page)
        page.get_by_test_id("stSidebarNavItems").get_by_role("link", name="Train").click()
        wait_idle(page)
        page.get_by_role("button", name=re.compile("Train$")).click()
        wait_idle(page, timeout=120_000)
        page.get_by_test_id("stSidebarNavItems").get_by_role("link", name="Step through").click()
        wait_idle(page)
        page.get_by_role("radio", name="Training").click()
        wait_idle(page)
        page.locator(".bpe-stepper[data-k]").wait_for()
        page.locator("h1").first.click()
        for _ in range(5):  # five steps in the page (the keys: a click's own waits would read as pauses on a busy machine)
            page.keyboard.press("ArrowRight")
        page.wait_for_timeout(1500)
        wait_idle(page)
        b.close()
    return sent, first_assets


async def client_run(base: str, assets: list[str]) -> list[dict]:
    s = Student(base)
    await s.load_page("/", assets)
    await s.connect()
    await s.open()
    s.set_text("tokenize.text", TEXT)
    await s.rerun()
    s.choose("tokenize.tokenizer", "r50k_base")
    await s.rerun()
    await s.navigate("compare")
    await s.navigate("train")
    await s.rerun(trigger="train.go")
    await s.navigate("step")
    s.segment("step.mode", "Training")
    await s.rerun()
    s.report_step(5)
    await s.rerun(fragment_of="step.stepper")
    await s.close()
    return [describe(m) for m in s.sent]


def compare_with_chromium(base: str) -> list[str]:
    chrome, assets = chromium_run(base)
    ours = asyncio.run(client_run(base, assets))
    print(
        f"\n## Validation against Chromium: {len(chrome)} rerun messages from Chromium, {len(ours)} from our client; "
        f"{len(assets)} static assets on the first page"
    )
    print("| # | Chromium: page, fragment, widgets | ours | same? |\n|---|---|---|---|")
    problems = 0
    for i, (c, o) in enumerate(zip(chrome, ours, strict=False)):
        same_flags = (c["page"], c["fragment"], bool(c["page_name"])) == (o["page"], o["fragment"], bool(o["page_name"]))
        subset = all(k in c["widgets"] and c["widgets"][k] == v for k, v in o["widgets"].items())
        ok = same_flags and subset
        problems += not ok
        cw = ", ".join(f"{k}={v}" for k, v in sorted(c["widgets"].items()) if k in o["widgets"]) or "-"
        ow = ", ".join(f"{k}={v}" for k, v in sorted(o["widgets"].items())) or "-"
        print(
            f"| {i + 1} | page {c['page']}, fragment {c['fragment']}; {cw} (+{len(set(c['widgets']) - set(o['widgets']))} untouched) "
            f"| page {o['page']}, fragment {o['fragment']}; {ow} | {'yes' if ok else 'NO'} |"
        )
    if len(chrome) != len(ours):
        problems += 1
        print(f"different numbers of messages: Chromium {len(chrome)}, ours {len(ours)}")
    print(f"validation: {'every message matches' if not problems else f'{problems} differences'}")
    return assets
