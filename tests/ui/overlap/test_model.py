"""ui/overlap/model.py: shared and own tokens, Jaccard similarity, the longest tokens only one has, and one
tokenizer's tokens as another's pieces; against set algebra, the reference libraries and the textbook BPE."""

from __future__ import annotations

import re

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st
from tier import examples

from tokenizer import Tokenizer, load_encoding, train
from tokenizer.baselines import CharTokenizer, bytes_tokenizer
from tokenizer.bpe import textbook
from ui.overlap import model

# ---------------------------------------------------------------- generated vocabularies

token_bytes = st.binary(min_size=1, max_size=4)
vocab_sets = st.lists(st.sets(token_bytes, max_size=40), min_size=2, max_size=5)


def vocabs_of(sets: list[set[bytes]]) -> list[model.Vocab]:
    return [model.Vocab(f"V{i}", {t: k for k, t in enumerate(sorted(s))}) for i, s in enumerate(sets)]


@settings(max_examples=examples(200))
@given(vocab_sets)
def test_overlap_is_set_algebra(sets):
    ov = model.overlap(vocabs_of(sets))
    union = set().union(*sets)
    assert set(ov.tokens) == union and len(ov.tokens) == len(union)
    assert sum(ov.regions.values()) == len(union)
    assert ov.shared_by_all == len(set.intersection(*sets))
    for i, a in enumerate(sets):
        others = set().union(*(s for j, s in enumerate(sets) if j != i))
        assert ov.only(i) == len(a - others)
        for j, b in enumerate(sets):
            assert ov.shared(i, j) == len(a & b)
            assert ov.union(i, j) == len(a | b)
            jac = ov.jaccard(i, j)
            assert 0.0 <= jac <= 1.0
            assert jac == ov.jaccard(j, i)  # symmetric
            assert (jac == 1.0) == (a == b)  # 1 only for the same vocabulary (two empty ones count as the same)
    table = model.summary(ov)
    assert (table[list(model.GROUPS)].sum(axis=1) == table["tokens"]).all()  # every token in exactly one group


@settings(max_examples=examples(100))
@given(vocab_sets, st.integers(1, 6))
def test_longest_only_are_the_longest_tokens_no_other_has(sets, n):
    ov = model.overlap(vocabs_of(sets))
    for i, a in enumerate(sets):
        others = set().union(*(s for j, s in enumerate(sets) if j != i))
        only = a - others
        got = model.longest_only(ov, i, n)
        assert len(got) == min(n, len(only))
        lengths = got["bytes"].tolist()
        assert lengths == sorted(lengths, reverse=True)
        if only and len(only) > n:
            assert min(lengths) >= sorted((len(t) for t in only), reverse=True)[n - 1]
        ids = ov.vocabs[i].ids
        assert set(got["id"]) <= {ids[t] for t in only}  # each one is a token only this vocabulary has


@settings(max_examples=examples(100))
@given(vocab_sets)
def test_the_table_filters_select_their_tokens(sets):
    ov = model.overlap(vocabs_of(sets))
    every = set.intersection(*sets)
    assert {ov.tokens[k] for k in model.union_rows(ov, model.WHERE_SHARED)} == every
    for i, a in enumerate(sets):
        others = set().union(*(s for j, s in enumerate(sets) if j != i))
        assert {ov.tokens[k] for k in model.union_rows(ov, f"only:{i}")} == a - others
    table = model.union_table(ov, model.union_rows(ov))
    assert len(table) == min(model.ROWS, len(ov.tokens))
    for i, v in enumerate(ov.vocabs):  # an id exactly where the vocabulary has the token
        have = table[f"{v.label} id"].notna().tolist()
        assert have == [ov.tokens[k] in sets[i] for k in range(len(table))]


def test_a_bad_filter_and_too_many_vocabularies_say_what_to_do():
    ov = model.overlap(vocabs_of([{b"a"}, {b"b"}]))
    with pytest.raises(ValueError, match="pick one of all, shared, only:0, only:1"):
        model.union_rows(ov, "only:7")
    with pytest.raises(ValueError, match="from 1 to 8"):
        model.overlap(vocabs_of([{b"a"}] * 9))


