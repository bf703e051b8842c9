"""Pre-tokenization: cutting text into chunks that BPE never merges across.

``patterns.py`` holds each model's split pattern, ``splitter.py`` runs a pattern (fast,
and under a time limit for custom ones), ``pattern_syntax.py`` works out where a long
text may be cut, ``count.py`` counts a text's chunks for training. A tokenizer.json's
own text handling (normalizer, split stages, added tokens) is ``hf_pipeline.py``, with
its split regexes translated from Oniguruma by ``onig.py``.
"""
