"""Print the ten most frequent words of the standard input."""

import re
import sys
from collections import Counter


def top_words(text: str, n: int = 10) -> list[tuple[str, int]]:
    counts = Counter(re.findall(r"[a-z0-9]+", text.lower()))
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:n]


if __name__ == "__main__":
    for word, count in top_words(sys.stdin.read()):
        print(f"{count:5d} {word}")
