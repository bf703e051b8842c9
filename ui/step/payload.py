"""The trace Step through sends to the browser once, as compact plain data (no Streamlit here).

The page (``ui/step/stepper.js``) replays it to any step without asking the server.
Each step says what it changes, never the whole token list again:

* ``text``: the shown text's UTF-8 bytes (base64); step 0 is one token per byte
  (``byteIds[b]``, or ``b`` itself when ``byteIds`` is null), except ``specials`` and
  ``wholes`` (``[offset, length, id, ...]``), tokens from the start;
* ``steps``: per step its merge ``rank`` (delta-encoded), new id (``rank + idOff``),
  the pair (``left``, ``right``; training mode takes them from ``merges``), how many
  places (``count``) and the byte offsets where the new tokens start (``pos``: each
  step's offsets as gaps from the previous one), and ``drop``, the rare steps whose
  token count falls by other than ``count`` (``[[step, difference], ...]``);
* ``chunks``: where the regex chunks start (delta-encoded; empty for one chunk);
* ``tokens``: each token the steps need that cannot be derived, once: its id
  (sorted, delta-encoded), byte length and bytes (all concatenated, base64).
  In training mode a merge's token is its two halves' bytes, so only the bytes and
  the special tokens are listed.

Training mode adds every merge of the tokenizer (``merges``: left, right, count; the
new id is ``256 + rank``, or where ``idRuns`` (``[[rank, offset], ...]``) says otherwise
``offset + rank`` from that rank on), the training text's length after each merge (``length``:
the initial length and, sparsely, where a merge saved other than its count) and the
excerpt's and corpus's sizes. The top pairs are not here: ``top_pairs_window`` gives
them for a window of steps, sent by the server when stepping pauses.

A training variant (``tokenizer.bpe.methods``) adds ``variant``, what its steps do
differently: parity-aware, the language each merge serves (``served``, -1 for a plain
merge over every text; one entry more than the merges: the language served next at the
end) and every language's length in tokens after each merge (``lengths``, one
delta-encoded row per language); tokens across words, the transition (``stage1``) and,
when stage 1 cut the text with another pattern, the shown text as stage 1 cut it
(``cut1``: ``specials``, ``wholes``, ``chunks``, ``steps``, ``tokens`` as above), shown
before the transition; continued, where this text's own merges start (``firstLearned``)
and the base's name.

Both modes carry ``code``: the textbook functions the step performs (``ui.step.code``),
which the page fills with each step's values.

The browser's ``replay.js`` is the one replay of a payload; the tests read payloads back
with a reference decoder of their own (``tests/step_reference.py``).
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Sequence

from tokenizer import Tokenizer, TrainingTrace
from tokenizer.bpe.continued import ContinuedTrace
from tokenizer.bpe.parity import ParityTrace
from tokenizer.bpe.superwords import SuperwordTrace
from tokenizer.trace import EncodeTrace

from . import code, model

VERSION = 1
#: The largest payload the page sends to a browser (bytes of JSON). Above it the page says what to shorten. It holds
#: the largest training the Train page makes (50,257 tokens: about 620 kB) and about 165,000 characters of English in
#: encoding mode (6 bytes a character); more would also be more spans than a page redraws smoothly.
MAX_BYTES = 1_000_000
#: Steps per window of top pairs (training mode), and how many pairs per step.
WINDOW = 48
#: A training variant's window: its trace counts each step's pairs afresh (``TrainingTrace.incremental``).
VARIANT_WINDOW = 12


class TooBig(ValueError):
    """A trace too big to send to the browser; the message says what to shorten."""


def _deltas(values: Sequence[int]) -> list[int]:
    """``[3, 5, 9] -> [3, 2, 4]``"""
    out, prev = [], 0
    for v in values:
        out.append(v - prev)
        prev = v
    return out


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _flat(triples: Sequence[tuple[int, int, int]]) -> list[int]:
    return [x for t in triples for x in t]


def _token_table(vocab_bytes: dict[int, bytes]) -> dict:
    ids = sorted(vocab_bytes)
    return {
        "ids": _deltas(ids),
        "len": [len(vocab_bytes[i]) for i in ids],
        "bytes": _b64(b"".join(vocab_bytes[i] for i in ids)),
    }


def _common(tok: Tokenizer, trace: EncodeTrace, *, pairs: bool, id_base: int | None) -> dict:
    steps = trace.steps
    byte_ids = list(trace.byte_ids)
    identity = byte_ids == list(range(256))
    off = [s.new_id - s.rank for s in steps]
    drops, before = [], trace.initial_count
    for i, s in enumerate(steps):
        if before - s.n_tokens != s.count:
            drops.append([i, before - s.n_tokens - s.count])
        before = s.n_tokens
    out = {
        "v": VERSION,
        "text": _b64(trace.data),
        "byteIds": None if identity else byte_ids,
        "specials": _flat(trace.specials),
        "wholes": _flat(trace.wholes),
        "chunks": _deltas([a for a, _ in trace.chunk_bytes]) if len(trace.chunk_bytes) > 1 else [],
        "steps": {
            "rank": _deltas([s.rank for s in steps]),
            "idOff": off[0] if off and all(o == off[0] for o in off) else off,
            "count": [s.count for s in steps],
            "pos": [p - prev for s in steps for prev, p in zip((0, *s.positions), s.positions)],
            "drop": drops,
        },
    }
    if pairs:
        out["steps"]["left"] = [s.pair[0] for s in steps]
        out["steps"]["right"] = [s.pair[1] for s in steps]
    vocab = tok.vocab
    needed = {t for _, _, t in trace.specials + trace.wholes}
    if id_base is not None and not identity:  # a base's bytes with ids of their own (GPT-2's): not derivable
        needed |= set(byte_ids)
    if id_base is None:  # every token the steps show or name
        needed |= {byte_ids[b] for b in set(trace.data)}
        for s in steps:
            needed |= {s.new_id, *s.pair}
    out["tokens"] = _token_table({i: vocab[i] for i in needed})
    return out


def encoding_payload(tok: Tokenizer, trace: EncodeTrace) -> dict:
    """What the page needs to replay ``trace`` (encoding mode) at any step."""
    out = {"mode": "encoding", "n": len(trace.steps)}
    out.update(_common(tok, trace, pairs=True, id_base=None))
    out["code"] = code.panel("encoding")
    return out


def training_payload(tok: Tokenizer, trace: TrainingTrace, etrace: EncodeTrace, *, corpus_chars: int) -> dict:
    """What the page needs to replay a training (its merges) over the excerpt ``etrace`` at any step."""
    merges = tok.merge_list
    # a merge's new id is 256 + its rank, plus what the runs say from where they start: a continued training's
    # base may hold special tokens among its ids (GPT-2's <|endoftext|> is 50256, so its first new merge makes 50257)
    runs, off = [], 256
    for m in merges:
        if m.new_id - m.rank != off:
            off = m.new_id - m.rank
            runs.append([m.rank, off])
    counts = [m.count or 0 for m in merges]
    diff, prev = [], trace.initial_tokens
    for k, c in enumerate(counts, 1):
        now = trace.length_at(k)
        if prev - now != c:
            diff.append([k, c - (prev - now)])
        prev = now
    out = {"mode": "training", "n": tok.num_merges}
    out.update(_common(tok, etrace, pairs=False, id_base=256))
    out["merges"] = {"left": [m.pair[0] for m in merges], "right": [m.pair[1] for m in merges], "count": _deltas(counts)}
    if runs:
        out["merges"]["idRuns"] = runs
    out["length"] = {"initial": trace.initial_tokens, "diff": diff}
    out["shownChars"] = len(etrace.text)
    out["corpusChars"] = corpus_chars
    out["code"] = code.panel("training")
    variant = variant_payload(tok, trace, etrace)
    if variant is not None:
        out["variant"] = variant
    return out


def variant_payload(tok: Tokenizer, trace: TrainingTrace, etrace: EncodeTrace) -> dict | None:
    """What a training variant's steps do differently (see the module's docstring); None for plain BPE."""
    n = tok.num_merges
    if isinstance(trace, ParityTrace):
        served = [-1 if (g := trace.served_at(k)) is None else g for k in range(n + 1)]
        rows = trace.language_lengths[: n + 1]
        return {
            "kind": "parity",
            "languages": list(trace.languages),
            "served": served,
            "lengths": [_deltas([row[g] for row in rows]) for g in range(len(trace.languages))],
        }
    if isinstance(trace, SuperwordTrace):
        t = trace.stage1_merges
        out = {"kind": "superwords", "stage1": t, "stage2Start": trace.stage2_start}
        first = model.stage_tokenizer(tok, trace, 0)
        if t > 0 and first is not tok:
            cut = _common(first, model.excerpt_trace(first, etrace.text), pairs=False, id_base=256)
            out["cut1"] = {key: cut[key] for key in ("specials", "wholes", "chunks", "steps", "tokens")}
        return out
    if isinstance(trace, ContinuedTrace):
        base = (tok.metadata.get("training") or {}).get("base")
        return {"kind": "continued", "firstLearned": trace.first_learned, "base": str(base or "the base")}
    return None


def dumps(payload: dict) -> tuple[str, bytes]:
    """``(id, JSON bytes)``: the payload with its id (a hash of its content), compact."""
    body = json.dumps(payload, separators=(",", ":"), ensure_ascii=True).encode("ascii")
    trace_id = hashlib.sha1(body).hexdigest()[:16]
    return trace_id, b'{"id":"' + trace_id.encode() + b'",' + body[1:]


def size_label(n: int) -> str:
    """``2_400_000 -> '2.4 MB'``, ``48_200 -> '48 kB'``"""
    return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n / 1e3:.0f} kB"


def check_size(size: int, *, mode: str, chars: int, limit: int | None = None) -> None:
    """``TooBig`` for a payload of ``size`` bytes above ``limit``, saying what to shorten.

    >>> check_size(10, mode="encoding", chars=5)
    >>> check_size(1_800_000, mode="encoding", chars=300_000)
    Traceback (most recent call last):
    ...
    ui.step.payload.TooBig: This text's steps come to 1.8 MB, more than the 1.0 MB the page sends to your browser: shorten the text to about 150,000 characters (it has 300,000).
    """
    limit = MAX_BYTES if limit is None else limit
    if size <= limit:
        return
    mb = f"{size_label(size)}, more than the {size_label(limit)} the page sends to your browser"
    if mode == "encoding":
        fit = int(chars * limit / size * 0.9) // 1000 * 1000
        raise TooBig(f"This text's steps come to {mb}: shorten the text to about {fit:,} characters (it has {chars:,}).")
    raise TooBig(
        f"This training's steps come to {mb}: show fewer characters of the training text, or pick a tokenizer with fewer merges."
    )


def top_pairs_window(tok: Tokenizer, trace: TrainingTrace, start: int, counter: model.PairCounter | None = None) -> dict:
    """The top pairs after ``start``, ``start + 1``, ... merges, for ``WINDOW`` steps (fewer at the end; a variant's
    ``VARIANT_WINDOW``, counted by its trace: in the language a step serves, in the stage's chunks).

    ``pairs[i]`` is ``[left, right, count, left, right, count, ...]`` after ``start + i``
    merges, in training's order (row 0 is merge ``start + i + 1``'s pair). A ``counter``
    at or before ``start`` carries the counts from step to step.
    """
    n = tok.num_merges
    start = max(0, min(start, n))
    if not trace.incremental:  # a variant's counts are not the replayed text's: its trace counts them
        rows = [
            [x for pc in trace.pair_counts(tok, k, model.TOP_PAIRS) for x in (*pc.pair, pc.count)]
            for k in range(start, min(n, start + VARIANT_WINDOW))
        ]
        return {"from": start, "pairs": rows}
    if counter is None or counter.k > start:
        counter = model.PairCounter(tok, trace)
    rows = []
    for k in range(start, min(n, start + WINDOW)):  # after the last merge no pair is merged: no row
        counter.advance(k)
        rows.append([x for pc in counter.top(model.TOP_PAIRS) for x in (*pc.pair, pc.count)])
    return {"from": start, "pairs": rows}
