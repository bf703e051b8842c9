"""Cases for the node tests of the browser code, with the Python core's answers: ``python tests/web/fixtures.py <kind> <seed>``.

The node tests (tests/web/*.test.mjs) run this with a seed of their own and compare
what the JavaScript gives for each case with what Python gave, so no expected string
is ever copied by hand. Prints one JSON document.

* ``replay``: Step through's payloads (``ui/step/payload.py``) with ``ui/step/model.py``'s
  view at every step, for tokenizers trained on random text and for official ones.
* ``spans``: token bytes of every kind (random bytes, partial characters, controls,
  whitespace, CJK, emoji, combining marks, unassigned and private-use code points,
  markup) through ``tokenizer/display.py``, Python's ``repr`` and ``html.escape``; the palette slot of ids of
  any size, and the neighbour table ``ui/render/colours.py`` computes for the palette.
"""

from __future__ import annotations

import html
import json
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests import step_reference as reference  # noqa: E402
from tokenizer.display import visible  # noqa: E402
from ui.render.colours import confusable  # noqa: E402

#: The browser's palette (ui/web/spans.js), the one the renderer draws with.
PALETTE = json.loads(re.search(r"export const PALETTE = (\[[^\]]*\]);", (ROOT / "ui/web/spans.js").read_text()).group(1))

#: Code points of every kind a token can hold.
POOLS = (
    [*range(0x20, 0x7F)],  # ASCII
    [0x09, 0x0A, 0x0D, 0x20, 0x0B, 0x0C, 0x00, 0x01, 0x1B, 0x7F, 0x85, 0xA0, 0xAD],  # whitespace and controls
    [*range(0xA1, 0x250)],  # Latin
    [0x300, 0x301, 0x308, 0x20DD, 0x200B, 0x200C, 0x200D, 0x2028, 0x2029, 0xFEFF, 0x202E, 0x2066, 0xFE0F],  # marks, format
    [*range(0x4E00, 0x4E80), *range(0xAC00, 0xAC40), *range(0x3040, 0x30A0)],  # CJK, Hangul, kana
    [
        0x1F600,
        0x1F923,
        0x1F9D0,
        0x1F44D,
        0x1F3FD,
        0x1F1FA,
        0x1F1F8,
        0x1FAE8,
        0x1FAF8,
        0x1F6DC,
    ],  # emoji, some newer than Python's tables
    [0x378, 0x38B, 0xFFFE, 0xFFFF, 0xE000, 0xF8FF, 0xF0000, 0x10FFFD, 0x0E01, 0x0E3F, 0x10FFFF],  # unassigned, private use
    [ord(c) for c in "<>&\"'/=;"],  # markup
)


def random_text(rng: random.Random, n: int) -> str:
    out = []
    for _ in range(n):
        if rng.random() < 0.15:
            cp = rng.randrange(0x110000)  # anywhere at all
        else:
            cp = rng.choice(rng.choice(POOLS))
        if 0xD800 <= cp <= 0xDFFF:
            continue  # a surrogate is not a character UTF-8 can hold
        out.append(chr(cp))
    return "".join(out)


def random_token(rng: random.Random) -> bytes:
    """A token's bytes: whole characters, a cut through a character, or any bytes."""
    kind = rng.random()
    if kind < 0.15:
        return bytes(rng.randrange(256) for _ in range(rng.randint(1, 6)))
    data = random_text(rng, rng.randint(1, 5)).encode("utf-8")
    if kind < 0.4 and len(data) > 1:
        a = rng.randrange(len(data))
        b = rng.randrange(a + 1, len(data) + 1)
        return data[a:b]
    return data or b"x"


def spans_cases(seed: int) -> dict:
    rng = random.Random(seed)
    tokens = [random_token(rng) for _ in range(400)]
    tokens += [
        b"<script>alert('x')</script>",
        b'" onmouseover="x',
        b"&amp; & &lt;",
        b"\xf0\x9f",
        b"\x9f\x98\x84",
        b"",
        b" \n\t\r",
    ]
    out: dict = {"seed": seed}
    out["visible"] = [{"bytes": t.hex(), "text": visible(t), "plain": visible(t, whitespace=False)} for t in tokens]
    out["repr"] = [
        {"text": s, "repr": repr(s)}
        for s in [random_text(rng, rng.randint(0, 8)) for _ in range(300)] + ["it's", 'say "hi"', 'it\'s "both"', "\\"]
    ]
    out["escape"] = [{"text": s, "html": html.escape(s)} for s in ["<script>alert(1)</script>", "a & b", "\"q\" 'q'", "plain"]]
    big = [rng.choice([rng.randrange(256), rng.randrange(100_000), rng.randrange(3_500_000), 2**31 - 1]) for _ in range(2000)]
    out["slots"] = [{"id": i, "slot": (i * 2654435761 >> 7) % len(PALETTE)} for i in big]
    out["clear"] = [[j for j, b in enumerate(PALETTE) if not confusable(a, b)] for a in PALETTE]
    out["fmt"] = [{"n": n, "s": f"{n:,}"} for n in (0, 7, 999, 1000, 12345, 1234567, -1234, 10**12)]
    return out


def _view_json(view, spans_) -> dict:
    return {
        "ids": [s.id for s in spans_],
        "starts": [s.byte_start for s in spans_],
        "highlight": sorted(view.highlight),
        "cuts": sorted(view.cuts),
    }


