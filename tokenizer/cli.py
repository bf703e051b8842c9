"""``python -m tokenizer train|encode|decode|compare|export|provision``.

Examples::

    python -m tokenizer train corpus.txt --vocab-size 1024 -o my.json
    python -m tokenizer train parallel/ --method parity --vocab-size 1024      # one file per language
    python -m tokenizer train corpus.txt --method superwords --vocab-size 1024 --transition 800
    python -m tokenizer train corpus.txt --method continued --base gpt2 --vocab-size 51257
    python -m tokenizer encode --tokenizer cl100k_base "Hello world"
    python -m tokenizer decode --tokenizer my.json 72 101 108 108 111
    python -m tokenizer compare --file README.md gpt2 cl100k_base o200k_base my.json

Training reads the corpus in blocks and cuts it only where the split pattern allows,
so memory grows with the number of unique chunks, not with the size of the file.

Every failure is one line on stderr (``error: ...``, on a line of its own, after any
progress bar) and a non-zero exit: 2 for bad input, 1 for anything unexpected (set
``BPE_LAB_DEBUG=1`` to see its traceback), 130 when interrupted. Paths are checked
before any long work.
"""

from __future__ import annotations

import argparse
import codecs
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

from tqdm import tqdm

from . import formats
from .bpe.continued import train_continued
from .bpe.parity import train_parity
from .bpe.superwords import SUPERBPE_PATTERN, train_superwords
from .bpe.trainer import check_vocab_size, train
from .core import Tokenizer
from .display import visible
from .errors import check_output_path, decode_utf8, read_file
from .models import registry
from .models.fetch import configure
from .models.pretrained import load_encoding
from .models.provision import ESSENTIAL, provision_all

BLOCK_BYTES = 1 << 20


class CliError(ValueError):
    """A failure the CLI reports as one line and exit status 2."""


