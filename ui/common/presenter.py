"""Presenter mode: every page readable from the back of a room on a 1280×720 projector.

One switch in the sidebar, and ``?present=1`` in the address bar so a prepared link
opens in it (the parameter follows the user from page to page while the mode is on).
While it is on:

* ``marker`` puts an empty ``<div class="bpe-present">`` on the page; the rules of
  ``ui/render/style.css`` under ``html:has(.bpe-present)`` enlarge the type (spans,
  counts, tables, headings: about 1.4× everywhere, token spans about 2×), darken
  secondary text for contrast and trim the page margins;
* the page list moves from the sidebar to the top bar (``nav_position``) and the
  sidebar starts folded (``shell.run``);
* secondary panels (the details under Tokenize, Compare's sample-set leaderboard, …) and each page's opening
  lines (``intro``) are folded into expanders (``fold``), one click away;
* a page's figure comes right after its main controls (``slot``), the secondary controls under it;
* every chart's labels and titles are as large as the body text (``chart``).

The mode is kept in ``st.session_state`` (key ``presenter.on``): it is per browser
session, like every other setting.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import streamlit as st

from ui.render import charts

from . import state, urlstate

STATE = state.PageState("present", {"on": False})
PARAM = "present"
ON_VALUES = ("1", "true", "yes", "on")
#: The marker the stylesheet's presenter rules look for.
MARKER = '<div class="bpe-present" aria-hidden="true"></div>'
HELP = (
    "Large type, high contrast, the page list on top and secondary panels folded away: for a projector. "
    "The address bar gets ?present=1, so a link you copy opens in presenter mode."
)


def restore() -> None:
    """Apply ``?present=…`` when the address bar brings a new value (a link just opened)."""
    STATE.init()
    asked = urlstate.incoming(STATE.page, (PARAM,))
    if PARAM in asked:
        STATE["on"] = asked[PARAM].strip().lower() in ON_VALUES


def on() -> bool:
    """Whether presenter mode is on in this session."""
    return bool(STATE.get("on", False))


def publish() -> None:
    """Keep ``?present=1`` in the address bar while the mode is on (and none while it is off)."""
    urlstate.publish(STATE.page, (PARAM,), {PARAM: "1"} if on() else {})


def nav_position() -> str:
    """Where ``st.navigation`` puts the page list: on top in presenter mode, else in the sidebar."""
    restore()
    return "top" if on() else "sidebar"


def switch() -> None:
    """The switch (in the sidebar)."""
    st.toggle("Presenter mode", key=STATE.key("on"), help=HELP)


def marker() -> None:
    """Mark the page for the stylesheet's presenter rules (only while the mode is on)."""
    if on():
        st.html(MARKER)


@contextlib.contextmanager
def fold(label: str) -> Iterator[None]:
    """A secondary panel: drawn in place normally, folded into a closed expander in presenter mode."""
    if on():
        with st.expander(label, expanded=False):
            yield
    else:
        yield


def intro(text: str, more: str = "") -> None:
    """A page's opening lines (a caption) and ``more`` explanation (Markdown), folded into "About this page" in
    presenter mode."""
    with fold("About this page"):
        st.caption(text)
        if more:
            st.markdown(more)


def slot():
    """Where a page's figure goes: a place held here in presenter mode, so the figure comes before the controls
    drawn after this call; in the normal layout, the figure's own place (a context that does nothing)."""
    return st.container() if on() else contextlib.nullcontext()


def chart(spec: dict, **kwargs) -> None:
    """``st.vega_lite_chart``, with every label and title as large as the body text in presenter mode."""
    st.vega_lite_chart(charts.presented(spec) if on() else spec, **kwargs)
