"""User text inside Markdown: every Streamlit element that renders Markdown (``st.error`` and the other messages,
captions, metric labels, help texts, progress texts, tab labels) is given a user's text through ``md`` or ``code``.

Plain Python (no Streamlit).
"""

from __future__ import annotations

import re

#: every character that can start Markdown, an HTML tag or entity, or a Streamlit directive (``:red[...]``)
_MARKDOWN = str.maketrans({c: "\\" + c for c in "\\`*_{}[]()<>#+-=.!|~$&:"})


def md(text: str) -> str:
    """A user's text (a tokenizer's or file's name, an error quoting either) as literal Markdown: no link, image or emphasis.

    >>> md("![x](http://example.com) *mine*")
    '\\\\!\\\\[x\\\\]\\\\(http\\\\://example\\\\.com\\\\) \\\\*mine\\\\*'
    """
    return text.translate(_MARKDOWN)


def code(text: str) -> str:
    """A user's text as a Markdown code span that it cannot close: nothing in it is read as Markdown.

    >>> code("a`b"), code("`x")
    ('``a`b``', '`` `x ``')
    """
    if not text:
        return ""
    text = text.replace("\r", " ").replace("\n", " ")
    fence = "`" * (max(map(len, re.findall("`+", text)), default=0) + 1)
    pad = " " if text[0] in "` " or text[-1] in "` " else ""
    return f"{fence}{pad}{text}{pad}{fence}"