class NotUtf8(CliError):
    pass


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage mistake is one line too (the usage is one ``--help`` away)."""

    def error(self, message: str):
        self.exit(2, f"error: {message} (see `{self.prog} --help`)\n")


# ----------------------------------------------------------------------------- progress


class TrainingProgress:
    """Two progress bars on stderr (tqdm: rates, time left, and it copes without a tty):
    bytes of the corpus read, then merges made. ``close`` ends any open bar's line, so
    whatever is printed next starts on a line of its own."""

    def __init__(self, corpus_bytes: int, quiet: bool):
        self.quiet = quiet
        self.reading = tqdm(
            total=corpus_bytes, desc="reading", unit="B", unit_scale=True, file=sys.stderr, disable=quiet, leave=True
        )
        self.merging: tqdm | None = None

    def read(self, n_bytes: int) -> None:
        self.reading.update(n_bytes)

    def __call__(self, done: int, total: int) -> None:
        if self.merging is None:
            if done == 0:  # training starts: the corpus is still being read
                return
            self.reading.close()
            self.merging = tqdm(total=total, desc="merging", unit="merge", file=sys.stderr, disable=self.quiet, leave=True)
        self.merging.update(done - self.merging.n)

    def close(self) -> None:
        self.reading.close()
        if self.merging is not None:
            self.merging.close()


# ----------------------------------------------------------------------------- inputs


def read_blocks(path: Path, errors: str = "strict", on_bytes=None) -> Iterator[str]:
    """The file's text in blocks of about a megabyte, decoded as UTF-8 as it is read.

    Invalid UTF-8 raises ``NotUtf8`` naming the byte offset in the file (unless
    ``errors="replace"``); a character split between two blocks is decoded whole.
    """
    decoder = codecs.getincrementaldecoder("utf-8")(errors)
    offset = 0  # bytes of the file before the current block
    with open(path, "rb") as f:
        while True:
            raw = f.read(BLOCK_BYTES)
            final = not raw
            try:
                text = decoder.decode(raw, final)
            except UnicodeDecodeError as e:
                carried = len(e.object) - len(raw)  # undecoded bytes left from the block before
                raise NotUtf8(
                    f"{path} is not UTF-8 text (invalid byte at offset {offset - carried + e.start}); "
                    "pass --replace-errors to decode it with replacement characters (U+FFFD)"
                ) from None
            offset += len(raw)
            if on_bytes is not None and raw:
                on_bytes(len(raw))
            if text:
                yield text
            if final:
                return


def corpus_path(name: str) -> Path:
    path = Path(name)
    if not path.exists():
        raise CliError(f"corpus file {path} does not exist")
    if path.is_dir():
        raise CliError(f"corpus {path} is a folder; give a text file (concatenate the files you want to train on)")
    if not os.access(path, os.R_OK):
        raise CliError(f"cannot read corpus file {path}: permission denied")
    return path


def resolve_tokenizer(name: str) -> Tokenizer:
    """A registered encoding (name or alias) or a path to a tokenizer file."""
    try:
        registry.spec(name)
    except ValueError:
        path = Path(name)
        if not path.exists():
            raise CliError(
                f"{name!r} is neither an encoding ({', '.join(registry.names())}) nor an existing tokenizer file"
            ) from None
        return formats.load(path)
    return load_encoding(name)


def _text_arg(args) -> str:
    if args.file:
        path, data = read_file(args.file, "text file")
        return decode_utf8(data, str(path))
    if args.text is None:
        if sys.stdin.isatty():
            raise CliError("give the text as an argument, with --text, with --file, or on standard input")
        return sys.stdin.read()
    return args.text


def _write(path: Path, data: str | bytes) -> None:
    try:
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data, encoding="utf-8")
    except OSError as e:
        raise CliError(f"cannot write {path}: {e.strerror or e}") from None


# ----------------------------------------------------------------------------- commands


def cmd_train(args) -> int:
    _check_method_options(args)
    if args.method == "parity":
        return _train_parity(args)
    vocab_size = check_vocab_size(args.vocab_size)
    path = corpus_path(args.corpus)
    out = check_output_path(args.output or f"{path.stem}-{vocab_size}.json", "output file")  # before any work
    base = resolve_tokenizer(args.base) if args.method == "continued" else None
    size = path.stat().st_size
    if size == 0:
        raise CliError(f"{path} is empty: there is nothing to learn from; give a corpus with some text")
    errors = "replace" if args.replace_errors else "strict"
    pattern = None if args.pattern == "none" else args.pattern
    progress = TrainingProgress(size, args.quiet)
    common = {
        "special_tokens": args.special or None,
        "progress": progress,
        "name": args.name or path.stem,
        "workers": args.workers,
    }
    try:
        if args.method == "superwords":
            text = [FileBlocks(path, errors, progress.read)]  # read twice: once per stage
            superword = args.superword_pattern or "superbpe"
            superword = None if superword == "none" else superword
            tok = train_superwords(
                text,
                vocab_size,
                pattern,
                transition=args.transition,
                superword_pattern=SUPERBPE_PATTERN if superword == "superbpe" else superword,
                baseline=True,
                **common,
            )
        elif args.method == "continued":
            text = [read_blocks(path, errors, progress.read)]
            tok = train_continued(text, vocab_size, base=base, **common)
        else:
            text = [read_blocks(path, errors, progress.read)]  # one document, read in blocks
            tok = train(text, vocab_size, pattern=pattern, **common)
    finally:
        progress.close()
    md = tok.metadata
    if md["corpus_bytes"] == 0:
        raise CliError(f"{path} holds no text once the special tokens are cut out: there is nothing to learn from")
    formats.save(tok, out)
    note = (
        ""
        if not md["stopped_early"]
        else f" (stopped early: no pair of tokens is left to merge after {md['merges_learned']} merges)"
    )
    print(
        f"saved {out}: {md['merges_learned']} merges on {md['corpus_bytes']:,} bytes "
        f"({md['unique_chunks']:,} unique chunks) in {md['seconds']:.2f}s; "
        f"{md['tokens_before']:,} -> {md['tokens_after']:,} tokens ({md['tokens_before'] / max(1, md['tokens_after']):.2f}x){note}"
    )
    record = md.get("training") or {}
    if args.method == "superwords":
        print(
            f"stage 1 (within words): {record['stage1_merges']:,} merges, {record['stage1_tokens']:,} tokens; "
            f"cut again by the {record['superword_pattern_name']} pattern: {record['stage2_start']:,} tokens; "
            f"stage 2 (across words): {md['tokens_after']:,} tokens. "
            f"Plain BPE of the same size: {record['plain_tokens']:,} tokens"
        )
    elif args.method == "continued":
        print(
            f"{record['base']}: {record['base_tokens']:,} tokens on this text; with {record['new_merges']:,} new merges "
            f"(ids {record['base_vocab']:,} and up): {md['tokens_after']:,} tokens"
        )
    return 0


class FileBlocks:
    """A file's text in blocks (``read_blocks``), read again each time it is iterated (two-stage training reads it twice)."""

    def __init__(self, path: Path, errors: str, on_bytes=None):
        self.path, self.errors, self.on_bytes = path, errors, on_bytes
        self.reads = 0

    def __iter__(self) -> Iterator[str]:
        self.reads += 1
        return read_blocks(self.path, self.errors, self.on_bytes if self.reads == 1 else None)


