"""BPE Lab's shared byte-level BPE core: train, encode, decode, trace, load, save.

The package is laid out by stage, as a text goes through it (and as Hugging Face
tokenizers lays out its own):

- ``special``: special tokens, cut out of the text first (tiktoken's rules);
- ``pretokenize/``: the split patterns and cutting text into chunks;
- ``bpe/``: the merges: the textbook algorithm (``bpe/textbook.py``, a page long),
  the fast encoder and trainer that give exactly its results;
- ``core``: the ``Tokenizer``, which puts the stages together;
- ``models/``: the registered encodings (OpenAI's and the open models'), their files
  and set-up; ``formats/``: every file format read or written;
- ``trace``, ``display``, ``errors``: the records the pages draw, readable bytes, and
  the checks every public function runs first; ``cli``: ``python -m tokenizer``.

Nothing here imports Streamlit: the package returns data and the pages render it.
Importing it changes nothing outside it: ``configure()`` points tiktoken at the
provisioned files, once, at start-up.

>>> from tokenizer import train
>>> train("aaabdaaabac", 259, pattern=None).encode("aaabdaaabac")
[258, 100, 258, 97, 99]
"""

from .bpe.methods import train_with
from .bpe.trainer import TrainingTrace, train
from .core import Tokenizer
from .display import gpt2_form, hex_bytes, visible
from .errors import clean_text
from .formats.bpe_lab import from_json, to_json
from .formats.files import load, save
from .formats.gpt2 import load_gpt2_files
from .formats.hf import to_hf_json
from .formats.minbpe import load_minbpe
from .formats.tiktoken import to_tiktoken, to_tiktoken_ranks
from .models import registry
from .models.fetch import configure
from .models.pretrained import load_encoding
from .models.registry import EncodingSpec, FileSource
from .pretokenize.count import count_chunks
from .pretokenize.patterns import GPT2_PATTERN, GPT4_PATTERN, O200K_PATTERN, PATTERNS
from .pretokenize.splitter import Splitter, TimeBudget, time_limit, validate_pattern
from .protocol import TokenizerLike
from .trace import EncodeStep, EncodeTrace, Merge, MergeTree, PairCount, Span

__all__ = [
    "Tokenizer",
    "TokenizerLike",
    "train",
    "train_with",
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
