"""Step through in AppTest: the trace sent to the page carries the code behind the step, textbook.py's own source."""

from __future__ import annotations

import inspect

from classroom.stores import FolderStore
from tokenizer import train
from tokenizer.bpe import textbook

from .test_step import CORPUS, run, sent


def test_both_modes_send_the_textbooks_own_code_with_the_lines_to_fill(workspace):
    tok = train(CORPUS, 300, pattern="gpt4", name="code")
    key = FolderStore(workspace).add(tok, corpus=CORPUS)
    module = inspect.getsource(textbook)
    for query, loop in (
        ({"mode": "training", "tokenizer": f"user:{key}", "step": "3"}, "def train("),
        ({"mode": "encoding", "tokenizer": "cl100k_base", "step": "3"}, "def encode("),
    ):
        code = sent(run(**query))["trace"]["code"]
        assert code["file"] == "tokenizer/bpe/textbook.py"
        assert loop in code["source"] and "def get_stats(" in code["source"] and "def merge(" in code["source"]
        for function in code["source"].split("\n\n\n"):
            assert function in module  # verbatim, not a copy that could drift
        lines = code["source"].splitlines()
        assert all("pair" in lines[i] or "new_id" in lines[i] for i, _ in code["fills"])
