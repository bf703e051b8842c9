"""Step through's stepping, in the page: the component that replays a trace (``stepper.js``) and the one that
brings it the top pairs (``pairs.js``), both with Streamlit's public ``st.components.v2.component``.

The trace goes to the browser once, pre-serialised (``ui.step.payload``): Streamlit sends
the same element again on a rerun only as a reference to what the browser already has,
and the page keeps its step while it is the same trace. ``goto`` is how the server moves
the step (a link, a new mode): a new epoch makes the page open at its ``k``; otherwise the
page keeps the step the user is on. The page tells the server the step (``on_report``,
reading ``reported``) when play stops, when stepping has paused, and when it wants the
top pairs of steps it has not been sent (training mode).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path

import streamlit as st

from ui.web import model as web_model

HERE = Path(__file__).parent


@functools.cache
def _stepper():
    """Registered once per process, on first use (never at import)."""
    return st.components.v2.component(
        "bpe_lab_stepper",
        js=web_model.component_script(HERE / "stepper.js"),
        css=(HERE / "stepper.css").read_text(encoding="utf-8"),
        isolate_styles=False,  # the spans and cards take the page's stylesheet, presenter mode included
    )


@functools.cache
def _pairs():
    return st.components.v2.component(
        "bpe_lab_step_pairs", js=web_model.component_script(HERE / "pairs.js"), isolate_styles=False
    )


def data(body: bytes, *, goto: tuple[int, int], chunks: bool) -> bytes:
    """The component's data: the settings, then the trace's JSON as it is (never parsed and written again).

    >>> json.loads(data(b'{"id":"x"}', goto=(2, 12), chunks=True))
    {'goto': [2, 12], 'chunks': True, 'trace': {'id': 'x'}}
    """
    head = json.dumps({"goto": list(goto), "chunks": chunks}, separators=(",", ":")).encode()
    return head[:-1] + b',"trace":' + body + b"}"


def show(body: bytes, *, key: str, goto: tuple[int, int], chunks: bool, on_report: Callable[[], None]) -> None:
    """Mount the stepper with a trace (``payload.dumps``'s bytes)."""
    _stepper()(key=key, data=data(body, goto=goto, chunks=chunks), on_step_change=on_report, height="content")


def show_pairs(trace_id: str, window: dict, *, key: str) -> None:
    """Send a window of top pairs (``payload.top_pairs_window``) to the stepper of trace ``trace_id``."""
    _pairs()(key=key, data={"id": trace_id, **window}, height=0)


def reported(key: str) -> dict | None:
    """What the page last reported (``{"k", "id", "epoch", "want"}``), from the component's state."""
    value = st.session_state.get(key)
    step = value.get("step") if hasattr(value, "get") else None
    if not isinstance(step, dict) or not isinstance(step.get("k"), int):
        return None
    return step
