"""The live Tokenize view in AppTest: what the page hands its component, and a text typed into its box.

AppTest runs no JavaScript, so it sees the component's data (``ui.web.payload``), not
the counts and spans the browser draws from it (tests/browser/test_tokenize.py checks
those). Typing is what the component's callback does with a text: it becomes the
shared text.
"""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

SHARED_TEXT = "shared.text"


def payload(at: AppTest) -> dict:
    """The data of the page's live view (the one ``bpe_lab_tokenize_live`` component)."""
    [element] = [e for e in at.get("bidi_component") if e.proto.component_name == "bpe_lab_tokenize_live"]
    proto = element.proto
    return json.loads(proto.json or proto.mixed.json)


def type_text(at: AppTest, text: str) -> AppTest:
    """The box's text as the server hears it once typing stops (set before the next run)."""
    at.session_state[SHARED_TEXT] = text
    return at


def table_ids(at: AppTest) -> list[int]:
    """The ids of the token table under the view (the server's, for the text it has)."""
    return [int(x) for x in at.dataframe[0].value["id"]]
