"""What the browser needs to tokenize as the core does: model files, the served assets, and why not when it cannot.

Plain data, no Streamlit. A tokenizer goes to the browser as one compact binary file
(``model_file``), which ``bpe.js`` reads; little-endian throughout::

    "BPEL", version, n_merges, n_whole, whole_bytes, pattern_bytes, specials_bytes, form   8 x uint32
    byte_ids                                                                           256 x uint32
    merges in rank order: left, right, new id                                          3 x n_merges x uint32
    whole tokens' ids, then their byte lengths                                         2 x n_whole x uint32
    the whole tokens' bytes, the split pattern as JSON (``jsregex.pattern_spec``: what the RegExp is made of),
    the special tokens as JSON ({"<|endoftext|>": 100257, ...})

The merges are the core's own merge table (``Tokenizer.merge_table``: for OpenAI's and
the open models' encodings, recovered from their ranks at set-up), so the browser
applies the very merges Python applies, in the same order: exact for every kind of
tokenizer, including the ones whose merges build on tokens minted later and the
user's own (where two merges may make the same bytes, a bytes-to-rank table would not be).

``form`` is the Unicode normal form the model puts text in first (``NORMAL_FORMS``: 0 for
none, 1 for NFC, as Qwen's package does); ``bpe.js`` normalizes as Python's unicodedata does.

Besides the merges, one rule of the core changes ids: a chunk equal to one of the
``whole_tokens`` is that token. The core's other whole-chunk shortcut (a chunk equal
to a token that encodes to itself) only saves time, so the file leaves it out,
except for a token that does *not* encode to itself but takes the shortcut anyway
(possible in a tiktoken file whose merges were recovered, never in a trained one):
``shortcut_exceptions`` finds those, and they travel as whole tokens.

A SentencePiece-style model (``tokenizer.spm``: pieces merged by score or by a merge list, byte
fallback) goes as a file of its own kind (``spm_model_file``), which ``spm.js`` reads; little-endian::

    "BPES", SPM_VERSION, n_pieces, n_merges, pieces_bytes, specials_bytes, flags, 0         8 x uint32
    scores (flags without SPM_MERGES), or the merges by rank: left id, right id             n_pieces float32 | 2 x n_merges x uint32
    each piece's length in UTF-16 units                                                     n_pieces x uint16
    each piece's type (``tokenizer.ggml.token_type``: 1 normal, 3 control, 4 user-defined, 6 byte)   n_pieces x uint8
    the pieces' UTF-8, one after another, then the special tokens as JSON

``flags`` are ``SPM_PREFIX`` (the dummy prefix), ``SPM_NEWLINES`` (cut at runs of newlines first) and
``SPM_MERGES`` (a merge list orders the merges, not scores). The scores are the GGUF's float32 values
and the merges the model's own ``merge_rank`` in rank order (a pair listed twice keeps its first place),
so the browser compares what Python compares.

Files are named by the sha256 of their content, so a browser may keep one forever.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

import numpy as np

from tokenizer import Tokenizer, TokenizerLike

from .jsregex import pattern_spec

MAGIC = b"BPEL"
VERSION = 2
#: The SentencePiece-style file's magic, version and flags (``spm_model_file``).
SPM_MAGIC = b"BPES"
SPM_VERSION = 1
SPM_PREFIX, SPM_NEWLINES, SPM_MERGES = 1, 2, 4
#: The normal forms the browser applies (``bpe.js`` nfcAsPython), by their number in the file's header.
NORMAL_FORMS = (None, "NFC")
#: The browser modules, served from the app's static folder (``asset_dir``).
WEB = Path(__file__).resolve().parent
#: ``static/`` next to the main script (app.py, serve.py): what ``[server] enableStaticServing`` serves at ``app/static/``.
STATIC = WEB.parents[1] / "static"
#: Another folder for the generated files (tests that run the pages without a server use a temporary one).
STATIC_ENV = "BPE_LAB_STATIC_DIR"


def static_dir() -> Path:
    """Where the generated files are written: ``STATIC``, unless ``BPE_LAB_STATIC_DIR`` says otherwise."""
    env = os.environ.get(STATIC_ENV)
    return Path(env) if env else STATIC


#: Where the generated files go, under STATIC, and the URL path (relative to the page) that serves them.
FOLDER = "bpe"
URL = "app/static/" + FOLDER + "/"
#: ``ui/``: every browser module of the app lives under it, ``web/`` shared by the pages' own folders.
UI = WEB.parent
#: JavaScript under ``ui/`` that is text, never run: Compare's sample programs.
SAMPLES = ("compare/programs/",)


def browser_modules(ui: Path = UI) -> tuple[str, ...]:
    """Every browser module, as its path under ``ui/`` (``web/bpe.js``, ``step/stepper.js``): all are served together.

    >>> {"web/bpe.js", "web/worker.js", "step/stepper.js", "tokenize/live.js"} <= set(browser_modules())
    True
    """
    names = (p.relative_to(ui).as_posix() for p in ui.rglob("*.js"))
    return tuple(sorted(n for n in names if not n.startswith(SAMPLES)))


def browser_reason(tok: TokenizerLike) -> str | None:
    """None when the browser can tokenize exactly as ``tok`` does, else why not (one sentence).

    >>> from tokenizer import Tokenizer
    >>> browser_reason(Tokenizer(pattern="gpt4")) is None
    True
    >>> browser_reason(Tokenizer(pattern=r"(?<=a)b"))
    'its split pattern uses syntax that JavaScript reads differently from Python (here: a lookbehind, ^, \\\\b, a backreference, or a flag)'
    """
    if not isinstance(tok, Tokenizer):
        return "it is not a BPE tokenizer"
    if tok.kind == "sentencepiece":
        if tok.max_rank is not None:
            return "it is a SentencePiece-style BPE cut to its first merged pieces, which only the server encodes"
        if tok.model.rules != "llama.cpp":
            return (
                "it is read from a SentencePiece .model file, whose rules for user-defined and control pieces "
                "(the sentencepiece package's) only the server follows"
            )
        return None
    if tok.pipeline is not None:
        return "it splits text with a tokenizer.json pipeline (normalizer and pre-tokenizer stages) that only the server runs"
    if tok.normalizer not in NORMAL_FORMS:
        return f"it puts text in Unicode normal form {tok.normalizer} first, which only the server does"
    if tok.pattern is not None and pattern_spec(tok.pattern) is None:
        return (
            "its split pattern uses syntax that JavaScript reads differently from Python "
            "(here: a lookbehind, ^, \\b, a backreference, or a flag)"
            if not _nullable_hint(tok.pattern)
            else "its split pattern can match the empty string, which JavaScript and Python handle differently"
        )
    return None


def _nullable_hint(pattern: str) -> bool:
    from tokenizer.pretokenize.pattern_syntax import Unsupported, nullable, parse

    try:
        return nullable(parse(pattern).tree)
    except Unsupported:
        return False


def shortcut_exceptions(tok) -> dict[int, bytes]:
    """Tokens the core takes whole for a chunk equal to them although merging would give something else.

    Empty for every tokenizer whose shortcuts were checked by the core (trained ones,
    loaded files); tests/ui/web/test_model.py shows it is empty for every registered
    encoding too. Costs one encoding per token (seconds for 200,000).
    """
    shortcut = tok.whole_chunks()
    whole = tok.whole_tokens
    return {i: b for b, i in shortcut.items() if i not in whole and tok.encode_bytes(b) != [i]}


def model_file(tok, *, check_shortcuts: bool = True) -> bytes:
    """The browser's model of ``tok`` (see the module's layout); ValueError when ``browser_reason`` has one.

    ``check_shortcuts=False`` skips ``shortcut_exceptions`` (for the registered
    encodings, whose check is a test).

    >>> from tokenizer import Tokenizer
    >>> data = model_file(Tokenizer({(97, 97): 256}, pattern=None))
    >>> data[:4], len(data) == 4 * (8 + 256 + 3)
    (b'BPEL', True)
    """
    why = browser_reason(tok)
    if why is not None:
        raise ValueError(f"{tok.name or 'this tokenizer'} cannot be tokenized in the browser: {why}")
    if tok.kind == "sentencepiece":
        return spm_model_file(tok)
    table = tok.merge_table
    whole = dict(tok.whole_tokens)
    if check_shortcuts:
        whole.update(shortcut_exceptions(tok))
    whole_ids = sorted(whole)
    pattern = (
        json.dumps(pattern_spec(tok.pattern), ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        if tok.pattern is not None
        else b""
    )
    specials = (
        json.dumps(tok.special_tokens, ensure_ascii=False, separators=(",", ":")).encode("utf-8") if tok.special_tokens else b""
    )
    whole_data = b"".join(whole[i] for i in whole_ids)
    head = np.array(
        [
            int.from_bytes(MAGIC, "little"),
            VERSION,
            len(table.new_ids),
            len(whole_ids),
            len(whole_data),
            len(pattern),
            len(specials),
            NORMAL_FORMS.index(tok.normalizer),
        ],
        dtype="<u4",
    )
    merges = np.empty((len(table.new_ids), 3), dtype="<u4")
    if table.new_ids:
        merges[:, :2] = np.array(table.pairs, dtype="<u4").reshape(-1, 2)
        merges[:, 2] = np.array(table.new_ids, dtype="<u4")
    parts = [
        head.tobytes(),
        np.array(tok.byte_ids, dtype="<u4").tobytes(),
        merges.tobytes(),
        np.array(whole_ids, dtype="<u4").tobytes(),
        np.array([len(whole[i]) for i in whole_ids], dtype="<u4").tobytes(),
        whole_data,
        pattern,
        specials,
    ]
    return b"".join(parts)


def spm_model_file(tok) -> bytes:
    """The browser's model of a SentencePiece-style ``tok`` (``tokenizer.spm.SentencePieceTokenizer``; the layout in
    the module's docstring).

    >>> from tokenizer.bpe.sentencepiece import SentencePieceBPE
    >>> from tokenizer.spm import SentencePieceTokenizer
    >>> pieces = ["<unk>", "<s>", "</s>", *(f"<0x{b:02X}>" for b in range(256)), "▁", "a", "▁a"]
    >>> types = [2, 3, 3, *[6] * 256, 1, 1, 1]
    >>> data = spm_model_file(SentencePieceTokenizer(SentencePieceBPE(pieces, [0.0] * len(pieces), types)))
    >>> data[:4], np.frombuffer(data[4:32], dtype="<u4").tolist()
    (b'BPES', [1, 262, 0, 1556, 28, 1, 0])
    """
    m = tok.model
    n = m.n_vocab
    flags = (SPM_PREFIX if m.add_space_prefix else 0) | (SPM_NEWLINES if m.split_newlines else 0)
    if m.merge_rank is not None:
        flags |= SPM_MERGES
        keys = np.fromiter(m.merge_rank.keys(), dtype=np.int64, count=len(m.merge_rank))
        keys = keys[np.argsort(np.fromiter(m.merge_rank.values(), dtype=np.int64, count=len(keys)), kind="stable")]
        order = np.stack([keys // n, keys % n], axis=1).astype("<u4")
    else:
        order = np.array(m.scores, dtype="<f4")
        if not np.array_equal(order.astype(float), np.array(m.scores, dtype=float)):
            raise ValueError("a SentencePiece-style model for the browser keeps its scores as float32, as its GGUF does")
    text = "".join(m.pieces).encode("utf-8")
    units = np.array([len(p.encode("utf-16-le")) // 2 for p in m.pieces], dtype="<u2")
    specials = (
        json.dumps(tok.special_tokens, ensure_ascii=False, separators=(",", ":")).encode("utf-8") if tok.special_tokens else b""
    )
    head = np.array(
        [int.from_bytes(SPM_MAGIC, "little"), SPM_VERSION, n, len(keys) if m.merge_rank is not None else 0, len(text),
         len(specials), flags, 0],
        dtype="<u4",
    )  # fmt: skip
    types = np.array(m.types, dtype="u1")
    return b"".join([head.tobytes(), order.tobytes(), units.tobytes(), types.tobytes(), text, specials])


def content_name(data: bytes, suffix: str = ".bin") -> str:
    """A file name from the content's sha256 (24 hex digits: no two files of a deployment share one).

    >>> content_name(b"abc")
    'ba7816bf8f01cfea414140de.bin'
    """
    return hashlib.sha256(data).hexdigest()[:24] + suffix


def write_once(path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` unless it is there already; atomic (a reader never sees half a file)."""
    if path.exists() and path.stat().st_size == len(data):
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)  # two processes writing the same name write the same bytes
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def publish_model(data: bytes, static: Path | None = None) -> str:
    """Put a model file under the static folder; its URL path, relative to the page (``app/static/bpe/models/…``)."""
    name = content_name(data)
    static = static or static_dir()
    write_once(static / FOLDER / "models" / name, data)
    return URL + "models/" + name


