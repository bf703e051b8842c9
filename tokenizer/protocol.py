"""What every tokenizer the pages draw offers: the ``Tokenizer`` and the characters baseline alike.

The pages take any ``TokenizerLike``; what only a BPE ``Tokenizer`` has (merges, merge trees,
a vocabulary to browse) they ask for with ``isinstance(tok, Tokenizer)``, never by probing
attributes.

>>> from tokenizer import Tokenizer
>>> from tokenizer.baselines import CharTokenizer
>>> isinstance(Tokenizer(), TokenizerLike), isinstance(CharTokenizer(), TokenizerLike)
(True, True)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from .trace import Span


@runtime_checkable
class TokenizerLike(Protocol):
    kind: str  # "bpe" (byte-level), "sentencepiece" (tokenizer.spm) or "characters" (the baseline)
    name: str
    metadata: Mapping[str, Any]
    special_tokens: Mapping[str, int]
    training: Any  # a TrainingTrace when the tokenizer was just trained, else None

    @property
    def pattern(self) -> str | None: ...

    @property
    def pattern_name(self) -> str: ...

    @property
    def special_ids(self) -> frozenset[int]: ...

    @property
    def num_merges(self) -> int: ...

    @property
    def n_vocab(self) -> int: ...

    def encode(self, text: str, **special_args) -> list[int]: ...

    def encode_ordinary(self, text: str) -> list[int]: ...

    def decode_tokens_bytes(self, ids: Iterable[int]) -> list[bytes]: ...

    def decode_bytes(self, ids: Iterable[int]) -> bytes: ...

    def decode(self, ids: Iterable[int], errors: str = "replace") -> str: ...

    def spans(self, ids: Sequence[int]) -> list[Span]: ...

    def encode_spans(self, text: str, **special_args) -> list[Span]: ...

    def split(self, text: str) -> list[str]: ...
