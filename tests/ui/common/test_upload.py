"""ui/common/upload.py: the size limit and turning an uploaded corpus into text."""

from __future__ import annotations

from ui.common import upload


def test_upload_decoding():
    assert upload.decode_corpus("\ufeffhello".encode("utf-8")).text == "hello"  # BOM dropped
    latin = "café crème".encode("latin-1")
    d = upload.decode_corpus(latin, "menu.txt")
    assert d.text is None and d.can_replace and "menu.txt is not UTF-8" in d.problem
    r = upload.decode_corpus(latin, "menu.txt", replace=True)
    assert r.text == "caf� cr�me" and r.replaced == 2
    b = upload.decode_corpus(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "cat.png")
    assert b.text is None and not b.can_replace and "cat.png is not UTF-8 text" in b.problem and "PNG image" in b.problem
    assert "paste it under **Paste text**" in b.problem  # what to do
    pdf = upload.decode_corpus(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj", "paper.pdf")  # no NUL byte near the start
    assert "a PDF document" in pdf.problem and not pdf.can_replace  # not offered a decoding with replacement
    elf = upload.decode_corpus(b"\x7fELF\x02\x01\x01\x00", "a.out")
    assert "binary file" in elf.problem and "NUL bytes" in elf.problem
    assert "empty" in upload.decode_corpus(b"", "x.txt").problem
    assert "limited to 10 MB" in upload.decode_corpus(b"a" * (upload.MAX_UPLOAD_BYTES + 1), "big.txt").problem
