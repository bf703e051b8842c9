"""SentencePiece's ``.model`` file (a protobuf ``ModelProto``), read and written by hand: no protobuf at run time.

A ``.model`` file is one protobuf message (sentencepiece's ``sentencepiece_model.proto``)::

    ModelProto      1 pieces (repeated SentencePiece)  2 trainer_spec  3 normalizer_spec  5 denormalizer_spec
    SentencePiece   1 piece (string)  2 score (float)  3 type (NORMAL 1, UNKNOWN 2, CONTROL 3, USER_DEFINED 4,
                                                          UNUSED 5, BYTE 6)
    TrainerSpec     3 model_type (UNIGRAM 1, BPE 2, WORD 3, CHAR 4)  4 vocab_size  24 treat_whitespace_as_suffix
                    35 byte_fallback  40-43 unk/bos/eos/pad ids  45-48 their pieces (and training settings)
    NormalizerSpec  1 name  2 precompiled_charsmap  3 add_dummy_prefix  4 remove_extra_whitespaces
                    5 escape_whitespaces  6 normalization_rule_tsv

Each field is a tag (``field number << 3 | wire type``, a varint) and a value: a varint (0), eight bytes (1), a
length and that many bytes (2: strings and messages), or four bytes (5: floats). A field that is absent has its
default (``add_dummy_prefix``, ``remove_extra_whitespaces`` and ``escape_whitespaces`` true, ``model_type`` UNIGRAM).

``read_model`` gives the fields BPE Lab uses; ``parse_spm_model`` also refuses what it cannot encode exactly
(a unigram model, a normalizer other than the identity, no byte fallback, ...) with a ValueError that says what to
do. ``write_model`` writes a SentencePiece-style Tokenizer as a ``.model`` file that the ``sentencepiece`` package
loads and encodes with the same ids (tests/tokenizer/formats/test_spm_model.py).
"""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..bpe.sentencepiece import SentencePieceBPE
from ..errors import check_bytes, check_str
from ..spm import SentencePieceTokenizer

#: ``SentencePiece.Type`` values (the same numbers as a GGUF's ``tokenizer.ggml.token_type``)
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
#: ``TrainerSpec.ModelType`` values
MODEL_TYPES = {1: "UNIGRAM", 2: "BPE", 3: "WORD", 4: "CHAR"}
BPE = 2

#: TrainerSpec fields BPE Lab reads: number -> (name, kind, default)
_TRAINER = {
    3: ("model_type", "varint", 1),
    4: ("vocab_size", "varint", 8000),
    24: ("treat_whitespace_as_suffix", "bool", False),
    35: ("byte_fallback", "bool", False),
    40: ("unk_id", "int32", 0),
    41: ("bos_id", "int32", 1),
    42: ("eos_id", "int32", 2),
    43: ("pad_id", "int32", -1),
    45: ("unk_piece", "string", "<unk>"),
    46: ("bos_piece", "string", "<s>"),
    47: ("eos_piece", "string", "</s>"),
    48: ("pad_piece", "string", "<pad>"),
}
#: NormalizerSpec fields: number -> (name, kind, default)
_NORMALIZER = {
    1: ("name", "string", ""),
    2: ("precompiled_charsmap", "bytes", b""),
    3: ("add_dummy_prefix", "bool", True),
    4: ("remove_extra_whitespaces", "bool", True),
    5: ("escape_whitespaces", "bool", True),
    6: ("normalization_rule_tsv", "string", ""),
}


class SpmModelError(ValueError):
    """A ``.model`` file BPE Lab cannot read, or cannot encode exactly, and what to do."""


@dataclass(frozen=True)
class SpmModel:
    """What BPE Lab reads of a ``.model`` file: the pieces, and the trainer's and normalizer's settings it uses."""

    pieces: tuple[str, ...]
    scores: tuple[float, ...]
    types: tuple[int, ...]
    trainer: Mapping[str, Any] = field(default_factory=dict)  # _TRAINER's names, defaults filled in
    normalizer: Mapping[str, Any] = field(default_factory=dict)  # _NORMALIZER's names, defaults filled in
    denormalizer: Mapping[str, Any] | None = None


# ----------------------------------------------------------------------------- the wire format


