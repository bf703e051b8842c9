"""tokenizer/formats/spm_model.py: a SentencePiece .model file read by hand is what protobuf reads, a model read from
one encodes as the ``sentencepiece`` package does with it (Mistral's files, and models the package's own trainer
makes here), what BPE Lab cannot encode exactly is refused with what to do, and a written file is one the package
loads and encodes with the same ids."""

from __future__ import annotations

import io

import pytest
import sentencepiece
from hypothesis import given, settings
from hypothesis import strategies as st
from model_packages import sentencepiece_reference
from sentencepiece import sentencepiece_model_pb2 as pb
from texts import MULTILINGUAL, stdlib_sample

from tests.tier import examples
from tokenizer import load_encoding, registry
from tokenizer.formats import spm_model
from tokenizer.formats.files import load_bytes
from tokenizer.models import fetch

MODEL_FILES = [s.name for s in registry.specs() if s.source.format == "spm-model"]
text = st.one_of(
    st.text(max_size=60),
    st.lists(
        st.sampled_from([" ", "  ", "the", "\n", "你好", "😄", "▁", "[INST]", "<s>", "[REFERENCE_DOC_1]", "é"]), max_size=12
    ).map("".join),
)


def _file(name: str) -> bytes:
    return fetch.read_verified(registry.spec(name))


def _proto(data: bytes) -> pb.ModelProto:
    m = pb.ModelProto()
    m.ParseFromString(data)
    return m


@pytest.mark.parametrize("name", MODEL_FILES)
def test_the_reader_reads_what_protobuf_reads(name):
    data = _file(name)
    ours, ref = spm_model.read_model(data), _proto(data)
    assert list(ours.pieces) == [p.piece for p in ref.pieces]
    assert list(ours.scores) == [p.score for p in ref.pieces]
    assert list(ours.types) == [p.type for p in ref.pieces]
    for field in ("model_type", "vocab_size", "byte_fallback", "unk_id", "bos_id", "eos_id", "pad_id", "unk_piece", "bos_piece"):
        assert ours.trainer[field] == getattr(ref.trainer_spec, field), field
    for field in ("name", "add_dummy_prefix", "remove_extra_whitespaces", "escape_whitespaces", "precompiled_charsmap"):
        assert ours.normalizer[field] == getattr(ref.normalizer_spec, field), field
    assert ours.trainer["pad_id"] == -1  # a negative int32 is a ten-byte varint
    assert spm_model.looks_like_model(data)


def test_absent_fields_have_protobufs_defaults():
    m = pb.ModelProto()
    p = m.pieces.add()
    p.piece = "a"
    m.trainer_spec.vocab_size = 1
    ours = spm_model.read_model(m.SerializeToString())
    assert ours.types == (spm_model.NORMAL,) and ours.scores == (0.0,)
    assert ours.trainer["model_type"] == 1 and ours.trainer["byte_fallback"] is False and ours.trainer["pad_id"] == -1
    assert ours.normalizer["add_dummy_prefix"] and ours.normalizer["remove_extra_whitespaces"]


# ----------------------------------------------------------------------------- models the package's trainer makes


def _train(**options) -> bytes:
    """A small model from sentencepiece's own trainer, on our multilingual and code text."""
    out = io.BytesIO()
    settings_ = {
        "model_type": "bpe",
        "vocab_size": 600,
        "byte_fallback": True,
        "normalization_rule_name": "identity",
        "remove_extra_whitespaces": False,
        "character_coverage": 0.98,
        "num_threads": 1,
        "minloglevel": 2,
        **options,
    }
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter((MULTILINGUAL + stdlib_sample(30_000)).splitlines()), model_writer=out, **settings_
    )
    return out.getvalue()


@pytest.fixture(scope="module")
def trained():
    data = _train(user_defined_symbols=["<tool>", "@"], control_symbols=["<ctl>"])
    return spm_model.from_spm_model(data, name="trained"), sentencepiece.SentencePieceProcessor(model_proto=data), data


@settings(max_examples=examples(200), deadline=None)
@given(st.one_of(text, st.lists(st.sampled_from(["<tool>", "@", "<ctl>", "a@b", " <tool> x", "ü"]), max_size=8).map("".join)))
def test_a_trained_model_encodes_as_sentencepiece(trained, s):
    ours, ref, _ = trained
    clean = s.encode("utf-8", "replace").decode("utf-8")
    ids = ref.encode(clean)
    assert ours.encode_ordinary(s) == ids  # a user-defined piece is one symbol anywhere, with no dummy prefix after it
    assert ours.decode(ids) == ref.decode(ids)


def test_a_trained_model_reads_its_specials_and_user_defined_pieces(trained):
    ours, ref, _ = trained
    assert ours.encode_ordinary("<tool>x") == ref.encode("<tool>x") == [ref.piece_to_id(p) for p in ("▁", "<tool>", "x")]
    assert ours.special_tokens["<ctl>"] == ref.piece_to_id("<ctl>") and "<tool>" not in ours.special_tokens
    assert ours.encode("<ctl>x", allowed_special="all")[0] == ref.piece_to_id("<ctl>")
    corpus = MULTILINGUAL + stdlib_sample(50_000)
    assert ours.encode_ordinary(corpus) == ref.encode(corpus)


