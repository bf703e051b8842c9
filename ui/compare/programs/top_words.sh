#!/usr/bin/env bash
# Print the ten most frequent words of the standard input.
set -euo pipefail

tr '[:upper:]' '[:lower:]' |
  tr -cs 'a-z0-9' '\n' |
  grep -v '^$' |
  sort |
  uniq -c |
  sort -k1,1nr -k2,2 |
  head -n 10 |
  awk '{ printf "%5d %s\n", $1, $2 }'