# ---------------------------------------------------------------- vocabularies of real tokenizers


def test_the_vocabulary_leaves_special_tokens_apart_and_keeps_bytes():
    tok = train("hello hello world", 262, pattern="gpt2", special_tokens=["<|endoftext|>"])
    v = model.vocab_of(tok, "mine")
    assert len(v) == 262 and v.special == {"<|endoftext|>"}
    assert b"<|endoftext|>" not in v.ids
    assert all(tok.decode_single_token_bytes(i) == b for b, i in v.ids.items())
    assert len(model.vocab_of(bytes_tokenizer(), "bytes")) == 256


def test_the_characters_baseline_has_no_list_of_tokens():
    with pytest.raises(ValueError, match="one token per Unicode character"):
        model.vocab_of(CharTokenizer(), "Characters")


def test_p50k_is_r50k_and_24_runs_of_spaces():
    """A known answer: tiktoken builds p50k_base from r50k_base's ranks and 24 runs of 2 to 25 spaces."""
    ov = model.overlap([model.vocab_of(load_encoding("r50k_base"), "r50k"), model.vocab_of(load_encoding("p50k_base"), "p50k")])
    assert ov.only(0) == 0 and ov.shared(0, 1) == 50_256
    assert sorted(model.longest_only(ov, 1, 30)["token"]) == sorted("·" * n for n in range(2, 26))
    assert ov.jaccard(0, 1) == 50_256 / 50_280


@pytest.mark.parametrize("a, b", [("cl100k_base", "o200k_base"), ("o200k_base", "llama3")])
def test_overlap_equals_the_reference_libraries_token_sets(a, b):
    """Parity: the same counts as set operations over tiktoken's (and llama-models') own ``token_byte_values``."""
    from model_packages import tiktoken_reference

    ref_a, ref_b = (set(tiktoken_reference(n).token_byte_values()) for n in (a, b))
    ov = model.overlap([model.vocab_of(load_encoding(a), a), model.vocab_of(load_encoding(b), b)])
    assert (ov.size(0), ov.size(1)) == (len(ref_a), len(ref_b))
    assert ov.shared(0, 1) == len(ref_a & ref_b)
    assert (ov.only(0), ov.only(1)) == (len(ref_a - ref_b), len(ref_b - ref_a))
    assert ov.jaccard(0, 1) == len(ref_a & ref_b) / len(ref_a | ref_b)


# ---------------------------------------------------------------- one tokenizer's tokens under another


def naive_pieces(target: Tokenizer, data: bytes) -> int:
    """The textbook (``tokenizer.bpe.textbook``), for a trained tokenizer: split the token's text with the target's
    pattern, then the earliest-learned merge again and again per chunk; bytes that are not text get the loop alone."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return len(naive_encode_bytes(data, target.merges))
    return len(textbook.encode(text, target.merges, target.pattern))


def naive_encode_bytes(data: bytes, merges: dict) -> list[int]:
    ids = list(data)
    while len(ids) >= 2:
        pairs = set(zip(ids, ids[1:]))
        pair = min(pairs, key=lambda p: merges.get(p, float("inf")))
        if pair not in merges:
            break
        out, i = [], 0
        while i < len(ids):
            if i < len(ids) - 1 and (ids[i], ids[i + 1]) == pair:
                out.append(merges[pair])
                i += 2
            else:
                out.append(ids[i])
                i += 1
        ids = out
    return ids


words = st.sampled_from(["low", "lower", " newest", " widest", "😄", "你好", " the", "\n", "  ", "aaa", "ab"])
texts = st.lists(words, min_size=3, max_size=40).map("".join)


@settings(max_examples=examples(60))
@given(texts, texts, st.integers(256, 300), st.integers(256, 300), st.sampled_from([None, "gpt2", "gpt4"]))
def test_split_under_equals_the_textbook_for_trained_tokenizers(ta, tb, na, nb, pattern):
    source = train(ta, na, pattern=pattern)
    target = train(tb, nb, pattern="gpt2" if pattern is None else None)  # the target splits otherwise
    s = model.split_under(model.vocab_of(source, "A"), target, "B")
    assert s.ids.tolist() == sorted(source.vocab)  # every token of the source, in id order
    for tid, data, n in zip(s.ids, s.tokens, s.pieces):
        assert source.decode_single_token_bytes(int(tid)) == data
        assert n == naive_pieces(target, data), data
        assert target.decode_bytes(model.target_pieces(target, data)) == data  # the pieces spell the token
    assert sum(model.histogram([s])["tokens"]) == len(s.pieces)
    assert abs(sum(model.histogram([s])["share"]) - 1) < 1e-3


def test_a_shared_token_the_target_builds_is_one_piece_and_a_missing_one_more():
    a = Tokenizer({(97, 98): 256, (256, 99): 257})  # ab, abc
    b = Tokenizer({(97, 98): 256})  # ab
    s = model.split_under(model.vocab_of(a, "A"), b, "B")
    got = dict(zip(s.tokens, s.pieces.tolist()))
    assert got[b"ab"] == 1 and got[b"abc"] == 2 and got[b"a"] == 1
    assert s.whole == 257 / 258


def naive_rank_bpe(ranks: dict[bytes, int], data: bytes) -> list[bytes]:
    """tiktoken's algorithm, textbook form: merge the adjacent pair whose bytes have the lowest rank until none has one."""
    parts = [bytes([b]) for b in data]
    while True:
        best = min(
            ((ranks[parts[i] + parts[i + 1]], i) for i in range(len(parts) - 1) if parts[i] + parts[i + 1] in ranks),
            default=None,
        )
        if best is None:
            return parts
        i = best[1]
        parts[i : i + 2] = [parts[i] + parts[i + 1]]


