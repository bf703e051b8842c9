"""tokenizer.json files built with Hugging Face ``tokenizers`` itself, and texts to encode with them.

``base_json()`` is a byte-level BPE that ``tokenizers`` trained on our multilingual corpus;
``build(...)`` gives it a normalizer, pre-tokenizer stages, added tokens or model options
through ``tokenizers``' own API, so every file is one ``tokenizers`` writes. ``pair(...)``
loads a file both ways: BPE Lab's Tokenizer and ``tokenizers.Tokenizer``.
"""

from __future__ import annotations

import functools
import json

from hypothesis import strategies as st
from texts import MULTILINGUAL, stdlib_sample
from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

from tokenizer import formats

__all__ = ["AddedToken", "Regex", "normalizers", "pre_tokenizers", "base_json", "build", "pair", "hf_ids", "texts", "FRAGMENTS"]


@functools.lru_cache(maxsize=1)
def base_json() -> str:
    """A byte-level BPE (vocab 1200) trained by ``tokenizers`` on our multilingual text and Python sources."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=1200, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator([MULTILINGUAL * 3, stdlib_sample(60_000), "0123456789 ١٢٣٤ 一二三 ½ ² ﬁ ß é é"], trainer)
    return tok.to_str()


def build(
    *,
    normalizer=None,
    pre_tokenizer=None,
    added=(),
    special=(),
    ignore_merges: bool = False,
    merges_as_strings: bool = False,
    edit=None,
) -> str:
    """The base tokenizer with these parts, as the JSON text ``tokenizers`` writes (``edit`` may change the dict)."""
    tok = Tokenizer.from_str(base_json())
    if normalizer is not None:
        tok.normalizer = normalizer
    tok.pre_tokenizer = pre_tokenizer if pre_tokenizer is not None else pre_tokenizers.ByteLevel(add_prefix_space=False)
    if added:
        tok.add_tokens(list(added))
    if special:
        tok.add_special_tokens(list(special))
    doc = json.loads(tok.to_str())
    if ignore_merges:
        doc["model"]["ignore_merges"] = True
    if merges_as_strings:
        doc["model"]["merges"] = [" ".join(m) for m in doc["model"]["merges"]]
    if edit is not None:
        edit(doc)
    return json.dumps(doc, ensure_ascii=False)


def pair(text_json: str):
    """(our Tokenizer, tokenizers.Tokenizer) of the same file; the reference without truncation or padding."""
    ours = formats.load_bytes(text_json.encode("utf-8"))
    ref = Tokenizer.from_str(text_json)
    ref.no_truncation()
    ref.no_padding()
    return ours, ref


def hf_ids(ref: Tokenizer, text: str, *, specials: bool = True) -> list[int]:
    """tokenizers' ids without post-processing; ``specials=False``: special tokens are text."""
    ref.encode_special_tokens = not specials
    try:
        return ref.encode(text, add_special_tokens=False).ids
    finally:
        ref.encode_special_tokens = False


def assert_like_tokenizers(ours, ref: Tokenizer, text: str) -> None:
    """Ids with special tokens recognised and as text, decoding and the trace's last step, all as ``tokenizers``'s."""
    ids = ours.encode(text, allowed_special="all")
    assert ids == hf_ids(ref, text)
    assert ours.encode_ordinary(text) == hf_ids(ref, text, specials=False)
    assert ours.decode(ids) == ref.decode(ids, skip_special_tokens=False)
    assert ours.encode_trace(text, allowed_special="all").final == ids


# Pieces of text where the pipelines differ: scripts, digits of several kinds, combining
# marks (decomposed and composed), ligatures and case folds, whitespace runs, emoji with
# joiners, contractions, Hangul jamo, and the added-token strings the tests use.
FRAGMENTS = [
    "Hello",
    " world",
    "the",
    " The",
    "  ",
    "   ",
    "\n",
    "\n\n",
    "\r\n",
    "\t",
    " \t ",
    "\u00a0",
    "\u3000",
    "123",
    "4567890",
    "١٢٣",
    "४५६",
    "²³",
    "½",
    "Ⅻ",
    "e\u0301",
    "é",
    "A\u030a",
    "Å",
    "ﬁ",
    "ß",
    "İ",
    "ǅ",
    "Ǆ",
    "한국어",
    "\u1100\u1161\u11a8",
    "你好",
    "世界",
    "こんにちは",
    "カタカナ",
    "😀",
    "👩🏽\u200d💻",
    "\u200d",
    "\u200c",
    "it's",
    "'S",
    "don't",
    "WE'LL",
    "x",
    "_",
    "-",
    "--",
    "...",
    "!!",
    "$5",
    "{}",
    "()",
    "//",
    "/*",
    "*/",
    "<|endoftext|>",
    "<|endoftext|",
    "<think>",
    "</think>",
    "<pad>",
    "[MASK]",
    "\u0345",
    "\u0f73",
    "\U00011938",
    "\u32ff",
    "\ufb03",
    "\u1e9e",
]


def texts(extra: list[str] | tuple[str, ...] = ()):
    """Hypothesis texts: fragments (and ``extra`` strings) in any order, with arbitrary characters between."""
    pieces = st.one_of(st.sampled_from(FRAGMENTS + list(extra)), st.text(max_size=4))
    return st.lists(pieces, max_size=14).map("".join)