class _Reader:
    def __init__(self, data: bytes, source: str, what: str):
        self.data, self.pos, self.source, self.what = data, 0, source, what

    def fail(self, why: str) -> SpmModelError:
        return SpmModelError(
            f"{self.source}: not a SentencePiece .model file ({self.what} {why} at byte {self.pos}); "
            "upload the .model file that sentencepiece's spm_train wrote, unchanged"
        )

    def varint(self) -> int:
        out = shift = 0
        while True:
            if self.pos >= len(self.data):
                raise self.fail("ends inside a number")
            b = self.data[self.pos]
            self.pos += 1
            out |= (b & 0x7F) << shift
            if b < 0x80:
                return out
            shift += 7
            if shift > 63:
                raise self.fail("has a number longer than ten bytes")

    def fields(self):
        """``(field number, wire type, value)`` of each field: an int for varints, bytes for the others."""
        while self.pos < len(self.data):
            tag = self.varint()
            number, wire = tag >> 3, tag & 7
            if number == 0:
                raise self.fail("has field number 0")
            if wire == 0:
                yield number, wire, self.varint()
            elif wire in (1, 5, 2):
                n = 8 if wire == 1 else 4 if wire == 5 else self.varint()
                if self.pos + n > len(self.data):
                    raise self.fail(f"has a field of {n} bytes that runs past the end")
                yield number, wire, self.data[self.pos : self.pos + n]
                self.pos += n
            else:
                raise self.fail(f"has wire type {wire}, which sentencepiece never writes")


def _value(r: _Reader, name: str, kind: str, wire: int, value):
    want = 2 if kind in ("string", "bytes") else 0
    if wire != want:
        raise r.fail(f"has field {name} with wire type {wire}, not {want}")
    if kind == "string":
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            raise r.fail(f"has field {name} that is not UTF-8") from None
    if kind == "bytes":
        return bytes(value)
    if kind == "bool":
        return value != 0
    if kind == "int32":
        value &= 0xFFFFFFFF
        return value - (1 << 32) if value >= 1 << 31 else value
    return value


def _message(data: bytes, spec: Mapping[int, tuple[str, str, Any]], source: str, what: str) -> dict[str, Any]:
    r = _Reader(data, source, what)
    out = {name: default for name, _, default in spec.values()}
    for number, wire, value in r.fields():
        if number in spec:
            name, kind, _ = spec[number]
            out[name] = _value(r, name, kind, wire, value)
    return out


def _piece(data: bytes, source: str, index: int) -> tuple[str, float, int]:
    r = _Reader(data, source, f"piece {index}")
    piece, score, kind = None, 0.0, NORMAL
    for number, wire, value in r.fields():
        if number == 1:
            piece = _value(r, "piece", "string", wire, value)
        elif number == 2:
            if wire != 5:
                raise r.fail("has a score that is not a float")
            (score,) = struct.unpack("<f", value)
        elif number == 3:
            kind = _value(r, "type", "varint", wire, value)
    if piece is None:
        raise r.fail("has no text")
    return piece, score, kind


def read_model(data: bytes, source: str = "the .model file") -> SpmModel:
    """The pieces and settings of a ``.model`` file (no check that BPE Lab can encode with it: ``parse_spm_model``)."""
    data = check_bytes(data, "data")
    r = _Reader(data, source, "the file")
    pieces, scores, types = [], [], []
    trainer = normalizer = denormalizer = None
    for number, wire, value in r.fields():
        if number in (1, 2, 3, 5) and wire != 2:
            raise r.fail(f"has field {number} with wire type {wire}, not a message")
        if number == 1:
            p, s, t = _piece(value, source, len(pieces))
            pieces.append(p)
            scores.append(s)
            types.append(t)
        elif number == 2:
            trainer = _message(value, _TRAINER, source, "its trainer_spec")
        elif number == 3:
            normalizer = _message(value, _NORMALIZER, source, "its normalizer_spec")
        elif number == 5:
            denormalizer = _message(value, _NORMALIZER, source, "its denormalizer_spec")
    if not pieces:
        raise SpmModelError(f"{source}: not a SentencePiece .model file (it holds no pieces)")
    return SpmModel(
        tuple(pieces),
        tuple(scores),
        tuple(types),
        trainer if trainer is not None else _message(b"", _TRAINER, source, ""),
        normalizer if normalizer is not None else _message(b"", _NORMALIZER, source, ""),
        denormalizer,
    )


