"""Tokenizer: encode/decode round trips, special tokens, spans, traces, errors."""

from __future__ import annotations

import json
import re
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from texts import MULTILINGUAL, stdlib_sample

import tokenizer
from tests.tier import examples
from tokenizer import Merge, Tokenizer, clean_text, formats, train
from tokenizer.bpe import encoder, textbook


@pytest.fixture(scope="module")
def tok():
    return train(MULTILINGUAL * 3 + stdlib_sample(40_000), 256 + 500, special_tokens=["<|endoftext|>", "<|fim_prefix|>"])


@given(st.text(max_size=300))
def test_round_trip_any_text(tok, text):
    assert tok.decode(tok.encode_ordinary(text)) == clean_text(text)


@given(st.text(max_size=200))
def test_encode_equals_the_textbook_encode(tok, text):
    text = clean_text(text)
    assert tok.encode_ordinary(text) == textbook.encode(text, tok.merges, tok.pattern)


def test_spans_cover_text_and_point_at_partial_characters():
    tok = Tokenizer()  # bytes only: every multi-byte character is split
    text = "a😄你"
    spans = tok.spans(tok.encode(text))
    assert len(spans) == 1 + 4 + 3
    assert [(s.start, s.end) for s in spans] == [(0, 1)] + [(1, 2)] * 4 + [(2, 3)] * 3
    assert [s.partial for s in spans] == [False] + [True] * 7
    assert b"".join(s.bytes for s in spans) == text.encode()
    assert spans[-1].byte_end == len(text.encode())


@given(st.text(max_size=120))
def test_span_offsets_slice_the_text(tok, text):
    text = clean_text(text)
    spans = tok.spans(tok.encode_ordinary(text))
    pos = 0
    for s in spans:
        assert s.byte_start == pos
        pos = s.byte_end
        assert 0 <= s.start < s.end <= len(text)
        if not s.partial:
            assert text[s.start : s.end].encode() == s.bytes


def test_special_tokens_follow_tiktoken_rules(tok):
    text = "a<|endoftext|>b"
    with pytest.raises(ValueError) as e:
        tok.encode(text)
    assert "allowed_special" in str(e.value) and "disallowed_special" in str(e.value)
    eot = tok.special_tokens["<|endoftext|>"]
    assert eot in tok.encode(text, allowed_special={"<|endoftext|>"})
    assert eot in tok.encode(text, allowed_special="all")
    as_text = tok.encode(text, disallowed_special=())
    assert eot not in as_text and tok.decode(as_text) == text
    # allowing one special still forbids the other
    with pytest.raises(ValueError, match="fim_prefix"):
        tok.encode("<|fim_prefix|><|endoftext|>", allowed_special={"<|endoftext|>"})
    # as in tiktoken: names in allowed_special that are not special tokens are ignored
    assert tok.encode("x<|nope|>", allowed_special={"<|nope|>"}) == tok.encode_ordinary("x<|nope|>")


def test_special_spans_are_marked(tok):
    spans = tok.encode_spans("hi<|endoftext|>", allowed_special="all")
    assert spans[-1].special and spans[-1].bytes == b"<|endoftext|>"


def test_decode_unknown_id_says_what_to_do(tok):
    with pytest.raises(ValueError, match="cannot decode token id 999999"):
        tok.decode([1, 999999])
    with pytest.raises(ValueError, match=r"ids\[1\] is 'x', not a token id"):
        tok.decode([1, "x"])


def test_decode_errors_argument():
    tok = Tokenizer()
    assert tok.decode([128]) == "\ufffd"  # seed 003: decode([128])
    with pytest.raises(UnicodeDecodeError):
        tok.decode([128], errors="strict")


def test_constructor_validates_ids():
    with pytest.raises(ValueError, match="uses id 300, which no byte or merge defines"):
        Tokenizer({(300, 1): 256})
    with pytest.raises(ValueError, match="circle"):
        Tokenizer({(97, 257): 256, (256, 98): 257})
    with pytest.raises(ValueError, match="whole token"):
        Tokenizer({(97, 98): 256}, whole_tokens={256: b"xy"})
    with pytest.raises(ValueError, match="at least two bytes"):
        Tokenizer(whole_tokens={300: b"x"})
    with pytest.raises(ValueError, match="already taken"):
        Tokenizer({(1, 2): 65})
    with pytest.raises(ValueError, match="first free id"):
        Tokenizer({(1, 2): 256}, special_tokens={"<|x|>": 256})