METHOD_OPTIONS = {
    "global_merges": ("--global-merges", "parity"),
    "transition": ("--transition", "superwords"),
    "superword_pattern": ("--superword-pattern", "superwords"),
    "base": ("--base", "continued"),
}


def _check_method_options(args) -> None:
    for attr, (flag, method) in METHOD_OPTIONS.items():
        if getattr(args, attr) is not None and args.method != method:
            raise CliError(f"{flag} is an option of --method {method}, not of --method {args.method}")
    if args.method == "continued":
        if args.base is None:
            raise CliError("--method continued needs --base: an encoding (e.g. gpt2, cl100k_base) or a tokenizer file")
        if args.pattern != "gpt4":
            raise CliError("--method continued keeps the base's split pattern: leave out --pattern")


def read_parallel(name: str, errors: str = "strict") -> dict[str, str]:
    """Parallel texts for parity-aware training: a folder of text files (one per language, named by
    the file's stem) or a JSON object ``{language: text}``."""
    path = Path(name)
    if not path.exists():
        raise CliError(f"{path} does not exist: give a folder with one text file per language, or a JSON file")
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
        if not files:
            raise CliError(f"{path} holds no files: put one text file per language in it (english.txt, german.txt, ...)")
        return {f.stem: _utf8(read_file(str(f), "text file")[1], f, errors) for f in files}
    _, data = read_file(name, "parallel-text file")
    try:
        doc = json.loads(_utf8(data, path, errors))
    except json.JSONDecodeError as e:
        raise CliError(
            f'{name} is not a JSON object of texts ({e.msg}, line {e.lineno}): give {{"English": "...", ...}} '
            "or a folder with one text file per language"
        ) from None
    if not isinstance(doc, dict) or not all(isinstance(v, str) for v in doc.values()):
        raise CliError(f'{name} must hold one JSON object of language names and texts, such as {{"English": "..."}}')
    return doc


def _utf8(data: bytes, path: Path, errors: str) -> str:
    try:
        return data.decode("utf-8", errors)
    except UnicodeDecodeError as e:
        raise NotUtf8(
            f"{path} is not UTF-8 text (invalid byte at offset {e.start}); "
            "pass --replace-errors to decode it with replacement characters (U+FFFD)"
        ) from None


