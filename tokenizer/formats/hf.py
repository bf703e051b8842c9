"""Hugging Face ``tokenizer.json``: read any byte-level BPE file exactly, write ours so ``tokenizers`` gives our ids.

**Reading** (``from_hf_json``). A file is checked field by field, and anything wrong is a
ValueError naming the field (``model.merges[12]``, ``added_tokens[3].id``,
``pre_tokenizer.pretokenizers[1].behavior``...), at load, never later in ``encode``.
What it becomes:

- The BPE model: its merges (written ``"a b"`` or ``["a", "b"]``) in rank order, the byte
  ids of GPT-2's 256 byte characters, ``ignore_merges``.
- Added tokens, with the ids ``tokenizers`` gives them on load (it ignores the ids written
  in the file: a token whose text is in the vocabulary gets that id, the others the next
  free ids after the vocabulary, in file order). Special ones become the Tokenizer's
  ``special_tokens``; the others are always recognised, as in ``tokenizers``.
- The text handling before BPE (normalizer, pre-tokenizer stages, added-token flags), as a
  ``hf_pipeline.Pipeline``. When it is nothing but one split regex, no normalizer and plain
  special tokens (GPT-2, Llama 3, Qwen and our own exports), the Tokenizer gets that regex
  as its ``pattern`` instead (a built-in one when it means the same) and needs no pipeline.

Refused, with what the file is and why BPE Lab cannot show it: WordPiece, Unigram and
WordLevel models; SentencePiece-style BPE (``byte_fallback``, a ``Metaspace``
pre-tokenizer or ``▁`` spaces); BPE without a ``ByteLevel`` pre-tokenizer and decoder;
BPE dropout; normalizers and pre-tokenizers other than those in ``hf_pipeline``; split
regexes that Python's ``regex`` cannot run exactly as Oniguruma does (``pretokenize.onig``);
merges that use a token only a later merge builds, or build one token twice (BPE Lab
replays merges in order, one new token each).

Not part of encoding, and so not kept: ``truncation``, ``padding``, the post-processor
(it adds tokens such as ``<s>`` only with ``add_special_tokens=True``; BPE Lab's ids are
``tokenizers``' ``encode(text, add_special_tokens=False)``), vocabulary entries that no
merge builds (they are never produced; ``metadata["unreachable_tokens"]`` counts them).

**Writing** (``to_hf_json``). Every id survives ``tokenizers.Tokenizer.from_file``: added
tokens are also written into the vocabulary with their ids (``tokenizers`` would otherwise
renumber any that do not follow the vocabulary), and a split pattern is rewritten for
Oniguruma (``onig.to_oniguruma``), or the export is refused with the reason.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import regex

from ..bpe.merges import MergeTable
from ..core import Tokenizer
from ..display import bytes_to_unicode, from_gpt2_form
from ..errors import InvalidType, type_name
from ..pretokenize import onig
from ..pretokenize.hf_pipeline import (
    BYTELEVEL_REGEX,
    DIGITS_REGEX,
    NORMAL_FORMS,
    AddedToken,
    ByteLevelStage,
    Normalizer,
    OnigRegex,
    Pipeline,
    SplitStage,
)
from ..pretokenize.patterns import GPT2_PATTERN, PATTERNS

BEHAVIORS = ("Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous")
_FLAGS = ("single_word", "lstrip", "rstrip", "normalized", "special")

# GPT-2's split as Hugging Face's ByteLevel pre-tokenizer spells it (use_regex=True); it splits
# every text as tiktoken's GPT-2 pattern does (tests/tokenizer/formats/test_hf.py checks it)
HF_BYTELEVEL_PATTERN = BYTELEVEL_REGEX

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


# ----------------------------------------------------------------------------- normalizer and pre-tokenizer


def _normal_forms(spec: Any, path: str) -> tuple[str, ...]:
    if spec is None:
        return ()
    if not isinstance(spec, dict):
        raise HFFileError(f"field '{path}' should be an object or null, got {_kind(spec)}")
    kind = _get(spec, "type", path, str)
    if kind in NORMAL_FORMS:
        return (kind,)
    if kind == "Sequence":
        items = _get(spec, "normalizers", path, list)
        return tuple(f for i, n in enumerate(items) for f in _normal_forms(n, f"{path}.normalizers[{i}]"))
    if kind in ("Prepend", "Replace") and "▁" in str(spec):
        raise _refuse_kind(
            "a SentencePiece-style BPE (its normalizer writes spaces as '▁')", "while this file marks spaces as '▁' instead"
        )
    raise HFFileError(
        f"field '{path}.type' is {kind!r}, a normalizer BPE Lab does not reproduce; "
        f"it reproduces {', '.join(NORMAL_FORMS)} and sequences of them exactly"
    )


def _rust_regex_escape(s: str) -> str:
    """Rust's ``regex::escape``, which tokenizers applies to a Split's string pattern."""
    return "".join("\\" + c if c in "\\.+*?()|[]{}^$#&-~" else c for c in s)


def _stages(spec: Any, path: str, strict: bool = True) -> list:
    if spec is None:
        return []
    if not isinstance(spec, dict):
        raise HFFileError(f"field '{path}' should be an object or null, got {_kind(spec)}")
    kind = _get(spec, "type", path, str)
    if kind == "Sequence":
        items = _get(spec, "pretokenizers", path, list)
        return [s for i, p in enumerate(items) for s in _stages(p, f"{path}.pretokenizers[{i}]", strict)]
    if kind == "ByteLevel":
        _get(spec, "trim_offsets", path, bool, required=False)
        return [
            ByteLevelStage(
                _get(spec, "add_prefix_space", path, bool, required=False, default=True),
                _get(spec, "use_regex", path, bool, required=False, default=True),
            )
        ]
    if kind == "Split":
        pattern = _get(spec, "pattern", path, dict)
        behavior = _get(spec, "behavior", path, str)
        invert = _get(spec, "invert", path, bool)
        if behavior not in BEHAVIORS:
            raise HFFileError(f"field '{path}.behavior' is {behavior!r}; it should be one of {', '.join(BEHAVIORS)}")
        if len(pattern) != 1 or next(iter(pattern)) not in ("Regex", "String"):
            raise HFFileError(f'field \'{path}.pattern\' should be {{"Regex": ...}} or {{"String": ...}}')
        ((pkind, text),) = pattern.items()
        if not isinstance(text, str):
            raise HFFileError(f"field '{path}.pattern.{pkind}' should be a string, got {_kind(text)}")
        source = text if pkind == "Regex" else _rust_regex_escape(text)
        try:
            rx = OnigRegex(source)
        except ValueError as e:
            raise HFFileError(f"field '{path}.pattern.{pkind}': {e}") from None
        return [SplitStage(rx, behavior, invert)]
    if kind == "Digits":
        individual = _get(spec, "individual_digits", path, bool, required=False, default=False)
        return [SplitStage(OnigRegex(DIGITS_REGEX), "Isolated" if individual else "Contiguous")]
    if kind == "Metaspace":
        raise _refuse_kind(
            "a SentencePiece-style BPE (its Metaspace pre-tokenizer writes spaces as '▁')",
            "while this file marks spaces as '▁' instead",
        )
    if not strict:
        return []
    raise HFFileError(
        f"field '{path}.type' is {kind!r}, a pre-tokenizer BPE Lab does not reproduce; "
        "it reproduces ByteLevel, Split, Digits and Sequence exactly"
    )


# ----------------------------------------------------------------------------- reading


def _added_tokens(doc: Mapping, vocab: Mapping[str, int], normalizer: Normalizer | None) -> tuple[list[AddedToken], dict]:
    """The added tokens with the ids tokenizers gives them (``AddedVocabulary::add_tokens``)."""
    raw = _get(doc, "added_tokens", "", list, required=False, default=[]) or []
    next_id = len(vocab)
    by_content: dict[str, AddedToken] = {}
    specials: set[str] = set()
    moved = {}
    for i, entry in enumerate(raw):
        path = f"added_tokens[{i}]"
        if not isinstance(entry, dict):
            raise HFFileError(f"field '{path}' should be an object, got {_kind(entry)}")
        written = _get(entry, "id", path, int)
        if written < 0 or written >= 1 << 32:
            raise HFFileError(f"field '{path}.id' is {written}, outside 0 to 4294967295")
        content = _get(entry, "content", path, str)
        flags = {f: _get(entry, f, path, bool) for f in _FLAGS}
        if not content:
            continue  # tokenizers ignores an empty added token
        if any("\ud800" <= c <= "\udfff" for c in content):
            raise HFFileError(f"field '{path}.content' holds a lone surrogate, which is not text")
        if content in by_content:
            tid = by_content[content].id
        elif content in vocab:
            tid = vocab[content]
        else:
            tid = next_id
            next_id += 1
        if flags["special"]:
            specials.add(content)
        text = normalizer(content) if (flags["normalized"] and normalizer is not None) else content
        if not text:
            raise HFFileError(f"field '{path}.content' normalizes to nothing")
        by_content[content] = AddedToken(
            content, tid, content in specials, flags["single_word"], flags["lstrip"], flags["rstrip"], flags["normalized"], text
        )
        if tid != written:
            moved[content] = (written, tid)
    tokens = list(by_content.values())
    ids: dict[int, str] = {}
    for t in tokens:
        if t.id in ids:
            raise HFFileError(f"added tokens {ids[t.id]!r} and {t.content!r} would both get id {t.id} in Hugging Face tokenizers")
        ids[t.id] = t.content
    return tokens, moved


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


def from_hf_json(doc: Any, *, name: str = "") -> Tokenizer:
    """A byte-level BPE tokenizer.json (parsed JSON) as a Tokenizer that encodes exactly as ``tokenizers`` does."""
    if not isinstance(doc, dict):
        raise HFFileError("a tokenizer.json holds a JSON object; this file does not")
    version = doc.get("version")
    if version is not None and version != "1.0":
        raise HFFileError(f"field 'version' is {version!r}; Hugging Face tokenizers reads version '1.0'")
    model = _get(doc, "model", "", dict)
    _check_model_kind(model)
    # the text handling first: it says what kind of file this is
    kinds = _types(doc.get("pre_tokenizer"))
    if "Metaspace" in kinds:
        raise _refuse_kind(
            "a SentencePiece-style BPE (its Metaspace pre-tokenizer writes spaces as '▁')",
            "while this file marks spaces as '▁' instead",
        )
    if "ByteLevel" not in kinds:
        _stages(doc.get("pre_tokenizer"), "pre_tokenizer", strict=False)  # a damaged structure names its field
        vocab = model.get("vocab")
        if isinstance(vocab, dict) and any("▁" in k for k in list(vocab)[:2000] if isinstance(k, str)):
            raise _refuse_kind(
                "a SentencePiece-style BPE (its vocabulary writes spaces as '▁')", "while this file works on characters"
            )
        raise _refuse_kind(
            "a BPE over characters, not bytes (it has no ByteLevel pre-tokenizer)", "and this file's tokens are not made of bytes"
        )
    forms = _normal_forms(doc.get("normalizer"), "normalizer")
    stages = _stages(doc.get("pre_tokenizer"), "pre_tokenizer")
    _check_byte_level(doc, stages, model)
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
    normalizer = Normalizer(forms) if doc.get("normalizer") is not None else None
    added, moved = _added_tokens(doc, vocab, normalizer)
    reachable = set(byte_ids) | set(new_ids)
    added, added_ids = _mark_in_vocab(added, reachable)
    unreachable = [tok for tok, tid in vocab.items() if tid not in reachable and tid not in added_ids]
    whole: dict[int, bytes] = {}
    if ignore_merges:
        # with ignore_merges a chunk that is a vocabulary token is that token, built by merges or not
        # (Llama 3's rule, tiktoken's too): the ones no merge builds become whole tokens
        whole = {vocab[t]: from_gpt2_form(t) for t in unreachable if all(c in byte_chars for c in t)}
        unreachable = [t for t in unreachable if vocab[t] not in whole]
    specials = {t.content: t.id for t in added if t.special}
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
    pattern = _plain_pattern(normalizer, stages, added, ignore_merges)
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
        spec = {
            "normalizer": doc.get("normalizer"),
            "pre_tokenizer": doc.get("pre_tokenizer"),
            "added_tokens": [_added_json(t) for t in sorted(added, key=lambda t: t.id)],
            "ignore_merges": ignore_merges,
        }
        pipeline = Pipeline(normalizer, tuple(stages), tuple(added), ignore_merges, spec)
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


def _types(spec: Any) -> set[str]:
    """Every ``type`` named in a pre-tokenizer tree (however malformed)."""
    if isinstance(spec, dict):
        out = {spec["type"]} if isinstance(spec.get("type"), str) else set()
        for v in spec.values():
            out |= _types(v)
        return out
    if isinstance(spec, list):
        return set().union(*(_types(v) for v in spec)) if spec else set()
    return set()


def _mark_in_vocab(added: list[AddedToken], reachable: set[int]) -> tuple[list[AddedToken], set[int]]:
    """Flag the non-special added tokens spelled like a merged token (tokenizers gives them its id)."""
    out = []
    for t in added:
        if t.id in reachable:
            if t.special:
                raise HFFileError(
                    f"special token {t.content!r} gets id {t.id}, which the merges also build as an ordinary token; "
                    "BPE Lab keeps special tokens apart from merged ones, so it cannot show this file"
                )
            t = dataclasses.replace(t, in_vocab=True)
        out.append(t)
    return out, {t.id for t in out}


def _check_byte_level(doc: Mapping, stages: list, model: Mapping) -> None:
    levels = [s for s in stages if isinstance(s, ByteLevelStage)]
    if len(levels) > 1:
        raise HFFileError(
            "field 'pre_tokenizer' has more than one ByteLevel stage; a byte-level tokenizer maps text to bytes once"
        )
    decoder = doc.get("decoder")
    kinds = []
    if isinstance(decoder, dict):
        kinds = [decoder.get("type")]
        if decoder.get("type") == "Sequence" and isinstance(decoder.get("decoders"), list):
            kinds = [d.get("type") if isinstance(d, dict) else None for d in decoder["decoders"]]
    if kinds != ["ByteLevel"]:
        shown = "none" if decoder is None else "/".join(str(k) for k in kinds)
        raise _refuse_kind(
            f"a BPE whose decoder is {shown}, not ByteLevel",
            "and decoding such a file does not turn tokens back into their bytes",
        )


def _plain_pattern(normalizer, stages, added, ignore_merges):
    """The one split pattern that does all this file's text handling, or False if a pipeline is needed."""
    if normalizer is not None and normalizer.forms:
        return False
    if ignore_merges or any(not t.special or t.single_word or t.lstrip or t.rstrip for t in added):
        return False
    if len({t.normalized for t in added}) > 1:
        return False  # two passes: raw tokens first, then normalized ones
    *splits, last = stages
    if not isinstance(last, ByteLevelStage) or last.add_prefix_space:
        return False
    if not splits:
        return GPT2_PATTERN if last.use_regex else None
    if len(splits) != 1 or last.use_regex:
        return False
    (stage,) = splits
    if not isinstance(stage, SplitStage) or stage.behavior != "Isolated" or stage.invert or stage.regex.nullable:
        return False
    for builtin in dict.fromkeys(PATTERNS.values()):
        if onig.same_meaning(stage.regex.source, builtin):
            return builtin
    return stage.regex.python


