"""Saving and loading: lossless JSON, minbpe .model, tiktoken and Hugging Face exports."""

from __future__ import annotations

import json

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st
from texts import MULTILINGUAL, stdlib_sample

from tests.tier import examples
from tokenizer import Tokenizer, formats, load_encoding, train
from tokenizer.bpe import textbook


@pytest.fixture(scope="module")
def tok():
    return train(MULTILINGUAL + stdlib_sample(30_000), 256 + 400, special_tokens=["<|endoftext|>"], name="test tok")


def test_json_round_trip_is_lossless(tok, tmp_path):
    path = formats.save(tok, tmp_path / "t.json")
    back = formats.load(path)
    assert back.merge_list == tok.merge_list  # pairs, ids and counts
    assert (back.pattern, back.special_tokens, back.byte_ids, back.name) == (
        tok.pattern,
        tok.special_tokens,
        tok.byte_ids,
        tok.name,
    )
    assert back.metadata == tok.metadata
    assert formats.dumps(back) == formats.dumps(tok)


def test_json_round_trip_of_official_encoding_keeps_byte_ids():
    ref = load_encoding("cl100k_base")
    back = formats.loads(formats.dumps(ref))
    assert back.byte_ids == ref.byte_ids and back.merges == ref.merges
    assert back.encode("hello world") == ref.encode("hello world")


def test_truncated_file_names_the_line(tok):
    text = formats.dumps(tok)
    cut = text[: len(text) // 2]
    with pytest.raises(ValueError, match=r"line \d+, column \d+.*cut off"):
        formats.loads(cut)


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: d.pop("merges"), "field 'merges' is missing"),
        (lambda d: d.__setitem__("merges", [[1, 2, 256]]), r"merges\[0\]"),
        (lambda d: d.__setitem__("merges", [[1, 2, 256, None], [5000, 2, 257, None]]), "no byte or merge defines"),
        (lambda d: d.__setitem__("format", "something"), "not a BPE Lab tokenizer"),
        (lambda d: d.__setitem__("special_tokens", {"<|x|>": "1"}), r"special_tokens.<\|x\|>"),
        (lambda d: d.__setitem__("byte_ids", [1, 2]), "byte_ids"),
        (lambda d: d.__setitem__("version", 99), "newer"),
        (lambda d: d.__setitem__("special_tokens", {"<|x|>": 300}), "already uses"),
    ],
)
def test_corrupt_fields_are_named(tok, mutate, message):
    doc = formats.to_json(tok)
    mutate(doc)
    with pytest.raises(ValueError, match=message):
        formats.loads(json.dumps(doc))


MINBPE_MODEL = """minbpe v1
'(?i:[sdmt]|ll|ve|re)|[^\\r\\n\\p{L}\\p{N}]?+\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]++[\\r\\n]*|\\s*[\\r\\n]|\\s+(?!\\S)|\\s+
1
<|endoftext|> 260
116 104
256 101
32 256
257 32
"""


def test_minbpe_model_loads(tmp_path):
    path = tmp_path / "toy.model"
    path.write_text(MINBPE_MODEL)
    tok = formats.load_minbpe(path)
    assert tok.merges == {(116, 104): 256, (256, 101): 257, (32, 256): 258, (257, 32): 259}
    assert tok.special_tokens == {"<|endoftext|>": 260}
    text = "the cat the hat <|endoftext|>"
    assert tok.encode(text, allowed_special="all")[-1] == 260
    assert tok.encode_ordinary("the then") == textbook.encode("the then", tok.merges, tok.pattern)
    assert formats.load(path).merges == tok.merges  # detected from content
    assert formats.loads_minbpe(formats.dumps_minbpe(tok)).merges == tok.merges


@pytest.mark.parametrize(
    "text, message",
    [
        ("minbpe v1\n\nx\n", "line 3"),
        ("minbpe v1\n\n1\n", "line 4"),
        ("minbpe v1\n\n0\n1 2\n3\n", "line 5"),
        ("minbpe v2\n", "line 1"),
    ],
)
def test_minbpe_errors_name_the_line(text, message):
    with pytest.raises(ValueError, match=message):
        formats.loads_minbpe(text)


texts = st.text(alphabet=st.sampled_from("ab c\n😄é'sT1"), max_size=60)


@settings(max_examples=examples(60))
@given(texts, st.integers(256, 300), st.sampled_from([None, "gpt2", "gpt4", "o200k"]), texts)
def test_tiktoken_export_gives_our_ids(train_text, vocab_size, pattern, text):
    tok = train(train_text, vocab_size, pattern=pattern, special_tokens=["<|endoftext|>"])
    try:
        enc = formats.to_tiktoken(tok)
    except ValueError as e:
        # only tokenizers tiktoken cannot express are refused, and the message says why
        assert "tiktoken" in str(e)
        return
    assert enc.encode(text, disallowed_special=()) == tok.encode(text, disallowed_special=())
    assert enc.encode(train_text + "<|endoftext|>", allowed_special="all") == tok.encode(
        train_text + "<|endoftext|>", allowed_special="all"
    )


