"""GGUF (llama.cpp's model file): its metadata read with ``struct``, and a byte-level BPE vocabulary in it as a tokenizer.json.

A GGUF file starts with ``GGUF``, a version (2 or 3), the number of tensors and the number of
metadata entries, then the entries: a key, a value type and a value (numbers, booleans,
strings, arrays of them). llama.cpp's vocabulary-only files (``ggml-vocab-*.gguf``) hold a
tokenizer in ``tokenizer.ggml.*`` entries: the tokens (byte-level BPE tokens in GPT-2's
byte-to-character form), their types, the merges and the pre-tokenizer's *name*. The split rule
for each name is llama.cpp's own (``src/llama-vocab.cpp``, ``llm_tokenizer_bpe``): a list of
regexes, each applied in turn to the pieces the one before left, the text between matches kept
as pieces too, which is what a tokenizer.json's ``Split`` with ``behavior: "Isolated"`` does.
``to_hf_json`` writes that as a tokenizer.json, so BPE Lab's tokenizer.json reader runs it.

Only the metadata is read (a vocabulary file has no tensors); nothing here imports ``gguf``.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from typing import Any

from ..display import bytes_to_unicode
from ..errors import check_bytes

#: value type id -> struct format of a scalar (GGUF's ``gguf_type``); 8 is a string, 9 an array
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9

#: ``tokenizer.ggml.token_type`` values (llama.cpp's ``llama_token_type``)
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6

#: The GPT-2 split of llama.cpp's ``LLAMA_VOCAB_PRE_TYPE_GPT2``: GPT-2's pattern without its last ``|\s+``, which
#: an isolated split does not need (a lone space before a word or number is left between matches, a piece alone).
_GPT2_LIKE = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)"""

