"""ui/web/unicode.js is this Python's ``str.isprintable``: the committed table is what ``ui/web/unicode.py`` generates."""

from __future__ import annotations

import unicodedata

from ui.web import unicode


def test_the_committed_table_is_this_pythons():
    assert unicode.TARGET.read_text(encoding="utf-8") == unicode.source(), (
        f"ui/web/unicode.js is stale for Unicode {unicodedata.unidata_version}: run `.venv/bin/python -m ui.web.unicode`"
    )


def test_the_runs_rebuild_isprintable_for_every_code_point():
    runs = unicode.runs()
    cp = 0
    for i, length in enumerate(runs):
        printable = i % 2 == 1
        for c in (cp, cp + length // 2, cp + length - 1):  # both ends and the middle of every run
            assert chr(c).isprintable() is printable, hex(c)
        cp += length
    assert cp == unicode.MAX_CODE_POINT + 1
