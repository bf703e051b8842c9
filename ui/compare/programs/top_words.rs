// Print the ten most frequent words of the standard input.
use std::collections::HashMap;
use std::io::{self, Read};

fn top_words(text: &str, n: usize) -> Vec<(String, usize)> {
    let mut counts: HashMap<String, usize> = HashMap::new();
    let lower = text.to_lowercase();
    for word in lower.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()) {
        *counts.entry(word.to_string()).or_insert(0) += 1;
    }
    let mut list: Vec<(String, usize)> = counts.into_iter().collect();
    list.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    list.truncate(n);
    list
}

fn main() -> io::Result<()> {
    let mut text = String::new();
    io::stdin().read_to_string(&mut text)?;
    for (word, count) in top_words(&text, 10) {
        println!("{:5} {}", count, word);
    }
    Ok(())
}