def _added_json(t: AddedToken) -> dict:
    return {
        "id": t.id, "content": t.content, "single_word": t.single_word, "lstrip": t.lstrip, "rstrip": t.rstrip,
        "normalized": t.normalized, "special": t.special,
    }  # fmt: skip


# ----------------------------------------------------------------------------- the pipeline inside BPE Lab JSON


def pipeline_to_json(pipeline: Pipeline) -> dict:
    """What BPE Lab JSON keeps of a tokenizer.json's text handling (``pipeline`` field)."""
    return dict(pipeline.spec)


def pipeline_from_json(spec: Any, reachable: set[int] = frozenset(), *, path: str = "pipeline") -> Pipeline:
    """The ``pipeline`` field of BPE Lab JSON back into a Pipeline (ids as written: they are the final ones).

    ``reachable``: the ids of the bytes and merges, which an added token spelled like one of them shares.
    """
    if not isinstance(spec, dict):
        raise HFFileError(f"field '{path}' should be an object, got {_kind(spec)}")
    forms = _normal_forms(spec.get("normalizer"), f"{path}.normalizer")
    stages = _stages(spec.get("pre_tokenizer"), f"{path}.pre_tokenizer")
    if sum(isinstance(s, ByteLevelStage) for s in stages) != 1:
        raise HFFileError(f"field '{path}.pre_tokenizer' should hold exactly one ByteLevel stage")
    normalizer = Normalizer(forms) if spec.get("normalizer") is not None else None
    raw = _get(spec, "added_tokens", path, list)
    added = []
    for i, entry in enumerate(raw):
        p = f"{path}.added_tokens[{i}]"
        if not isinstance(entry, dict):
            raise HFFileError(f"field '{p}' should be an object, got {_kind(entry)}")
        tid = _get(entry, "id", p, int)
        content = _get(entry, "content", p, str)
        if tid < 0 or not content:
            raise HFFileError(f"field '{p}' needs a non-negative id and a non-empty content")
        flags = {f: _get(entry, f, p, bool) for f in _FLAGS}
        text = normalizer(content) if (flags["normalized"] and normalizer is not None) else content
        added.append(
            AddedToken(
                content, tid, flags["special"], flags["single_word"], flags["lstrip"], flags["rstrip"], flags["normalized"], text
            )
        )
    added, _ = _mark_in_vocab(added, set(reachable))
    ignore = _get(spec, "ignore_merges", path, bool)
    clean = {
        "normalizer": spec.get("normalizer"),
        "pre_tokenizer": spec.get("pre_tokenizer"),
        "added_tokens": raw,
        "ignore_merges": ignore,
    }
    return Pipeline(normalizer, tuple(stages), tuple(added), ignore, clean)


