"""The Overlap page: where two or more vocabularies meet (``model``: plain data; ``view``: Streamlit)."""
