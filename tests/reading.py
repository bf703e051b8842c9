"""What a student reads in a Markdown element whose user text the page escaped (``ui.common.user_text.md``)."""

from __future__ import annotations

import re


def read(markdown: str) -> str:
    r"""The text with Markdown's backslash escapes undone: ``read(md(s)) == s``.

    >>> read(r"GPT\-4 \(cl100k\_base\)")
    'GPT-4 (cl100k_base)'
    """
    return re.sub(r"\\(.)", r"\1", markdown)
