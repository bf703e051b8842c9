"""BPE itself: learning merges and applying them.

``textbook.py`` is the algorithm as a textbook writes it (count pairs, merge the most
frequent), a page long; ``encoder.py`` and ``trainer.py`` give exactly its results,
fast; ``merges.py`` is the merge table they share (checked, and recovered from
tiktoken-style ranks).
"""