def test_tiktoken_export_of_a_real_tokenizer(tok, tmp_path):
    enc = formats.to_tiktoken(tok)
    text = MULTILINGUAL + stdlib_sample(50_000)
    assert enc.encode(text, disallowed_special=()) == tok.encode(text, disallowed_special=())
    # the .tiktoken file loads back (with the pattern given separately)
    path = tmp_path / "t.tiktoken"
    path.write_bytes(formats.dumps_tiktoken(tok))
    back = formats.load(path, pattern=tok.pattern)
    assert back.encode_ordinary(text) == tok.encode_ordinary(text)
    import tiktoken.load

    assert tiktoken.load.load_tiktoken_bpe(str(path)) == formats.to_tiktoken_ranks(tok)


def test_tiktoken_export_refuses_duplicate_tokens():
    # "abcab"... a text where BPE mints the same bytes twice by different merges
    from tokenizer import Merge, Tokenizer

    dup = Tokenizer([Merge(0, (97, 98), 256), Merge(1, (98, 99), 257), Merge(2, (256, 99), 258), Merge(3, (97, 257), 259)])
    assert dup.vocab[258] == dup.vocab[259] == b"abc"
    with pytest.raises(ValueError, match="same bytes"):
        formats.to_tiktoken_ranks(dup)
    with pytest.raises(ValueError, match="same bytes"):
        formats.to_hf_json(dup)
    odd = Tokenizer([Merge(0, (98, 99), 256), Merge(1, (97, 98), 257), Merge(2, (257, 99), 258)])
    with pytest.raises(ValueError, match="tiktoken's rule would build it"):
        formats.to_tiktoken_ranks(odd)


def _hf(tok, tmp_path):
    from tokenizers import Tokenizer as HFTokenizer

    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(formats.to_hf_json(tok)), encoding="utf-8")
    return HFTokenizer.from_file(str(path)), path


def test_hf_export_gives_our_ids(tok, tmp_path):
    hf, path = _hf(tok, tmp_path)
    text = MULTILINGUAL.replace("<|", "< |") + stdlib_sample(40_000)
    assert hf.encode(text, add_special_tokens=False).ids == tok.encode_ordinary(text)
    assert hf.encode("x<|endoftext|>y").ids == tok.encode("x<|endoftext|>y", allowed_special="all")
    ids = tok.encode_ordinary(text)
    assert hf.decode(ids) == tok.decode(ids)
    back = formats.load(path)
    assert back.merges == tok.merges and back.special_tokens == tok.special_tokens and back.pattern == tok.pattern


@pytest.mark.parametrize("pattern", [None, "gpt2", "o200k"])
def test_hf_export_other_patterns(pattern, tmp_path):
    tok = train(MULTILINGUAL + stdlib_sample(10_000), 400, pattern=pattern)
    hf, _ = _hf(tok, tmp_path)
    text = MULTILINGUAL.replace("<|", "< |")
    assert hf.encode(text).ids == tok.encode_ordinary(text)


def test_hf_export_of_gpt2_matches_tiktoken_and_loads_back(tmp_path):
    gpt2 = load_encoding("gpt2")
    hf, path = _hf(gpt2, tmp_path)
    text = MULTILINGUAL.replace("<|", "< |") + stdlib_sample(20_000)
    assert hf.encode(text).ids == tiktoken.get_encoding("gpt2").encode_ordinary(text)
    back = formats.load(path)  # GPT-2's byte tokens are shuffled: byte_ids must come back too
    assert back.byte_ids == gpt2.byte_ids and back.merges == gpt2.merges
    assert back.encode_ordinary(text) == gpt2.encode_ordinary(text)


def test_load_bytes_rejects_other_files():
    with pytest.raises(ValueError, match="not UTF-8"):
        formats.load_bytes(b"\xff\xfe\x00binary")
    with pytest.raises(ValueError, match="unrecognised"):
        formats.load_bytes(b"just some text")
    with pytest.raises(ValueError, match="line 2"):
        formats.load_bytes(b"YQ== 0\nnot base64!! x\n")


_tricky = st.text(
    alphabet=st.sampled_from(["a", "|", "<", ">", " ", "\n", "\r", "\t", "\x0b", "\x1c", "\x85", "\u2028", "é", "\\", "1"]),
    min_size=1,
    max_size=8,
)


