"""``python -m tokenizer train|encode|decode|compare|export|provision``.

Examples::

    python -m tokenizer train corpus.txt --vocab-size 1024 -o my.json
    python -m tokenizer encode --tokenizer cl100k_base "Hello world"
    python -m tokenizer decode --tokenizer my.json 72 101 108 108 111
    python -m tokenizer compare --file README.md gpt2 cl100k_base o200k_base my.json

Training reads the corpus in blocks: with a built-in split pattern, memory grows
with the number of unique chunks, not with the size of the file.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from . import formats, registry
from .bpe import Tokenizer
from .display import visible
from .fetch import configure
from .pretrained import load_encoding
from .provision import provision_all
from .trainer import train

BLOCK_CHARS = 1 << 20


class ProgressBar:
    """A one-line text progress bar on stderr (no dependency, works without a tty)."""

    def __init__(self, label: str, stream=None, width: int = 30):
        self.label, self.stream, self.width = label, stream or sys.stderr, width
        self.t0 = time.perf_counter()
        self.last = -1.0

    def __call__(self, done: int, total: int) -> None:
        frac = 1.0 if total <= 0 else min(1.0, done / total)
        now = time.perf_counter()
        if frac < 1.0 and now - self.last < 0.1:
            return
        self.last = now
        bar = "#" * int(frac * self.width)
        self.stream.write(f"\r{self.label} [{bar:<{self.width}}] {done}/{total} merges  {now - self.t0:5.1f}s")
        if frac >= 1.0:
            self.stream.write("\n")
        self.stream.flush()


def read_blocks(path: Path, errors: str = "strict") -> Iterator[str]:
    """The file's text in blocks of about a million characters."""
    with open(path, encoding="utf-8", errors=errors, newline="") as f:
        while True:
            block = f.read(BLOCK_CHARS)
            if not block:
                return
            yield block


def resolve_tokenizer(name: str) -> Tokenizer:
    """A registered encoding (name or alias) or a path to a tokenizer file."""
    try:
        registry.spec(name)
    except ValueError:
        path = Path(name)
        if not path.exists():
            raise ValueError(f"{name!r} is neither an encoding ({', '.join(registry.names())}) nor an existing tokenizer file") from None
        return formats.load(path)
    return load_encoding(name)


def _text_arg(args) -> str:
    if args.file:
        return Path(args.file).read_text(encoding="utf-8")
    if args.text is None:
        if sys.stdin.isatty():
            raise ValueError("give the text as an argument, with --file, or on standard input")
        return sys.stdin.read()
    return args.text


def cmd_train(args) -> int:
    path = Path(args.corpus)
    if not path.exists():
        raise ValueError(f"corpus file {path} does not exist")
    errors = "replace" if args.replace_errors else "strict"
    pattern = None if args.pattern == "none" else args.pattern
    text = [read_blocks(path, errors)]  # one document, read in blocks; training cuts it only where the pattern allows
    bar = ProgressBar("training") if not args.quiet else None
    try:
        tok = train(text, args.vocab_size, pattern=pattern, special_tokens=args.special or None, progress=bar, name=args.name or path.stem)
    except UnicodeDecodeError as e:
        raise ValueError(f"{path} is not UTF-8 (byte {e.start} of a block); pass --replace-errors to decode with replacement characters") from None
    out = Path(args.output or f"{path.stem}-{args.vocab_size}.json")
    formats.save(tok, out)
    md = tok.metadata
    print(
        f"saved {out}: {md['merges_learned']} merges on {md['corpus_bytes']:,} bytes "
        f"({md['unique_chunks']:,} unique chunks) in {md['seconds']:.2f}s; "
        f"{md['tokens_before']:,} -> {md['tokens_after']:,} tokens ({md['tokens_before'] / max(1, md['tokens_after']):.2f}x)"
    )
    return 0


def cmd_encode(args) -> int:
    tok = resolve_tokenizer(args.tokenizer)
    text = _text_arg(args)
    allowed = "all" if args.allow_special else set()
    ids = tok.encode(text, allowed_special=allowed, disallowed_special=())
    if args.tokens:
        for s in tok.spans(ids):
            print(f"{s.id}\t{visible(s.bytes)}")
    else:
        print(json.dumps(ids) if args.json else " ".join(map(str, ids)))
    return 0


def cmd_decode(args) -> int:
    tok = resolve_tokenizer(args.tokenizer)
    ids = []
    for x in args.ids:
        for part in x.replace(",", " ").replace("[", " ").replace("]", " ").split():
            if not part.lstrip("-").isdigit():
                raise ValueError(f"{part!r} is not a token id: give whole numbers, e.g. 15339 1917")
            ids.append(int(part))
    sys.stdout.write(tok.decode(ids) + ("\n" if not args.raw else ""))
    return 0


