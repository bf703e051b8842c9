"""The two non-BPE baselines to compare BPE with: one token per byte, one per character."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .core import Tokenizer
from .errors import check_ids, clean_text, error_handler
from .trace import Span, make_spans


def bytes_tokenizer() -> Tokenizer:
    """UTF-8 bytes: no merges, no split, ids are the byte values."""
    return Tokenizer(name="bytes", metadata={"label": "UTF-8 bytes", "baseline": True})


class CharTokenizer:
    """One token per Unicode character; the id is the code point.

    Duck-types the parts of ``Tokenizer`` the pages use (encode, decode, spans).

    >>> CharTokenizer().encode("Hi 你")
    [72, 105, 32, 20320]
    """

    kind = "characters"
    name = "characters"
    pattern = None
    pattern_name = "none"
    special_tokens: dict[str, int] = {}
    special_ids = frozenset()
    metadata = {"label": "Characters", "baseline": True}
    num_merges = 0
    n_vocab = 0x110000
    training = None

    def encode(self, text: str, **_special_args) -> list[int]:
        return [ord(c) for c in clean_text(text)]

    encode_ordinary = encode

    def decode_tokens_bytes(self, ids: Iterable[int]) -> list[bytes]:
        out = []
        for i in check_ids(ids):
            if not 0 <= i < 0x110000:
                raise ValueError(f"cannot decode {i!r}: character ids are code points from 0 to 1114111")
            out.append(chr(i).encode("utf-8", "surrogatepass"))
        return out

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        return b"".join(self.decode_tokens_bytes(ids))

    def decode(self, ids: Iterable[int], errors: str = "replace") -> str:
        return self.decode_bytes(ids).decode("utf-8", errors=error_handler(errors))

    def spans(self, ids: Sequence[int]) -> list[Span]:
        ids = check_ids(ids)
        return make_spans(list(zip(ids, self.decode_tokens_bytes(ids))))

    def encode_spans(self, text: str, **special_args) -> list[Span]:
        return self.spans(self.encode(text))

    def split(self, text: str) -> list[str]:
        return [text] if clean_text(text) else []

    def __repr__(self) -> str:
        return "<CharTokenizer>"