def test_merges_and_vocab_are_derived_from_one_list():
    tok = Tokenizer([Merge(0, (104, 105), 256, 9)])
    assert tok.merges == {(104, 105): 256}
    assert tok.vocab[256] == b"hi" and tok.merge_list[0].count == 9
    assert tok.merge_tree(256).leaves()[1].bytes == b"i"


def test_truncated_view_equals_partial_training(tok):
    text = "indivisible tokenization"
    for k in (0, 1, 50, 499):
        t = tok.truncated(k)
        assert t.num_merges == k
        assert t.encode_ordinary(text) == textbook.encode(text, dict(list(tok.merges.items())[:k]), tok.pattern)
    with pytest.raises(ValueError, match="whole number from 0"):
        tok.truncated(10_000)


def test_with_special_tokens_shares_merges(tok):
    chat = tok.with_special_tokens({"<|im_start|>": 5000})
    assert chat.merges == tok.merges and chat.special_tokens["<|im_start|>"] == 5000
    assert chat.encode("<|im_start|>hi", allowed_special="all")[0] == 5000


def test_encode_single_token(tok):
    assert tok.encode_single_token("a") == 97
    assert tok.encode_single_token("<|endoftext|>") == tok.special_tokens["<|endoftext|>"]
    with pytest.raises(KeyError):
        tok.encode_single_token("not a single token at all")


# ------------------------------------------------------------------ the public surface other modules use


@given(st.text(max_size=60), st.integers(0, 500))
def test_encode_bytes_with_max_rank_equals_the_truncated_tokenizer(tok, text, k):
    chunks = [c.encode() for c in tok.split(text)]
    assert [i for c in chunks for i in tok.encode_bytes(c, max_rank=k)] == tok.truncated(k).encode_ordinary(text)
    assert [i for c in chunks for i in tok.encode_bytes(c)] == tok.encode_ordinary(text)


@pytest.mark.parametrize("bad", [-1, 501, 2.0, "3", True])
def test_encode_bytes_refuses_a_bad_max_rank(tok, bad):
    with pytest.raises(ValueError, match="max_rank must be a whole number from 0 to 500"):
        tok.encode_bytes(b"abc", max_rank=bad)


@given(st.text(alphabet=st.sampled_from("the cat in hat😄\n"), max_size=60))
def test_merge_events_replay_to_encode_bytes(tok, text):
    data = text.encode()
    ids = [tok.byte_ids[b] for b in data]
    starts = list(range(len(data)))  # byte position of each token
    for rank, pos, new_id in tok.merge_events(data):
        i = starts.index(pos)
        assert (ids[i], ids[i + 1]) == tok.merge_list[rank].pair and new_id == tok.merge_list[rank].new_id
        ids[i : i + 2] = [new_id]
        del starts[i + 1]
    assert ids == tok.encode_bytes(data)


def test_clear_cache_keeps_results(tok):
    text = MULTILINGUAL + stdlib_sample(5_000)
    warm = tok.encode_ordinary(text)
    tok.clear_cache()
    assert tok.encode_ordinary(text) == warm
    assert tok.encode_ordinary(text) == warm  # from the refilled cache
    Tokenizer().clear_cache()  # nothing encoded yet: nothing to clear


def test_from_ranks_gives_back_a_trained_tokenizer(tok):
    ranks = formats.to_tiktoken_ranks(tok)
    back = Tokenizer.from_ranks(ranks, pattern=tok.pattern, special_tokens=tok.special_tokens, name="back")
    assert back.merges == tok.merges and back.byte_ids == tok.byte_ids and back.name == "back"
    assert back.encode(MULTILINGUAL, disallowed_special=()) == tok.encode(MULTILINGUAL, disallowed_special=())
    with pytest.raises(ValueError, match="single byte"):
        Tokenizer.from_ranks({b"a": 0}, pattern=None)


def test_trained_tokenizer_is_built_with_its_training_trace(tok):
    assert tok.training is not None and tok.training.length_at(0) == tok.metadata["tokens_before"]
    again = Tokenizer(tok.merge_table, pattern=tok.pattern, training=tok.training)
    assert again.training is tok.training
    assert Tokenizer().training is None


