"""Pre-tokenization chunks as escaped HTML: one row per split pattern, like Compare's token rows.

Pure functions (no Streamlit). Chunks are drawn with the token spans' classes
(``.bpe-row``, ``.bpe-spans``, ``.t``, ``.dim``, ``.cut``: ``style.css``), coloured by
their position so neighbours differ, with a hover text and a screen-reader table that
speak of chunks (their number, text and bytes), not of token ids.
"""

from __future__ import annotations

import html
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from tokenizer.display import visible
from tokenizer.trace import Span

from .spans import colors_for, token_html


@dataclass(frozen=True)
class ChunkRow:
    """One pattern's chunks: a label, the chunks as spans, the indices to fade and those to mark with a cut."""

    label: str
    spans: Sequence[Span]
    dim: Collection[int] = ()
    cuts: Collection[int] = ()


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def chunk_rows(rows: Sequence[ChunkRow], *, show_whitespace: bool = True, limit: int | None = None) -> str:
    """The rows stacked, each under its label and chunk count.

    >>> from tokenizer.trace import make_spans
    >>> h = chunk_rows([ChunkRow("<GPT-2>", make_spans([(0, b"I"), (1, b"'M")]), cuts={1})])
    >>> "<b>&lt;GPT-2&gt;</b>" in h, h.count('class="t'), h.count('class="cut"'), "<caption>&lt;GPT-2&gt;: 2 chunks</caption>" in h
    (True, 2, 1, True)
    """
    parts = []
    for r in rows:
        shown = r.spans if limit is None else r.spans[:limit]
        dim, cuts = set(r.dim), set(r.cuts)
        parts.append('<div class="bpe-row">')
        parts.append(
            f'<div class="bpe-row-head"><b>{html.escape(r.label)}</b><span class="n">{_plural(len(r.spans), "chunk")}</span></div>'
        )
        if not shown:
            parts.append('<div class="bpe-empty">No chunks: the text is empty.</div></div>')
            continue
        parts.append('<div class="bpe-spans" aria-hidden="true">')
        for s, colour in zip(shown, colors_for(list(range(len(shown))))):
            if s.index and s.index in cuts:
                parts.append('<span class="cut"></span>')
            cls = "t dim" if s.index in dim else "t"
            tip = html.escape(f"chunk {s.index + 1} · {_plural(len(s.bytes), 'byte')}\ntext: {visible(s.bytes)}", quote=True)
            parts.append(
                f'<span class="{cls}" style="background:{colour}" title="{tip}">{token_html(s.bytes, show_whitespace=show_whitespace)}</span>'
            )
        parts.append("</div>")
        body = "".join(
            f"<tr><td>{s.index + 1}</td><td>{html.escape(visible(s.bytes))}</td><td>{s.bytes.hex(' ').upper()}</td></tr>"
            for s in shown
        )
        parts.append(
            f'<div class="bpe-sr"><table><caption>{html.escape(r.label)}: {_plural(len(r.spans), "chunk")}</caption>'
            '<tr><th scope="col">chunk</th><th scope="col">text</th><th scope="col">bytes</th></tr>'
            f"{body}</table></div>"
        )
        if limit is not None and len(r.spans) > limit:
            parts.append(f'<div class="bpe-more">Showing the first {limit:,} of {len(r.spans):,} chunks.</div>')
        parts.append("</div>")
    return "".join(parts)
