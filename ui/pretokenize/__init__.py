"""Pre-tokenize: what the split regex does to a text before BPE merges anything.

``model``: what the page computes, as plain data; ``view``: its Streamlit sections.
"""
