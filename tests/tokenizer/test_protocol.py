"""Every tokenizer a page draws is a TokenizerLike: the pages rely on the protocol, never on probing attributes."""

from __future__ import annotations

import pytest

from tokenizer import Tokenizer, TokenizerLike, formats, load_encoding, registry, train
from tokenizer.baselines import CharTokenizer, bytes_tokenizer
from tokenizer.protocol import TokenizerLike as Protocol


@pytest.mark.parametrize("name", [s.name for s in registry.specs()])
def test_every_registered_encoding_is_tokenizer_like(name):
    tok = load_encoding(name)
    assert isinstance(tok, TokenizerLike)
    # the pages branch on the kind, never on which attributes a tokenizer happens to have
    assert tok.kind == ("sentencepiece" if registry.spec(name).source.format in registry.SENTENCEPIECE_FORMATS else "bpe")


def test_baselines_trained_and_loaded_tokenizers_are_tokenizer_like():
    trained = train("aaabdaaabac", 259, pattern=None)
    doc = formats.to_hf_json(trained)
    doc["normalizer"] = {"type": "Lowercase"}
    for tok in (bytes_tokenizer(), CharTokenizer(), trained, formats.from_hf_json(doc), trained.truncated(1)):
        assert isinstance(tok, TokenizerLike), tok
        assert tok.kind == ("characters" if isinstance(tok, CharTokenizer) else "bpe")
        assert tok.decode(tok.encode("Hello")) in ("Hello", "hello")
        assert b"".join(s.bytes for s in tok.encode_spans("Héllo")) == tok.decode_bytes(tok.encode("Héllo"))


def test_something_short_of_the_protocol_is_not_taken_for_one():
    class Partial:
        name, metadata, special_tokens, training = "p", {}, {}, None

        def encode(self, text, **_):
            return []

    assert not isinstance(Partial(), TokenizerLike)
    assert Protocol is TokenizerLike and isinstance(Tokenizer(), Protocol)
