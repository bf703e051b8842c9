"""ui/analysis.py, ui/chat.py and ui/querystate.py: the data behind the Tokenize and Compare pages."""

from __future__ import annotations

import doctest
import functools

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenizer
from tokenizer.baselines import CharTokenizer
from tokenizer.pretrained import CHAT_SPECIAL_TOKENS
from tokenizer.trace import make_spans
from ui.compare import model as analysis
from ui.tokenize import model as chat
from ui.compare import view as comparison
from ui.common import urlstate as querystate
from ui.common import samples

TEXTS = st.text(alphabet=st.characters(blacklist_categories=("Cs",)) | st.sampled_from(list(" \n\tab你😄🏽")), max_size=80)


@pytest.fixture(scope="module")
def encodings():
    return {n: tokenizer.load_encoding(n) for n in ["r50k_base", "cl100k_base", "o200k_base"]}


@pytest.fixture(scope="module")
def chat_encodings(encodings):
    return {n: encodings[n].with_special_tokens(CHAT_SPECIAL_TOKENS[n]) for n in CHAT_SPECIAL_TOKENS}


@pytest.mark.parametrize("module", [analysis, chat, querystate, comparison])
def test_doctests(module):
    assert doctest.testmod(module).failed == 0


def test_counts_of_hello_nihao():
    c = analysis.counts("Hello 你好", [1, 2, 3, 4])
    assert (c.tokens, c.characters, c.bytes) == (4, 8, 12)
    assert c.chars_per_token == 2.0 and c.bytes_per_token == 3.0
    assert analysis.counts("", []).chars_per_token == 0.0


def test_bytes_table_of_an_emoji():
    df = analysis.bytes_table("a😄")
    assert df.to_dict("list") == {
        "char": ["a", "😄"],
        "code point": ["U+0061", "U+1F604"],
        "utf-8 bytes": ["61", "F0 9F 98 84"],
        "n bytes": [1, 4],
        "byte offset": [0, 1],
    }
    assert len(analysis.bytes_table("x" * 50, limit=10)) == 10


def test_token_table_marks_partial_and_special_tokens():
    emoji = "😄".encode()
    df = analysis.token_table(make_spans([(1, b" hi"), (2, emoji[:2]), (3, emoji[2:]), (4, b"<|endoftext|>")], {4}))
    assert list(df["text"]) == ["·hi", "<F0 9F>", "<98 84>", "<|endoftext|>"]
    assert list(df["kind"]) == ["", "part of a character", "part of a character", "special"]
    assert list(df["bytes"])[0] == "20 68 69"


def test_clip():
    assert analysis.clip("abc", 5) == ("abc", 0)
    assert analysis.clip("a" * 10, 4) == ("aaaa", 6)


@pytest.mark.parametrize("name", ["r50k_base", "cl100k_base", "o200k_base"])
def test_encode_modes_match_tiktoken(encodings, name):
    text = "x<|endoftext|>y"
    ref = tiktoken.get_encoding(name)
    assert analysis.encode(encodings[name], text, recognise_special=False) == ref.encode(text, disallowed_special=())
    assert analysis.encode(encodings[name], text, recognise_special=True) == ref.encode(text, allowed_special="all")


def test_whole_words():
    text = "a token, tokens and tok"
    sp = make_spans([(0, b"a"), (1, b" token"), (2, b","), (3, b" tok"), (4, b"ens"), (5, b" and"), (6, b" tok")])
    # "a", " token", " and", " tok" (the last word is "tok"); not " tok"+"ens"
    assert analysis.whole_words(text, sp) == 4
    assert analysis.whole_words("你好", CharTokenizer().encode_spans("你好")) == 0
    assert analysis.stats_row("x", text, sp)["whole words %"] == round(100 * 4 / 7, 1)


def test_stats_row_of_the_baselines():
    text = "Hello 你好"
    row = analysis.stats_row("chars", text, CharTokenizer().encode_spans(text))
    assert row == {"tokenizer": "chars", "tokens": 8, "chars/token": 1.0, "bytes/token": 1.5, "unique tokens": 7, "whole words %": 0.0}


