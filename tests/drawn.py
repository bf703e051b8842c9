"""What the browser draws from the records a page sent (``ui.common.draw``, Compare's rows): the HTML of
``ui/web/draw.js``, the one renderer, run in node (``tests/web/drawn.mjs``), so a test of a page reads the spans, rows and
trees as a visitor's browser shows them."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

HERE = Path(__file__).parent
#: The components whose data is a drawing (``ui/common/draw.py``, ``ui/compare/rows.py``).
DRAWN = ("bpe_lab_draw", "bpe_lab_compare_rows")


def render(messages: list[dict]) -> list[str]:
    """The HTML ``draw.js`` makes of each message."""
    if not messages:
        return []
    out = subprocess.run(
        ["node", str(HERE / "web" / "drawn.mjs")],
        input=json.dumps(messages).encode(),
        capture_output=True,
        check=True,
        timeout=60,
    )
    return json.loads(out.stdout)


def messages(at) -> list[dict]:
    """The data of every drawing component on an AppTest page, in page order."""
    return [json.loads(e.proto.json) for e in at.get("bidi_component") if e.proto.component_name in DRAWN]


def drawn(at) -> list[str]:
    """The HTML of every drawing on the page, as the browser draws it."""
    return render(messages(at))


def page_html(at) -> str:
    """Everything the page shows as HTML: its ``st.html`` and what the browser draws from its records."""
    return "".join(h.proto.body for h in at.get("html")) + "".join(drawn(at))
