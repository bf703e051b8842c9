"""BPE Lab's shared byte-level BPE core: train, encode, decode, trace, load, save.

Nothing here imports Streamlit: the package returns data and the pages render it.

>>> from tokenizer import train
>>> train("aaabdaaabac", 259, pattern=None).encode("aaabdaaabac")
[258, 100, 258, 97, 99]
"""

from .bpe import Tokenizer, clean_text
from .display import gpt2_form, hex_bytes, visible
from .formats import from_json, load, load_minbpe, save, to_hf_json, to_json, to_tiktoken, to_tiktoken_ranks
from .patterns import GPT2_PATTERN, GPT4_PATTERN, O200K_PATTERN, PATTERNS, Splitter, validate_pattern
from .pretrained import load_encoding, load_gpt2_files
from .provision import use_cache_dir as _use_cache_dir
from .trace import EncodeStep, EncodeTrace, Merge, MergeTree, PairCount, Span
from .trainer import TrainingTrace, count_chunks, train

# tiktoken reads its rank files from here, so the reference encoders work offline too
_use_cache_dir()

__all__ = [
    "Tokenizer",
    "train",
    "load_encoding",
    "load_gpt2_files",
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
    "visible",
    "hex_bytes",
    "gpt2_form",
    "clean_text",
    "GPT2_PATTERN",
    "GPT4_PATTERN",
    "O200K_PATTERN",
    "PATTERNS",
]
