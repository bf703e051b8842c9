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
    assert b.text is None and not b.can_replace and "binary" in b.problem
    assert "empty" in upload.decode_corpus(b"", "x.txt").problem
    assert "limited to 10 MB" in upload.decode_corpus(b"a" * (upload.MAX_UPLOAD_BYTES + 1), "big.txt").problem