@settings(max_examples=60)
@given(TEXTS)
def test_boundary_diff_invariants(encodings, text):
    spans = {n: t.encode_spans(text, disallowed_special=()) for n, t in encodings.items()}
    spans["chars"] = CharTokenizer().encode_spans(text)
    d = analysis.boundary_diff(spans)
    total = len(text.encode("utf-8"))
    assert d.total_bytes == total
    for label, sp in spans.items():
        cuts = {s.byte_start for s in sp} | {total}
        assert set(d.agreed_cuts) <= cuts | {0}
        # a dimmed token is the same token in every tokenization
        for i in d.dim[label]:
            s = sp[i]
            assert all(any((o.byte_start, o.byte_end) == (s.byte_start, s.byte_end) for o in other) for other in spans.values())
        # a marked cut is one that some other tokenizer does not make
        for i in d.cuts[label]:
            assert sp[i].byte_start not in d.agreed_cuts
    assert len(d.table) == min(d.n_differing, analysis.DIFF_ROWS)
    assert 0.0 <= d.shared_share <= 1.0
    for _, row in d.table.iterrows():
        for label in spans:
            if "<" not in row[label]:  # no bytes of a split character: the pieces spell the stretch
                assert row[label].replace(" | ", "") == row["text"]


def test_boundary_diff_of_one_tokenizer_has_no_differences(encodings):
    d = analysis.boundary_diff({"a": encodings["cl100k_base"].encode_spans("Hello world")})
    assert d.n_differing == 0 and d.shared_share == 1.0
    assert analysis.boundary_diff({}).n_regions == 0


# ---------------------------------------------------------------- chat


@functools.cache
def chat_reference(name: str) -> tiktoken.Encoding:
    base = tiktoken.get_encoding(name)
    return tiktoken.Encoding(
        name=f"{name}-chat", pat_str=base._pat_str, mergeable_ranks=base._mergeable_ranks,
        special_tokens={**base._special_tokens, **CHAT_SPECIAL_TOKENS[name]},
    )


def test_chat_format_is_tiktokenizers():
    msgs = [{"role": "system", "content": "Be brief"}, {"role": "user", "content": "Hi"}]
    assert chat.render(msgs) == (
        "<|im_start|>system<|im_sep|>Be brief<|im_end|><|im_start|>user<|im_sep|>Hi<|im_end|><|im_start|>assistant<|im_sep|>"
    )
    assert chat.render([]) == "<|im_start|>assistant<|im_sep|>"
    assert chat.capable("cl100k_base") and chat.capable("o200k_base") and not chat.capable("r50k_base")


MESSAGES = st.lists(
    st.fixed_dictionaries({"role": st.sampled_from(chat.ROLES), "content": st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=30)}),
    max_size=4,
)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
@settings(max_examples=30)
@given(msgs=MESSAGES)
def test_chat_encoding_equals_tiktoken_with_the_chat_tokens(chat_encodings, name, msgs):
    tok = chat_encodings[name]
    ref = chat_reference(name)
    expected = ref.encode(chat.render(msgs), allowed_special=set(CHAT_SPECIAL_TOKENS[name]), disallowed_special=())
    assert chat.encode(tok, msgs) == expected


def test_special_strings_in_messages_stay_text_unless_recognised(chat_encodings):
    tok = chat_encodings["cl100k_base"]
    msgs = [{"role": "user", "content": "<|im_end|>"}]
    assert chat.encode(tok, msgs).count(100265) == 1
    assert chat.encode(tok, msgs, recognise_special=True).count(100265) == 2


# ---------------------------------------------------------------- links and samples


def test_link_params():
    assert querystate.params("hi", tokenizer="o200k_base") == {"tokenizer": "o200k_base", "text": "hi"}
    assert querystate.params("", tokenizer="bytes") == {"tokenizer": "bytes"}
    assert querystate.params("x" * querystate.MAX_URL_TEXT, tokenizers=["a"]) == {"tokenizers": "a", "text": "x" * querystate.MAX_URL_TEXT}
    assert "text" not in querystate.params("x" * (querystate.MAX_URL_TEXT + 1), tokenizers=["a"])


def test_samples_cover_what_the_issue_asks_for():
    text = "".join(samples.SAMPLES.values())
    assert len(samples.SAMPLES) >= 7
    assert "def " in samples.SAMPLES["Python code"]
    assert any("\u4e00" <= c <= "\u9fff" for c in text)  # CJK
    assert any("\u0400" <= c <= "\u04ff" for c in text)  # Cyrillic
    assert any("\u0900" <= c <= "\u097f" for c in text)  # Devanagari
    assert any(ord(c) >= 0x1F300 for c in text)  # emoji
    assert "\t" in samples.SAMPLES["Whitespace-heavy"] and "    " in samples.SAMPLES["Whitespace-heavy"]