def cmd_compare(args) -> int:
    text = _text_arg(args)
    n_chars = len(text)
    n_bytes = len(text.encode("utf-8", "surrogatepass"))
    rows = []
    for spec in args.tokenizers:
        tok = resolve_tokenizer(spec)
        ids = tok.encode(text, disallowed_special=())
        rows.append((spec, len(ids), n_chars / max(1, len(ids)), n_bytes / max(1, len(ids)), len(set(ids))))
    print(f"{'tokenizer':<24}{'tokens':>10}{'chars/tok':>11}{'bytes/tok':>11}{'unique':>9}")
    for name, n, cpt, bpt, uniq in rows:
        print(f"{name:<24}{n:>10}{cpt:>11.2f}{bpt:>11.2f}{uniq:>9}")
    return 0


def cmd_export(args) -> int:
    tok = resolve_tokenizer(args.tokenizer)
    out = Path(args.output)
    if args.format == "json":
        formats.save(tok, out)
    elif args.format == "tiktoken":
        out.write_bytes(formats.dumps_tiktoken(tok))
    elif args.format == "hf":
        out.write_text(json.dumps(formats.to_hf_json(tok), ensure_ascii=False), encoding="utf-8")
    elif args.format == "minbpe":
        out.write_text(formats.dumps_minbpe(tok), encoding="utf-8")
    print(f"wrote {out}")
    return 0


def cmd_provision(args) -> int:
    provision_all()
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m tokenizer", description="BPE Lab's byte-level BPE tokenizer")
    sub = p.add_subparsers(dest="command", required=True)

    t = sub.add_parser("train", help="train a tokenizer on a UTF-8 text file")
    t.add_argument("corpus")
    t.add_argument("--vocab-size", type=int, required=True, help="256 + number of merges")
    t.add_argument("--pattern", default="gpt4", help="none, gpt2, gpt4, o200k or a regex (default gpt4)")
    t.add_argument("--special", action="append", help="a special token, e.g. '<|endoftext|>' (repeatable)")
    t.add_argument("--name", help="a name stored in the file")
    t.add_argument("-o", "--output", help="output file (BPE Lab JSON)")
    t.add_argument("--replace-errors", action="store_true", help="decode invalid UTF-8 as U+FFFD instead of failing")
    t.add_argument("-q", "--quiet", action="store_true")
    t.set_defaults(func=cmd_train)

    for name, func, helptext in (("encode", cmd_encode, "text to ids"), ("compare", cmd_compare, "token counts under several tokenizers")):
        e = sub.add_parser(name, help=helptext)
        if name == "encode":
            e.add_argument("--tokenizer", "-t", required=True, help=f"an encoding ({', '.join(registry.names())}, or an alias such as gpt2) or a file")
            e.add_argument("--json", action="store_true", help="print the ids as a JSON list")
            e.add_argument("--tokens", action="store_true", help="print one token per line: id and visible text")
            e.add_argument("--allow-special", action="store_true", help="encode special-token strings as special tokens")
        else:
            e.add_argument("tokenizers", nargs="+", help="encodings or tokenizer files")
        e.add_argument("--text", dest="text", help="the text (else --file or stdin)")
        e.add_argument("--file", "-f", help="read the text from this file")
        e.set_defaults(func=func)
    enc = sub.choices["encode"]
    enc.add_argument("positional_text", nargs="?", help="the text")

    d = sub.add_parser("decode", help="ids to text")
    d.add_argument("--tokenizer", "-t", required=True)
    d.add_argument("ids", nargs="+")
    d.add_argument("--raw", action="store_true", help="no trailing newline")
    d.set_defaults(func=cmd_decode)

    x = sub.add_parser("export", help="write a tokenizer in another format")
    x.add_argument("--tokenizer", "-t", required=True)
    x.add_argument("--format", choices=["json", "tiktoken", "hf", "minbpe"], required=True)
    x.add_argument("-o", "--output", required=True)
    x.set_defaults(func=cmd_export)

    v = sub.add_parser("provision", help="fetch every registered encoding's file into the data folder (set-up)")
    v.set_defaults(func=cmd_provision)
    return p


def main(argv: list[str] | None = None) -> int:
    configure()
    args = build_parser().parse_args(argv)
    if getattr(args, "positional_text", None) is not None and args.text is None:
        args.text = args.positional_text
    try:
        return args.func(args)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