def test_derived_tokenizers_leave_the_original_alone(tok):
    before = (tok.merges, dict(tok.special_tokens), dict(tok.metadata), tok.name)
    chat = tok.with_special_tokens({"<|im_start|>": 5000}, name="chat")
    cut = tok.truncated(10)
    assert (tok.merges, tok.special_tokens, tok.metadata, tok.name) == before
    assert chat.name == "chat" and cut.num_merges == 10 and cut.special_tokens == tok.special_tokens
    assert chat.encode_ordinary(MULTILINGUAL) == tok.encode_ordinary(MULTILINGUAL)


def test_one_tokenizer_encodes_correctly_from_many_threads(tok, monkeypatch):
    # a tiny cache, so threads clear it under each other's feet all the time
    monkeypatch.setattr(encoder.ChunkCache, "LIMIT", 50)
    shared = Tokenizer(tok.merge_table, pattern=tok.pattern)
    texts = [stdlib_sample(60_000)[i * 6_000 : (i + 1) * 6_000] + MULTILINGUAL for i in range(8)]
    want = [tok.encode_ordinary(t) for t in texts]  # one thread, another cache
    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(shared.encode_ordinary, texts * 3))
    assert got == want * 3


def test_a_tokenizer_pickles_with_its_encoder(tok):
    import pickle

    tok.encode_ordinary("warm the encoder up")
    back = pickle.loads(pickle.dumps(tok))
    assert back.encode_ordinary(MULTILINGUAL) == tok.encode_ordinary(MULTILINGUAL)


# ----------------------------------------------------------------------------- tiktoken-style vocabularies


def _tiktoken_reference(ranks, text_chunks):
    """tiktoken's own algorithm on each chunk: a chunk that is a token is that token; else merge by bytes."""
    import tiktoken

    enc = tiktoken.Encoding("toy", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={})
    return [i for c in text_chunks for i in enc.encode_ordinary(c)]


def _toy_ranks(extra):
    ranks = {bytes([b]): b for b in range(256)}
    ranks.update({t: 256 + i for i, t in enumerate(extra)})
    return ranks


def test_a_merge_may_build_on_a_later_one_as_tiktoken_does():
    # "abc" ranks before "bc": tiktoken builds it as a + bc, once bc exists; "xyz" is never built by merges
    ranks = _toy_ranks([b"abc", b"bc", b"ab", b"xyz", b"yzx"])
    tok = Tokenizer.from_ranks(ranks, pattern=r"\S+|\s+")
    assert tok.parents[256] == (97, 257) and tok.rank_of[256] < tok.rank_of[257]  # built on a later merge
    assert tok.whole_tokens == {259: b"xyz", 260: b"yzx"}
    assert tok.vocab[256] == b"abc" and tok.vocab[259] == b"xyz"
    for text in ["abc", "abcabc bc ab", "aabc abcc xyz xyzxyz xy yzx", "zabc"]:
        assert tok.encode(text) == _tiktoken_reference(ranks, re.findall(r"\S+|\s+", text)), text
        trace = tok.encode_trace(text)
        assert trace.final == tok.encode(text)
        assert trace.initial_count == len(trace.tokens_at(0))
    assert tok.encode_trace("xyz").wholes == ((0, 3, 259),) and tok.encode_trace("xyz").steps == ()
    assert tok.decode(tok.encode("xyz abc")) == "xyz abc"


def test_truncating_drops_merges_whose_inputs_are_cut():
    tok = Tokenizer.from_ranks(_toy_ranks([b"abc", b"bc", b"ab", b"xyz"]), pattern=None)
    cut = tok.truncated(1)  # abc = a + bc, but bc is merge 2
    assert cut.num_merges == 0 and cut.whole_tokens == {}
    assert tok.truncated(2).merges == {(97, 257): 256, (98, 99): 257}
    assert tok.truncated(tok.num_merges).whole_tokens == tok.whole_tokens