def test_load_bytes_finds_a_model_file_from_its_content(trained):
    _, ref, data = trained
    tok = load_bytes(data, name="up")
    assert tok.kind == "sentencepiece" and tok.name == "up" and tok.encode_ordinary("Hello there") == ref.encode("Hello there")
    for text_file in (b'{"model": {}}', b"IQ== 0\nIg== 1\n", b"\n{}", b"minbpe v1\n"):
        assert not spm_model.looks_like_model(text_file)


@pytest.mark.parametrize(
    "options, fix",
    [
        ({"model_type": "unigram"}, "unigram model.*--model_type=bpe"),
        ({"byte_fallback": False}, "no byte fallback.*--byte_fallback=true"),
        ({"normalization_rule_name": "nmt_nfkc"}, "normalizes text first.*identity"),
        ({"remove_extra_whitespaces": True}, "handles spaces.*--remove_extra_whitespaces=false"),
    ],
)
def test_what_bpe_lab_cannot_encode_exactly_is_refused_with_what_to_do(options, fix):
    data = _train(**options)
    with pytest.raises(ValueError, match=fix):
        spm_model.from_spm_model(data)
    with pytest.raises(ValueError, match=fix):
        load_bytes(data)


def test_unused_and_doubled_pieces_are_refused():
    m = _proto(_file("mistral_v1"))
    m.pieces[300].type = pb.ModelProto.SentencePiece.UNUSED
    with pytest.raises(ValueError, match="1 unused pieces"):
        spm_model.parse_spm_model(m.SerializeToString())
    m = _proto(_file("mistral_v1"))
    m.pieces[300].piece = m.pieces[301].piece
    with pytest.raises(ValueError, match="piece 301 .* twice"):
        spm_model.parse_spm_model(m.SerializeToString())


@pytest.mark.parametrize("cut", [1, 2, 100, 4001])
def test_a_damaged_file_is_a_clear_error(cut):
    data = _file("mistral_v1")
    with pytest.raises(ValueError, match="not a SentencePiece .model file"):
        spm_model.read_model(data[:cut] if cut < 4000 else data[:cut] + b"\xff")
    with pytest.raises(ValueError, match="not a SentencePiece .model file"):
        spm_model.read_model(b"\x0b\x00")  # wire type 3, a group: sentencepiece writes none


# ----------------------------------------------------------------------------- writing


@pytest.mark.parametrize("name", [*MODEL_FILES, "llama2"])
def test_a_written_file_is_one_sentencepiece_loads_and_encodes_alike(name):
    ours = load_encoding(name)
    written = spm_model.write_model(ours)
    ref = sentencepiece.SentencePieceProcessor(model_proto=written)
    corpus = MULTILINGUAL + stdlib_sample(50_000)
    lines = corpus.splitlines() + ["<s>x</s>", "[INST] a [/INST]", "[REFERENCE_DOC_1]y z", "  ", "\U0010ffff"]
    assert ref.encode(lines) == [ours.encode_ordinary(line) for line in lines]
    assert ref.encode(lines) == sentencepiece_reference(name).encode(lines)
    assert (ref.bos_id(), ref.eos_id(), ref.unk_id(), ref.pad_id()) == (1, 2, 0, -1)
    back = spm_model.from_spm_model(written)
    assert back.model.pieces == ours.model.pieces and back.model.types == ours.model.types
    assert back.model.scores == ours.model.scores and back.special_tokens == ours.special_tokens
    assert spm_model.write_model(back) == written  # the writer's output is a fixed point


@settings(max_examples=examples(100), deadline=None)
@given(text)
def test_a_written_mistral_v3_encodes_any_text_as_its_own_file(s):
    clean = s.encode("utf-8", "replace").decode("utf-8")
    written = _written("mistral_v3")
    assert written.encode(clean) == sentencepiece_reference("mistral_v3").encode(clean)


_cache: dict[str, sentencepiece.SentencePieceProcessor] = {}


def _written(name: str) -> sentencepiece.SentencePieceProcessor:
    if name not in _cache:
        _cache[name] = sentencepiece.SentencePieceProcessor(model_proto=spm_model.write_model(load_encoding(name)))
    return _cache[name]


def test_what_a_model_file_cannot_hold_is_refused():
    with pytest.raises(ValueError, match="byte-level BPE tokenizer as BPE Lab JSON"):
        spm_model.write_model(load_encoding("r50k_base"))
    with pytest.raises(ValueError, match="merge list"):
        spm_model.write_model(load_encoding("gemma4"))
    with pytest.raises(ValueError, match="first 100 merged pieces.*download the whole model"):
        spm_model.write_model(load_encoding("mistral_v1").truncated(100))
