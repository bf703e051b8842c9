"""Step through's cards as escaped HTML: a merge (``left + right → new``), a note, and
the ladder that shows how one word is built. Pure functions; classes styled by
``style.css``.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence

from tokenizer.display import hex_bytes
from tokenizer.trace import Span

from .spans import colors_for, token_html


def _chip(tok_id: int, data: bytes, color: str, new: bool = False) -> str:
    cls = "chip new" if new else "chip"
    return f'<span class="{cls}" style="background:{color}" title="id {tok_id}">{token_html(data, show_whitespace=True)}</span>'


def merge_card(vocab: Mapping[int, bytes], pair: tuple[int, int], new_id: int, *, label: str, meta: str = "") -> str:
    """``label: [left] + [right] → [new]  id · bytes · meta`` as escaped HTML.

    >>> card = merge_card({97: b"a", 98: b"b", 256: b"ab"}, (97, 98), 256, label="Step <1>", meta="count 3")
    >>> "Step &lt;1&gt;" in card, card.count('class="chip'), "id 256 · 2 bytes &lt;61 62&gt; · count 3" in card
    (True, 3, True)
    """
    a, b = pair
    ca, cb, cn = colors_for([a, b, new_id])
    data = vocab[new_id]
    return (
        '<div class="bpe-card">'
        + f'<span class="lbl">{html.escape(label)}</span>'
        + _chip(a, vocab[a], ca)
        + '<span class="op">+</span>'
        + _chip(b, vocab[b], cb)
        + '<span class="op">→</span>'
        + _chip(new_id, data, cn, new=True)
        + f'<span class="meta">id {new_id} · {len(data)} byte{"s" if len(data) != 1 else ""} {html.escape(hex_bytes(data))}'
        + (f" · {html.escape(meta)}" if meta else "")
        + "</span></div>"
    )


def note_card(text: str) -> str:
    """A card with one line of text in it.

    >>> note_card("No merge <here>")
    '<div class="bpe-card"><span class="meta">No merge &lt;here&gt;</span></div>'
    """
    return f'<div class="bpe-card"><span class="meta">{html.escape(text)}</span></div>'


def ladder_html(rungs: Iterable[tuple[str, Sequence[Span], frozenset[int] | set[int]]]) -> str:
    """The word-building ladder: one row per ``(what happened, spans after it, indices of the new spans)``.

    >>> from tokenizer.trace import make_spans
    >>> h = ladder_html([("bytes", make_spans([(97, b"a"), (98, b"b")]), set()), ("rank 0", make_spans([(256, b"ab")]), {0})])
    >>> h.count("<tr>"), h.count('class="t hl"'), h.endswith("1 tokens</td></tr></table></div>")
    (2, 1, True)
    """
    rows = []
    for what, spans, new in rungs:
        cells = "".join(
            f'<span class="t{" hl" if s.index in new else ""}" style="background:{c}" title="id {s.id}">'
            f"{token_html(s.bytes, show_whitespace=True)}</span>"
            for s, c in zip(spans, colors_for([s.id for s in spans]))
        )
        rows.append(f'<tr><td class="m">{html.escape(what)}</td><td>{cells}</td><td class="m">{len(spans)} tokens</td></tr>')
    # a long word's rows are wider than a phone: they scroll sideways in their own box, not the page
    return (
        '<div class="bpe-sideways" tabindex="0" role="region" aria-label="The word, merge by merge">'
        '<table class="bpe-ladder">' + "".join(rows) + "</table></div>"
    )
