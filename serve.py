"""What ``streamlit run serve.py`` starts (``make run``, and every app process of ``make serve``).

BPE Lab's pages (``app.py``) as a public ``st.App``, after the server's start-up
(``classroom.asgi.start``): it chooses where tokenizers are kept and trainings run,
loads the official encodings before the server answers (``make run`` prints a line
meanwhile), and in shared mode checks the database and turns on the browser-key
middleware. ``streamlit run`` finds the ``st.App`` by reading this file, so the call
stays here, written out.
"""

import streamlit as st

from classroom import asgi

app = st.App("app.py", middleware=asgi.start())
