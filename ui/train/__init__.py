"""Train: learn a byte-level BPE tokenizer and manage your tokenizers.

``model``: what the page computes, as plain data; ``view``: its Streamlit sections.
"""