#: Pre-tokenizer name (``tokenizer.ggml.pre``) -> llama.cpp's regexes for it, in order (src/llama-vocab.cpp,
#: llama.cpp as llama-cpp-python 0.3.36 vendors it). Only the byte-level BPE rules BPE Lab registers are here.
PRE_TOKENIZERS: dict[str, tuple[str, ...]] = {
    # LLAMA_VOCAB_PRE_TYPE_GPT2 (and MPT, OLMO, which share its case)
    "gpt-2": (_GPT2_LIKE,),
    "mpt": (_GPT2_LIKE,),
    "olmo": (_GPT2_LIKE,),
    # LLAMA_VOCAB_PRE_TYPE_STARCODER, REFACT, COMMAND_R: every digit alone, then GPT-2's split
    "starcoder": (r"\p{N}", _GPT2_LIKE),
    "refact": (r"\p{N}", _GPT2_LIKE),
    "command-r": (r"\p{N}", _GPT2_LIKE),
    # LLAMA_VOCAB_PRE_TYPE_FALCON
    "falcon": (r"[\p{P}\$\+<=>\^~\|`]+", _GPT2_LIKE, r"[0-9][0-9][0-9]"),
    # LLAMA_VOCAB_PRE_TYPE_DEEPSEEK_LLM
    "deepseek-llm": (
        "[\r\n]",
        "\\s?[A-Za-z\xb5\xc0-\xd6\xd8-\xf6\xf8-\u01ba\u01bc-\u01bf\u01c4-\u0293\u0295-\u02af\u0370-\u0373\u0376\u0377\u037b-\u037d\u037f\u0386\u0388-\u038a\u038c\u038e-\u03a1\u03a3-\u03f5\u03f7-\u0481\u048a-\u052f\u0531-\u0556\u10a0-\u10c5\u13a0-\u13f5\u13f8-\u13fd\u1c90-\u1cba\u1cbd-\u1cbf\u1d00-\u1d2b\u1d6b-\u1d77\u1d79-\u1d9a\u1e00-\u1f15\u1f18-\u1f1d\u1f20-\u1f45\u1f48-\u1f4d\u1f50-\u1f57\u1f59\u1f5b\u1f5d\u1f5f-\u1f7d\u1f80-\u1fb4\u1fb6-\u1fbc\u1fbe\u1fc2-\u1fc4\u1fc6-\u1fcc\u1fd0-\u1fd3\u1fd6-\u1fdb\u1fe0-\u1fec\u1ff2-\u1ff4\u1ff6-\u1ffc\u2102\u2107\u210a-\u2113\u2115\u2119-\u211d\u2124\u2126\u2128\u212a-\u212d\u212f-\u2134\u2139\u213c-\u213f\u2145-\u2149\u214e\u2183\u2184\u2c00-\u2c7b\u2c7e-\u2ce4\u2ceb-\u2cee\u2cf2\u2cf3\ua640-\ua66d\ua680-\ua69b\ua722-\ua76f\ua771-\ua787\ua78b-\ua78e\uab70-\uabbf\ufb00-\ufb06\ufb13-\ufb17\uff21-\uff3a\uff41-\uff5a\U00010400-\U0001044f\U000104b0-\U000104d3\U000104d8-\U000104fb\U00010c80-\U00010cb2\U00010cc0-\U00010cf2\U000118a0-\U000118df\U0001e900-\U0001e943]+",
        "\\s?[!-/:-~\uff01-\uff0f\uff1a-\uff5e\u2018-\u201f\u3000-\u3002]+",
        "\\s+$",
        "[\u4e00-\u9fa5\u0800-\u4e00\uac00-\ud7ff]+",
        "\\p{N}+",
    ),
    # LLAMA_VOCAB_PRE_TYPE_DEEPSEEK_CODER
    "deepseek-coder": (
        "[\r\n]",
        "\\s?\\p{L}+",
        "\\s?\\p{P}+",
        "[\u4e00-\u9fa5\u0800-\u4e00\uac00-\ud7ff]+",
        "\\p{N}",
    ),
    # LLAMA_VOCAB_PRE_TYPE_QWEN2 and LLAMA3, as llama.cpp spells them (contractions' cases written out)
    "qwen2": (
        r"""(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
    ),
    "llama-bpe": (
        r"""(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
    ),
    # LLAMA_VOCAB_PRE_TYPE_DEFAULT (a file that names no pre-tokenizer, or "default")
    "default": (r"[\p{P}\$\+<=>\^~\|]+", _GPT2_LIKE, r"\p{N}+", r"[0-9][0-9][0-9]"),
}

#: The names llama.cpp reads with ``ignore_merges`` (a piece that is a token is that token, merged or not).
IGNORE_MERGES = frozenset({"llama-bpe"})


class GGUFError(ValueError):
    """A GGUF file BPE Lab cannot read, and why."""


class _Reader:
    def __init__(self, data: bytes, source: str):
        self.data, self.pos, self.source = data, 0, source

    def take(self, fmt: str):
        size = struct.calcsize(fmt)
        if self.pos + size > len(self.data):
            raise GGUFError(
                f"{self.source}: the file ends inside its metadata (at byte {self.pos}); it is cut short or not a GGUF"
            )
        (value,) = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += size
        return value

    def string(self) -> str:
        n = self.take("<Q")
        if self.pos + n > len(self.data):
            raise GGUFError(f"{self.source}: a string of {n} bytes at byte {self.pos} runs past the end of the file")
        raw = self.data[self.pos : self.pos + n]
        self.pos += n
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise GGUFError(f"{self.source}: a string at byte {self.pos - n} is not UTF-8") from None

    def value(self, kind: int):
        if kind in _SCALARS:
            return self.take(_SCALARS[kind])
        if kind == _STRING:
            return self.string()
        if kind == _ARRAY:
            item, n = self.take("<I"), self.take("<Q")
            if item == _ARRAY:
                raise GGUFError(f"{self.source}: an array of arrays at byte {self.pos}; vocabulary files hold none")
            if item == _STRING:
                return [self.string() for _ in range(n)]
            if item not in _SCALARS:
                raise GGUFError(f"{self.source}: unknown array item type {item} at byte {self.pos}")
            fmt = _SCALARS[item]
            size = struct.calcsize(fmt)
            if self.pos + n * size > len(self.data):
                raise GGUFError(f"{self.source}: an array of {n} items at byte {self.pos} runs past the end of the file")
            values = list(struct.unpack_from(f"<{n}{fmt[1]}", self.data, self.pos))
            self.pos += n * size
            return values
        raise GGUFError(f"{self.source}: unknown value type {kind} at byte {self.pos}")


def read_metadata(data: bytes, source: str = "GGUF file") -> dict[str, Any]:
    """The metadata entries of a GGUF file, ``{key: value}`` (arrays as lists).

    >>> blob = b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + struct.pack("<Q", 3) + b"n.x" + struct.pack("<II", 4, 7)
    >>> read_metadata(blob)
    {'n.x': 7}
    """
    data = check_bytes(data, "data")
    if data[:4] != b"GGUF":
        raise GGUFError(f"{source}: not a GGUF file (it does not start with 'GGUF')")
    r = _Reader(data, source)
    r.pos = 4
    version = r.take("<I")
    if version not in (2, 3):
        raise GGUFError(f"{source}: GGUF version {version}; BPE Lab reads versions 2 and 3")
    r.take("<Q")  # tensors: a vocabulary file has none, and their descriptions follow the metadata
    count = r.take("<Q")
    out: dict[str, Any] = {}
    for _ in range(count):
        key = r.string()
        out[key] = r.value(r.take("<I"))
    return out


def to_hf_json(meta: Mapping[str, Any], source: str = "GGUF file") -> dict[str, Any]:
    """A GGUF's byte-level BPE tokenizer as a tokenizer.json document that encodes as llama.cpp does.

    The vocabulary and merges are the file's; its pre-tokenizer name becomes llama.cpp's regexes as
    isolated ``Split`` stages, then ``ByteLevel`` without its own regex; control tokens become special added
    tokens (llama.cpp matches them in text only when asked to parse special tokens) and user-defined ones
    non-special added tokens (always matched, as llama.cpp does).
    """
    model = meta.get("tokenizer.ggml.model")
    if model != "gpt2":
        kind = "a SentencePiece-style vocabulary" if model == "llama" else f"tokenizer model {model!r}"
        raise GGUFError(f"{source}: {kind}; BPE Lab reads a GGUF's byte-level BPE vocabulary (tokenizer.ggml.model 'gpt2')")
    pre = meta.get("tokenizer.ggml.pre", "default")
    if pre not in PRE_TOKENIZERS:
        raise GGUFError(f"{source}: pre-tokenizer {pre!r} is not one BPE Lab knows ({', '.join(sorted(PRE_TOKENIZERS))})")
    tokens = meta.get("tokenizer.ggml.tokens")
    types = meta.get("tokenizer.ggml.token_type", [NORMAL] * len(tokens or []))
    merges = meta.get("tokenizer.ggml.merges")
    if not isinstance(tokens, list) or not isinstance(merges, list) or len(types) != len(tokens):
        raise GGUFError(f"{source}: tokenizer.ggml.tokens, token_type and merges are missing or do not agree in length")
    vocab: dict[str, int] = {}
    added = []
    for i, (tok, kind) in enumerate(zip(tokens, types)):
        if kind in (CONTROL, USER_DEFINED):
            added.append(
                {"id": i, "content": tok, "single_word": False, "lstrip": False, "rstrip": False,
                 "normalized": False, "special": kind == CONTROL}
            )  # fmt: skip
        vocab.setdefault(tok, i)  # llama.cpp's token_to_id keeps the first of two alike
    # a vocabulary may lack bytes that never occur in UTF-8 text (GPT-NeoX's lacks 0xC0, 0xC1, 0xF5-0xFF); each gets
    # an id after the file's last, so that every byte has a token, and no text encodes to one
    next_id = len(tokens)
    for ch in bytes_to_unicode().values():
        if ch not in vocab:
            vocab[ch] = next_id
            next_id += 1
    splits = [{"type": "Split", "pattern": {"Regex": r}, "behavior": "Isolated", "invert": False} for r in PRE_TOKENIZERS[pre]]
    return {
        "version": "1.0",
        "added_tokens": added,
        "normalizer": None,
        "pre_tokenizer": {
            "type": "Sequence",
            "pretokenizers": [
                *splits,
                {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False},
            ],
        },
        "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False},
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": pre in IGNORE_MERGES,
            "vocab": vocab,
            "merges": merges,
        },
    }


def read_vocab_tests(inp: bytes, out: bytes) -> list[tuple[str, list[int]]]:
    """llama.cpp's test vectors beside a vocabulary file (``.gguf.inp``, ``.gguf.out``), read as
    tests/test-tokenizer-0.cpp reads them: inputs separated by ``\\n__ggml_vocab_test__\\n``, one line of ids each.

    >>> read_vocab_tests(b"a\\n__ggml_vocab_test__\\n b\\n__ggml_vocab_test__\\n", b" 1 2\\n 3\\n")
    [('a', [1, 2]), (' b', [3])]
    """
    sep = b"\n__ggml_vocab_test__\n"
    texts, pos = [], 0
    while pos < len(inp):
        nxt = inp.find(sep, pos)
        if nxt < 0:
            texts.append(inp[pos:])
            break
        texts.append(inp[pos:nxt])
        pos = nxt + len(sep)
    lines = out.decode("utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) != len(texts):
        raise GGUFError(f"{len(texts)} test inputs but {len(lines)} lines of ids")
    return [(t.decode("utf-8"), [int(x) for x in line.split()]) for t, line in zip(texts, lines)]