def _train_parity(args) -> int:
    vocab_size = check_vocab_size(args.vocab_size)
    stem = Path(args.corpus).stem or "parallel"
    out = check_output_path(args.output or f"{stem}-parity-{vocab_size}.json", "output file")
    texts = read_parallel(args.corpus, "replace" if args.replace_errors else "strict")
    pattern = None if args.pattern == "none" else args.pattern
    progress = TrainingProgress(sum(len(t.encode("utf-8")) for t in texts.values()), args.quiet)
    progress.read(progress.reading.total)
    try:
        tok = train_parity(
            texts,
            vocab_size,
            pattern,
            args.special or None,
            progress,
            global_merges=args.global_merges or 0,
            baseline=True,
            name=args.name or stem,
            workers=args.workers,
        )
    finally:
        progress.close()
    formats.save(tok, out)
    md, record = tok.metadata, tok.metadata["training"]
    print(f"saved {out}: {md['merges_learned']} parity-aware merges on {len(texts)} languages in {md['seconds']:.2f}s")
    plain, fair = record["plain_language_tokens"], record["language_tokens"]
    print(f"{'language':<24}{'bytes':>10}{'plain BPE':>11}{'parity':>9}{'merges':>8}")
    for lang, b, p, f, m in zip(record["languages"], record["language_bytes"], plain, fair, record["merges_per_language"]):
        print(f"{lang[:23]:<24}{b:>10,}{p:>11,}{f:>9,}{m:>8,}")
    print(
        f"most/fewest tokens: plain BPE {max(plain) / max(1, min(plain)):.2f}x, parity-aware {max(fair) / max(1, min(fair)):.2f}x"
    )
    return 0


def cmd_encode(args) -> int:
    text = _text_arg(args)
    tok = resolve_tokenizer(args.tokenizer)
    allowed = "all" if args.allow_special else set()
    ids = tok.encode(text, allowed_special=allowed, disallowed_special=())
    if args.tokens:
        for s in tok.spans(ids):
            print(f"{s.id}\t{visible(s.bytes)}")
    else:
        print(json.dumps(ids) if args.json else " ".join(map(str, ids)))
    return 0


def cmd_decode(args) -> int:
    ids = []
    for x in args.ids:
        for part in x.replace(",", " ").replace("[", " ").replace("]", " ").split():
            if not part.isascii() or not part.isdigit():
                raise CliError(f"{part!r} is not a token id: give whole numbers, e.g. 15339 1917")
            ids.append(int(part))
    tok = resolve_tokenizer(args.tokenizer)
    sys.stdout.write(tok.decode(ids) + ("\n" if not args.raw else ""))
    return 0


def cmd_compare(args) -> int:
    text = _text_arg(args)
    toks = [(spec, resolve_tokenizer(spec)) for spec in args.tokenizers]
    n_chars = len(text)
    n_bytes = len(text.encode("utf-8", "surrogatepass"))
    rows = []
    for spec, tok in toks:
        ids = tok.encode(text, disallowed_special=())
        rows.append((spec, len(ids), n_chars / max(1, len(ids)), n_bytes / max(1, len(ids)), len(set(ids))))
    print(f"{'tokenizer':<24}{'tokens':>10}{'chars/tok':>11}{'bytes/tok':>11}{'unique':>9}")
    for name, n, cpt, bpt, uniq in rows:
        print(f"{name:<24}{n:>10}{cpt:>11.2f}{bpt:>11.2f}{uniq:>9}")
    return 0


def cmd_export(args) -> int:
    out = check_output_path(args.output, "output file")
    tok = resolve_tokenizer(args.tokenizer)
    if args.format == "json":
        formats.save(tok, out)
    elif args.format == "tiktoken":
        _write(out, formats.dumps_tiktoken(tok))
    elif args.format == "hf":
        _write(out, json.dumps(formats.to_hf_json(tok), ensure_ascii=False))
    elif args.format == "minbpe":
        _write(out, formats.dumps_minbpe(tok))
    print(f"wrote {out}")
    return 0