@pytest.mark.parametrize("every", [pytest.param(1, marks=pytest.mark.slow), 97])
def test_o200k_tokens_under_cl100k_are_tiktokens_pieces(every):
    """Parity with tiktoken: a token that is text is what tiktoken's cl100k encodes for it; one that is not UTF-8, the
    textbook rank BPE over tiktoken's ranks. ``every``: one token in so many (all of them in the slow tier)."""
    source, target = load_encoding("o200k_base"), load_encoding("cl100k_base")
    enc = tiktoken.get_encoding("cl100k_base")
    ranks = {b: enc.encode_single_token(b) for b in enc.token_byte_values()}
    vocab = model.vocab_of(source, "o200k")
    sample = model.Vocab("o200k", dict(list(vocab.ids.items())[::every]))
    s = model.split_under(sample, target, "cl100k")
    for data, n in zip(s.tokens, s.pieces):
        try:
            want = enc.encode_ordinary(data.decode("utf-8"))
        except UnicodeDecodeError:
            want = naive_rank_bpe(ranks, data)
        assert n == len(want), data


@pytest.mark.slow
@pytest.mark.parametrize("target", ["llama3", "deepseek_v4"])
def test_gpt4o_tokens_under_an_open_model_are_its_own_packages_pieces(target):
    """Llama 3's (llama-models' tiktoken) and DeepSeek V4's (HF tokenizers on its tokenizer.json) own encodes of
    GPT-4o's tokens that are text, one in 13."""
    from model_packages import reference_encode

    ref = reference_encode(target)
    vocab = model.vocab_of(load_encoding("o200k_base"), "o200k")
    texts = {}
    for data in list(vocab.ids)[::13]:
        try:
            texts[data] = data.decode("utf-8")
        except UnicodeDecodeError:
            pass
    s = model.split_under(model.Vocab("o200k", {d: vocab.ids[d] for d in texts}), load_encoding(target), target)
    assert [len(ref(texts[d])) for d in s.tokens] == s.pieces.tolist()


def test_the_table_shows_the_targets_pieces_and_the_filters_select():
    a = train("lowest lowest newer newer", 275, pattern="gpt2")
    b = train("low low new new", 262, pattern="gpt2")
    s = model.split_under(model.vocab_of(a, "A"), b, "B")
    two = model.split_rows(s, least=2, most=2)
    assert set(s.pieces[two].tolist()) == {2}
    table = model.split_table(s, two, b)
    for row in table.to_dict("records"):
        pieces = row["as B tokens"].split(" | ")
        assert len(pieces) == row["pieces"] == 2
        assert "".join(pieces) == row["token"]  # visible text of the pieces spells the token's (ASCII corpus)
    assert model.split_rows(s, least=model.TOP_PIECES).size == int((s.pieces >= model.TOP_PIECES).sum())
    found = model.split_rows(s, match=lambda ts: [t.startswith(" low") for t in ts])
    assert {s.tokens[k] for k in found} == {t for t in s.tokens if t.startswith(b" low")}


