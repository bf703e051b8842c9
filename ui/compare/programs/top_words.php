<?php
// Print the ten most frequent words of the standard input.

function topWords(string $text, int $n = 10): array
{
    preg_match_all('/[a-z0-9]+/', strtolower($text), $matches);
    $counts = array_count_values($matches[0]);
    uksort($counts, fn($a, $b) => $counts[$b] <=> $counts[$a] ?: strcmp((string) $a, (string) $b));
    return array_slice($counts, 0, $n, true);
}

foreach (topWords(stream_get_contents(STDIN)) as $word => $count) {
    printf("%5d %s\n", $count, $word);
}
