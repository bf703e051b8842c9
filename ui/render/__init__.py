"""What the pages draw, built as plain data: escaped HTML, the stylesheet, chart specs.

Nothing here imports Streamlit. Each function takes data (spans, a merge tree, a
DataFrame) and returns an HTML string or a Vega-Lite dict; the page views put it on
screen (``st.html``, ``st.vega_lite_chart``).

- ``spans``: coloured token spans (Tokenize, Compare's rows, Step through, regex chunks)
- ``cards``: Step through's merge cards and the word-building ladder
- ``trees``: a token's merge tree (Vocabulary)
- ``charts``: every chart of the app, one section per page
- ``markdown``: a user's text escaped for the Markdown of messages, captions and labels
- ``style.css``: the one stylesheet for all of the above (``STYLESHEET``), injected
  once per run by ``ui.common.shell.inject_style``
"""

from pathlib import Path

#: The stylesheet for every class the HTML builders here use.
STYLESHEET = Path(__file__).with_name("style.css")
