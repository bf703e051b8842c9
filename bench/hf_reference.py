"""Hugging Face tokenizers as the training reference: the same GPT-4 split, then ByteLevel, one thread."""

from __future__ import annotations

import os

os.environ["RAYON_NUM_THREADS"] = "1"  # before tokenizers is imported: one thread, like ours
os.environ["TOKENIZERS_PARALLELISM"] = "false"

from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers

from tokenizer.formats.hf import hf_pattern
from tokenizer.pretokenize.patterns import GPT4_PATTERN


def hf_train(text: str, vocab_size: int) -> Tokenizer:
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(hf_pattern(GPT4_PATTERN)), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False
    )
    tok.train_from_iterator([text], trainer)
    return tok