# ----------------------------------------------------------------------------- writing


def hf_pattern(pattern: str) -> str:
    """A split pattern as Oniguruma (Hugging Face tokenizers) must be given it to split alike.

    Kept under its old name; ``onig.to_oniguruma`` does the work and refuses what it cannot
    translate exactly.
    """
    return onig.to_oniguruma(pattern)


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
    with the same bytes, a split pattern Oniguruma cannot run alike, an added token whose
    text is also a vocabulary token's spelling.
    """
    if not isinstance(tok, Tokenizer):
        raise InvalidType(f"expected a Tokenizer (from train, load_encoding or load), not {type_name(tok)}")
    vocab = tok.vocab
    table = bytes_to_unicode()
    pipeline = tok.pipeline
    added_ids = set(tok.special_ids) | (
        set(pipeline.added_tokens.values()) if pipeline is not None else set()
    )  # not in_vocab ones
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
        normalizer, ignore = None, bool(tok.whole_tokens)  # tiktoken's rule: a chunk that is a token is that token
        byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}
        if tok.pattern is None:
            pre = byte_level
        else:
            try:
                onig_pattern = onig.to_oniguruma(tok.pattern)
            except ValueError as e:
                raise ValueError(f"this tokenizer's split pattern cannot be exported to Hugging Face tokenizers: {e}") from None
            split = {"type": "Split", "pattern": {"Regex": onig_pattern}, "behavior": "Isolated", "invert": False}
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
]
