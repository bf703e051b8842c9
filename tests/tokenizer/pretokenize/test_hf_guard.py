"""A tokenizer.json's own regexes cannot freeze the process: untrusted files run in worker processes under the
regex time limit, a file that backtracks on short test texts is refused at load, and the verified model files and
BPE Lab's own exports still run in the process."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenizer import formats, time_limit
from tokenizer.display import bytes_to_unicode
from tokenizer.formats.hf import from_hf_json, to_hf_json
from tokenizer.pretokenize import hf_guard
from tokenizer.pretokenize.hf import HFPreTokenizer, regexes_in

TABLE = bytes_to_unicode()

# patterns that backtrack catastrophically on a run of one class of characters (each run a probe has)
CATASTROPHIC = [
    r"(?:.|.){1,21}$",
    r"(?:\p{L}|\p{L}){1,21}$",
    r"(?:\d|\d){1,21}$",
    r"(?:\s|\s){1,21}$",
    r"(?:\w|\w){1,21}[^\w\s]{2}",
]


def split(pattern: str) -> dict:
    return {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False}


BYTE_LEVEL = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}


def doc(pre_tokenizer=None, normalizer=None, added=()) -> dict:
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": list(added),
        "normalizer": normalizer,
        "pre_tokenizer": pre_tokenizer or {"type": "Sequence", "pretokenizers": [BYTE_LEVEL]},
        "post_processor": None,
        "decoder": BYTE_LEVEL,
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": False,
            "vocab": {**{TABLE[b]: b for b in range(256)}, TABLE[104] + TABLE[105]: 256},
            "merges": [[TABLE[104], TABLE[105]]],
        },
    }


def with_split(pattern: str) -> dict:
    return doc({"type": "Sequence", "pretokenizers": [split(pattern), BYTE_LEVEL]})


@pytest.mark.parametrize("pattern", CATASTROPHIC)
def test_a_split_that_backtracks_on_short_texts_is_refused_at_load(pattern):
    with pytest.raises(ValueError, match="backtracks catastrophically, so BPE Lab cannot run it safely") as e:
        from_hf_json(with_split(pattern))
    assert pattern[:20] in str(e.value)
    with pytest.raises(ValueError, match="backtracks catastrophically"):  # the same verdict the next time, at once
        from_hf_json(with_split(pattern))


@pytest.mark.parametrize("pattern", CATASTROPHIC[:2])
def test_a_normalizer_that_backtracks_is_refused_too(pattern):
    normalizer = {"type": "Replace", "pattern": {"Regex": pattern}, "content": "x"}
    with pytest.raises(ValueError, match="backtracks catastrophically"):
        from_hf_json(doc(normalizer=normalizer))


def test_a_saved_bpe_lab_file_with_such_a_pipeline_is_refused_where_it_is_read():
    """The same pattern inside BPE Lab JSON (a file saved before, or written by hand) is refused when read back."""
    benign = from_hf_json(with_split(r"\w+|\s+|[^\w\s]+"))
    text = formats.bpe_lab.dumps(benign).replace(json.dumps(r"\w+|\s+|[^\w\s]+")[1:-1], json.dumps(CATASTROPHIC[0])[1:-1])
    assert CATASTROPHIC[0] in json.loads(text)["pipeline"]["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"]
    with pytest.raises(ValueError, match="backtracks catastrophically"):
        formats.load_bytes(text.encode(), name="saved")


def test_a_pattern_that_backtracks_only_on_some_texts_is_stopped_and_the_next_call_works():
    tok = from_hf_json(with_split(r"(?:y|y){1,21}$|\s+|."))  # passes the probes: none has a run of y
    assert not tok.pipeline.trusted
    with pytest.raises(ValueError, match="took longer than 0.5 s on this text and were stopped"):
        with time_limit(0.5):
            tok.encode("y" * 80)
    assert tok.decode(tok.encode("yes, hi")) == "yes, hi"
    assert tok.encode("hi") == [104, 105]  # one character a piece: no merge across them


def test_every_path_draws_on_the_limit():
    tok = from_hf_json(with_split(r"(?:y|y){1,21}$|\s+|."))
    hostile = "y" * 80
    for call in (tok.encode, tok.encode_ordinary, tok.split, tok.encode_spans, tok.encode_trace):
        with pytest.raises(ValueError, match="were stopped"), time_limit(0.3):
            call(hostile)


TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=60) | st.sampled_from(
    ["Hello 你好 world!!", "  spaced   out\n\n", "I'm 2024 😄🤪", "hi hi hi"]
)


@settings(max_examples=60, deadline=None)
@given(TEXT)
def test_a_worker_gives_the_pieces_the_process_gives(text):
    spec = {
        "normalizer": {"type": "NFKC"},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [split(r"\p{L}+| ?\p{N}|\s+|."), BYTE_LEVEL]},
        "added_tokens": [
            {
                "id": 300,
                "content": "<x>",
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "normalized": False,
                "special": True,
            },
            {
                "id": 301,
                "content": "hi",
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "normalized": True,
                "special": False,
            },
        ],
    }
    guarded, local = HFPreTokenizer(spec), HFPreTokenizer(spec, trusted=True)
    assert not guarded.trusted
    for allowed in ({}, {"<x>": 300}):
        assert guarded.pieces(text, allowed) == local.pieces(text, allowed)
        assert guarded.pieces(text + "<x>", allowed) == local.pieces(text + "<x>", allowed)
    assert guarded.added_text == local.added_text


def test_the_verified_model_files_and_our_own_exports_run_in_the_process():
    from tokenizer import load_encoding, train
    from tokenizer.models import registry

    with_pipelines = [name for name in registry.names() if load_encoding(name).pipeline is not None]
    assert with_pipelines, "a model with a tokenizer.json pipeline (DeepSeek V4)"
    for name in with_pipelines:
        assert load_encoding(name).pipeline.trusted, name
    for pattern in ("gpt2", "gpt4", "o200k", "llama3"):
        tok = train("hello hello world, 123 你好", 260, pattern=pattern)
        back = from_hf_json(to_hf_json(tok))
        assert back.pipeline is None or back.pipeline.trusted, pattern


def test_regexes_in_finds_every_regex_however_nested():
    spec = {
        "type": "Sequence",
        "pretokenizers": [split("a+"), {"type": "Sequence", "pretokenizers": [split("b+"), {"type": "Digits"}]}],
    }
    norm = {"type": "Sequence", "normalizers": [{"type": "Replace", "pattern": {"Regex": "c+"}, "content": ""}]}
    assert regexes_in([norm, spec]) == {"a+", "b+", "c+"}
    assert regexes_in({"type": "Split", "pattern": {"String": " "}}) == set()


def test_a_killed_worker_is_replaced_and_a_busy_pool_makes_a_call_wait_its_limit_only():
    import threading

    pool = hf_guard.Pool(size=1)
    spec = json.dumps(with_split(r"(?:y|y){1,21}$|\s+|."))
    try:
        with pytest.raises(hf_guard.GuardTimeout):
            pool.call(("encode", spec, False, ["y" * 80]), 0.3)
        ((ids, _, _),) = pool.call(("encode", spec, False, ["hi"]), 5)
        assert ids == [104, 105]
        with pytest.raises(hf_guard.GuardError, match="unknown operation"):
            pool.call(("nothing", spec, False, []), 5)
        assert pool.call(("normalize", spec, False, ["ok"]), 5) == ["ok"]
        outcome = []

        def hog():
            try:
                pool.call(("encode", spec, False, ["y" * 400]), 3)  # minutes of backtracking: always stopped
            except hf_guard.GuardTimeout:
                outcome.append("stopped")

        t = threading.Thread(target=hog)
        t.start()
        while pool._busy == 0:  # the hog holds the only worker
            pass
        with pytest.raises(hf_guard.GuardTimeout):
            pool.call(("encode", spec, False, ["hi"]), 0.3)
        t.join()
        assert outcome == ["stopped"]
        assert pool.call(("encode", spec, False, ["hi"]), 5)[0][0] == [104, 105]
    finally:
        pool.close()


def test_the_command_line_says_one_line_and_fails(tmp_path):
    path = tmp_path / "hostile.tokenizer.json"
    path.write_text(json.dumps(with_split(CATASTROPHIC[0])))
    out = subprocess.run(
        [sys.executable, "-m", "tokenizer", "encode", "-t", str(path), "--text", "hello"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode != 0
    assert "backtracks catastrophically" in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr


def test_a_worker_outlives_the_thread_that_started_it():
    """A page's run is a thread that ends: the worker it started must serve the next run's calls."""
    import threading

    pool = hf_guard.Pool(size=1)
    spec = json.dumps(with_split(r"\w+|\s+|."))
    try:
        first: list = []
        t = threading.Thread(target=lambda: first.append(pool.call(("encode", spec, False, ["hi"]), 5)))
        t.start()
        t.join()
        (worker,) = pool._idle
        pid = worker.proc.pid
        for _ in range(3):
            t = threading.Thread(target=lambda: first.append(pool.call(("encode", spec, False, ["hi"]), 5)))
            t.start()
            t.join()
        assert [r[0][0] for r in first] == [[256]] * 4
        assert pool._idle[0].proc.pid == pid  # the same process all along
    finally:
        pool.close()