@settings(max_examples=examples(200))
@given(st.lists(st.sampled_from(["a", "b", "c", "x", "y", "z", "ab", "bc", "abc", "xyz"]), max_size=12).map("".join))
def test_tiktoken_style_vocabulary_encodes_as_tiktoken(text):
    ranks = _toy_ranks([b"abc", b"bc", b"ab", b"xyz", b"xy", b"cab", b"abca", b"yz"])
    tok = Tokenizer.from_ranks(ranks, pattern=None)
    assert tok.encode(text) == _tiktoken_reference(ranks, [text] if text else [])
    assert tok.encode_trace(text).final == tok.encode(text)


@settings(max_examples=examples(60), deadline=None)
@given(
    st.lists(st.sampled_from(["a", "b", "c", "x", "y", "z", "ab", "ba", "abc", "xyz"]), min_size=1, max_size=8).map("".join),
    st.integers(1, 3000),
)
def test_a_long_chunk_of_a_tiktoken_style_vocabulary_encodes_as_tiktoken(piece, repeat):
    # "aba" ranks before "ab" and is built as ab + a: it may apply between two occurrences of
    # ab, so a long chunk (encoder.bpe_long, LONG_CHUNK) cannot merge every ab at once
    ranks = _toy_ranks([b"aba", b"ab", b"abc", b"bc", b"bab", b"ba", b"xyz", b"xy", b"cab", b"abca", b"yz", b"abab"])
    tok = Tokenizer.from_ranks(ranks, pattern=None)
    text = piece * repeat
    assert tok.encode(text) == _tiktoken_reference(ranks, [text])


def _curve_from_trace(tok, text):
    """The trace replayed up to each rank: after k merges, the tokens of the last step of rank below k."""
    from bisect import bisect_left

    trace = tok.encode_trace(text)
    start = len(trace.data) - sum(length - 1 for _, length, _ in trace.specials)
    ranks = [s.rank for s in trace.steps]
    after = [s.n_tokens for s in trace.steps]
    return len(trace.data), [after[i - 1] if i else start for i in (bisect_left(ranks, k) for k in range(tok.num_merges + 1))]


CURVE_TEXT = st.lists(
    st.sampled_from(["low", " lower", "newest", "<|end|>", "xyz", "abc", " ", "\n\n", "héllo", "你好", "🙂", "1234", "!"]),
    max_size=30,
).map("".join)


@settings(max_examples=examples(60), deadline=None)
@given(
    st.lists(
        st.sampled_from(["low ", "lower ", "newest ", "widest ", "héllo ", "你好", "<|end|>", "abcabc "]), min_size=1, max_size=30
    ).map("".join),
    CURVE_TEXT,
    st.sampled_from([None, "gpt2", "gpt4", "o200k"]),
)
def test_merge_curve_is_the_trace_replayed_for_trained_tokenizers(corpus, text, pattern):
    tok = train(corpus, 256 + 25, pattern=pattern, special_tokens=["<|end|>"])
    assert tok.merge_curve(text) == _curve_from_trace(tok, text)
    assert tok.merge_curve(text)[1][-1] == len(tok.encode(text, disallowed_special=()))


@settings(max_examples=examples(60), deadline=None)
@given(CURVE_TEXT)
def test_merge_curve_counts_whole_tokens_and_merges_that_build_on_later_ones(text):
    ranks = _toy_ranks([b"abc", b"bc", b"ab", b"xyz", b"yzx", b"low", b"lo"])
    tok = Tokenizer.from_ranks(ranks, pattern=r"\S+|\s+")
    assert tok.whole_tokens  # xyz and yzx: never built by merges
    assert tok.merge_curve(text) == _curve_from_trace(tok, text)


@pytest.mark.parametrize("name", ["r50k_base", "o200k_base", "llama3", "qwen3.6", "deepseek_v4"])
def test_merge_curve_is_the_trace_replayed_for_the_models(name):
    tok = tokenizer.load_encoding(name)  # rank files, a normalizing model, a tokenizer.json pipeline
    text = MULTILINGUAL[:3000] + " <|endoftext|> Crème brûlée " + stdlib_sample(2000)
    assert tok.merge_curve(text) == _curve_from_trace(tok, text)


