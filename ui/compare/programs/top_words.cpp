// Print the ten most frequent words of the standard input.
#include <algorithm>
#include <cctype>
#include <iomanip>
#include <iostream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

std::vector<std::pair<std::string, int>> top_words(const std::string& text, std::size_t n = 10) {
    std::map<std::string, int> counts;
    std::string word;
    for (char ch : text + ' ') {
        unsigned char c = static_cast<unsigned char>(ch);
        if (c < 128 && std::isalnum(c)) {
            word += static_cast<char>(std::tolower(c));
        } else if (!word.empty()) {
            ++counts[word];
            word.clear();
        }
    }
    std::vector<std::pair<std::string, int>> sorted(counts.begin(), counts.end());
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    sorted.resize(std::min(n, sorted.size()));
    return sorted;
}

int main() {
    std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    for (const auto& [word, count] : top_words(text)) {
        std::cout << std::setw(5) << count << ' ' << word << '\n';
    }
}
