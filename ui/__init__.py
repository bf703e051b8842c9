"""The Streamlit layer of BPE Lab: one package per page, what they share, what they draw.

    ui/<page>/model.py   what the page computes, as plain data (no Streamlit)
    ui/<page>/view.py    the page's widgets and sections (Streamlit); pages/<page>.py calls them
    ui/render/           HTML, the stylesheet and chart specs, built from data (no Streamlit)
    ui/common/           what every page shares: the shell (sidebar, stylesheet, deep links),
                         session and URL state, the tokenizer choices, the workspace, caches,
                         error display, upload limits, the built-in texts and corpora

Pages: tokenize, compare, train, step (Step through), vocabulary. The ``tokenizer``
package computes; this package lays out and draws.
"""
