# Print the ten most frequent words of the standard input.
def top_words(text, n = 10)
  counts = Hash.new(0)
  text.downcase.scan(/[a-z0-9]+/) { |word| counts[word] += 1 }
  counts.sort_by { |word, count| [-count, word] }.first(n)
end

top_words($stdin.read).each do |word, count|
  puts format("%5d %s", count, word)
end
