"""Compare: one text under several tokenizers.

``model``: what the page computes, as plain data; ``view``: its Streamlit sections.
"""
