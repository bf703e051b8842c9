"""The tests' reference replay of Step through: what the page should show at a step, computed from the core's
trace (``training_view``, ``encoding_view``), and a payload read back (``Replay``), as the browser's
``ui/step/replay.js`` reads it. The tests hold the payload and the browser's replay to these."""

from __future__ import annotations

import base64
import json  # noqa: F401 (the doctest)
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass

from tokenizer import Tokenizer, TrainingTrace
from tokenizer.trace import EncodeStep, EncodeTrace, Merge, Span, make_spans
from ui.step.model import chunk_cuts, new_token_highlight, steps_below
from ui.step.payload import VERSION, dumps, encoding_payload  # noqa: F401 (the doctest reads a payload back)


def undelta(values: Sequence[int]) -> list[int]:
    """``[3, 2, 4] -> [3, 5, 9]``"""
    out, acc = [], 0
    for v in values:
        acc += v
        out.append(acc)
    return out


def spans_after_merges(trace: EncodeTrace, k: int) -> list[Span]:
    """The text's spans after the tokenizer's first ``k`` merges."""
    return trace.spans_at(steps_below(trace, k))


def encode_lengths(trace: EncodeTrace) -> list[int]:
    """The token count from step 0 (the bytes) to the end, as the page's curve plots it."""
    return [trace.initial_count] + [s.n_tokens for s in trace.steps]


def step_with_rank(trace: EncodeTrace, rank: int) -> EncodeStep | None:
    i = steps_below(trace, rank)
    if i < len(trace.steps) and trace.steps[i].rank == rank:
        return trace.steps[i]
    return None


def pair_highlight(spans: Sequence[Span], step: EncodeStep | None) -> set[int]:
    """Span indices of both halves of every occurrence ``step`` will merge."""
    if step is None:
        return set()
    starts = set(step.positions)
    out: set[int] = set()
    for s in spans:
        if s.byte_start in starts:
            out.add(s.index)
            out.add(s.index + 1)
    return {i for i in out if i < len(spans)}


@dataclass(frozen=True)
class TrainingView:
    """Training mode at step k: the text after k merges and what comes next."""

    k: int
    n: int
    spans: list[Span]
    highlight: set[int]
    cuts: set[int]
    last: Merge | None  # merge k (the one that made the current state), None at k = 0
    next: Merge | None  # merge k + 1, None at the end
    next_in_excerpt: int  # occurrences of the next pair in the shown text
    tokens: int  # whole training text, after k merges
    tokens_before: int  # whole training text, as bytes


def training_view(tok: Tokenizer, trace: TrainingTrace, etrace: EncodeTrace, k: int) -> TrainingView:
    n = tok.num_merges
    k = max(0, min(k, n))
    spans = spans_after_merges(etrace, k)
    nxt = step_with_rank(etrace, k) if k < n else None
    merges = tok.merge_list
    return TrainingView(
        k,
        n,
        spans,
        pair_highlight(spans, nxt),
        chunk_cuts(spans, etrace),
        merges[k - 1] if k > 0 else None,
        merges[k] if k < n else None,
        nxt.count if nxt else 0,
        trace.length_at(k),
        trace.initial_tokens,
    )


@dataclass(frozen=True)
class EncodingView:
    """Encoding mode after j steps: the spans and the step that made them."""

    j: int
    n: int
    spans: list[Span]
    highlight: set[int]
    cuts: set[int]
    step: EncodeStep | None  # step j, None at j = 0
    upcoming: EncodeStep | None  # step j + 1


def encoding_view(trace: EncodeTrace, j: int) -> EncodingView:
    n = len(trace.steps)
    j = max(0, min(j, n))
    spans = trace.spans_at(j)
    step = trace.steps[j - 1] if j else None
    return EncodingView(
        j, n, spans, new_token_highlight(spans, step), chunk_cuts(spans, trace), step, trace.steps[j] if j < n else None
    )


@dataclass(frozen=True)
class Step:
    rank: int
    new_id: int
    pair: tuple[int, int] | None
    positions: tuple[int, ...]
    n_tokens: int


