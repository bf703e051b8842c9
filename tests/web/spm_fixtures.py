"""SentencePiece-style models, their model files and texts with the Python core's answers, for the node tests of
``ui/web/spm.js``: ``python tests/web/spm_fixtures.py <seed> [names]``.

Prints one JSON document. ``models``: the registered models of this kind (``names``, comma-separated; all of
them by default), each with its model file (``ui/web/model.model_file``, base64), llama.cpp's own test vectors for
its vocabulary (the ``.gguf.inp``/``.gguf.out`` pairs: known answers, read as tests/tokenizer/models/test_llama_cpp.py
reads them) and generated texts. ``small``: tiny vocabularies made for each run, scored (ties between scores,
characters with no piece, so byte fallback, user-defined and control pieces, with and without the dummy prefix) and
ordered by a merge list (a pair listed twice, two merges making one piece, runs of newlines cut off first).

For every text the core's ids with special tokens as text and recognised, and what the server sends the page for
them (``ui/web/payload.server_result``: byte lengths, which are special, the model's view), so the browser's
output is held to the page's whole shape. A new seed each run (the node test prints it on failure), so no expected
id is copied by hand.
"""

from __future__ import annotations

import base64
import json
import random
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "bench"), str(ROOT / "tests" / "web")]

from bpe_fixtures import PIECES  # noqa: E402
from texts import C_LIKE, MULTILINGUAL  # noqa: E402

import tokenizer  # noqa: E402
from tokenizer import load_encoding, registry  # noqa: E402
from tokenizer.bpe.sentencepiece import SPACE, SentencePieceBPE  # noqa: E402
from tokenizer.formats import gguf  # noqa: E402
from tokenizer.models import fetch  # noqa: E402
from tokenizer.models.provision import LLAMA_CPP_TESTS  # noqa: E402
from tokenizer.spm import SentencePieceTokenizer  # noqa: E402
from ui.web import payload  # noqa: E402
from ui.web.model import model_file  # noqa: E402

#: our encoding -> llama.cpp's vocabulary whose test vectors it passes (as tests/tokenizer/models/test_llama_cpp.py)
VECTORS = {"llama2": "llama-spm", "phi3": "phi-3", "gemma4": "gemma-4"}
#: What SentencePiece-style text handling hinges on: spaces and ▁, runs of newlines, every model's special and
#: user-defined pieces, a byte token's spelling, characters no vocabulary has.
SPM_PIECES = [
    " ",
    "  ",
    "    ",
    SPACE,
    SPACE * 3,
    " " + SPACE + " ",
    "\n",
    "\n\n",
    "\n\n\n\n\n",
    " \n ",
    "\t",
    "<unk>",
    "<s>",
    "</s>",
    "<s></s>",
    "<|user|>",
    "<|assistant|>",
    "<|end|>",
    "<|endoftext|>",
    "<|system|>",
    "<bos>",
    "<eos>",
    "<pad>",
    "<|turn>",
    "<turn|>",
    "<|tool_call>",
    '<|"|>',
    "<|channel>",
    "<0x41>",
    "𓀀",
    "\U0001fae8",
    "\u0888",
    "ꙮ",
    "\x00",
    "\ufeff",
]


def random_text(rng: random.Random, pieces: list[str], n: int = 40) -> str:
    out = []
    for _ in range(rng.randint(0, n)):
        r = rng.random()
        if r < 0.45:
            out.append(rng.choice(pieces))
        elif r < 0.7:
            out.append(rng.choice(SPM_PIECES))
        elif r < 0.85:
            out.append(chr(rng.choice([rng.randrange(0x80), rng.randrange(0x3000), rng.randrange(0x110000)])))
        elif r < 0.9:
            out.append(rng.choice("a é你😄 \n▁") * rng.randint(20, 200))
        else:
            out.append(" " + rng.choice(["the", "The", "tokenizer", "Ünïcödé", "naïve", "x"]))
    return "".join(out)


def answers(tok, texts: list[str]) -> dict:
    """The core's ids for each text in both special-token modes, and what the server would send the page."""
    out: dict = {"texts": texts, "ids": [], "recognised": [], "server": []}
    for t in texts:
        ids = tok.encode(t, disallowed_special=())
        out["ids"].append(ids)
        out["recognised"].append(tok.encode(t, allowed_special="all"))
        server = payload.server_result(tok, ids, t, seq=0)
        out["server"].append({k: server[k] for k in ("lens", "special", "chars")} | {"text": server.get("text")})
    return out


def vectors(vocab: str) -> list[tuple[str, list[int]]]:
    inp = LLAMA_CPP_TESTS.get(f"{vocab}-inp", LLAMA_CPP_TESTS["inp"])  # Gemma 4's inputs are its own
    return gguf.read_vocab_tests(fetch.read_verified(inp), fetch.read_verified(LLAMA_CPP_TESTS[vocab]))