def replay_cases(seed: int) -> dict:
    """Payloads (ui/step/payload.py) of trained and official tokenizers, with ui/step/model.py's view at every step."""
    from tokenizer import load_encoding, train
    from ui.step import model, payload

    rng = random.Random(seed)
    corpus = random_text(rng, 300) + " the cat in the hat, aaabdaaabac Honolulu 你好 😄\n" * 8
    text = "Show how tokenization is built: Hello 你好 😄 .:.: việc  \n\t " + random_text(rng, 60)
    out: dict = {"seed": seed, "cases": []}
    for pattern in ("gpt4", None):
        tok = train(corpus, 256 + rng.randint(20, 120), pattern=pattern, special_tokens=["<|endoftext|>"])
        excerpt = corpus[:200] + "<|endoftext|>" + corpus[200:500]
        etrace = model.excerpt_trace(tok, excerpt)
        p = payload.training_payload(tok, tok.training, etrace, corpus_chars=len(corpus))
        views = []
        for k in range(tok.num_merges + 1):
            v = reference.training_view(tok, tok.training, etrace, k)
            views.append(
                _view_json(v, v.spans)
                | {
                    "last": [*v.last.pair, v.last.new_id, v.last.count] if v.last else None,
                    "next": [*v.next.pair, v.next.new_id, v.next.count] if v.next else None,
                    "nextInExcerpt": v.next_in_excerpt,
                    "tokens": v.tokens,
                    "tokensBefore": v.tokens_before,
                }
            )
        vocab = {i: tok.vocab[i].hex() for i in range(256 + tok.num_merges)}
        out["cases"].append(
            {"name": f"trained {pattern}", "payload": json.loads(payload.dumps(p)[1]), "views": views, "vocab": vocab}
        )
    out["cases"] += variant_cases(rng, corpus)
    for name, allowed in (("cl100k_base", frozenset()), ("llama3", "all")):
        tok = load_encoding(name)
        trace = tok.encode_trace(text + "<|begin_of_text|>" + "<|endoftext|>", allowed_special=allowed)
        p = payload.encoding_payload(tok, trace)
        views = []
        for j in range(len(trace.steps) + 1):
            v = reference.encoding_view(trace, j)
            step = lambda s: [s.step, s.rank, s.new_id, *s.pair, s.count, s.n_tokens] if s else None  # noqa: E731
            views.append(_view_json(v, v.spans) | {"step": step(v.step), "upcoming": step(v.upcoming)})
        lengths = reference.encode_lengths(trace)
        out["cases"].append({"name": name, "payload": json.loads(payload.dumps(p)[1]), "views": views, "lengths": lengths})
    return out


def variant_cases(rng: random.Random, corpus: str) -> list[dict]:
    """The training variants' payloads, with the model's view at every step (the text cut as that step's stage
    cut it) and what the page says each step does differently (``model.variant_note``, ``counted_in``)."""
    from tokenizer import train
    from tokenizer.bpe.continued import train_continued
    from tokenizer.bpe.parity import join_parallel, train_parity
    from tokenizer.bpe.superwords import train_superwords
    from ui.step import model, payload

    words = "of the cat and of the dog in the house of the king ".split()
    prose = " ".join(rng.choice(words) for _ in range(300)) + "\n"
    texts = {
        "English": prose,
        "Ελληνικά": random_text(rng, 150) + " της γάτας και του σκύλου " * 6,
        "<b>x</b>": random_text(rng, 150) + " 你好 世界 " * 8,
    }
    base = train(corpus, 256 + rng.randint(10, 40), pattern="gpt4", name="base <one>")
    size = 256 + rng.randint(40, 90)
    made = [
        ("parity", train_parity(texts, size, pattern="gpt4"), join_parallel(texts)),
        ("superwords", train_superwords(prose, size, "gpt4", transition=256 + rng.randint(5, 35)), prose),
        ("continued", train_continued(prose, base.n_vocab + rng.randint(5, 30), base=base), prose),
    ]
    out = []
    for name, tok, text in made:
        excerpt = text[:600]
        trace = tok.training
        etrace = model.excerpt_trace(tok, excerpt)
        p = payload.training_payload(tok, trace, etrace, corpus_chars=len(text))
        views = []
        for k in range(tok.num_merges + 1):
            v = reference.training_view(tok, trace, model.excerpt_trace(model.stage_tokenizer(tok, trace, k), excerpt), k)
            views.append(
                _view_json(v, v.spans)
                | {
                    "last": [*v.last.pair, v.last.new_id, v.last.count] if v.last else None,
                    "next": [*v.next.pair, v.next.new_id, v.next.count] if v.next else None,
                    "nextInExcerpt": v.next_in_excerpt,
                    "tokens": v.tokens,
                    "tokensBefore": v.tokens_before,
                    "note": model.variant_note(tok, trace, k),
                    "countedIn": model.counted_in(trace, k),
                    "languages": [list(x) for x in trace.language_tokens_at(k).items()] if name == "parity" else None,
                }
            )
        out.append({"name": f"variant {name}", "payload": json.loads(payload.dumps(p)[1]), "views": views})
    return out


KINDS = {"spans": spans_cases, "replay": replay_cases}


def main() -> None:
    kind, seed = sys.argv[1], int(sys.argv[2])
    json.dump(KINDS[kind](seed), sys.stdout, ensure_ascii=True)


if __name__ == "__main__":
    main()
