/* Print the ten most frequent words of the standard input. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WORDS 10000
#define MAX_LEN 64

struct entry {
    char word[MAX_LEN];
    int count;
};

static struct entry entries[MAX_WORDS];
static int n_entries = 0;

static void add_word(const char *word) {
    for (int i = 0; i < n_entries; i++) {
        if (strcmp(entries[i].word, word) == 0) {
            entries[i].count++;
            return;
        }
    }
    if (n_entries < MAX_WORDS) {
        strcpy(entries[n_entries].word, word);
        entries[n_entries].count = 1;
        n_entries++;
    }
}

static int by_count(const void *a, const void *b) {
    const struct entry *x = a, *y = b;
    if (x->count != y->count) {
        return y->count - x->count;
    }
    return strcmp(x->word, y->word);
}

int main(void) {
    char word[MAX_LEN];
    int len = 0, c;
    while ((c = getchar()) != EOF) {
        if (c < 128 && isalnum(c)) {
            if (len < MAX_LEN - 1) {
                word[len++] = (char)tolower(c);
            }
        } else if (len > 0) {
            word[len] = '\0';
            add_word(word);
            len = 0;
        }
    }
    if (len > 0) {
        word[len] = '\0';
        add_word(word);
    }
    qsort(entries, n_entries, sizeof entries[0], by_count);
    for (int i = 0; i < n_entries && i < 10; i++) {
        printf("%5d %s\n", entries[i].count, entries[i].word);
    }
    return 0;
}
