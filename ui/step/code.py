"""The code behind the step: the textbook algorithm (``tokenizer/bpe/textbook.py``) that one step performs, as
Step through shows it next to the step, with the step's values filled in by the page (no Streamlit here).

The code is the module's own source (``inspect.getsource``), never a copy: the same
functions the fast core is tested against (``tests/tokenizer/bpe/test_textbook.py``).
``panel(mode)`` gives that source and the lines where the page writes the current
step's values (``fills``: which value goes after which line). The page
(``ui/step/code.js``) fills them from the trace it already has, at every step.

Training mode shows ``get_stats``, ``merge`` and ``train``: the pair with the highest
count (``max``), minted as ``new_id``. Encoding mode shows ``get_stats``, ``merge`` and
``encode``: the earliest-learned pair present (``min`` by rank), replaced by its id.
"""

from __future__ import annotations

import functools
import inspect

from tokenizer.bpe import textbook

#: Per mode: the functions shown, in order, and the statements whose line gets the step's values (name -> fill).
SHOWN = {
    "training": (
        (textbook.get_stats, textbook.merge, textbook.train),
        {
            "for new_id in range(256, vocab_size):": "new_id",
            "pair = max(stats, key=stats.get)": "pair_count",
            "chunks = [merge(ids, pair, new_id) for ids in chunks]": "merged",
        },
    ),
    "encoding": (
        (textbook.get_stats, textbook.merge, textbook.encode),
        {
            'pair = min(stats, key=lambda p: rank.get(p, float("inf")))': "pair_rank",
            "ids = merge(ids, pair, merges[pair])": "merged",
        },
    ),
}


@functools.cache
def panel(mode: str) -> dict:
    """``{"file", "source", "fills": [[line index, fill], ...]}`` for ``mode`` ("training" or "encoding").

    >>> p = panel("training")
    >>> p["source"].splitlines()[p["fills"][1][0]].strip(), p["fills"][1][1]
    ('pair = max(stats, key=stats.get)  # the highest count; among equal counts, the first met', 'pair_count')
    """
    if mode not in SHOWN:
        raise ValueError(f"mode {mode!r}: use 'training' or 'encoding'")
    functions, marks = SHOWN[mode]
    source = "\n\n\n".join(inspect.getsource(f).rstrip("\n") for f in functions)
    lines = source.splitlines()
    fills = []
    for statement, fill in marks.items():
        at = [i for i, line in enumerate(lines) if line.strip().startswith(statement)]
        if len(at) != 1:  # the textbook changed: say where, rather than fill the wrong line
            raise ValueError(f"textbook.py: {statement!r} found {len(at)} times in {mode} mode's code, expected once")
        fills.append([at[0], fill])
    fills.sort()
    return {"file": "tokenizer/bpe/textbook.py", "source": source, "fills": fills}
