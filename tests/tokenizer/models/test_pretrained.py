"""Official encodings: our ids equal tiktoken's on everything."""

from __future__ import annotations

import random

import pytest
import tiktoken
import unicode_scan
from hypothesis import given, settings
from hypothesis import strategies as st
from texts import MULTILINGUAL, code_and_prose, stdlib_sample

from tests.tier import examples
from tokenizer import Tokenizer, load_encoding, load_gpt2_files
from tokenizer.formats.tiktoken import _tiktoken_parts
from tokenizer.models.pretrained import build_encoding, merges_from_ranks
from tokenizer.models.provision import gpt2_file_path

# text that exercises the split patterns: letters, digits, punctuation, whitespace runs, many scripts
pieces = st.sampled_from(
    [
        "the",
        " The",
        "I'M",
        "'ll",
        "don't",
        "123456",
        " 42",
        "\n",
        "\n\n",
        "  ",
        "\t",
        "\r\n",
        "!!",
        "...",
        "你好",
        "😄",
        "🤚🏾",
        "é",
        "ß",
        "Привет",
        "<|endoftext|>",
        "x=1;",
        "  \n ",
    ]
)
mixed_text = st.one_of(st.text(max_size=80), st.lists(pieces, max_size=25).map("".join))


def test_seed_001_known_answer():
    assert load_encoding("gpt2").encode("This is some text") == [1212, 318, 617, 2420]


def test_seed_001_gpt2_ids_240_to_270():
    tok = load_encoding("gpt2")
    assert [tok.decode([i]) for i in range(240, 256)] == ["\ufffd"] * 16
    assert [tok.decode([i]) for i in range(256, 270)] == [
        " t",
        " a",
        "he",
        "in",
        "re",
        "on",
        " the",
        "er",
        " s",
        "at",
        " w",
        " o",
        "en",
        " c",
    ]


@settings(max_examples=examples(300))
@given(mixed_text)
def test_ids_equal_tiktoken_on_any_text(official, text):
    ours, ref = official
    assert ours.encode(text, disallowed_special=()) == ref.encode(text, disallowed_special=())
    assert ours.encode_ordinary(text) == ref.encode_ordinary(text)
    ids = ref.encode_ordinary(text)
    assert ours.decode(ids) == ref.decode(ids)
    assert ours.decode_tokens_bytes(ids) == ref.decode_tokens_bytes(ids)


def test_ids_equal_tiktoken_on_multilingual_and_code(official):
    ours, ref = official
    text = MULTILINGUAL + stdlib_sample(300_000)
    assert ours.encode(text, disallowed_special=()) == ref.encode(text, disallowed_special=())


def test_ids_equal_tiktoken_on_long_code_and_prose(official):
    # more than a megabyte, not ASCII throughout: long texts are split in pieces at the
    # pattern's safe cuts (C and JavaScript comments included), and the ids must not change
    ours, ref = official
    text = code_and_prose(1_200_000)
    assert not text.isascii() and "}\n//" in text
    assert ours.encode(text, disallowed_special=()) == ref.encode(text, disallowed_special=())


def test_every_token_encodes_to_itself(official):
    ours, ref = official
    # each token's own bytes, decoded leniently, round-trips like tiktoken's
    rng = random.Random(0)
    ids = rng.sample(range(ref.n_vocab - 300), 3000)
    for i in ids:
        try:
            b = ref.decode_single_token_bytes(i)
        except KeyError:
            continue
        assert ours.vocab[i] == b
        text = b.decode("utf-8", errors="replace")
        assert ours.encode_ordinary(text) == ref.encode_ordinary(text)


def test_special_tokens_equal_tiktoken(official):
    ours, ref = official
    assert ours.special_tokens == ref._special_tokens
    assert ours.n_vocab == ref.n_vocab
    text = "start <|endoftext|> middle <|endofprompt|> end"
    assert ours.encode(text, allowed_special="all") == ref.encode(text, allowed_special="all")
    with pytest.raises(ValueError):
        ours.encode(text)
    with pytest.raises(ValueError):
        ref.encode(text)


def test_lone_surrogates_behave_as_in_tiktoken(official):
    ours, ref = official
    for text in ["a\ud800b", "\udfff", "x\ud83d\ude00y", "\ud83d"]:
        assert ours.encode(text) == ref.encode(text)


def test_recovered_merges_match_tiktokens_own_rule(official):
    ours, ref = official
    ranks = ref._mergeable_ranks
    vocab = ours.vocab
    rng = random.Random(1)
    for m in rng.sample(ours.merge_list, 2000):
        token = vocab[m.new_id]
        assert _tiktoken_parts(token, ranks, ranks[token]) == [vocab[m.pair[0]], vocab[m.pair[1]]]


