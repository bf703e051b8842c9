"""Step through: replay training merge by merge, or encoding one merge rank at a time.

``model``: what the page computes, as plain data; ``view``: its Streamlit sections.
"""
