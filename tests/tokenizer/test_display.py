"""Bytes to visible text: whitespace glyphs, hex for partial UTF-8, GPT-2's byte alphabet."""

from hypothesis import given
from hypothesis import strategies as st

from tokenizer.display import decode_parts, from_gpt2_form, gpt2_form, hex_bytes, is_partial, visible


def test_visible():
    assert visible(b" the\n\t") == "·the↵→"
    assert visible(b" the\n", whitespace=False) == " the\n"
    assert visible("😄".encode()[:2]) == "<F0 9F>"
    assert visible(b"a\xe4\xbd") == "a<E4 BD>"
    assert visible(b"\x00\x1b") == "<00><1B>"
    assert visible("你好".encode()) == "你好"


@given(st.binary(max_size=30))
def test_decode_parts_keep_every_byte(data):
    parts = decode_parts(data)
    rebuilt = b"".join(t.encode() if ok else bytes(int(x, 16) for x in t[1:-1].split()) for t, ok in parts)
    assert rebuilt == data


def test_partial_and_hex():
    assert is_partial(b"\xf0\x9f") and not is_partial("😄".encode())
    assert hex_bytes(b"\xf0\x9f") == "<F0 9F>"


def test_gpt2_form_round_trip():
    assert gpt2_form(b" the\n") == "ĠtheĊ"
    assert from_gpt2_form("ĠtheĊ") == b" the\n"
    assert len({gpt2_form(bytes([b])) for b in range(256)}) == 256


def test_a_carriage_return_is_never_invisible():
    """o200k's id 125141, "\\r\\n\\r\\n//": with whitespace glyphs ␍↵, without them its bytes (it drew as empty boxes)."""
    assert visible(b"\r\n\r\n//") == "␍↵␍↵//"
    assert visible(b"\r\n\r\n//", whitespace=False) == "<0D>\n<0D>\n//"
    assert visible("a\u200bb".encode(), whitespace=False) == "a<E2 80 8B>b"  # a zero-width space