def test_gpt2_original_files_load_to_the_same_tokenizer():
    # the provisioned encoder.json / vocab.bpe are OpenAI's files (tiktoken's pinned sha256)
    tok = load_gpt2_files(gpt2_file_path("encoder.json"), gpt2_file_path("vocab.bpe"))
    ref = load_encoding("gpt2")
    assert tok.merges == ref.merges and tok.byte_ids == ref.byte_ids
    assert tok.special_tokens == {"<|endoftext|>": 50256}
    text = MULTILINGUAL
    assert tok.encode_ordinary(text) == tiktoken.get_encoding("gpt2").encode_ordinary(text)


def test_gpt2_files_errors_name_the_line(tmp_path):
    enc = tmp_path / "encoder.json"
    bpe = tmp_path / "vocab.bpe"
    enc.write_text(gpt2_file_path("encoder.json").read_text())
    bpe.write_text("#version: 0.2\nĠ t\nthis line is wrong\n")
    with pytest.raises(ValueError, match="line 3"):
        load_gpt2_files(enc, bpe)
    enc.write_text('{"a": 1')
    with pytest.raises(ValueError, match="not valid JSON"):
        load_gpt2_files(enc, bpe)


def test_merges_from_ranks_keeps_tokens_no_merge_builds_whole():
    ranks = {bytes([b]): b for b in range(256)}
    ranks[b"abc"] = 256  # no two tokens join into it: tiktoken gives it only for a chunk "abc"
    assert merges_from_ranks(ranks) == (list(range(256)), [])
    tok = Tokenizer.from_ranks(ranks, pattern=r"\S+|\s+")
    assert tok.whole_tokens == {256: b"abc"} and tok.vocab[256] == b"abc"
    assert tok.encode("abc abcd") == [256, 32, 97, 98, 99, 100]
    del ranks[b"a"]
    with pytest.raises(ValueError, match="single byte"):
        merges_from_ranks(ranks)


def test_aliases_give_the_same_tokenizer():
    assert load_encoding("GPT2") is load_encoding("r50k_base")
    assert load_encoding("gpt4o") is load_encoding("o200k_base")
    assert load_encoding("gpt4").name == "cl100k_base"
    assert load_encoding("Llama-3.1") is load_encoding("llama3")
    with pytest.raises(ValueError, match="choose one of"):
        load_encoding("p50k_edit")


def test_official_tokenizers_are_built_complete():
    tok = load_encoding("o200k_base")
    assert tok.metadata == {"official": True, "label": "GPT-4o (o200k_base)", "family": "OpenAI", "encoding": "o200k_base"}
    assert tok.training is None and tok.name == "o200k_base"


@pytest.mark.slow
def test_every_code_point_splits_like_tiktoken(official):
    """Unicode tables must agree with tiktoken's regex (requirements pin `regex` for this); see tests/unicode_scan.py."""
    ours, ref = official
    assert unicode_scan.mismatches(ours.encode_ordinary, ref.encode_ordinary) == []


@pytest.mark.slow
def test_merge_cache_is_used_and_checked(tmp_path, monkeypatch):
    monkeypatch.setenv("BPE_LAB_DATA_DIR", str(tmp_path))
    fresh = build_encoding("r50k_base")  # recovers, then writes the cache
    (cache,) = (tmp_path / "cache").glob("r50k_base-*.merges")
    cached = build_encoding("r50k_base")
    assert cached.merge_list == fresh.merge_list and cached.byte_ids == fresh.byte_ids
    assert cached.encode(MULTILINGUAL, disallowed_special=()) == fresh.encode(MULTILINGUAL, disallowed_special=())
    # a damaged cache is noticed and ignored: swap two pairs
    data = bytearray(cache.read_bytes())
    data[8:16], data[16:24] = data[16:24], data[8:16]
    cache.write_bytes(bytes(data))
    assert build_encoding("r50k_base").merge_list == fresh.merge_list
    cache.write_bytes(b"short")
    assert build_encoding("r50k_base").merge_list == fresh.merge_list


@pytest.mark.slow
def test_merge_cache_keeps_whole_tokens_and_later_merges(tmp_path, monkeypatch):
    """Llama 3's cache marks the tokens no merge builds and keeps the merges that build on later ones."""
    import array
    import shutil

    from tokenizer import registry
    from tokenizer.models import fetch

    source = registry.spec("llama3").source
    original = fetch.path_of(source)
    monkeypatch.setenv("BPE_LAB_DATA_DIR", str(tmp_path))
    (tmp_path / "encodings").mkdir()
    shutil.copy(original, fetch.path_of(source))
    fresh = build_encoding("llama3")
    (cache,) = (tmp_path / "cache").glob("llama3-*.merges")
    flat = array.array("i")
    flat.frombytes(cache.read_bytes())
    assert list(flat).count(-1) == 2 * len(fresh.whole_tokens) == 2 * 588
    cached = build_encoding("llama3")
    assert cached.merge_table.pairs == fresh.merge_table.pairs and cached.whole_tokens == fresh.whole_tokens
    assert cached.encode(MULTILINGUAL, disallowed_special=()) == fresh.encode(MULTILINGUAL, disallowed_special=())
