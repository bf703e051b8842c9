"""Hugging Face ``tokenizer.json``: read any byte-level BPE file exactly, write ours so ``tokenizers`` gives our ids.

**Reading** (``from_hf_json``). A file is checked field by field where BPE Lab reads it
(a ValueError naming the field: ``model.merges[12]``, ``added_tokens[3].id``), then read by
Hugging Face ``tokenizers`` itself, which refuses with its own reason whatever it cannot
read. What it becomes:

- The BPE model: its merges (written ``"a b"`` or ``["a", "b"]``) in rank order, the byte
  ids of GPT-2's 256 byte characters, ``ignore_merges``.
- Added tokens, with the ids ``tokenizers`` gives them when it loads the file. Special
  ones become the Tokenizer's ``special_tokens``; the others are always recognised.
- The text handling before BPE (normalizer, pre-tokenizer, added tokens), run by
  ``tokenizers`` itself (``pretokenize.hf.HFPreTokenizer``): exact by construction, whatever
  normalizers and pre-tokenizers the file uses. When it is nothing but one of BPE Lab's
  built-in split patterns (as ``tokenizers`` writes it, ``ONIGURUMA``), with no normalizer
  and plain special tokens (GPT-2's, Llama 3's and our own exports), the Tokenizer gets
  that pattern instead and needs no pipeline.

Refused, saying what the file is and why BPE Lab cannot show it: WordPiece, Unigram and
WordLevel models; SentencePiece-style BPE (``byte_fallback``, a ``Metaspace`` pre-tokenizer
or ``▁`` spaces); BPE without a ``ByteLevel`` pre-tokenizer and decoder; BPE dropout;
word-piece markers; merges that build one token twice (BPE Lab replays merges, one new
token each).

Not part of encoding, and so not kept: ``truncation``, ``padding``, the post-processor
(it adds tokens such as ``<s>`` only with ``add_special_tokens=True``; BPE Lab's ids are
``tokenizers``' ``encode(text, add_special_tokens=False)``), vocabulary entries that no
merge builds (they are never produced; ``metadata["unreachable_tokens"]`` counts them).

**Writing** (``to_hf_json``). Every id survives ``tokenizers.Tokenizer.from_file``: added
tokens are also written into the vocabulary with their ids (``tokenizers`` would otherwise
renumber any that do not follow the vocabulary); a built-in split pattern is written as
``tokenizers``' Oniguruma must be given it to split alike (``ONIGURUMA``); a tokenizer.json's
own text handling is written back as it was. Any other split pattern is refused with the
reason: Oniguruma reads some regex constructs otherwise than Python's ``regex``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import regex

from ..bpe.merges import MergeTable
from ..core import Tokenizer, check_tokenizer
from ..display import bytes_to_unicode, from_gpt2_form
from ..pretokenize.hf import ADDED_FLAGS, HFPreTokenizer, byte_level_stages, refused_by_tokenizers, regexes_in, types_in
from ..pretokenize.patterns import (
    GPT2_PATTERN,
    GPT4_PATTERN,
    LLAMA3_PATTERN,
    O200K_PATTERN,
    QWEN35_PATTERN,
    QWEN_PATTERN,
    TEKKEN_PATTERN,
)

#: GPT-2's split as Hugging Face's ByteLevel pre-tokenizer runs it (``use_regex=True``); it splits
#: every text as tiktoken's GPT-2 pattern does (tests/tokenizer/formats/test_hf.py checks it).
HF_BYTELEVEL_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""

#: Each built-in split pattern as Oniguruma (the regex engine of ``tokenizers``) must be given it
#: to split every text alike. The two engines read some constructs differently: ``X{1,3}+`` is a
#: repeat of a repeat in Oniguruma (possessive in ``regex``), ``$`` also matches before any
#: newline, and ``(?i)`` is spelled out. Each spelling is checked against ``tokenizers`` on
#: generated and real text (tests/tokenizer/formats/test_hf.py).
ONIGURUMA: dict[str, str] = {
    GPT2_PATTERN: r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++\Z|\s+(?!\S)|\s""",
    GPT4_PATTERN: (
        r"""'(?:[Ss\x{17f}DdMmTt]|[Ll][Ll]|[Vv][Ee]|[Rr][Ee])|[^\r\n\p{L}\p{N}]?+\p{L}++|(?>\p{N}{1,3})"""
        r"""| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++\Z|\s*[\r\n]|\s+(?!\S)|\s"""
    ),
    O200K_PATTERN: "|".join(
        [
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?:'[Ss\x{17f}]|'[Tt]|'[Rr][Ee]|'[Vv][Ee]|'[Mm]|'[Ll][Ll]|'[Dd])?""",
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?:'[Ss\x{17f}]|'[Tt]|'[Rr][Ee]|'[Vv][Ee]|'[Mm]|'[Ll][Ll]|'[Dd])?""",
            r"""\p{N}{1,3}""",
            r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
            r"""\s*[\r\n]+""",
            r"""\s+(?!\S)""",
            r"""\s+""",
        ]
    ),
    LLAMA3_PATTERN: (
        r"""'[Ss\x{17f}]|'[Tt]|'[Rr][Ee]|'[Vv][Ee]|'[Mm]|'[Ll][Ll]|'[Dd]|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"""
        r"""| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
    ),
    QWEN_PATTERN: (
        r"""'[Ss\x{17f}]|'[Tt]|'[Rr][Ee]|'[Vv][Ee]|'[Mm]|'[Ll][Ll]|'[Dd]|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"""
        r"""| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
    ),
    QWEN35_PATTERN: (
        r"""'[Ss\x{17f}]|'[Tt]|'[Rr][Ee]|'[Vv][Ee]|'[Mm]|'[Ll][Ll]|'[Dd]|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}"""
        r"""| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
    ),
    TEKKEN_PATTERN: TEKKEN_PATTERN,
}

#: A tokenizer.json's Split regex -> the built-in pattern it splits alike: the spellings above, and
#: the patterns that Oniguruma reads as Python's ``regex`` does, as their models' own files write
#: them (Llama 3's tokenizer.json holds Llama 3's pattern as it is).
READ_AS: dict[str, str] = {
    **{spelling: pattern for pattern, spelling in ONIGURUMA.items()},
    **{p: p for p in (O200K_PATTERN, LLAMA3_PATTERN, QWEN_PATTERN, QWEN35_PATTERN, TEKKEN_PATTERN)},
}

#: Why a tokenizer with a tokenizer.json pipeline cannot be written in a format that holds one split pattern.
PIPELINE_EXPORT = (
    "this tokenizer came from a tokenizer.json whose text handling (normalizer, split stages or added tokens) "
    "is more than one split pattern, which {fmt} cannot hold: export it as HF tokenizer.json or BPE Lab JSON"
)


class HFFileError(ValueError):
    """A tokenizer.json that BPE Lab cannot load, and why."""


def _where(path: str) -> str:
    return f"field '{path}'" if path else "the file"


def _get(doc: Mapping, key: str, path: str, kinds: type | tuple[type, ...], *, required: bool = True, default: Any = None):
    """``doc[key]`` checked to be of ``kinds`` (bool is never an int); ValueError naming ``path.key``."""
    full = f"{path}.{key}" if path else key
    if key not in doc:
        if required:
            raise HFFileError(f"field '{full}' is missing: the tokenizer.json is incomplete")
        return default
    value = doc[key]
    kinds_t = kinds if isinstance(kinds, tuple) else (kinds,)
    ok = isinstance(value, kinds_t) and not (isinstance(value, bool) and bool not in kinds_t)
    if not ok:
        names = " or ".join(
            "null"
            if k is type(None)
            else {"str": "a string", "int": "an integer", "bool": "true/false", "list": "a list", "dict": "an object"}.get(
                k.__name__, k.__name__
            )
            for k in kinds_t
        )
        raise HFFileError(f"field '{full}' should be {names}, got {_kind(value)}")
    return value


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    return {"str": "a string", "int": "an integer", "float": "a number", "list": "a list", "dict": "an object"}.get(
        type(value).__name__, type(value).__name__
    )


# ----------------------------------------------------------------------------- what kind of file


def _refuse_kind(what: str, why: str) -> HFFileError:
    return HFFileError(
        f"this tokenizer.json is {what}; BPE Lab shows byte-level BPE (text as UTF-8 bytes, merged pair by pair), {why}"
    )


def _check_model_kind(model: Mapping) -> str:
    kind = model.get("type")
    if kind is None and "merges" in model:
        kind = "BPE"  # files written before "type" existed
    if kind == "WordPiece":
        raise _refuse_kind(
            "a WordPiece model (BERT-style)",
            "while WordPiece splits words into '##' pieces of a fixed vocabulary, with no merges to replay",
        )
    if kind == "Unigram":
        raise _refuse_kind(
            "a Unigram model (SentencePiece-style)",
            "while Unigram picks the most probable split by scores, with no merges to replay",
        )
    if kind == "WordLevel":
        raise _refuse_kind("a WordLevel model", "while WordLevel maps each whole word to one id, with nothing to merge")
    if kind != "BPE":
        raise HFFileError(f"field 'model.type' should be 'BPE', got {kind!r}: BPE Lab loads byte-level BPE tokenizer.json files")
    if model.get("byte_fallback") is True:
        raise _refuse_kind(
            "a SentencePiece-style BPE (byte_fallback: characters outside its vocabulary become <0x..> byte tokens)",
            "where every text is bytes from the start",
        )
    return kind


def _check_text_handling(doc: Mapping, where: str = "") -> None:
    """Refuse a file whose text does not become bytes: no ByteLevel pre-tokenizer, Metaspace, or more than one ByteLevel."""
    pre = doc.get("pre_tokenizer")
    kinds = types_in(pre)
    if "Metaspace" in kinds:
        raise _refuse_kind(
            "a SentencePiece-style BPE (its Metaspace pre-tokenizer writes spaces as '▁')",
            "while this file marks spaces as '▁' instead",
        )
    levels = [s for s in byte_level_stages(pre) if s.get("type") == "ByteLevel"]
    if not levels:
        model = doc.get("model")
        vocab = model.get("vocab") if isinstance(model, dict) else None
        if isinstance(vocab, dict) and any("▁" in k for k in list(vocab)[:2000] if isinstance(k, str)):
            raise _refuse_kind(
                "a SentencePiece-style BPE (its vocabulary writes spaces as '▁')", "while this file works on characters"
            )
        raise _refuse_kind(
            "a BPE over characters, not bytes (it has no ByteLevel pre-tokenizer)", "and this file's tokens are not made of bytes"
        )
    if len(levels) > 1:
        raise HFFileError(
            f"field '{where}pre_tokenizer' has more than one ByteLevel stage; a byte-level tokenizer maps text to bytes once"
        )


def _check_decoder(doc: Mapping) -> None:
    decoder = doc.get("decoder")
    kinds = []
    if isinstance(decoder, dict):
        kinds = [decoder.get("type")]
        if decoder.get("type") == "Sequence" and isinstance(decoder.get("decoders"), list):
            kinds = [d.get("type") if isinstance(d, dict) else None for d in decoder["decoders"]]
    if kinds != ["ByteLevel"]:
        shown = "none" if decoder is None else "/".join(str(k) for k in kinds) or _kind(decoder)
        raise _refuse_kind(
            f"a BPE whose decoder is {shown}, not ByteLevel",
            "and decoding such a file does not turn tokens back into their bytes",
        )


# ----------------------------------------------------------------------------- reading


def _added_entries(raw: Any, path: str, *, with_ids: bool = True) -> list[dict]:
    """The ``added_tokens`` entries checked: an id (when ``with_ids``), a content and every flag."""
    if not isinstance(raw, list):
        raise HFFileError(f"field '{path}' should be a list, got {_kind(raw)}")
    out = []
    for i, entry in enumerate(raw):
        where = f"{path}[{i}]"
        if not isinstance(entry, dict):
            raise HFFileError(f"field '{where}' should be an object, got {_kind(entry)}")
        tid = _get(entry, "id", where, int) if with_ids else 0
        if with_ids and not 0 <= tid < 1 << 32:
            raise HFFileError(f"field '{where}.id' is {tid}, outside 0 to 4294967295")
        content = _get(entry, "content", where, str)
        flags = {f: _get(entry, f, where, bool) for f in ADDED_FLAGS}
        if any("\ud800" <= c <= "\udfff" for c in content):
            raise HFFileError(f"field '{where}.content' holds a lone surrogate, which is not text")
        out.append({"id": tid, "content": content, **flags})
    return out


def _read_by_tokenizers(text_json: str):
    """``tokenizers.Tokenizer`` of the file, or HFFileError with the reason ``tokenizers`` gives."""
    import tokenizers

    def message(reason: str) -> str:
        if "recursion limit" in reason:
            return (
                "this tokenizer.json is nested too deeply for Hugging Face tokenizers to read (more than 128 levels): "
                "it is damaged or not a tokenizer file"
            )
        return f"Hugging Face tokenizers cannot read this tokenizer.json: {reason}"

    with refused_by_tokenizers(message, HFFileError):
        return tokenizers.Tokenizer.from_str(text_json)


def _merges(model: Mapping, vocab: Mapping[str, int], byte_chars: set[str]) -> tuple[list[tuple[int, int]], list[int], int]:
    raw = _get(model, "merges", "model", list)
    pairs: list[tuple[int, int]] = []
    new_ids: list[int] = []
    known = {vocab[c] for c in byte_chars}
    minted: dict[int, int] = {}
    skipped = 0
    for i, m in enumerate(raw):
        path = f"model.merges[{i}]"
        if isinstance(m, str):
            parts = m.split(" ")
            if len(parts) != 2:
                raise HFFileError(f"field '{path}' should be two tokens separated by one space, got {m[:60]!r}")
        elif isinstance(m, list) and len(m) == 2 and all(isinstance(x, str) for x in m):
            parts = m
        else:
            raise HFFileError(f'field \'{path}\' should be "left right" or ["left", "right"], got {str(m)[:60]}')
        a, b = parts
        for part in (a, b, a + b):
            if part not in vocab:
                raise HFFileError(f"field '{path}': {part!r} is not in model.vocab")
        if any(c not in byte_chars for c in a + b):
            skipped += 1  # made of characters that are not bytes: can never apply to byte-level text
            continue
        ia, ib, iab = vocab[a], vocab[b], vocab[a + b]
        # a merge may use a token only a later merge builds: it applies at its own rank once that
        # token exists, as in tokenizers (the Tokenizer orders them and refuses a circle)
        if iab in known:
            first = minted.get(iab)
            also = f"merge #{first}" if first is not None else "a single byte"
            raise HFFileError(
                f"field '{path}' ({a!r} + {b!r}) builds {a + b!r}, which {also} already builds; "
                "BPE Lab's merges each build a new token, so it cannot show this file"
            )
        known.add(iab)
        minted[iab] = i
        pairs.append((ia, ib))
        new_ids.append(iab)
    return pairs, new_ids, skipped


def from_hf_json(doc: Any, *, name: str = "", text: str | None = None, trusted: bool = False) -> Tokenizer:
    """A byte-level BPE tokenizer.json (parsed JSON; ``text``, its text if at hand) as a Tokenizer
    that encodes exactly as ``tokenizers`` does.

    ``trusted``: the file is a model's own, checked by its sha256, so its regexes run in this
    process; any other file's run under the regex time limit (``pretokenize.hf_guard``)."""
    if not isinstance(doc, dict):
        raise HFFileError("a tokenizer.json holds a JSON object; this file does not")
    version = doc.get("version")
    if version is not None and version != "1.0":
        raise HFFileError(f"field 'version' is {version!r}; Hugging Face tokenizers reads version '1.0'")
    model = _get(doc, "model", "", dict)
    _check_model_kind(model)
    _check_text_handling(doc)  # the text handling says what kind of file this is
    _check_decoder(doc)
    dropout = _get(model, "dropout", "model", (int, float, type(None)), required=False)
    if dropout:
        raise HFFileError(
            f"field 'model.dropout' is {dropout}: BPE dropout picks merges at random, so no encoding can be shown as fixed"
        )
    for key in ("continuing_subword_prefix", "end_of_word_suffix"):
        value = _get(model, key, "model", (str, type(None)), required=False)
        if value:
            raise _refuse_kind(f"a word-piece style BPE ({key} {value!r})", "with no markers inside words")
    ignore_merges = _get(model, "ignore_merges", "model", bool, required=False, default=False)
    vocab = _get(model, "vocab", "model", dict)
    seen_ids: dict[int, str] = {}
    for tok, tid in vocab.items():
        if not isinstance(tid, int) or isinstance(tid, bool) or not 0 <= tid < 1 << 32:
            raise HFFileError(
                f"field 'model.vocab' gives {tok[:40]!r} the id {tid!r}; ids are whole numbers from 0 to 4294967295"
            )
        if tid in seen_ids:
            raise HFFileError(f"field 'model.vocab' gives the id {tid} to both {seen_ids[tid][:40]!r} and {tok[:40]!r}")
        seen_ids[tid] = tok
    table = bytes_to_unicode()
    byte_chars = set(table.values())
    missing = [b for b in range(256) if table[b] not in vocab]
    if missing:
        raise HFFileError(
            f"field 'model.vocab' lacks the byte character {table[missing[0]]!r} (byte {missing[0]}) and {len(missing) - 1} more: "
            "a byte-level vocabulary has all 256"
        )
    byte_ids = [vocab[table[b]] for b in range(256)]
    pairs, new_ids, skipped = _merges(model, vocab, byte_chars)
    entries = _added_entries(_get(doc, "added_tokens", "", list, required=False, default=[]) or [], "added_tokens")
    # tokenizers reads the whole file: what it cannot read is refused with its reason, and the added
    # tokens get the ids it gives them (it ignores the ids written in the file)
    reference = _read_by_tokenizers(text if text is not None else json.dumps(doc, ensure_ascii=False))
    added: dict[str, dict] = {}
    moved = {}
    for entry in entries:
        if not entry["content"]:
            continue  # tokenizers ignores an empty added token
        if entry["content"] in added:
            # tokenizers keeps the first one's id and takes the later one's flags, but a token once
            # special stays among its special tokens (encode_special_tokens leaves it as text)
            first = added[entry["content"]]
            first.update({f: entry[f] for f in ADDED_FLAGS}, special=first["special"] or entry["special"])
            continue
        with refused_by_tokenizers("Hugging Face tokenizers cannot read this tokenizer.json's added tokens", HFFileError):
            tid = reference.token_to_id(entry["content"])
        if tid is None:
            raise HFFileError(f"added token {entry['content']!r} has no id in Hugging Face tokenizers")
        if tid != entry["id"]:
            moved[entry["content"]] = (entry["id"], tid)
        added[entry["content"]] = {**entry, "id": tid}
    del reference
    reachable = set(byte_ids) | set(new_ids)
    _check_specials_apart(added.values(), reachable)
    added_ids = {a["id"] for a in added.values()}
    unreachable = [tok for tok, tid in vocab.items() if tid not in reachable and tid not in added_ids]
    whole: dict[int, bytes] = {}
    if ignore_merges:
        # with ignore_merges a chunk that is a vocabulary token is that token, built by merges or not
        # (Llama 3's rule, tiktoken's too): the ones no merge builds become whole tokens
        whole = {vocab[t]: from_gpt2_form(t) for t in unreachable if all(c in byte_chars for c in t)}
        unreachable = [t for t in unreachable if vocab[t] not in whole]
    specials = {a["content"]: a["id"] for a in added.values() if a["special"]}
    metadata: dict[str, Any] = {"format": "tokenizer.json"}
    if unreachable:
        metadata["unreachable_tokens"] = len(unreachable)
    if skipped:
        metadata["merges_not_on_bytes"] = skipped
    if moved:
        metadata["added_token_ids_reassigned"] = {k: list(v) for k, v in list(moved.items())[:50]}
    post = doc.get("post_processor")
    if isinstance(post, dict) and isinstance(post.get("type"), str):
        metadata["post_processor"] = post["type"]
    merges = MergeTable(pairs, new_ids)
    spec = {
        "normalizer": doc.get("normalizer"),
        "pre_tokenizer": doc.get("pre_tokenizer"),
        "added_tokens": sorted(added.values(), key=lambda a: a["id"]),
        "ignore_merges": ignore_merges,
    }
    pattern = _plain_pattern(spec)
    pipeline = None if pattern is not False else HFPreTokenizer(spec, trusted=trusted or _vetted(spec))
    try:
        if pattern is not False:
            return Tokenizer(
                merges,
                pattern=pattern,
                special_tokens=specials,
                byte_ids=byte_ids,
                name=name,
                metadata=metadata,
                whole_tokens=whole,
            )
        return Tokenizer(
            merges,
            special_tokens=specials,
            byte_ids=byte_ids,
            name=name,
            metadata=metadata,
            pipeline=pipeline,
            whole_tokens=whole,
        )
    except ValueError as e:
        raise HFFileError(f"the tokenizer.json is inconsistent: {e}") from None


def _check_specials_apart(added, reachable: set[int]) -> None:
    for a in added:
        if a["special"] and a["id"] in reachable:
            raise HFFileError(
                f"special token {a['content']!r} gets id {a['id']}, which the merges also build as an ordinary token; "
                "BPE Lab keeps special tokens apart from merged ones, so it cannot show this file"
            )


def _is_empty_normalizer(spec: Any) -> bool:
    return spec is None or (isinstance(spec, dict) and spec.get("type") == "Sequence" and spec.get("normalizers") == [])


def _plain_pattern(spec: Mapping) -> str | None | bool:
    """The one built-in split pattern that does all this file's text handling (None: no split), or False."""
    if not _is_empty_normalizer(spec["normalizer"]) or spec["ignore_merges"]:
        return False
    added = spec["added_tokens"]
    if any(not a["special"] or a["single_word"] or a["lstrip"] or a["rstrip"] for a in added):
        return False
    if len({a["normalized"] for a in added}) > 1:
        return False  # two passes: raw tokens first, then normalized ones
    stages = byte_level_stages(spec["pre_tokenizer"])
    *splits, last = stages
    if last.get("type") != "ByteLevel" or last.get("add_prefix_space", True):
        return False
    use_regex = last.get("use_regex", True)
    if not splits:
        return GPT2_PATTERN if use_regex else None
    if len(splits) != 1 or use_regex:
        return False
    (split,) = splits
    if split.get("type") != "Split" or split.get("behavior") != "Isolated" or split.get("invert") is not False:
        return False
    pattern = split.get("pattern")
    if not isinstance(pattern, dict) or set(pattern) != {"Regex"}:
        return False
    return READ_AS.get(pattern["Regex"], False)


# ----------------------------------------------------------------------------- the pipeline inside BPE Lab JSON


def pipeline_to_json(pipeline: HFPreTokenizer) -> dict:
    """What BPE Lab JSON keeps of a tokenizer.json's text handling (``pipeline`` field)."""
    return json.loads(json.dumps(pipeline.spec))


def pipeline_from_json(spec: Any, reachable: set[int] = frozenset(), *, path: str = "pipeline") -> HFPreTokenizer:
    """The ``pipeline`` field of BPE Lab JSON back into the pre-tokenizer (ids as written: they are the final ones).

    ``reachable``: the ids of the bytes and merges, which a special token may not share.
    """
    if not isinstance(spec, dict):
        raise HFFileError(f"field '{path}' should be an object, got {_kind(spec)}")
    _check_text_handling(spec, where=f"{path}.")
    added = _added_entries(_get(spec, "added_tokens", path, list), f"{path}.added_tokens")
    seen: dict[str, int] = {}
    for i, a in enumerate(added):
        if not a["content"]:
            raise HFFileError(f"field '{path}.added_tokens[{i}]' needs a non-empty content")
        if a["content"] in seen:  # BPE Lab writes each once, with the id and flags tokenizers gave it
            raise HFFileError(
                f"field '{path}.added_tokens' lists {a['content'][:40]!r} twice (entries {seen[a['content']]} and {i}): "
                "keep one entry per token"
            )
        seen[a["content"]] = i
    _check_specials_apart(added, set(reachable))
    ignore = _get(spec, "ignore_merges", path, bool)
    kept = {
        "normalizer": spec.get("normalizer"),
        "pre_tokenizer": spec.get("pre_tokenizer"),
        "added_tokens": added,
        "ignore_merges": ignore,
    }
    return HFPreTokenizer(kept, trusted=_vetted(kept))


def _vetted(spec: Mapping) -> bool:
    """Whether every regex of a text handling is one BPE Lab writes itself (its built-in patterns as Oniguruma reads them)."""
    return regexes_in([spec.get("normalizer"), spec.get("pre_tokenizer")]) <= set(ONIGURUMA.values())


# ----------------------------------------------------------------------------- writing


def hf_pattern(pattern: str) -> str:
    r"""A built-in split pattern as Oniguruma (Hugging Face tokenizers) must be given it to split alike.

    ValueError for any other pattern: the two regex engines read some constructs differently,
    and BPE Lab only writes spellings it has checked against ``tokenizers``.

    >>> hf_pattern(r"\w+")
    Traceback (most recent call last):
    ...
    ValueError: only the built-in split patterns (gpt2, gpt4, o200k, llama3, qwen, qwen3.5, tekken) can be written for Hugging Face tokenizers, whose Oniguruma reads some regex constructs otherwise than Python's regex; export as BPE Lab JSON instead
    """
    spelling = ONIGURUMA.get(pattern)
    if spelling is None:
        raise ValueError(
            "only the built-in split patterns (gpt2, gpt4, o200k, llama3, qwen, qwen3.5, tekken) can be written for "
            "Hugging Face tokenizers, whose Oniguruma reads some regex constructs otherwise than Python's regex; "
            "export as BPE Lab JSON instead"
        )
    return spelling


def _one_chunk(tok: Tokenizer, data: bytes) -> bool:
    """Whether text with these bytes could be one chunk, which ignore_merges would look up whole."""
    if tok.pipeline is not None or tok.pattern is None:
        return True
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return False  # a chunk of text is whole UTF-8
    return [m.group(0) for m in regex.finditer(tok.pattern, text)] == [text]


def to_hf_json(tok: Tokenizer) -> dict[str, Any]:
    """A Hugging Face tokenizer.json (byte-level BPE) whose ids, under ``tokenizers``, are exactly ours.

    ValueError, with the reason, when ``tokenizers`` could not reproduce them: two tokens
    with the same bytes, a split pattern that is not a built-in one (``hf_pattern``), an
    added token whose text is also a vocabulary token's spelling. A normalizing model's
    normal form (Qwen's NFC) becomes the file's normalizer; ``tokenizers`` normalizes with
    older Unicode tables, so text with characters assigned since Unicode 9 may differ there.
    """
    check_tokenizer(tok)
    vocab = tok.vocab
    table = bytes_to_unicode()
    pipeline = tok.pipeline
    built = set(tok.byte_ids) | set(tok.merge_table.new_ids)
    added_ids = set(tok.special_ids) | (
        {tid for tid in pipeline.added_tokens.values() if tid not in built} if pipeline is not None else set()
    )  # an added token spelled like a merged token is that token
    hf_vocab: dict[str, int] = {}
    for tid in sorted(vocab):
        if tid in added_ids:
            continue
        key = "".join(table[x] for x in vocab[tid])
        if key in hf_vocab:
            raise ValueError(
                f"tokens {hf_vocab[key]} and {tid} have the same bytes {vocab[tid]!r}; tokenizer.json maps each token string to one id: "
                "export as BPE Lab JSON instead"
            )
        hf_vocab[key] = tid
    merges = ["".join(table[x] for x in vocab[a]) + " " + "".join(table[x] for x in vocab[b]) for (a, b) in tok.merge_table.pairs]
    if pipeline is not None:
        added = [dict(a) for a in pipeline.spec["added_tokens"]]
        normalizer, pre, ignore = pipeline.spec["normalizer"], pipeline.spec["pre_tokenizer"], pipeline.spec["ignore_merges"]
    else:
        added = [
            {"id": i, "content": s, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True}
            for s, i in sorted(tok.special_tokens.items(), key=lambda kv: kv[1])
        ]
        normalizer = {"type": tok.normalizer} if tok.normalizer is not None else None
        ignore = bool(tok.whole_tokens)  # tiktoken's rule: a chunk that is a token is that token
        byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}
        if tok.pattern is None:
            pre = byte_level
        else:
            try:
                spelling = hf_pattern(tok.pattern)
            except ValueError as e:
                raise ValueError(f"this tokenizer's split pattern cannot be exported to Hugging Face tokenizers: {e}") from None
            split = {"type": "Split", "pattern": {"Regex": spelling}, "behavior": "Isolated", "invert": False}
            pre = {"type": "Sequence", "pretokenizers": [split, byte_level]}
    # tokenizers renumbers an added token unless its text is in the vocabulary: put every one there
    byte_chars = set(table.values())
    for a in added:
        content = a["content"]
        if content in hf_vocab and hf_vocab[content] != a["id"]:
            raise ValueError(
                f"the added token {content!r} (id {a['id']}) is spelled like the vocabulary token {hf_vocab[content]}, "
                "so tokenizers would give it that id: export as BPE Lab JSON instead"
            )
        if ignore and all(c in byte_chars for c in content) and _one_chunk(tok, from_gpt2_form(content)):
            raise ValueError(
                f"the added token {content!r} is spelled in byte characters; with ignore_merges tokenizers could produce it "
                "for ordinary text: export as BPE Lab JSON instead"
            )
        hf_vocab[content] = a["id"]
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": normalizer,
        "pre_tokenizer": pre,
        "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": ignore,
            "vocab": hf_vocab,
            "merges": merges,
        },
    }


__all__ = [
    "from_hf_json",
    "to_hf_json",
    "hf_pattern",
    "pipeline_to_json",
    "pipeline_from_json",
    "HFFileError",
    "HF_BYTELEVEL_PATTERN",
    "ONIGURUMA",
]
