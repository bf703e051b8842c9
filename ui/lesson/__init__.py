"""The Lesson page: the BPE story in nine chapters, with questions the app checks."""
