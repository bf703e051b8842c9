"""ui/step/code.py: the code behind the step is textbook.py's own source, and running it gives the trace's merges."""

from __future__ import annotations

import inspect

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.tier import examples
from tokenizer import train
from tokenizer.bpe import textbook
from ui.step import code

CORPUS = "the cat sat on the mat; the hat is on the cat. aaabdaaabac Honolulu 你好 😄\n" * 5


@pytest.mark.parametrize("mode", ["training", "encoding"])
def test_the_code_shown_is_the_textbook_modules_own_source(mode):
    module = inspect.getsource(textbook)
    p = code.panel(mode)
    assert p["file"] == "tokenizer/bpe/textbook.py"
    parts = p["source"].split("\n\n\ndef ")
    assert len(parts) == 3 and all(("def " + x if i else x).strip() in module for i, x in enumerate(parts))
    lines = p["source"].splitlines()
    filled = {f: lines[i].strip() for i, f in p["fills"]}
    if mode == "training":
        assert filled["pair_count"].startswith("pair = max(stats, key=stats.get)")
        assert filled["merged"] == "chunks = [merge(ids, pair, new_id) for ids in chunks]"
    else:
        assert filled["pair_rank"].startswith("pair = min(stats")
        assert filled["merged"] == "ids = merge(ids, pair, merges[pair])"


def _run(source: str) -> dict:
    """The shown code, run: its functions as the page shows them."""
    namespace = {"regex": textbook.regex, "split": textbook.split}  # the chunking it calls, not shown
    exec(compile(source, "textbook shown", "exec"), namespace)  # our own module's source
    return namespace


@settings(max_examples=examples(25), deadline=None)
@given(text=st.text(alphabet="ab c.\n你😄", min_size=1, max_size=120), merges=st.integers(1, 30))
def test_the_code_shown_runs_to_the_merges_the_trace_fills_in(text, merges):
    """What the page writes in at step k (pair, count, new id: the trace's merge k+1) is what the shown code computes."""
    shown = _run(code.panel("training")["source"])
    tok = train(text, 256 + merges, pattern="gpt4")
    assert shown["train"](text, 256 + merges, tok.pattern) == [(m.pair, m.new_id, m.count) for m in tok.merge_list]


def test_the_encoding_code_shown_runs_to_the_tokenizers_ids():
    tok = train(CORPUS, 300, pattern="gpt4")
    shown = _run(code.panel("encoding")["source"])
    merges = {m.pair: m.new_id for m in tok.merge_list}
    assert shown["encode"](CORPUS, merges, tok.pattern) == tok.encode(CORPUS)


def test_an_unknown_mode_is_refused():
    with pytest.raises(ValueError, match="use 'training' or 'encoding'"):
        code.panel("decoding")
