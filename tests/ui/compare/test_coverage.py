"""ui/compare/coverage.py: distinct tokens and the share of a vocabulary some texts use."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from tier import examples

from tokenizer import Tokenizer, load_encoding, train
from tokenizer.baselines import CharTokenizer, bytes_tokenizer
from ui.compare import coverage

ids_by_text = st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), st.lists(st.integers(0, 299), max_size=50), max_size=4)


@settings(max_examples=examples(200))
@given(ids_by_text)
def test_vocabulary_used_is_the_union_of_distinct_ids_over_the_vocabulary(by_text):
    row = coverage.usage_row("T", by_text, 300)
    union = set().union(*map(set, by_text.values())) if by_text else set()
    assert row["distinct tokens"] == len(union)
    assert row["tokens"] == sum(map(len, by_text.values()))
    assert row["distinct tokens"] <= row["tokens"]
    assert 0.0 <= row["vocabulary used %"] <= 100.0
    assert abs(row["vocabulary used %"] - 100 * len(union) / 300) < 1e-3
    table = coverage.distinct_table([("T", by_text)])
    assert table["text"].tolist() == list(by_text)
    assert all(table["T"] <= row["distinct tokens"])  # no one text uses more than all together


def test_vocabulary_sizes_leave_special_tokens_out():
    tok = train("hello hello world", 268, pattern="gpt2", special_tokens=["<|endoftext|>", "<|pad|>"])
    assert tok.n_vocab == 256 + tok.num_merges + 2
    assert coverage.vocabulary_size(tok) == 256 + tok.num_merges  # the two special tokens left out
    assert coverage.vocabulary_size(bytes_tokenizer()) == 256
    assert coverage.vocabulary_size(CharTokenizer()) == 1_112_064  # every Unicode scalar value
    assert coverage.vocabulary_size(Tokenizer(special_tokens={"<|x|>": 256})) == 256


def test_official_vocabulary_sizes_are_tiktokens():
    import tiktoken

    for name in ("r50k_base", "cl100k_base", "o200k_base"):
        enc = tiktoken.get_encoding(name)
        assert coverage.vocabulary_size(load_encoding(name)) == len(enc.token_byte_values())


def test_a_text_in_a_script_the_tokenizer_lacks_uses_few_distinct_tokens():
    """tokka-bench's observation, on a tokenizer trained on English: Tamil falls back to a few byte tokens."""
    from ui.compare import languages

    texts = languages.texts()
    tok = train(texts["English"] * 30, 400, pattern="gpt4")
    by_text = {lang: tok.encode(texts[lang]) for lang in ("English", "Tamil")}
    table = coverage.distinct_table([("T", by_text)]).set_index("text")
    tamil = len(by_text["Tamil"])
    assert table.loc["Tamil", "T"] < tamil / 3  # the same byte tokens again and again
    assert table.loc["English", "T"] > len(by_text["English"]) / 2
