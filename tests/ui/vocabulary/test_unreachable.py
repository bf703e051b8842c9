"""ui/vocabulary/unreachable.py: tokens that encoding their own bytes never gives back, and tokens that are not text alone."""

from __future__ import annotations

import unicodedata

import pytest
import tiktoken

from tokenizer import Tokenizer, load_encoding, train
from ui.vocabulary import unreachable


def brute_force(tok: Tokenizer) -> tuple[set[int], set[int]]:
    """The definition, token by token: encode(decode_bytes([t])) != [t] (bytes alone when not UTF-8)."""
    missing, partial = set(), set()
    for t, data in tok.vocab.items():
        if t in tok.special_ids:
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            partial.add(t)
            if tok.encode_bytes(data) != [t]:
                missing.add(t)
            continue
        if tok.encode_ordinary(text) != [t] or tok.encode_bytes(data) != [t]:
            missing.add(t)
    return missing, partial


def test_a_token_across_a_chunk_boundary_is_unreachable_with_the_pattern_and_reachable_without():
    corpus = "hello world hello world hello world"
    plain = train(corpus, 270, pattern=None)
    split = Tokenizer(plain.merge_list, pattern="gpt2")  # the same merges, now behind GPT-2's split
    assert unreachable.find_odd_tokens(plain).unreachable.empty
    found = unreachable.find_odd_tokens(split).unreachable
    crossing = {t for t, b in split.vocab.items() if b.isascii() and len(split.split(b.decode())) > 1}  # GPT-2 cuts their text
    assert set(found["id"]) == crossing
    assert split.encode_single_token("hello ") in crossing  # GPT-2 gives the space to the next word
    assert all(why.startswith(unreachable.SPLIT) for why in found["why"])


def test_bpe_unreachable_and_partial_tokens():
    tok = Tokenizer({(97, 98): 256, (98, 99): 257, (97, 257): 258, (0xE4, 0xBD): 259})
    found = unreachable.find_odd_tokens(tok)
    assert found.unreachable.set_index("id").loc[258, "why"] == unreachable.BPE
    assert 259 in set(found.partial["id"]) and 259 not in set(found.unreachable["id"])  # reachable bytes, not text
    assert set(found.partial["id"]) == {b for b in range(128, 256)} | {259}
    assert found.checked == 260


@pytest.mark.slow
@pytest.mark.parametrize("name", ["r50k_base", "cl100k_base"])
def test_official_encodings_agree_with_the_definition_and_with_tiktoken(name):
    tok = load_encoding(name)
    expected_unreachable, expected_partial = brute_force(tok)
    found = unreachable.find_odd_tokens(tok)
    assert set(found.unreachable["id"]) == expected_unreachable
    assert set(found.partial["id"]) == expected_partial
    enc = tiktoken.get_encoding(name)
    for t in list(expected_partial)[:50]:
        with pytest.raises(UnicodeDecodeError):
            enc.decode_single_token_bytes(t).decode("utf-8")


@pytest.mark.slow
def test_o200k_has_twelve_unreachable_tokens_and_tiktoken_agrees():
    tok = load_encoding("o200k_base")
    found = unreachable.find_odd_tokens(tok)
    assert len(found.unreachable) == 12
    enc = tiktoken.get_encoding("o200k_base")
    for t in found.unreachable["id"]:
        assert enc.encode_ordinary(enc.decode_single_token_bytes(int(t)).decode("utf-8")) != [t]
    assert " I'" in {enc.decode([int(t)]) for t in found.unreachable["id"]}


def test_progress_is_reported_up_to_the_total():
    calls = []
    unreachable.find_odd_tokens(Tokenizer(), lambda done, total: calls.append((done, total)))
    assert calls[0] == (0, 256) and calls[-1] == (256, 256)


def _by_their_package(name: str) -> tuple[set[int], set[int]]:
    """The definition, computed by the model's own package: its encoder on each token's text (whole-chunk shortcut
    and all), and tiktoken's own BPE rule (``tiktoken._educational``) on the bytes of a token that is not text."""
    from model_packages import package_reference, tekkenizer
    from tiktoken import _educational

    if name == "tekken":
        enc, offset = tekkenizer()._model, tekkenizer().num_special_tokens
    else:
        enc, offset = package_reference(name), 0  # Qwen's package puts text in NFC first
    missing, partial = set(), set()
    for data, rank in enc._mergeable_ranks.items():
        t = rank + offset
        try:
            got = enc.encode_ordinary(data.decode("utf-8"))
        except UnicodeDecodeError:
            partial.add(t)
            got = _educational.bpe_encode(enc._mergeable_ranks, data, visualise=None)
        if [g + offset for g in got] != [t]:
            missing.add(t)
    return missing, partial


@pytest.mark.parametrize(
    "name",
    [
        "llama3",  # whole tokens (no merge builds them) and merges that build on later tokens
        pytest.param("llama4", marks=pytest.mark.slow),
        pytest.param("qwen2.5", marks=pytest.mark.slow),
        pytest.param("qwen3.6", marks=pytest.mark.slow),  # 248,044 tokens, whole tokens and later merges too
        pytest.param("tekken", marks=pytest.mark.slow),  # ids after 1,000 special tokens
    ],
)
def test_open_models_agree_with_their_own_packages(name):
    tok = load_encoding(name)
    found = unreachable.find_odd_tokens(tok)
    theirs, partial = _by_their_package(name)
    assert found.checked == len(tok.vocab) - len(tok.special_ids)
    assert set(found.unreachable["id"]) == theirs
    assert set(found.partial["id"]) == partial
    known = {"llama3": (0, 1352), "llama4": (7, 1828), "qwen2.5": (1909, 1448), "qwen3.6": (2, 944), "tekken": (0, 1435)}
    assert (len(theirs), len(partial)) == known[name]  # docs/pages.md's figures
    normalized = found.unreachable[found.unreachable["why"].str.startswith(unreachable.NORMALIZED)]
    texts = [tok.vocab[i].decode("utf-8") for i in normalized["id"]]
    assert not any(unicodedata.is_normalized(tok.normalizer or "NFC", t) for t in texts)
    # Qwen 2.5's tokens not in NFC (its package's encode never gives them); Qwen 3.6 has none, the others do not normalize
    assert len(texts) == {"qwen2.5": 248}.get(name, 0)
    if tok.whole_tokens:  # reachable, but only as a whole chunk: never inside a longer one
        assert not set(tok.whole_tokens) & set(found.unreachable["id"])
