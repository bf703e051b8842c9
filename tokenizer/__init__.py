"""BPE Lab's shared byte-level BPE core: train, encode, decode, trace, load, save.

Nothing here imports Streamlit: the package returns data and the pages render it.
Importing it changes nothing outside it: ``configure()`` points tiktoken at the
provisioned files, once, at start-up.

>>> from tokenizer import train
>>> train("aaabdaaabac", 259, pattern=None).encode("aaabdaaabac")
[258, 100, 258, 97, 99]
"""

from . import registry
from .bpe import Tokenizer, clean_text
from .display import gpt2_form, hex_bytes, visible
from .fetch import configure
from .formats import from_json, load, load_minbpe, save, to_hf_json, to_json, to_tiktoken, to_tiktoken_ranks
from .patterns import GPT2_PATTERN, GPT4_PATTERN, O200K_PATTERN, PATTERNS, Splitter, TimeBudget, time_limit, validate_pattern
from .pretrained import load_encoding, load_gpt2_files
from .registry import EncodingSpec, FileSource
from .trace import EncodeStep, EncodeTrace, Merge, MergeTree, PairCount, Span
from .trainer import TrainingTrace, count_chunks, train

__all__ = [
    "Tokenizer",
    "train",
    "load_encoding",
    "load_gpt2_files",
    "configure",
    "registry",
    "EncodingSpec",
    "FileSource",
    "load",
    "save",
    "load_minbpe",
    "to_json",
    "from_json",
    "to_tiktoken",
    "to_tiktoken_ranks",
    "to_hf_json",
    "count_chunks",
    "TrainingTrace",
    "Merge",
    "Span",
    "EncodeStep",
    "EncodeTrace",
    "PairCount",
    "MergeTree",
    "Splitter",
    "validate_pattern",
    "time_limit",
    "TimeBudget",
    "visible",
    "hex_bytes",
    "gpt2_form",
    "clean_text",
    "GPT2_PATTERN",
    "GPT4_PATTERN",
    "O200K_PATTERN",
    "PATTERNS",
]
