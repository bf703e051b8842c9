// Print the ten most frequent words of the standard input.
import Foundation

func topWords(_ text: String, _ n: Int = 10) -> [(word: String, count: Int)] {
    var counts: [String: Int] = [:]
    let words = text.lowercased().split { !($0.isASCII && ($0.isLetter || $0.isNumber)) }
    for word in words {
        counts[String(word), default: 0] += 1
    }
    let sorted = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
    return sorted.prefix(n).map { (word: $0.key, count: $0.value) }
}

let text = String(data: FileHandle.standardInput.readDataToEndOfFile(), encoding: .utf8) ?? ""
for (word, count) in topWords(text) {
    print(String(format: "%5d ", count) + word)
}
