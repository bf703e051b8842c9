"""Mistral's Tekken JSON (``tekken_240911.json``): its ranks, split pattern and special tokens, as mistral-common reads them."""

from __future__ import annotations

import base64
import binascii

from .json_input import read_json


def parse_tekken(data: bytes, source: str = "tekken file") -> tuple[dict[bytes, int], str, list[str] | None]:
    """Mistral's Tekken JSON: ``(ranks, pattern, special tokens or None)``, ids as mistral-common gives them.

    Tekken puts the special tokens first: ids ``0 .. n-1`` (``config.default_num_special_tokens``)
    are special, and the vocabulary's rank ``r`` is id ``n + r``, so its bytes are ids
    ``n .. n+255``. Only the first ``config.default_vocab_size - n`` ranks are used, as
    ``Tekkenizer.from_file`` does. The special tokens are the file's (``special_tokens``,
    by rank) or None when it lists none (a v3 file: mistral-common then uses its own
    defaults, which the registry holds). ValueError naming the field for a damaged file.

    >>> import json
    >>> vocab = [{"rank": i, "token_bytes": base64.b64encode(bytes([i])).decode(), "token_str": None} for i in range(256)]
    >>> vocab.append({"rank": 256, "token_bytes": "YWI=", "token_str": "ab"})
    >>> config = {"pattern": "[a-z]+", "default_vocab_size": 259, "default_num_special_tokens": 2, "version": "v3"}
    >>> ranks, pattern, specials = parse_tekken(json.dumps({"config": config, "vocab": vocab}).encode())
    >>> ranks[b"\\x00"], ranks[b"ab"], pattern, specials
    (2, 258, '[a-z]+', None)
    """
    doc = read_json(data, what=source)
    try:
        config = doc["config"]
        pattern = config["pattern"]
        n_special = int(config["default_num_special_tokens"])
        n_vocab = int(config["default_vocab_size"]) - n_special
        vocab = doc["vocab"][:n_vocab]
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"{source}: field {e} is missing or wrong; not a Tekken tokenizer file") from None
    if len(vocab) != n_vocab:
        raise ValueError(f"{source}: 'vocab' has {len(vocab)} tokens, fewer than the {n_vocab} its config asks for")
    ranks: dict[bytes, int] = {}
    for i, entry in enumerate(vocab):
        try:
            token = base64.b64decode(entry["token_bytes"], validate=True)
        except (KeyError, TypeError, binascii.Error):
            raise ValueError(f"{source}: vocab[{i}].token_bytes is not base64 bytes") from None
        if entry.get("rank") != i:
            raise ValueError(f"{source}: vocab[{i}] has rank {entry.get('rank')!r}; ranks must count up from 0")
        ranks[token] = n_special + i
    specials = doc.get("special_tokens")
    names = None
    if specials is not None:
        names = [t["token_str"] for t in sorted(specials, key=lambda t: t["rank"])]
        names += [f"<SPECIAL_{i}>" for i in range(len(names), n_special)]  # mistral-common's filler
    return ranks, pattern, names
