"""ui/train/view.py: the built-in sample texts are one object per process, read by every session."""

from __future__ import annotations

from ui.content import corpora
from ui.train import view


def test_a_sample_text_is_read_once_and_shared_by_reference():
    key = next(iter(corpora.CORPORA))
    first = view._sample_text(key)
    assert first == corpora.text(key)
    assert view._sample_text(key) is first  # a string nobody can change: no copy per run (st.cache_data unpickled one)
