"""Vocabulary: browse a tokenizer's tokens, their merge trees, the unused ones.

``model``: what the page computes, as plain data; ``view``: its Streamlit sections.
"""
