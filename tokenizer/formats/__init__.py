"""Tokenizer files: every format BPE Lab reads or writes, one module each.

``files.load`` reads any of them (the format is found from the content) and
``files.save`` writes BPE Lab JSON (``bpe_lab``); ``minbpe``, ``tiktoken``, ``hf``
(Hugging Face tokenizer.json), ``gpt2`` (GPT-2's ``encoder.json`` and ``vocab.bpe``) and
``tekken`` (Mistral's JSON) each read, and where they can write, one format.
"""

from .bpe_lab import dumps, from_json, loads, to_json
from .files import load, load_bytes, save
from .gpt2 import load_gpt2_files
from .hf import from_hf_json, to_hf_json
from .minbpe import dumps_minbpe, load_minbpe, loads_minbpe
from .tiktoken import dumps_tiktoken, parse_tiktoken_ranks, to_tiktoken, to_tiktoken_ranks

__all__ = [
    "to_json",
    "from_json",
    "dumps",
    "loads",
    "save",
    "load",
    "load_bytes",
    "load_minbpe",
    "loads_minbpe",
    "dumps_minbpe",
    "to_tiktoken_ranks",
    "parse_tiktoken_ranks",
    "dumps_tiktoken",
    "to_tiktoken",
    "to_hf_json",
    "from_hf_json",
    "load_gpt2_files",
]
