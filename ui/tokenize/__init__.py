"""Tokenize: paste text, pick a tokenizer, see its tokens.

``model``: what the page computes, as plain data; ``view``: its Streamlit sections.
"""
