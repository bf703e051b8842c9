"""What the Train page offers to download: one tokenizer in three formats, or the whole workspace as a zip.

Plain Python (no Streamlit): built from a ``ui.common.workspace.Store``, whichever the server chose.
"""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass

from tokenizer import Tokenizer, formats
from ui.common.workspace import Store, slug


@dataclass(frozen=True)
class Export:
    """One download of a tokenizer: the bytes, or why this format cannot hold it."""

    label: str
    file_name: str
    mime: str
    data: bytes | None
    problem: str | None = None


def exports(tok: Tokenizer) -> list[Export]:
    """The three downloads of a tokenizer: BPE Lab JSON (lossless), tiktoken ranks, HF tokenizer.json."""
    stem = slug(tok.name or "tokenizer")
    out = [Export("BPE Lab JSON", f"{stem}.json", "application/json", formats.dumps(tok).encode("utf-8"))]
    try:
        out.append(Export("tiktoken", f"{stem}.tiktoken", "text/plain", formats.dumps_tiktoken(tok)))
    except ValueError as e:
        out.append(Export("tiktoken", f"{stem}.tiktoken", "text/plain", None, str(e)))
    try:
        hf = json.dumps(formats.to_hf_json(tok), ensure_ascii=False, indent=1).encode("utf-8")
        out.append(Export("HF tokenizer.json", f"{stem}.tokenizer.json", "application/json", hf))
    except ValueError as e:
        out.append(Export("HF tokenizer.json", f"{stem}.tokenizer.json", "application/json", None, str(e)))
    return out


def export_all(store: Store) -> bytes:
    """Every readable tokenizer of a store (BPE Lab JSON) and its training text, as one zip file."""
    buf = io.BytesIO()
    used: set[str] = set()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        lines = ["BPE Lab: every tokenizer of this workspace.", "Upload a .json on the Train page to use it again.", ""]
        for e in store.entries():
            try:
                tok = store.get(e.key)
            except ValueError:
                continue
            stem = slug(e.name)
            n = 2
            while stem in used:
                stem = f"{slug(e.name)}-{n}"
                n += 1
            used.add(stem)
            zf.writestr(f"bpe-lab/{stem}.json", formats.dumps(tok))
            corpus = store.corpus(e.key)
            if corpus is not None:
                zf.writestr(f"bpe-lab/{stem}.training-text.txt", corpus)
            lines.append(f"{stem}.json  {e.name}  {e.vocab_size} tokens  {e.source} {e.created}")
        zf.writestr("bpe-lab/README.txt", "\n".join(lines) + "\n")
    return buf.getvalue()
