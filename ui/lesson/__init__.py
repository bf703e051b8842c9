"""The Lesson page: the story of BPE in chapters, with questions the app checks (``follow``: the lesson in a class)."""
