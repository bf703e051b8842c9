"""bpe/parity.py: parity-aware merges equal the naive rule, the trace keeps its promise, and Hugging Face's
ParityBpeTrainer (tokenizers 0.23.3 has one) learns the same merges up to the first tie."""

from __future__ import annotations

import functools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.tier import examples
from tests.tokenizer.bpe import naive
from tokenizer import GPT2_PATTERN, TrainingTrace, from_json, to_json, train
from tokenizer.bpe.parity import (
    ParityTrace,
    check_parallel,
    join_parallel,
    parity_merges,
    split_parallel,
    train_parity,
    worst_language,
)
from tokenizer.pretokenize.patterns import resolve_pattern
from ui.compare.languages import PASSAGES

PASSAGE_TEXTS = {lang: text for lang, (_, text) in PASSAGES.items()}

texts_strategy = st.dictionaries(
    st.sampled_from(["en", "de", "el", "ta"]),
    st.text(alphabet=st.sampled_from("ab c\nd'éΣ1"), min_size=1, max_size=60).filter(str.strip),
    min_size=2,
    max_size=4,
)


@given(texts_strategy, st.integers(256, 300), st.sampled_from([None, "gpt2", "gpt4"]), st.integers(0, 3))
def test_equals_the_naive_rule(texts, vocab_size, pattern, global_merges):
    tok = train_parity(texts, vocab_size, pattern=pattern, global_merges=global_merges)
    want = naive.parity(texts, vocab_size, resolve_pattern(pattern), global_merges)
    assert [(m.pair, m.new_id, m.count, g) for m, g in zip(tok.merge_list, tok.training.served)] == want
    record = tok.metadata["training"]
    assert record["language_tokens"] == naive.lengths(texts, tok.merges, tok.pattern)
    assert record["merges_per_language"] == [sum(1 for *_, g in want if g == i) for i in range(len(texts))]
    assert tok.metadata["tokens_after"] == sum(record["language_tokens"])


@given(texts_strategy, st.integers(256, 290), st.sampled_from([None, "gpt4"]), st.integers(0, 2))
def test_the_trace_rebuilt_from_the_stored_text_is_the_trainings_and_keeps_its_promise(texts, vocab_size, pattern, g):
    tok = train_parity(texts, vocab_size, pattern=pattern, global_merges=g)
    rebuilt = TrainingTrace.from_text(from_json(json.loads(json.dumps(to_json(tok)))), join_parallel(texts))
    assert isinstance(rebuilt, ParityTrace)
    trace = tok.training
    assert rebuilt.tokens_after == trace.tokens_after and rebuilt.served == trace.served
    assert rebuilt.language_lengths == trace.language_lengths
    for k, m in enumerate(tok.merge_list):
        top = rebuilt.pair_counts(tok, k, top=1)[0]
        assert (top.pair, top.count) == (m.pair, m.count)  # the pair counts of the language step k served
        assert rebuilt.tokens_at(tok, k) == rebuilt.length_at(k)
        served = rebuilt.served_at(k)
        assert served is None if k < g else served == trace.served[k]
    if tok.num_merges:
        assert rebuilt.language_tokens_at(tok.num_merges) == dict(zip(texts, tok.metadata["training"]["language_tokens"]))


def test_it_serves_the_worst_language_where_plain_bpe_serves_the_biggest():
    texts = {"en": "aaaa", "xx": "bcbcbc"}
    # plain BPE: (a, a) and (b, c) both occur 3 times; (a, a) is met first
    assert [train(list(texts.values()), 257, pattern=None).vocab[256]] == [b"aa"]
    tok = train_parity(texts, 258, pattern=None, baseline=True)
    # parity: xx has 6 tokens to en's 4, so its pair goes first; then en has 4 to xx's 3
    assert [tok.vocab[256], tok.vocab[257]] == [b"bc", b"aa"]
    assert tok.training.served == [1, 0]
    record = tok.metadata["training"]
    assert record["language_tokens"] == [2, 3] and record["plain_language_tokens"] == [2, 3]
    assert [m.count for m in tok.merge_list] == [3, 3]


def test_ties_between_languages_go_to_the_first_and_exhausted_languages_are_passed_over():
    assert worst_language([5, 5, 3], [1, 1, 1]) == 0
    assert worst_language([9, 5, 3], [9, 1, 1]) == 1  # the first has no pair left: one token per chunk
    assert worst_language([2, 3], [2, 3]) is None
    # a language whose text is one token already never stops the others
    merges, served, lengths = parity_merges([([b"a", b"b"], [5, 5]), ([b"cdcd"], [1])], 5)
    assert served == [1, 1] and lengths[-1] == [10, 1]


def test_the_baseline_is_plain_bpe_on_the_same_texts():
    texts = {lang: PASSAGE_TEXTS[lang] for lang in ("English", "Greek", "Tamil")}
    tok = train_parity(texts, 400, pattern="gpt4", baseline=True)
    plain = train(list(texts.values()), 400, pattern="gpt4")
    assert tok.metadata["training"]["plain_language_tokens"] == [len(plain.encode(t)) for t in texts.values()]
    assert tok.metadata["training"]["language_tokens"] == [len(tok.encode(t)) for t in texts.values()]


