// Print the ten most frequent words of the standard input.
import { readFileSync } from "node:fs";

function topWords(text, n = 10) {
  const counts = new Map();
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, n);
}

for (const [word, count] of topWords(readFileSync(0, "utf8"))) {
  console.log(`${String(count).padStart(5)} ${word}`);
}
