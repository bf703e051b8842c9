// Print the ten most frequent words of the standard input.
fun topWords(text: String, n: Int = 10): List<Pair<String, Int>> =
    Regex("[a-z0-9]+").findAll(text.lowercase())
        .map { it.value }
        .groupingBy { it }
        .eachCount()
        .toList()
        .sortedWith(compareBy({ -it.second }, { it.first }))
        .take(n)

fun main() {
    val text = generateSequence(::readLine).joinToString("\n")
    for ((word, count) in topWords(text)) {
        println("%5d %s".format(count, word))
    }
}
