// Print the ten most frequent words of the standard input.
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class TopWords {
    static List<Map.Entry<String, Integer>> topWords(String text, int n) {
        Map<String, Integer> counts = new HashMap<>();
        Matcher m = Pattern.compile("[a-z0-9]+").matcher(text.toLowerCase());
        while (m.find()) {
            counts.merge(m.group(), 1, Integer::sum);
        }
        return counts.entrySet().stream()
            .sorted(Map.Entry.<String, Integer>comparingByValue().reversed()
                .thenComparing(Map.Entry.comparingByKey()))
            .limit(n)
            .toList();
    }

    public static void main(String[] args) throws IOException {
        String text = new String(System.in.readAllBytes());
        for (Map.Entry<String, Integer> e : topWords(text, 10)) {
            System.out.printf("%5d %s%n", e.getValue(), e.getKey());
        }
    }
}
