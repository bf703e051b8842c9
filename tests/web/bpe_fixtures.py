"""Tokenizers, model files and texts with the Python core's ids, for the node tests of ``ui/web/bpe.js``.

``python tests/web/bpe_fixtures.py <seed>`` prints one JSON document: tokenizers
trained for the occasion on generated text under every built-in pattern, no pattern
and custom ones, plus one built from ranks whose merges build on tokens minted later
and whose whole tokens no merge builds; each with its model file
(``ui/web/model.model_file``, base64) and generated texts (every script, emoji,
combining marks, CRLF, long runs of one character, special-token look-alikes, lone
surrogates) encoded by the core with special tokens as text and recognised. A new
seed each run (the node test prints it on failure), so no expected id is copied by hand.
"""

from __future__ import annotations

import base64
import json
import random
import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from texts import C_LIKE, MULTILINGUAL  # noqa: E402

from tokenizer import Tokenizer, train  # noqa: E402
from tokenizer.bpe.merges import MergeTable  # noqa: E402
from ui.web.model import model_file  # noqa: E402

SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<s>"]
PIECES = [
    *MULTILINGUAL.split(" "),
    "\r\n",
    "\n\n\n",
    "   ",
    "\t",
    "'s",
    "'LL",
    "ſ",
    "K",
    "İ",
    "e\u0301",
    "👩🏽‍💻",
    "🇫🇷",
    "١٢٣",
    "1234567",
    "<|endoftext|>",
    "<|endoftext|",
    "<|im_start|><|im_end|>",
    "<s>",
    "<|",
    "\ud83d",
    "\udc00x",
    "\u0888",
    "\U000323af",
    "\U0003134a",
    "ꟍ",
    "\u1acf",
    "}\n//",
]


def random_text(rng: random.Random) -> str:
    out = []
    for _ in range(rng.randint(0, 40)):
        r = rng.random()
        if r < 0.6:
            out.append(rng.choice(PIECES))
        elif r < 0.75:
            out.append(chr(rng.choice([rng.randrange(0x80), rng.randrange(0x3000), rng.randrange(0x110000)])))
        elif r < 0.8:
            out.append(rng.choice("a é你😄 \n-1") * rng.randint(48, 300))  # long chunks: the heap path
        else:
            out.append(" " + rng.choice(["the", "The", "tokenizer", "Ünïcödé", "naïve", "x"]))
    return "".join(out)


def case(name: str, tok: Tokenizer, texts: list[str]) -> dict:
    return {
        "name": name,
        "model": base64.b64encode(model_file(tok)).decode("ascii"),
        "texts": texts,
        "ids": [tok.encode(t, disallowed_special=()) for t in texts],
        "recognised": [tok.encode(t, allowed_special="all") for t in texts],
    }


def cases(seed: int) -> dict:
    rng = random.Random(seed)
    corpus = MULTILINGUAL * 3 + C_LIKE.format(n=7) + "".join(random_text(rng) for _ in range(30))
    texts = [MULTILINGUAL, C_LIKE.format(n=1), "", "a" * 5000, "  " * 3000 + "x"] + [random_text(rng) for _ in range(60)]
    out = []
    patterns = ["gpt2", "gpt4", "o200k", "llama3", "qwen", "qwen3.5", "tekken", None, r"\w+|\s+|[^\w\s]+", r"(?i:[a-z]+)|\S"]
    for pattern in patterns:
        size = rng.choice([300, 420, 700])
        tok = train(corpus, size, pattern=pattern, special_tokens=SPECIALS, name=f"trained {pattern}")
        out.append(case(f"trained {size} {pattern}", tok, texts))
    # from ranks: "abc" is built from a + bc although bc ranks higher (a merge that builds on a later
    # token); "xyz" and "yzq" are whole tokens, which no merge builds
    ranks = {bytes([b]): b for b in range(256)}
    for t in [b"ab", b"abc", b"bc", b"xyz", b"yz", b"yzq", b"  ", b"    ", b"the", b" the"]:
        ranks.setdefault(t, len(ranks))
    tok = Tokenizer.from_ranks(ranks, pattern="gpt2", special_tokens={"<|endoftext|>": len(ranks)})
    odd = ["abc abcabc xyz xy z yzq yzqq", " the the    the", *texts[:20]]
    out.append(case("from ranks", tok, odd))
    # "abc" is minted by ab + c, yet merging gives a + bc (bc ranks lower): the core takes a chunk "abc"
    # whole anyway when it was told the token encodes to itself (as from_ranks tells it), and so must the browser
    table = MergeTable([(98, 99), (97, 98), (257, 99)], [256, 257, 258])
    tok = Tokenizer._derived(table, pattern="gpt2", self_encoding=frozenset({256, 257, 258}))
    out.append(case("trusted shortcut", tok, ["abc", "abc abcd xabc", "ab bc"]))
    # a model that NFC-normalizes first (as Qwen's package does), as Python's Unicode 14 does it: decomposed
    # text, U+2000/U+2001 (which NFC changes), and code points Python has unassigned that later Unicode
    # versions compose (Gurung Khema, Kirat Rai, Tulu-Tigalari vowel signs: Unicode 16)
    trained = train(corpus, 400, pattern="qwen", special_tokens=SPECIALS, name="nfc")
    tok = Tokenizer(trained.merge_table, pattern="qwen", special_tokens=trained.special_tokens, normalizer="NFC")
    nfc = [
        "e\u0301 n\u0303 A\u030a\u0301 \u1100\u1161\u11a8 \u2000\u2001x\u0301\u2000\u0301 Ω K",
        "\U00016121\U00016121 \U00016d67\U00016d67 \U000113c2\U000113c9 \U000113c2\U000113b8 e\U000113c9\u0301",
        "a\u0301\U000e0001\u0301 <|endoftext|>e\u0301 \ufb2c \u0344",
    ]
    out.append(case("NFC", tok, nfc + [unicodedata.normalize("NFD", t) for t in texts[:30]] + texts[30:]))
    return {"seed": seed, "cases": out}


if __name__ == "__main__":
    json.dump(cases(int(sys.argv[1])), sys.stdout, ensure_ascii=True)