def asset_version(ui: Path = UI) -> str:
    """A hash of the browser modules: the folder they are served from changes when any of them does."""
    h = hashlib.sha256()
    for name in browser_modules(ui):
        h.update(name.encode() + b"\0" + (ui / name).read_bytes() + b"\0")
    return h.hexdigest()[:16]


def publish_assets(static: Path | None = None, ui: Path = UI) -> str:
    """Copy every browser module to ``static/bpe/web-<hash>/`` as laid out under ``ui/``; the URL path of its
    ``web/`` folder, relative to the page (``app/static/bpe/web-<hash>/web/``).

    The folder name changes with their content, so a browser caches them for good and
    never runs an old copy after an update; relative imports (``../web/spans.js``) resolve
    as they do in the source tree, where node's tests and eslint read them.
    """
    folder = f"web-{asset_version(ui)}"
    static = static or static_dir()
    for name in browser_modules(ui):
        write_once(static / FOLDER / folder / name, (ui / name).read_bytes())
    return URL + folder + "/web/"


def component_script(entry: Path) -> str:
    """The ``js`` of a component whose code is the module ``entry`` (under ``ui/``): it imports that module from the
    static folder (``publish_assets``), the one way browser code ships, and hands on its default export.

    ValueError when the static folder cannot take the modules (start-up has said so already, see ``check_static``).
    """
    name = Path(entry).resolve().relative_to(UI).as_posix()
    try:
        web_url = publish_assets()
    except OSError as e:
        raise ValueError(
            f"The server cannot write the files this view needs ({e.strerror or e}): tell whoever runs it that its disk "
            "is full or read-only."
        ) from None
    url = web_url.removesuffix("web/") + name
    return f"const m = await import(new URL({json.dumps(url)}, document.baseURI).href);\nexport default m.default;\n"
