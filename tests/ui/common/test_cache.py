"""ui/common/cache.py: bounded per-owner caches, kept process-wide only for shared objects."""

from __future__ import annotations

import gc
import threading

from streamlit.testing.v1 import AppTest

from ui.common import cache


class Owner:
    pass


def test_results_are_per_owner_and_bounded():
    c = cache.OwnerCache()
    a, b = Owner(), Owner()
    assert c.get(a, "x", 1, lambda: "a1") == "a1"
    assert c.get(b, "x", 1, lambda: "b1") == "b1"
    assert c.get(a, "x", 1, lambda: "other") == "a1"
    for i in range(5):
        c.get(a, "y", i, lambda i=i: i, maxsize=2)
    assert c.get(a, "y", 4, lambda: "recomputed", maxsize=2) == 4  # the most recent two are kept
    assert c.get(a, "y", 0, lambda: "recomputed", maxsize=2) == "recomputed"


def test_an_owners_entries_go_with_it():
    c = cache.OwnerCache()
    a, b = Owner(), Owner()
    c.get(a, "x", 1, lambda: 1)
    c.get(b, "x", 1, lambda: 2)
    assert c.owners() == 2
    del b
    gc.collect()
    assert c.owners() == 1


def test_shared_cache_holds_only_for_shared_owners():
    official, mine = cache.share(Owner()), Owner()
    assert cache.is_shared(official) and not cache.is_shared(mine) and not cache.is_shared(None)
    calls = []
    for _ in range(3):
        cache._SHARED.get(official, "k", 0, lambda: calls.append(1) or "v")
    assert calls == [1]


def test_concurrent_lookups_are_safe():
    c = cache.OwnerCache()
    owner = Owner()
    errors = []

    def work(n: int) -> None:
        try:
            for i in range(300):
                assert c.get(owner, "sq", (n + i) % 20, lambda i=i, n=n: ((n + i) % 20) ** 2, maxsize=8) == ((n + i) % 20) ** 2
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


#: stands for an official encoding: one object for every session of the process
SHARED_TOK = cache.share(Owner())


def _session_script() -> None:
    import secrets

    import streamlit as st

    from tests.ui.common.test_cache import SHARED_TOK
    from ui.common import cache

    me = st.session_state.setdefault("me", secrets.token_hex(8))
    text = st.text_input("text", key="text")
    st.write(cache.for_session("test.length", text, lambda: f"from the user's text, computed by {me}", owner=SHARED_TOK))
    st.write(cache.for_tokenizer(SHARED_TOK, "test.table", 0, lambda: f"from the encoding alone, computed by {me}"))


def test_user_derived_results_stay_in_their_session_and_encoding_results_are_shared():
    first = AppTest.from_function(_session_script).run()
    first.text_input(key="text").input("a user's secret").run()
    from_text, from_encoding = (m.value for m in first.markdown)
    first.run()
    assert [m.value for m in first.markdown] == [from_text, from_encoding]  # both cached for this session
    second = AppTest.from_function(_session_script).run()
    second.text_input(key="text").input("a user's secret").run()
    assert second.markdown[0].value != from_text  # never served from another session's cache
    assert second.markdown[1].value == from_encoding  # what depends only on the encoding is computed once per process
    assert not first.exception and not second.exception


def test_for_builtin_computes_once_and_hands_out_copies():
    import threading

    from ui.common import cache

    calls = []

    def compute():
        calls.append(1)
        threading.Event().wait(0.2)  # long enough for every thread below to be waiting
        return {"merges": [1, 2, 3], "name": "original"}

    out = []
    threads = [
        threading.Thread(target=lambda: out.append(cache.for_builtin("test", ("sample", 1000), compute))) for _ in range(8)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1  # eight sessions at once, one computation
    assert sorted(reused for _, reused in out) == [False] + [True] * 7
    values = [v for v, _ in out]
    values[0]["name"] = "changed by its session"
    assert all(v["name"] == "original" for v in values[1:])  # each session has its own copy
    again, reused = cache.for_builtin("test", ("sample", 1000), compute)
    assert reused and again == {"merges": [1, 2, 3], "name": "original"} and len(calls) == 1
    other, reused = cache.for_builtin("test", ("sample", 2000), compute)
    assert not reused and len(calls) == 2


def _progress_in_cache_data_script() -> None:
    import secrets

    import streamlit as st

    @st.cache_data(show_spinner=False)
    def trained(key: str, _compute):
        return _compute()

    bar = st.progress(0.0, text="Counting pairs…")  # as Train draws it, before the training starts

    def compute():
        for done in range(3):
            bar.progress(done / 3, text=f"Merging: {done} of 3 merges")
        return {"merges": 3}

    st.write(trained(st.session_state.setdefault("sample", secrets.token_hex(8)), compute))  # a fresh key per test


def test_st_cache_data_still_refuses_a_progress_bar_drawn_outside_it():
    """Why ``for_builtin`` is ours, not ``st.cache_data`` (the policy in cache.py): Train's training updates a progress
    bar the page drew before it, and Streamlit's data cache refuses that, since it replays a cached function's
    elements. Should a later Streamlit accept it, this fails, and for_builtin can become ``st.cache_data``."""
    at = AppTest.from_function(_progress_in_cache_data_script, default_timeout=60).run()  # the training: kept
    assert not at.exception
    at.run()  # the next session to pick that sample: the replay of the bar's updates is refused
    assert at.exception and "created outside the function" in at.exception[0].message


def _progress_in_for_builtin_script() -> None:
    import secrets

    import streamlit as st

    from ui.common import cache

    bar = st.progress(0.0, text="Counting pairs…")

    def compute():
        for done in range(3):
            bar.progress(done / 3, text=f"Merging: {done} of 3 merges")
        return {"merges": 3}

    value, reused = cache.for_builtin(
        "test.progress", ("sample", st.session_state.setdefault("n", secrets.token_hex(8))), compute
    )
    st.write(f"{value['merges']} merges, reused: {reused}")


def test_for_builtin_lets_the_computation_draw_the_progress_bar():
    at = AppTest.from_function(_progress_in_for_builtin_script, default_timeout=60).run()
    assert not at.exception and at.markdown[0].value == "3 merges, reused: False"
    at.run()
    assert not at.exception and at.markdown[0].value == "3 merges, reused: True"
