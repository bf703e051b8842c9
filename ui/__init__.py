"""Streamlit helpers shared by the pages: state, tokenizer choices, spans, charts, workspace.

The tokenizer package computes; this package draws. Pure helpers (``spans``) have
no Streamlit import at module level, so they are tested without a server.
"""
