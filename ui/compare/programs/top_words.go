// Print the ten most frequent words of the standard input.
package main

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
)

type wordCount struct {
	word  string
	count int
}

func topWords(text string, n int) []wordCount {
	counts := map[string]int{}
	for _, word := range regexp.MustCompile(`[a-z0-9]+`).FindAllString(strings.ToLower(text), -1) {
		counts[word]++
	}
	list := make([]wordCount, 0, len(counts))
	for word, count := range counts {
		list = append(list, wordCount{word, count})
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].count != list[j].count {
			return list[i].count > list[j].count
		}
		return list[i].word < list[j].word
	})
	if len(list) > n {
		list = list[:n]
	}
	return list
}

func main() {
	data, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, wc := range topWords(string(data), 10) {
		fmt.Printf("%5d %s\n", wc.count, wc.word)
	}
}