def test_progress_runs_once_from_zero_to_the_end_with_the_baseline():
    seen = []
    train_parity(
        {"a": "abab abab", "b": "cdcd cd"}, 270, pattern="gpt4", baseline=True, progress=lambda d, t: seen.append((d, t))
    )
    assert seen[0] == (0, 28) and seen[-1] == (28, 28)
    assert all(t == 28 for _, t in seen) and [d for d, _ in seen] == sorted(d for d, _ in seen)


@given(st.dictionaries(st.text(min_size=1).filter(str.strip), st.text(min_size=1).filter(str.strip), min_size=2, max_size=5))
def test_the_stored_text_splits_back_into_the_languages(texts):
    record = {"languages": list(texts), "text_chars": [len(t) for t in texts.values()]}
    assert split_parallel(join_parallel(texts), record) == texts


def test_bad_input_names_the_fix():
    with pytest.raises(ValueError, match="at least two"):
        train_parity({"English": "hello"}, 300)
    with pytest.raises(ValueError, match=r"dict \{language: text\}"):
        train_parity(["hello", "hallo"], 300)
    with pytest.raises(ValueError, match="the text for German is empty"):
        train_parity({"English": "hello", "German": "  "}, 300)
    with pytest.raises(ValueError, match="the text for German must be"):
        check_parallel({"English": "hello", "German": b"hallo"})
    with pytest.raises(ValueError, match="global_merges must be a whole number of at least 0"):
        train_parity({"English": "hello", "German": "hallo"}, 300, global_merges=-1)
    with pytest.raises(ValueError, match="vocab_size must be at least 256"):
        train_parity({"English": "hello", "German": "hallo"}, 100)
    with pytest.raises(ValueError, match="does not match the tokenizer's record"):
        split_parallel("hello\n\nhallo!", {"languages": ["English", "German"], "text_chars": [5, 5]})


# ----------------------------------------------------------------------------- Hugging Face's ParityBpeTrainer


@functools.cache
def _byte_decoder() -> dict[str, int]:
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = list(bs)
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(bs, cs)}


def _hf_parity_merges(texts: dict[str, str], num_merges: int) -> list[tuple[bytes, bytes]]:
    from tokenizers import Regex, pre_tokenizers
    from tokenizers import Tokenizer as HFTokenizer
    from tokenizers.models import BPE
    from tokenizers.trainers import ParityBpeTrainer

    hf = HFTokenizer(BPE())
    hf.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(GPT2_PATTERN), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    trainer = ParityBpeTrainer(num_merges=num_merges, show_progress=False)
    parts = [[t] for t in texts.values()]
    trainer.train_from_iterator(hf, train_iterators=parts, dev_iterators=[list(p) for p in parts])
    decode = _byte_decoder()
    return [(bytes(decode[c] for c in a), bytes(decode[c] for c in b)) for a, b in json.loads(hf.to_str())["model"]["merges"]]


def _gpt2_tie(pair, vocab) -> tuple[str, str]:
    """Hugging Face's tie-break (and the paper's code's): the larger pair, compared as GPT-2 byte-level characters."""
    chars = _byte_chars()
    return tuple("".join(chars[b] for b in vocab[i]) for i in pair)


@functools.cache
def _byte_chars() -> dict[int, str]:
    return {b: c for c, b in _byte_decoder().items()}


def _merged_bytes(merges) -> list[tuple[bytes, bytes]]:
    vocab = {i: bytes([i]) for i in range(256)}
    out = []
    for (a, b), new_id, *_ in merges:
        vocab[new_id] = vocab[a] + vocab[b]
        out.append((vocab[a], vocab[b]))
    return out


def test_hugging_face_parity_trainer_is_this_rule_with_its_own_tie_break():
    from tokenizers import trainers

    assert hasattr(trainers, "ParityBpeTrainer"), "tokenizers 0.23.3 (requirements-dev.txt) has ParityBpeTrainer"
    n = 300
    hf = _hf_parity_merges(PASSAGE_TEXTS, n)
    assert len(hf) == n
    # the same languages served, the same pairs, wherever a count ties too: only the tie-break differs
    assert hf == _merged_bytes(naive.parity(PASSAGE_TEXTS, 256 + n, GPT2_PATTERN, tie=_gpt2_tie))
    tok = train_parity(PASSAGE_TEXTS, 256 + n, pattern="gpt2")
    ours = [(tok.vocab[m.pair[0]], tok.vocab[m.pair[1]]) for m in tok.merge_list]
    first_tie = next(i for i, (x, y) in enumerate(zip(ours, hf)) if x != y)
    assert ours[:first_tie] == hf[:first_tie] and first_tie >= 10


@pytest.mark.slow
@settings(max_examples=examples(40))
@given(
    st.lists(
        st.lists(st.sampled_from(["the ", "cat ", "sat ", "on ", "mat. ", "Σ", "ά", "και ", "ok"]), min_size=3, max_size=40),
        min_size=2,
        max_size=3,
    )
)
def test_hugging_face_parity_trainer_is_this_rule_with_its_tie_break_on_generated_texts(parts):
    texts = {f"lang{i}": "".join(words) for i, words in enumerate(parts)}
    want = _merged_bytes(naive.parity(texts, 256 + 30, GPT2_PATTERN, tie=_gpt2_tie))
    assert _hf_parity_merges(texts, 30)[: len(want)] == want