def cmd_provision(args) -> int:
    # the merges are recovered one process per core
    failed = provision_all(
        args.names or None,
        warn=lambda line: print(line, file=sys.stderr),
        jobs=os.cpu_count() or 1,
        optional=args.all or args.strict,
    )
    if not failed:
        return 0
    essential = [n for n in failed if n in ESSENTIAL]
    if essential or args.strict:
        return _fail(f"{', '.join(failed)} could not be provisioned (see the warnings above)", 1)
    print(
        f"set-up goes on without {', '.join(failed)}: the app shows {'it' if len(failed) == 1 else 'them'} as unavailable",
        file=sys.stderr,
    )
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m tokenizer", description="BPE Lab's byte-level BPE tokenizer")
    sub = p.add_subparsers(dest="command", required=True)

    t = sub.add_parser("train", help="train a tokenizer on a UTF-8 text file")
    t.add_argument("corpus", help="a text file; for --method parity a folder with one file per language, or a JSON object")
    t.add_argument(
        "--vocab-size", type=int, required=True, help="256 + number of merges (--method continued: the base's ids + new merges)"
    )
    t.add_argument(
        "--method",
        choices=["bpe", "parity", "superwords", "continued"],
        default="bpe",
        help="bpe (default); parity: parity-aware merges over parallel texts; superwords: a second stage whose tokens "
        "cross words; continued: more merges on top of --base",
    )
    t.add_argument("--global-merges", type=int, help="parity: plain merges over all languages first (default 0)")
    t.add_argument("--transition", type=int, help="superwords: the vocab size where stage 2 begins (default 80%% of the merges)")
    t.add_argument("--superword-pattern", help="superwords: the stage-2 split: superbpe (default, SuperBPE's), none, or a regex")
    t.add_argument("--base", help="continued: the tokenizer to go on from, an encoding (gpt2, cl100k_base) or a file")
    t.add_argument("--pattern", default="gpt4", help="none, gpt2, gpt4, o200k or a regex (default gpt4)")
    t.add_argument("--special", action="append", help="a special token, e.g. '<|endoftext|>' (repeatable)")
    t.add_argument("--name", help="a name stored in the file")
    t.add_argument("-o", "--output", help="output file (BPE Lab JSON; default <corpus>-<vocab size>.json here)")
    t.add_argument("--replace-errors", action="store_true", help="decode invalid UTF-8 as U+FFFD instead of failing")
    t.add_argument("--workers", type=int, help="processes counting chunks of a large corpus (default: one per core)")
    t.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    t.set_defaults(func=cmd_train)

    for name, func, helptext in (
        ("encode", cmd_encode, "text to ids"),
        ("compare", cmd_compare, "token counts under several tokenizers"),
    ):
        e = sub.add_parser(name, help=helptext)
        if name == "encode":
            e.add_argument(
                "--tokenizer",
                "-t",
                required=True,
                help=f"an encoding ({', '.join(registry.names())}, or an alias such as gpt2) or a file",
            )
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
    v.add_argument("names", nargs="*", help=f"only these encodings (default: all of {', '.join(registry.names())})")
    v.add_argument(
        "--strict", action="store_true", help="fail when any encoding is missing (the test set-up), not only an essential one"
    )
    v.add_argument(
        "--all",
        action="store_true",
        help="also the optional models (llama.cpp's vocabularies and OLMo 2's, 77 MB and 145 MB downloads; `make models`); "
        "--strict implies it",
    )
    v.set_defaults(func=cmd_provision)
    return p


def _fail(message: str, status: int) -> int:
    sys.stdout.flush()
    print(f"error: {' '.join(message.split())}", file=sys.stderr)  # one line, whatever the message held
    return status


def main(argv: list[str] | None = None) -> int:
    configure()
    args = build_parser().parse_args(argv)
    if getattr(args, "positional_text", None) is not None and args.text is None:
        args.text = args.positional_text
    try:
        return args.func(args)
    except ValueError as e:  # bad input, whatever raised it: the message says what to do
        return _fail(str(e), 2)
    except KeyboardInterrupt:
        return _fail("interrupted", 130)
    except BrokenPipeError:  # the reader went away (| head): not our failure, nothing to say
        sys.stdout = open(os.devnull, "w")  # so the interpreter's own flush stays quiet
        return 1
    except OSError as e:
        return _fail(f"{e.filename + ': ' if e.filename else ''}{e.strerror or e}", 2)
    except Exception as e:
        if os.environ.get("BPE_LAB_DEBUG"):
            raise
        return _fail(f"unexpected {type(e).__name__}: {e} (set BPE_LAB_DEBUG=1 to see the traceback, and please report it)", 1)
