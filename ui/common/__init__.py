"""What every page shares.

- ``shell``: the sidebar, the one stylesheet, start-up, and how a page opened first by a link runs through app.py
- ``state``: each page's session-state keys and defaults (``PageState``), and the values pages share
- ``urlstate``: the address bar as a link to what is on screen (Tokenize, Compare, Step through)
- ``tokenizers``: the tokenizers a user can pick, and the picker
- ``workspace``: where trained and uploaded tokenizers live (a folder, or the session)
- ``cache``: what is kept for every session and what per session (the policy)
- ``errors``: expected failures as a message on the page
- ``text``, ``samples``, ``corpora``, ``upload``: plain Python (no Streamlit): the text limit and
  counts, the built-in sample texts, the training corpora, upload limits and decoding
"""
