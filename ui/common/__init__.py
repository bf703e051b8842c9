"""What every page shares.

- ``shell``: the sidebar, the one stylesheet, start-up, and how a page opened first by a link runs through app.py
- ``state``: each page's session-state keys and defaults (``PageState``), and the values pages share
- ``urlstate``: the address bar as a link to what is on screen (Tokenize, Compare, Step through)
- ``tokenizers``: the tokenizers a user can pick, and the picker
- ``workspace``: the ``Store`` protocol of the user's tokenizers and this session's store (the server chooses which)
- ``training``: where a training runs (the page's thread, or the server's worker processes)
- ``cache``: what is kept for every session and what per session (the policy)
- ``errors``: expected failures as a message on the page
- ``draw``: spans, rows, pieces and merge trees, sent as records to the browser's one renderer (``ui/web/draw.js``)
- ``user_text``: the text a user works on (the limit, its modes, the counts); ``upload``: upload limits and decoding

The sample texts and training corpora are in ``ui.content``; the server (the database, the
browser's cookie, the training processes) is the ``classroom`` package, which ``ui`` never imports.
"""