def looks_like_model(data: bytes) -> bool:
    """Whether ``data`` is a protobuf message laid out as a ``.model`` file: pieces first (field 1, whose own field
    1 is text), a trainer_spec, nothing but fields 1 to 5. A text file (JSON, tiktoken ranks) is not.

    >>> looks_like_model(b'{"model": {}}'), looks_like_model(b"\\n\\x05\\n\\x01a\\x18\\x01\\x12\\x02\\x18\\x02")
    (False, True)
    """
    if not isinstance(data, (bytes, bytearray)) or data[:1] != b"\n":
        return False
    r = _Reader(bytes(data), "", "")
    try:
        numbers = set()
        first = True
        for number, wire, value in r.fields():
            if number not in (1, 2, 3, 4, 5) or wire != 2:
                return False
            if first and value[:1] != b"\n":
                return False
            first = False
            numbers.add(number)
    except SpmModelError:
        return False
    return 2 in numbers


# ----------------------------------------------------------------------------- what BPE Lab can encode exactly


def check_supported(m: SpmModel, source: str = "the .model file") -> None:
    """ValueError naming what to do when BPE Lab cannot encode exactly as sentencepiece does with this model."""
    t, n = m.trainer, m.normalizer
    kind = MODEL_TYPES.get(t["model_type"], str(t["model_type"]))
    if t["model_type"] != BPE:
        what = "a unigram model" if kind == "UNIGRAM" else f"a {kind} model"
        raise SpmModelError(
            f"{source} is {what} (trainer_spec.model_type {kind}); BPE Lab reads SentencePiece BPE models only: "
            "train one with spm_train --model_type=bpe --byte_fallback=true, or upload a BPE model "
            "(Llama 2's, Mistral's tokenizer.model)"
        )
    if not t["byte_fallback"] or sum(1 for x in m.types if x == BYTE) != 256:
        raise SpmModelError(
            f"{source} has no byte fallback (trainer_spec.byte_fallback is off, or it lacks the 256 <0x00>…<0xFF> "
            "pieces), so characters it lacks become <unk>: BPE Lab reads models with byte fallback; "
            "train with spm_train --byte_fallback=true"
        )
    charsmap = n["precompiled_charsmap"] or n["normalization_rule_tsv"]
    if n["name"] not in ("identity", "") or charsmap:
        raise SpmModelError(
            f"{source} normalizes text first (normalizer_spec.name {n['name']!r}), which BPE Lab cannot do exactly: "
            "train with spm_train --normalization_rule_name=identity"
        )
    if n["remove_extra_whitespaces"] or not n["escape_whitespaces"] or t["treat_whitespace_as_suffix"]:
        raise SpmModelError(
            f"{source} handles spaces in a way BPE Lab does not (remove_extra_whitespaces "
            f"{n['remove_extra_whitespaces']}, escape_whitespaces {n['escape_whitespaces']}, "
            f"treat_whitespace_as_suffix {t['treat_whitespace_as_suffix']}): BPE Lab reads models that keep every "
            "space as ▁ before the word; train with --remove_extra_whitespaces=false"
        )
    d = m.denormalizer
    if d is not None and (d["precompiled_charsmap"] or d["normalization_rule_tsv"]):
        raise SpmModelError(
            f"{source} has a denormalizer, which changes decoded text in a way BPE Lab cannot: "
            "upload a model trained without --denormalization_rule_tsv"
        )
    unused = sum(1 for x in m.types if x == UNUSED)
    if unused:
        raise SpmModelError(
            f"{source} has {unused} unused pieces, which sentencepiece makes and splits again while encoding; "
            "BPE Lab cannot do that exactly: upload the model as spm_train wrote it, before pieces were marked unused"
        )
    unknown = [i for i, x in enumerate(m.types) if x == UNKNOWN]
    if len(unknown) != 1:
        raise SpmModelError(f"{source} has {len(unknown)} unknown pieces; a SentencePiece model has exactly one (<unk>)")
    seen: set[str] = set()
    for i, p in enumerate(m.pieces):
        if p in seen:
            raise SpmModelError(f"{source}: piece {i} ({p!r}) is there twice; sentencepiece refuses such a file too")
        seen.add(p)


def _ids(m: SpmModel) -> dict[str, int]:
    t = m.trainer
    return {"unk": t["unk_id"], "bos": t["bos_id"], "eos": t["eos_id"], "pad": t["pad_id"]}


