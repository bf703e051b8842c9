// Print the ten most frequent words of the standard input.
using System;
using System.Linq;
using System.Text.RegularExpressions;

class TopWords
{
    static (string Word, int Count)[] Top(string text, int n = 10) =>
        Regex.Matches(text.ToLowerInvariant(), "[a-z0-9]+")
            .GroupBy(m => m.Value)
            .Select(g => (Word: g.Key, Count: g.Count()))
            .OrderByDescending(p => p.Count)
            .ThenBy(p => p.Word, StringComparer.Ordinal)
            .Take(n)
            .ToArray();

    static void Main()
    {
        foreach (var (word, count) in Top(Console.In.ReadToEnd()))
        {
            Console.WriteLine($"{count,5} {word}");
        }
    }
}