@pytest.mark.parametrize("method", ["bpe", "superwords", "parity", "continued"])
def test_a_special_token_longer_than_the_limit_is_refused_before_training(method):
    from tokenizer.bpe.methods import train_with
    from tokenizer.special import MAX_SPECIAL_CHARS

    text = {"English": "the cat sat " * 20, "German": "die Katze " * 20} if method == "parity" else "the cat sat " * 40
    extra = {"base": train("the cat sat " * 40, 260, pattern="gpt4")} if method == "continued" else {}
    size = 270
    calls: list = []
    with pytest.raises(
        ValueError, match=f"is {MAX_SPECIAL_CHARS + 1} characters long; special tokens are at most {MAX_SPECIAL_CHARS}"
    ):
        train_with(
            method, text, size, special_tokens=["x" * (MAX_SPECIAL_CHARS + 1)], progress=lambda d, t: calls.append(d), **extra
        )
    assert calls == []  # refused before any work
    tok = train_with(method, text, size, special_tokens=["y" * MAX_SPECIAL_CHARS], **extra)  # the limit itself is fine
    assert "y" * MAX_SPECIAL_CHARS in tok.special_tokens


def test_a_tokenizer_or_file_with_a_special_token_past_the_limit_is_refused():
    from tokenizer.special import MAX_SPECIAL_CHARS

    with pytest.raises(ValueError, match="characters long; special tokens are at most"):
        Tokenizer({}, special_tokens={"<" * (MAX_SPECIAL_CHARS + 1): 256})
    doc = json.loads(formats.dumps(Tokenizer({}, special_tokens={"<|end|>": 256})))
    doc["special_tokens"] = {"z" * 100_000: 256}
    with pytest.raises(ValueError, match="100,000 characters long"):
        formats.loads(json.dumps(doc))


def _every_field() -> Tokenizer:
    """A tokenizer with every field set away from its default, the fields a derived tokenizer must carry."""
    ranks = {bytes([b]): (b + 7) % 256 for b in range(256)}  # shuffled byte ids, as an official encoding's
    ranks |= {b"ab": 256, b"abc": 257, b"xyz": 258}  # xyz: no merge builds it, a whole token
    return Tokenizer.from_ranks(
        ranks, pattern=r"\w+|\s+|.", special_tokens={"<|end|>": 300}, name="every", metadata={"k": 1}, normalizer="NFC"
    )


def _fields(t: Tokenizer) -> dict:
    return {
        "pattern": t.pattern,
        "normalizer": t.normalizer,
        "pipeline": t.pipeline,
        "byte_ids": t.byte_ids,
        "special_tokens": t.special_tokens,
        "name": t.name,
        "whole_tokens": t.whole_tokens,
    }


@pytest.mark.parametrize(
    "derive",
    [
        lambda t: t.truncated(t.num_merges),
        lambda t: t.with_special_tokens({}),
        lambda t: t.extended([(99, 99)], [None], special_tokens=t.special_tokens, name=t.name),
    ],
    ids=["truncated", "with_special_tokens", "extended"],
)
def test_a_derived_tokenizer_keeps_every_field(derive):
    base = _every_field()
    assert base.whole_tokens and base.normalizer == "NFC" and base.byte_ids != tuple(range(256))
    derived = derive(base)
    assert _fields(derived) == _fields(base)
    text = "abc xyz ab\u0301 <|end|>"
    assert derived.encode(text, allowed_special="all") == base.encode(text, allowed_special="all")


def test_a_derived_tokenizer_keeps_a_tokenizer_json_pipeline():
    doc = formats.to_hf_json(train("aaabdaaabac hello hello", 262))
    doc["normalizer"] = {"type": "Lowercase"}  # text handling BPE Lab's own pattern cannot say: a pipeline
    base = formats.from_hf_json(doc, name="hf")
    assert base.pipeline is not None
    for derived in (
        base.truncated(2),
        base.with_special_tokens({"<|x|>": 500}),
        base.extended([(104, 101)], [None], special_tokens={}, name="more"),
    ):
        assert derived.pipeline is not None and derived.pattern is None
        assert derived.split("Hello World") == base.split("Hello World") == ["hello", " world"]


def test_whole_chunks_are_a_copy_of_the_encoders_shortcuts():
    base = _every_field()
    chunks = base.whole_chunks()
    assert chunks[b"xyz"] == 258 and chunks[b"abc"] == 257
    assert all(base.encode_bytes(b) == [i] or i in base.whole_tokens for b, i in chunks.items())
    chunks.clear()
    assert base.whole_chunks()