@given(st.lists(_tricky, max_size=3, unique=True), st.one_of(st.none(), _tricky))
def test_minbpe_export_round_trips_or_is_refused(tmp_path_factory, specials, pattern):
    try:
        tok = Tokenizer({(97, 97): 256}, pattern=pattern, special_tokens={s: 300 + i for i, s in enumerate(specials)})
    except ValueError:
        return  # not a valid regex
    try:
        text = formats.dumps_minbpe(tok)
    except ValueError as e:
        assert "minbpe" in str(e) or "line break" in str(e)
        return
    path = tmp_path_factory.mktemp("m") / "t.model"
    path.write_text(text, encoding="utf-8")
    for back in (formats.loads_minbpe(text), formats.load_minbpe(path)):
        assert back.merges == tok.merges
        assert back.pattern == tok.pattern
        assert back.special_tokens == tok.special_tokens


def test_minbpe_export_names_the_reason():
    with pytest.raises(ValueError, match="line break"):
        formats.dumps_minbpe(Tokenizer(pattern="a\nb"))
    with pytest.raises(ValueError, match="whitespace"):
        formats.dumps_minbpe(Tokenizer(special_tokens={"<|a b|>": 256}))
    with pytest.raises(ValueError, match="whitespace"):
        formats.dumps_minbpe(Tokenizer(special_tokens={"<|a\r|>": 256}))


# ----------------------------------------------------------------------------- vocabularies too big to hold


def _chain(n: int) -> dict:
    """n merges that each add one byte to the last token (a a, aa a, ...): the last token is n + 1 bytes."""
    return {(97, 97): 256, **{(256 + k, 97): 257 + k for k in range(n - 1)}}


def _wide(longest: int) -> dict:
    """A chain up to ``longest`` bytes, then each of its long tokens followed by each byte: many long tokens."""
    merges = _chain(longest - 1)
    nxt = 256 + len(merges)
    for k in range(longest // 2, longest - 1):
        for b in range(256):
            if (256 + k, b) not in merges:
                merges[(256 + k, b)] = nxt
                nxt += 1
    return merges


def _as(kind: str, merges: dict) -> bytes:
    tok = Tokenizer(merges, pattern=None)
    if kind == "minbpe":
        return formats.dumps_minbpe(tok).encode()
    if kind == "tokenizer.json":
        return json.dumps(formats.to_hf_json(Tokenizer(merges, pattern="gpt2"))).encode()
    return formats.dumps(tok).encode()


def _forbid_building_the_vocabulary(monkeypatch) -> None:
    """From now on building the tokens' bytes fails the test: a file too big is refused from the merges alone."""

    def built(self):
        raise AssertionError("the vocabulary was built")

    monkeypatch.setattr(Tokenizer, "vocab", property(built))


@pytest.mark.parametrize("kind", ["bpe-lab", "minbpe", "tokenizer.json"])
def test_a_chain_of_merges_is_refused_at_load_naming_the_merge_to_remove(kind, monkeypatch):
    data = _as(kind, _chain(3000))  # 3,000 merges: 4.5 MB of tokens from a file of a few dozen KB
    _forbid_building_the_vocabulary(monkeypatch)
    with pytest.raises(ValueError, match=r"merge 1023 of this file builds a token of 1,025 bytes.*at most 1,024 bytes"):
        formats.load_bytes(data)


def test_many_long_tokens_are_refused_naming_how_many_merges_fit(monkeypatch):
    merges = _wide(1000)
    lengths = Tokenizer(merges, pattern=None).merged_lengths()
    assert max(lengths) <= formats.files.MAX_TOKEN_BYTES < sum(lengths) and sum(lengths) > formats.files.MAX_VOCAB_BYTES
    data = _as("bpe-lab", merges)
    _forbid_building_the_vocabulary(monkeypatch)
    with pytest.raises(ValueError, match=r"at most 4 MB of merged tokens.*keep fewer merges"):
        formats.load_bytes(data)


@pytest.mark.parametrize("kind", ["bpe-lab", "minbpe"])
def test_a_chain_within_the_limits_loads_and_encodes(kind):
    tok = formats.load_bytes(_as(kind, _chain(1023)))  # the longest token: 1,024 bytes
    assert tok.vocab[256 + 1022] == b"a" * 1024
    assert max(tok.merged_lengths()) == formats.files.MAX_TOKEN_BYTES


@given(st.lists(st.tuples(st.integers(0, 20), st.integers(0, 20)), max_size=40))
def test_merged_lengths_are_the_lengths_of_the_vocabulary(raw):
    merges: dict = {}
    for a, b in raw:
        ids = [*range(256), *merges.values()]
        pair = (ids[a % len(ids)] if a < 10 else ids[-1 - a % len(ids)], ids[b % len(ids)])
        if pair not in merges:
            merges[pair] = 256 + len(merges)
    tok = Tokenizer(merges, pattern=None)
    assert tok.merged_lengths() == [len(tok.vocab[i]) for i in merges.values()]


def test_the_registered_encodings_are_far_within_the_limits():
    for name in ("r50k_base", "cl100k_base"):
        lengths = load_encoding(name).merged_lengths()
        assert max(lengths) <= formats.files.MAX_TOKEN_BYTES // 8 and sum(lengths) <= formats.files.MAX_VOCAB_BYTES // 4