def parse_spm_model(data: bytes, source: str = "the .model file") -> SentencePieceBPE:
    """A ``.model`` file's BPE model, encoding as the ``sentencepiece`` package does; SpmModelError (a ValueError
    that says what to do) for a file BPE Lab cannot read or cannot encode exactly."""
    m = read_model(data, source)
    check_supported(m, source)
    return SentencePieceBPE(
        m.pieces, m.scores, m.types, add_space_prefix=m.normalizer["add_dummy_prefix"], rules="sentencepiece", ids=_ids(m)
    )


def from_spm_model(data: bytes, *, name: str = "", metadata: Mapping[str, Any] | None = None) -> SentencePieceTokenizer:
    """A ``.model`` file as a SentencePieceTokenizer (its control and unknown pieces as special tokens)."""
    name = check_str(name, "name")
    return SentencePieceTokenizer(parse_spm_model(data), name=name, metadata=metadata)


# ----------------------------------------------------------------------------- writing


def _varint(n: int) -> bytes:
    n &= (1 << 64) - 1  # a negative int32 is written as its 64-bit two's complement, as protobuf does
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _field(number: int, value) -> bytes:
    if isinstance(value, bool) or isinstance(value, int):
        return _varint(number << 3) + _varint(int(value))
    if isinstance(value, float):
        return _varint(number << 3 | 5) + struct.pack("<f", value)
    raw = value.encode("utf-8") if isinstance(value, str) else bytes(value)
    return _varint(number << 3 | 2) + _varint(len(raw)) + raw


def write_model(tok: SentencePieceTokenizer) -> bytes:
    """The ``.model`` file of a SentencePiece-style Tokenizer ordered by scores: its pieces, scores and types, BPE with
    byte fallback, the identity normalizer with the model's dummy prefix. ``sentencepiece.SentencePieceProcessor``
    loads it and gives the Tokenizer's ids, except where llama.cpp's rules differ (a GGUF's user-defined pieces:
    ``bpe.sentencepiece``). ValueError for what a ``.model`` file cannot hold."""
    if not isinstance(tok, SentencePieceTokenizer) or not isinstance(tok.model, SentencePieceBPE):
        raise ValueError(
            "a SentencePiece .model file holds a SentencePiece-style tokenizer (▁ for spaces, pieces by score); "
            "download a byte-level BPE tokenizer as BPE Lab JSON, tiktoken or tokenizer.json instead"
        )
    model = tok.model
    if model.merge_rank is not None:
        raise ValueError(
            "this model orders its merges by a merge list (as Gemma 4 does), which a .model file cannot hold: "
            "a .model file orders pieces by score"
        )
    if tok.max_rank is not None:
        raise ValueError(
            f"this is the model with only its first {tok.max_rank:,} merged pieces, which a .model file cannot say: "
            "download the whole model"
        )
    return _model_bytes(model.pieces, model.scores, model.types, model.add_space_prefix, model.ids)


def _model_bytes(
    pieces: Sequence[str], scores: Sequence[float], types: Sequence[int], add_dummy_prefix: bool, ids: Mapping[str, int]
) -> bytes:
    out = bytearray()
    for p, s, t in zip(pieces, scores, types):
        body = _field(1, p) + _field(2, float(s)) + (_field(3, t) if t != NORMAL else b"")
        out += _field(1, body)

    def piece_of(key: str, default: str) -> str:
        i = ids.get(key, -1)
        return pieces[i] if 0 <= i < len(pieces) else default

    trainer = b"".join(
        [
            _field(3, BPE),
            _field(4, len(pieces)),
            _field(35, True),
            _field(40, ids.get("unk", 0)),
            _field(41, ids.get("bos", -1)),
            _field(42, ids.get("eos", -1)),
            _field(43, ids.get("pad", -1)),
            _field(45, piece_of("unk", "<unk>")),
            _field(46, piece_of("bos", "<s>")),
            _field(47, piece_of("eos", "</s>")),
            _field(48, piece_of("pad", "<pad>")),
        ]
    )
    normalizer = b"".join([_field(1, "identity"), _field(3, add_dummy_prefix), _field(4, False), _field(5, True)])
    return bytes(out + _field(2, trainer) + _field(3, normalizer))
