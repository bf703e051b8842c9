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


# ----------------------------------------------------------------------------- built-in twins (cache.for_content)


def _fresh_twins(monkeypatch) -> None:
    """An empty process-wide state for the twins' tests (other tests of this worker may have trained the same)."""
    monkeypatch.setattr(cache, "_SHARED", cache.OwnerCache())
    monkeypatch.setattr(cache, "_BUILTIN", cache.OrderedDict())
    monkeypatch.setattr(cache, "_TWINS", cache.OrderedDict())


def _train_builtin(settings):
    import tokenizer

    return cache.for_builtin("training", settings, lambda: tokenizer.train("the cat sat on the mat " * 40, 270, pattern="gpt4"))


def test_every_copy_of_a_builtin_training_is_its_twin_and_nothing_else_is(monkeypatch):
    import tokenizer

    _fresh_twins(monkeypatch)
    settings = ("test-sample", 270, "gpt4", ())
    (first, reused1), (second, reused2) = _train_builtin(settings), _train_builtin(settings)
    assert (reused1, reused2) == (False, True) and first is not second
    origin = ("training", settings)
    assert cache.builtin_twin(first) == origin and cache.builtin_twin(second) == origin
    # what a student may change about their copy: its name, its save stamps
    second.name = "mine"
    second.metadata.update(saved_at="2026-11-24T20:00:00", source="trained")
    renamed = first.with_special_tokens({}, name="renamed")
    assert cache.builtin_twin(second) == origin and cache.builtin_twin(renamed) == origin
    # anything else is not a twin: other merges, other special tokens, other metadata, an upload, a training of a user's
    uploaded = first.with_special_tokens({})
    uploaded.metadata["source"] = "uploaded"
    others = [
        first.truncated(5),
        first.with_special_tokens({"<|end|>": 270}),
        tokenizer.train("a user's own text, a user's own text " * 20, 270, pattern="gpt4"),
        uploaded,
        cache.share(tokenizer.train("the cat sat on the mat " * 40, 270, pattern="gpt4")),
    ]
    changed = first.with_special_tokens({})
    changed.metadata["corpus_bytes"] = 1
    others.append(changed)
    assert [cache.builtin_twin(t) for t in others] == [None] * len(others)


def _twin_script() -> None:
    import secrets

    import streamlit as st

    from tests.ui.common.test_cache import _train_builtin
    from ui.common import cache

    me = st.session_state.setdefault("me", secrets.token_hex(8))
    if "tok" not in st.session_state:  # what the Train page does: a copy of the built-in training, renamed by its student
        tok, _ = _train_builtin(("test-sample", 270, "gpt4", ()))
        tok.name = f"student {me}"
        st.session_state["tok"] = tok
        import tokenizer

        st.session_state["own"] = tokenizer.train(f"{me} typed this, {me} typed this " * 20, 270, pattern="gpt4")
    tok, own = st.session_state["tok"], st.session_state["own"]
    st.write(cache.for_content(tok, "test.table", 0, lambda: f"about the built-in training, computed by {me}"))
    st.write(cache.for_content(tok, "test.titled", tok.name, lambda: f"titled {tok.name}, computed by {me}"))
    st.write(cache.for_content(own, "test.table", 0, lambda: f"about {me}'s own training, computed by {me}"))


def test_results_about_a_builtin_training_are_computed_once_and_a_students_own_stay_theirs(monkeypatch):
    _fresh_twins(monkeypatch)
    first = AppTest.from_function(_twin_script).run()
    second = AppTest.from_function(_twin_script).run()
    assert not first.exception and not second.exception
    one, two = [m.value for m in first.markdown], [m.value for m in second.markdown]
    me1, me2 = first.session_state["me"], second.session_state["me"]
    assert one[0] == two[0] == f"about the built-in training, computed by {me1}"  # once per process
    assert (one[1], two[1]) == (f"titled student {me1}, computed by {me1}", f"titled student {me2}, computed by {me2}")
    assert (one[2], two[2]) == (
        f"about {me1}'s own training, computed by {me1}",
        f"about {me2}'s own training, computed by {me2}",
    )


def test_callers_asking_at_once_for_the_same_missing_value_compute_it_once():
    c = cache.OwnerCache()
    owner, calls, out = Owner(), [], []
    started = threading.Event()

    def compute():
        calls.append(1)
        started.set()
        threading.Event().wait(0.3)  # long enough for every other thread to be asking
        return "value"

    threads = [threading.Thread(target=lambda: out.append(c.get(owner, "chart", 0, compute))) for _ in range(8)]
    for t in threads:
        t.start()
    started.wait(5)
    other = c.get(owner, "chart", 1, lambda: "another key")  # another value, computed meanwhile
    for t in threads:
        t.join()
    assert calls == [1] and out == ["value"] * 8 and other == "another key"


def test_a_failed_computation_is_tried_again_by_the_next_caller():
    c = cache.OwnerCache()

    def fail():
        raise ValueError("bad input")

    for _ in range(2):
        try:
            c.get(None, "x", 0, fail)
        except ValueError:
            pass
    assert c.get(None, "x", 0, lambda: "fine") == "fine"


def _cache_data_by_tokenizer_script() -> None:
    import streamlit as st

    from tokenizer import train
    from ui.common import cache

    a = train("aaabdaaabac", 259, pattern=None, name="a")
    b = train("hello hello", 258, pattern=None, name="b")

    @st.cache_data
    def n_merges(tok):
        return tok.num_merges

    try:
        n_merges(a)
    except Exception as e:  # Streamlit's UnhashableParamError, not public API: said by its name
        st.write(type(e).__name__)

    @st.cache_data
    def n_merges_unhashed(_tok, kind):
        return _tok.num_merges

    st.write(f"a: {n_merges_unhashed(a, 'merges')}, b: {n_merges_unhashed(b, 'merges')}")
    st.write(
        f"the cache got: {cache.for_tokenizer(a, 'merges', (), lambda: a.num_merges)}, {cache.for_tokenizer(b, 'merges', (), lambda: b.num_merges)}"
    )


def test_st_cache_data_cannot_key_a_result_on_a_tokenizer_object():
    """Why ``for_tokenizer`` and ``for_session`` are ours: ``st.cache_data`` cannot hash a Tokenizer, and with the
    argument left out of the key (``_tok``) it hands one tokenizer's result to another. (A ``hash_funcs`` digest of
    the content would work, at the price of hashing 200,000 merges once per object and of entries that outlive
    their tokenizer; ``cache.signature`` is that digest, used where content, not the object, is the key.)"""
    at = AppTest.from_function(_cache_data_by_tokenizer_script, default_timeout=60).run()
    assert not at.exception
    said = [m.value for m in at.markdown]
    assert "UnhashableParamError" in said
    assert "a: 3, b: 3" in said  # b's own answer is 2: the cache gave it a's
    assert any(m == "the cache got: 3, 2" for m in said)
