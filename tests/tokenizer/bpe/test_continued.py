"""bpe/continued.py: continued training equals the naive continuation, keeps every id of the base (GPT-2's,
cl100k's, one's own) and refuses what would change the base."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from texts import MULTILINGUAL, stdlib_sample

from tests.tokenizer.bpe import naive
from tokenizer import TrainingTrace, from_json, load_encoding, to_json, train
from tokenizer.bpe import textbook
from tokenizer.bpe.continued import ContinuedTrace, train_continued

texts = st.text(alphabet=st.sampled_from("ab c\nd'éx"), max_size=120)


@given(texts, texts, st.integers(256, 280), st.integers(1, 40), st.sampled_from([None, "gpt2", "gpt4"]))
def test_equals_the_naive_continuation_of_a_trained_base(first, second, base_size, more, pattern):
    base = train(first, base_size, pattern=pattern)
    tok = train_continued(second, base.n_vocab + more, base=base)
    assert tok.merge_list[: base.num_merges] == base.merge_list
    want = naive.continued(base.merges, second, more, base.pattern, base.n_vocab)
    assert [(m.pair, m.new_id, m.count) for m in tok.merge_list[base.num_merges :]] == want
    assert tok.encode_ordinary(second) == textbook.encode(second, tok.merges, tok.pattern)
    assert tok.metadata["tokens_after"] == len(tok.encode_ordinary(second))


@given(texts, texts, st.integers(1, 20))
def test_the_trace_starts_at_the_base_and_keeps_its_promise_from_there(first, second, more):
    base = train(first, 270, pattern="gpt4")
    tok = train_continued(second, base.n_vocab + more, base=base)
    rebuilt = TrainingTrace.from_text(from_json(json.loads(json.dumps(to_json(tok)))), second)
    assert isinstance(rebuilt, ContinuedTrace) and rebuilt.first_learned == base.num_merges
    assert rebuilt.tokens_after == tok.training.tokens_after
    assert rebuilt.length_at(base.num_merges) == tok.metadata["training"]["base_tokens"] == len(base.encode_ordinary(second))
    for k in range(base.num_merges, tok.num_merges):
        top = rebuilt.pair_counts(tok, k, top=1)[0]
        assert (top.pair, top.count) == (tok.merge_list[k].pair, tok.merge_list[k].count)


CODE = (MULTILINGUAL + stdlib_sample(20_000))[:20_000]


@pytest.mark.parametrize("name", ["r50k_base", pytest.param("cl100k_base", marks=pytest.mark.slow)])
def test_an_official_base_keeps_every_id_and_learns_what_the_naive_rule_learns(name):
    base = load_encoding(name)
    tok = train_continued(CODE, base.n_vocab + 40, base=base, special_tokens=["<|endoftext|>", "<|domain|>"])
    # the base's ids mean what they meant: bytes (shuffled, as in tiktoken), merges, special tokens
    assert tok.byte_ids == base.byte_ids and tok.merge_list[: base.num_merges] == base.merge_list
    assert all(tok.vocab[i] == b for i, b in base.vocab.items())
    assert tok.special_tokens == {**base.special_tokens, "<|domain|>": base.n_vocab + 40}
    assert [m.new_id for m in tok.merge_list[base.num_merges :]] == list(range(base.n_vocab, base.n_vocab + 40))
    # the new merges are the naive continuation from the base's own encoding of each chunk
    # (the special-token strings are cut out first, so the text between them is two documents)
    pieces = CODE.split("<|endoftext|>")
    chunks = [base.encode_ordinary(c) for piece in pieces for c in textbook.split(piece, base.pattern)]
    want = naive.go_on(chunks, 40, base.n_vocab)
    assert [(m.pair, m.new_id, m.count) for m in tok.merge_list[base.num_merges :]] == want
    ids = tok.encode(CODE, disallowed_special=())
    assert tok.decode(ids) == CODE and len(ids) < len(base.encode(CODE, disallowed_special=()))


def test_a_different_pattern_is_refused_and_says_why():
    base = train("hello world " * 5, 270, pattern="gpt2")
    with pytest.raises(ValueError, match=r"keeps the base's split pattern \(gpt2\)"):
        train_continued("more text", base.n_vocab + 5, base=base, pattern="gpt4")
    # the base's own pattern, named, is fine
    assert train_continued("more text", base.n_vocab + 5, base=base, pattern="gpt2").pattern == base.pattern


def test_bad_input_names_the_fix():
    base = train("hello world " * 5, 270, pattern="gpt2")
    n = base.n_vocab
    with pytest.raises(ValueError, match=rf"already uses ids up to {n - 1}: give a vocab_size above {n}, e.g. 1,{n}"):
        train_continued("more", n, base=base)
    with pytest.raises(ValueError, match="base must be a Tokenizer"):
        train_continued("more", 300, base="gpt2")
    from hf_files import build, pair

    piped = pair(build(normalizer=hf_files_nfc()))[0]  # a tokenizer.json whose pipeline normalizes text
    assert piped.pipeline is not None
    with pytest.raises(ValueError, match="its own tokenizer.json pipeline"):
        train_continued("more", piped.n_vocab + 10, base=piped)


def hf_files_nfc():
    from hf_files import normalizers

    return normalizers.NFC()


def test_special_tokens_keep_the_bases_ids_and_new_ones_come_after_the_new_merges():
    base = train("abcabc", 260, pattern=None, special_tokens=["<|end|>"])
    tok = train_continued("xyxyxy <|end|> zz", base.n_vocab + 3, base=base, special_tokens=["<|end|>", "<|new|>"])
    assert tok.special_tokens["<|end|>"] == base.special_tokens["<|end|>"]
    assert tok.special_tokens["<|new|>"] == tok.n_vocab - 1 == base.n_vocab + tok.metadata["training"]["new_merges"]
    assert b"<|end|>" not in b"".join(tok.vocab[m.new_id] for m in tok.merge_list)  # cut out before counting


def test_a_base_that_normalizes_text_keeps_doing_so_and_learns_on_normalized_text():
    from tokenizer import Tokenizer

    trained = train("cafe\u0301 cafe\u0301 cafe\u0301", 260, pattern="gpt4")
    base = Tokenizer(trained.merge_table, pattern=trained.pattern, normalizer="NFC", name="nfc")
    tok = train_continued("cafe\u0301 cafe\u0301 cafe\u0301 cafe\u0301", base.n_vocab + 3, base=base)
    assert tok.normalizer == "NFC"
    # the new merges were learned on "café" with a precomposed é (2 bytes), as the tokenizer will see it
    assert all(b"\xcc\x81" not in tok.vocab[m.new_id] for m in tok.merge_list[base.num_merges :])
    assert tok.encode("cafe\u0301") == tok.encode("caf\u00e9")
    rebuilt = TrainingTrace.from_text(tok, "cafe\u0301 cafe\u0301 cafe\u0301 cafe\u0301")
    assert rebuilt.tokens_after == tok.training.tokens_after