def registered(name: str, rng: random.Random) -> dict:
    tok = load_encoding(name)
    cases = vectors(VECTORS[name])
    texts = [MULTILINGUAL, C_LIKE.format(n=2), "", " ", "Hello world", " Hello world", "Hello\n\n\nworld  \n"]
    texts += ["a" * 3000 + " " * 500 + "\n" * 300 + "😄" * 200, "".join(t for t, _ in cases)]
    texts += [random_text(rng, PIECES) for _ in range(40)]
    return {
        "name": name,
        "model": base64.b64encode(model_file(tok)).decode("ascii"),
        "vectors": [{"text": t, "ids": ids} for t, ids in cases],
        **answers(tok, texts),
    }


def float32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def byte_pieces() -> list[str]:
    return [f"<0x{b:02X}>" for b in range(256)]


def small_scored(rng: random.Random, prefix: bool) -> tuple[SentencePieceTokenizer, list[str]]:
    """Pieces joined from a few characters (some with no piece of their own), scores from a small range: many ties."""
    chars = ["a", "b", "c", SPACE, "é", "\n", "你"]
    singles = [c for c in chars if rng.random() < 0.8 or c == SPACE]
    pieces = ["<unk>", "<s>", "</s>", *byte_pieces(), *singles]
    types = [2, 3, 3, *[6] * 256, *[1] * len(singles)]
    seen = set(pieces)
    for _ in range(rng.randint(20, 80)):
        p = "".join(rng.choice(chars) for _ in range(rng.randint(2, 5)))
        if p not in seen:
            seen.add(p)
            pieces.append(p)
            types.append(1)
    pieces += ["<u>", "x", "a<u>"]  # user-defined: found in any text (the one-character one is an ordinary character)
    types += [4, 4, 4]
    # float32 values, as a GGUF keeps them (model_file refuses any other)
    scores = [float(rng.randint(-6, 0)) if rng.random() < 0.7 else float32(rng.uniform(-10, 0)) for _ in pieces]
    model = SentencePieceBPE(pieces, scores, types, add_space_prefix=prefix)
    alphabet = [*chars, " ", "<u>", "<s>", "</s>", "x", "y"]
    texts = ["", " ", "a", "abc abc", "<u>a<u>", "<s> a</s>b", SPACE + "a " + SPACE]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30))) for _ in range(60)]
    texts += ["".join(rng.choice(alphabet) for _ in range(3000))]
    return SentencePieceTokenizer(model, name=f"scored {'prefix' if prefix else 'no prefix'}"), texts


def small_merges(rng: random.Random) -> tuple[SentencePieceTokenizer, list[str]]:
    """A merge list over a few characters: each merge joins two pieces made before it; one pair listed twice and
    pieces made by two merges; runs of newlines that are pieces, as Gemma 4's are."""
    chars = ["a", "b", "c", SPACE, "é", "\n"]
    pieces = ["<pad>", "<eos>", "<bos>", "<unk>", *byte_pieces(), *chars, "\n\n", "\n\n\n"]
    types = [3, 3, 3, 2, *[6] * 256, *[1] * (len(chars) + 2)]
    merges = []
    for _ in range(rng.randint(20, 70)):
        left, right = rng.choice(pieces[260:]), rng.choice(pieces[260:])
        if "\n" in left + right or len(left + right) > 8:
            continue
        merges.append(f"{left} {right}")
        if left + right not in pieces:
            pieces.append(left + right)
            types.append(1)
    merges.insert(rng.randrange(len(merges) + 1), merges[0])  # listed twice: its first place counts
    pieces.append("<turn>")
    types.append(4)
    model = SentencePieceBPE(pieces, [0.0] * len(pieces), types, add_space_prefix=False, merges=merges, split_newlines=True)
    alphabet = [*chars, " ", "\n", "\n\n", "<turn>", "<bos>", "d"]
    texts = ["", "\n", "\n\n\n\n", "a\n\nb", "ab <turn>\n\nc", "<bos>ab"]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30))) for _ in range(60)]
    texts += ["".join(rng.choice(alphabet) for _ in range(3000))]
    return SentencePieceTokenizer(model, name="merge list"), texts


def small(rng: random.Random) -> list[dict]:
    out = []
    for tok, texts in (small_scored(rng, True), small_scored(rng, False), small_merges(rng)):
        out.append({"name": tok.name, "model": base64.b64encode(model_file(tok)).decode("ascii"), **answers(tok, texts)})
    return out


def cases(seed: int, names: list[str]) -> dict:
    tokenizer.configure()
    rng = random.Random(seed)
    return {"seed": seed, "small": small(rng), "models": [registered(n, rng) for n in names]}


if __name__ == "__main__":
    names = (
        sys.argv[2].split(",")
        if len(sys.argv) > 2
        else [n for n in registry.names() if registry.spec(n).source.format == "gguf-spm"]
    )
    json.dump(cases(int(sys.argv[1]), names), sys.stdout, ensure_ascii=True)