class Replay:
    """A payload read back: the spans at any step, as ``stepper.js`` computes them (the tests' reference decoder).

    >>> from tokenizer import train
    >>> tok = train("aaabdaaabac", 259, pattern=None)
    >>> r = Replay(json.loads(dumps(encoding_payload(tok, tok.encode_trace("aaabdaaabac")))[1]))
    >>> [s.id for s in r.spans(3)] == tok.encode("aaabdaaabac")
    True
    """

    def __init__(self, payload: dict):
        if payload.get("v") != VERSION:
            raise ValueError(f"payload version {payload.get('v')!r}, expected {VERSION}")
        self.p = p = payload
        self.mode = p["mode"]
        self.n = p["n"]
        self.data = base64.b64decode(p["text"])
        self.byte_ids = p["byteIds"] or list(range(256))
        t = p["tokens"]
        blob, at = base64.b64decode(t["bytes"]), 0
        self.table: dict[int, bytes] = {}
        for i, length in zip(undelta(t["ids"]), t["len"]):
            self.table[i] = blob[at : at + length]
            at += length
        self.merges = None
        if self.mode == "training":
            m = p["merges"]
            self.merges = list(zip(m["left"], m["right"], undelta(m["count"])))
            for b in range(256):
                self.table.setdefault(b, bytes([b]))
            runs = dict(map(tuple, m.get("idRuns", [])))
            off, self.new_ids = 256, []
            for r, (a, b, _) in enumerate(self.merges):
                off = runs.get(r, off)
                self.new_ids.append(off + r)
                self.table[off + r] = self.table[a] + self.table[b]
        s = p["steps"]
        ranks = undelta(s["rank"])
        offs = s["idOff"] if isinstance(s["idOff"], list) else [s["idOff"]] * len(ranks)
        gaps = iter(s["pos"])
        drops = dict(map(tuple, s["drop"]))
        self.specials = [tuple(p["specials"][i : i + 3]) for i in range(0, len(p["specials"]), 3)]
        self.wholes = [tuple(p["wholes"][i : i + 3]) for i in range(0, len(p["wholes"]), 3)]
        n_tokens = len(self.data) - sum(length - 1 for _, length, _ in self.specials + self.wholes)
        self.initial_count = n_tokens
        self.steps: list[Step] = []
        for i, (rank, off, count) in enumerate(zip(ranks, offs, s["count"])):
            pos, at = [], 0
            for _ in range(count):
                at += next(gaps)
                pos.append(at)
            if self.merges is not None:
                pair = self.merges[rank][:2]
            else:
                pair = (s["left"][i], s["right"][i])
            n_tokens -= count + drops.get(i, 0)
            self.steps.append(Step(rank, rank + off, tuple(pair), tuple(pos), n_tokens))
        self.ranks = ranks
        self.chunk_starts = set(undelta(p["chunks"]))
        self.variant = p.get("variant")
        self.stage1 = None  # tokens across words: the text as stage 1 cut it, shown before the transition
        if self.variant and "cut1" in self.variant:
            self.stage1 = Replay({**p, **self.variant["cut1"], "variant": None})

    def _at(self, k: int) -> Replay:
        """The replay that shows slider position ``k`` (stage 1's cut before a two-stage training's transition)."""
        if self.stage1 is not None and k < self.variant["stage1"]:
            return self.stage1
        return self

    def boundaries(self, j: int) -> list[tuple[int, int, int]]:
        """``(byte_start, byte_end, id)`` after ``j`` trace steps (``EncodeTrace.boundaries_at``)."""
        n = len(self.data)
        end, ids = [0] * n, [-1] * n
        for off, length, tid in self.specials + self.wholes:
            ids[off], end[off] = tid, off + length
        for st in self.steps[:j]:
            length = len(self.table[st.new_id])
            for q in st.positions:
                if q + length > end[q]:
                    ids[q], end[q] = st.new_id, q + length
        out, i = [], 0
        while i < n:
            if ids[i] >= 0:
                out.append((i, end[i], ids[i]))
                i = end[i]
            else:
                out.append((i, i + 1, self.byte_ids[self.data[i]]))
                i += 1
        return out

    def trace_step(self, k: int) -> int:
        """The trace steps shown at slider position ``k``: ``k`` itself in encoding mode, the steps with rank below ``k`` in training mode."""
        return k if self.mode == "encoding" else bisect_left(self.ranks, k)

    def spans(self, k: int) -> list[Span]:
        if self._at(k) is not self:
            return self._at(k).spans(k)
        special_ids = {t for _, _, t in self.specials}
        return make_spans([(t, self.data[a:b]) for a, b, t in self.boundaries(self.trace_step(k))], special_ids)

    def highlight(self, k: int) -> set[int]:
        """Encoding: the tokens step ``k`` made; training: both halves of every place merge ``k + 1`` takes."""
        if self._at(k) is not self:
            return self._at(k).highlight(k)
        spans = self.spans(k)
        starts = {s.byte_start: s.index for s in spans}
        if self.mode == "encoding":
            return {starts[q] for q in self.steps[k - 1].positions} if k else set()
        j = self.trace_step(k)
        if j >= len(self.steps) or self.steps[j].rank != k:
            return set()
        return {i for q in self.steps[j].positions for i in (starts[q], starts[q] + 1) if i < len(spans)}

    def cuts(self, k: int) -> set[int]:
        if self._at(k) is not self:
            return self._at(k).cuts(k)
        return {s.index for s in self.spans(k) if s.index and s.byte_start in self.chunk_starts}

    def length_at(self, k: int) -> int:
        """Training mode: the training text's tokens after ``k`` merges."""
        diff = dict(map(tuple, self.p["length"]["diff"]))
        total = self.p["length"]["initial"]
        for r in range(1, k + 1):
            total -= self.merges[r - 1][2] - diff.get(r, 0)
        return total

    def served(self, k: int) -> str | None:
        """Parity-aware training: the language merge ``k + 1`` serves (None: a plain merge, or another variant)."""
        v = self.variant
        if not v or v["kind"] != "parity" or v["served"][k] < 0:
            return None
        return v["languages"][v["served"][k]]

    def language_tokens(self, k: int) -> dict[str, int]:
        """Parity-aware training: every language's length in tokens after ``k`` merges."""
        v = self.variant
        return {lang: undelta(row)[k] for lang, row in zip(v["languages"], v["lengths"])}
