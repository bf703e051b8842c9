"""BPE Lab's server: everything a running app needs besides its pages.

Dependencies run ``classroom -> ui -> tokenizer``, never back (tests/test_architecture.py):
``ui`` defines what it needs (``ui.common.workspace.Store``, ``ui.common.training``) and
this package provides it, chosen once at start-up.

- ``asgi``: the start-up and the ``st.App`` that ``serve.py`` hands to ``streamlit run``
- ``identity``: each browser's key, in an HttpOnly cookie, and the middleware that mints it
- ``workspaces``: which store each session gets (a folder, a browser's workspace in the database, the tab's memory)
- ``stores``: the memory and folder stores; ``database``: the database store (SQLite or PostgreSQL)
- ``workers``: training in worker processes on a shared server
- ``deploy``: ``make serve`` (``python -m classroom``): app processes behind nginx (``nginx.conf.in``), supervised
"""
