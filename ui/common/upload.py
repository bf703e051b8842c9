"""Uploaded files: the size limit, and turning a corpus file's bytes into text.

Plain Python (no Streamlit). ``.streamlit/config.toml`` caps uploads at
``server.maxUploadSize = 10`` MB in the browser; ``check_size`` repeats the check
here, so a server started with a larger limit still says no with a clear message.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The largest upload (corpus or tokenizer file) BPE Lab accepts, in MB; keep it
#: equal to ``server.maxUploadSize`` in .streamlit/config.toml.
MAX_UPLOAD_MB = 10
MAX_UPLOAD_BYTES = MAX_UPLOAD_MB * 1024 * 1024

#: File types offered for a training corpus (any text file works; the list is a hint).
CORPUS_TYPES = ["txt", "md", "rst", "csv", "tsv", "json", "jsonl", "py", "js", "html", "xml", "tex", "log"]
#: File types offered when uploading a tokenizer.
TOKENIZER_TYPES = ["json", "tiktoken", "model", "txt", "bpe"]


def check_size(size: int, name: str = "the file") -> None:
    """ValueError when an upload is larger than ``MAX_UPLOAD_BYTES``.

    >>> check_size(11 * 1024 * 1024, "big.txt")
    Traceback (most recent call last):
    ...
    ValueError: big.txt is 11.0 MB; uploads are limited to 10 MB: upload a smaller part of it
    """
    if size > MAX_UPLOAD_BYTES:
        raise ValueError(
            f"{name} is {size / 1024 / 1024:.1f} MB; uploads are limited to {MAX_UPLOAD_MB} MB: upload a smaller part of it"
        )


@dataclass(frozen=True)
class DecodedText:
    """A corpus upload as text, or why it is not text yet.

    ``problem`` is None when ``text`` is ready. ``can_replace`` says whether decoding
    with replacement characters is worth offering (text in another encoding, not a
    binary file).
    """

    text: str | None
    problem: str | None = None
    can_replace: bool = False
    replaced: int = 0  # how many bytes became U+FFFD


#: The start of common binary files, and what to call them in a message.
SIGNATURES = {
    b"%PDF": "a PDF document",
    b"PK\x03\x04": "a zip archive (or a Word, Excel or OpenDocument file, which are zip archives)",
    b"\x89PNG": "a PNG image",
    b"\xff\xd8\xff": "a JPEG image",
    b"GIF8": "a GIF image",
    b"\x1f\x8b": "a gzip archive",
    b"\xd0\xcf\x11\xe0": "an old Word or Excel file",
}


def binary_kind(data: bytes) -> str | None:
    """What a binary file is, for a message ("a PDF document"), or None for what may be text.

    >>> binary_kind(b"%PDF-1.7 ..."), binary_kind(b"\\x7fELF\\x02\\x00"), binary_kind("héllo".encode("latin-1"))
    ('a PDF document', 'a binary file (an image, archive or program: it contains NUL bytes)', None)
    """
    for magic, kind in SIGNATURES.items():
        if data.startswith(magic):
            return kind
    if b"\x00" in data[:8192]:  # NUL bytes near the start: an image, archive or program, not text
        return "a binary file (an image, archive or program: it contains NUL bytes)"
    return None


def decode_corpus(data: bytes, name: str = "the file", *, replace: bool = False) -> DecodedText:
    """UTF-8 bytes to text; other encodings get a clear message (and, on request, replacement).

    >>> decode_corpus("naïve".encode()).text
    'naïve'
    >>> d = decode_corpus("naïve".encode("latin-1")); d.text is None, d.can_replace
    (True, True)
    >>> decode_corpus("naïve".encode("latin-1"), replace=True).text
    'na�ve'
    """
    try:
        check_size(len(data), name)
    except ValueError as e:
        return DecodedText(None, str(e))
    if not data:
        return DecodedText(None, f"{name} is empty: pick a file with some text in it")
    kind = binary_kind(data)
    if kind is not None:
        return DecodedText(
            None,
            f"{name} is not UTF-8 text: it looks like {kind}. Upload a plain-text file (.txt, .md, .py, …), "
            "or copy its text and paste it under **Paste text**.",
        )
    try:
        return DecodedText(data.decode("utf-8-sig"))
    except UnicodeDecodeError as e:
        if replace:
            text = data.decode("utf-8", errors="replace")
            return DecodedText(text, None, True, text.count("\ufffd") - data.decode("utf-8", "ignore").count("\ufffd"))
        return DecodedText(
            None,
            f"{name} is not UTF-8 text: byte {e.start} (0x{data[e.start]:02X}) cannot start or continue a UTF-8 character. "
            "Save it as UTF-8 in your editor, or decode it here with every undecodable byte replaced by �.",
            can_replace=True,
        )