def test_progress_is_reported_up_to_the_total():
    calls = []
    model.split_under(model.vocab_of(Tokenizer(), "A"), Tokenizer(), "B", lambda done, total: calls.append((done, total)))
    assert calls[0] == (0, 256) and calls[-1] == (256, 256)


def package_tokens(name: str) -> set[bytes]:
    """A registered encoding's ordinary tokens as its own package lists them."""
    from model_packages import hf_file_tokenizer, is_merge_list, merge_list_reference, tekkenizer, tiktoken_reference

    from tokenizer import registry
    from tokenizer.display import unicode_to_bytes

    fmt = registry.spec(name).source.format
    if fmt == "gguf-spm" and is_merge_list(name):  # tokenizers' pieces, the control ones left out: ▁ as a space
        hf = merge_list_reference(name)
        specials = {t.content for t in hf.get_added_tokens_decoder().values() if t.special}
        return {
            bytes([int(p[3:5], 16)]) if re.fullmatch("<0x[0-9A-F]{2}>", p) else p.replace("\u2581", " ").encode()
            for p in hf.get_vocab(with_added_tokens=True)
            if p not in specials
        }
    if fmt in ("gguf-spm", "spm-model"):  # the sentencepiece package's pieces: ▁ as a space, <0xNN> as its byte
        from model_packages import sentencepiece_reference

        sp = sentencepiece_reference(name)
        ordinary = [i for i in range(sp.get_piece_size()) if not (sp.is_control(i) or sp.is_unknown(i))]
        return {
            bytes([int(sp.id_to_piece(i)[3:5], 16)]) if sp.is_byte(i) else sp.id_to_piece(i).replace("\u2581", " ").encode()
            for i in ordinary
        }
    if fmt == "tekken":
        tk = tekkenizer()
        return {tk.id_to_byte_piece(i) for i in range(tk.num_special_tokens, tk.n_words)}
    if fmt in ("hf-json", "gguf"):
        hf = hf_file_tokenizer(name)
        specials = {t.content for t in hf.get_added_tokens_decoder().values() if t.special}
        table = unicode_to_bytes()
        out = set()
        for text in hf.get_vocab(with_added_tokens=True):
            if text not in specials:  # an added token that is not special is its own text, not byte-level characters
                out.add(bytes(table[c] for c in text) if all(c in table for c in text) else text.encode("utf-8"))
        return out
    # Whisper's multilingual file ranks an empty token ("="), which tiktoken keeps and no text encodes to
    return set(tiktoken_reference(name).token_byte_values()) - {b""}


@pytest.mark.slow
def test_every_models_vocabulary_is_its_packages():
    """Every registered encoding (OpenAI's, Llama, Qwen, Tekken, DeepSeek V4's tokenizer.json): the tokens the page
    compares are the ones its own package lists, special tokens apart."""
    from model_packages import hf_file_tokenizer

    from tokenizer import registry
    from tokenizer.display import unicode_to_bytes

    for name in registry.names():
        tok, expected = load_encoding(name), package_tokens(name)
        if registry.spec(name).source.format == "gguf":
            # a token no merge builds (Command-R has 1,403) is never produced, by tokenizers or llama.cpp: not compared
            table = unicode_to_bytes()
            vocab = hf_file_tokenizer(name).get_vocab(with_added_tokens=False)
            never = [t for t, i in vocab.items() if i not in tok.vocab]
            never_bytes = {bytes(table[c] for c in t) if all(c in table for c in t) else t.encode() for t in never}
            expected -= never_bytes - set(tok.vocab.values())  # some are also the bytes of a token that is produced
        assert set(model.vocab_of(tok, name).ids) == expected, name
