"""The texts BPE Lab offers, plain Python (no Streamlit).

- ``samples``: the built-in sample texts of Tokenize and Compare
- ``corpora``: the training corpora of Train and Step through (the seeds' classics, short texts of our own,
  and larger corpora read at run time from this machine's Python standard library)
"""
