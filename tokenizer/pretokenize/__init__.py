"""Pre-tokenization: cutting text into chunks that BPE never merges across.

``pretokenizer.py`` is the one interface a Tokenizer asks (``RegexPreTokenizer``: special
tokens cut out, a model's normal form, then a split pattern); ``hf.py`` is a tokenizer.json's
own text handling, run by Hugging Face ``tokenizers``. ``patterns.py`` holds each model's split
pattern, ``splitter.py`` runs a pattern (fast, and under a time limit for custom ones),
``pattern_syntax.py`` works out where a long text may be cut, ``count.py`` counts a text's
chunks for training.
"""
