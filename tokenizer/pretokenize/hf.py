"""A tokenizer.json's text handling before BPE, run by Hugging Face ``tokenizers`` itself.

``tokenizers`` encodes a text in four steps: it finds the added tokens, normalizes the rest,
pre-tokenizes it (Split, ByteLevel, Digits, Whitespace, Sequence...) and runs the model on
each piece. ``HFPreTokenizer`` lets ``tokenizers`` take the first three steps itself, and
BPE Lab's own engine the fourth (the merges, traces and steps). It hands ``tokenizers`` the
file's own ``normalizer``, ``pre_tokenizer`` and ``added_tokens`` with a model that merges
nothing: a BPE whose vocabulary is the 256 byte characters of ``ByteLevel``. Each piece then
comes back as its bytes, one token per byte, with ``tokenizers``' own offsets into the
text as typed; each added token comes back whole. So every tokenizer.json is read exactly as
``tokenizers`` reads it, whatever its normalizer and pre-tokenizer, with no copy of either.

Special tokens follow tiktoken's convention in BPE Lab (``allowed_special``): with none
allowed, ``tokenizers`` encodes them as text (``encode_special_tokens``); with some
allowed, the others are left out of the added tokens. Non-special added tokens are
always found, as in ``tokenizers``.

**Offsets.** A piece whose bytes are the typed text's points at exactly those bytes. A
normalizer can change the text (NFC makes ``e`` + U+0301 one ``é``) and
``ByteLevel(add_prefix_space=True)`` adds a space that is not in it: such bytes point at
the characters ``tokenizers``' offsets give (an inserted space at the character after it),
so a token's character span is the one ``tokenizers`` gives the same token.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import itertools
import json
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from ..display import bytes_to_unicode
from ..errors import InvalidType, type_name
from . import hf_guard
from .pretokenizer import Piece
from .splitter import USER_PATTERN_TIMEOUT, TimeBudget, current_budget

#: Flags of an added token in a tokenizer.json, all required there.
ADDED_FLAGS = ("single_word", "lstrip", "rstrip", "normalized", "special")

# The model that merges nothing: byte b is id b, and an id for "not a byte" (a piece that
# did not go through ByteLevel would show up as it; ``check_byte_level`` makes sure none does).
_NOT_A_BYTE = 256
_NOT_A_BYTE_TOKEN = "[BPE Lab: not a byte]"
_FIRST_ADDED = 257

# Shared between sessions: each untrusted text handling's probe verdict ("" for passed), by the
# sha256 of what the worker builds; a verdict depends on the file's content alone.
_PROBED: dict[str, str] = {}
_PROBED_LOCK = threading.Lock()


def byte_level_stages(spec: Any) -> list[dict]:
    """Every pre-tokenizer object in ``spec`` (a tokenizer.json's ``pre_tokenizer``), Sequences opened, in order.

    Walks the tree without recursion, so a file nested thousands of levels deep is read, not a RecursionError.

    >>> [s["type"] for s in byte_level_stages({"type": "Sequence", "pretokenizers": [{"type": "Digits"}, {"type": "ByteLevel"}]})]
    ['Digits', 'ByteLevel']
    """
    out: list[dict] = []
    stack = [spec]
    while stack:
        node = stack.pop()
        if isinstance(node, dict) and node.get("type") == "Sequence" and isinstance(node.get("pretokenizers"), list):
            stack.extend(reversed(node["pretokenizers"]))
        elif isinstance(node, dict):
            out.append(node)
    return out


def regexes_in(spec: Any) -> set[str]:
    """Every regex a tokenizer.json's text handling gives Oniguruma (``{"Regex": ...}`` in a Split or Replace).

    >>> sorted(regexes_in({"type": "Split", "pattern": {"Regex": "a+"}, "behavior": "Isolated"}))
    ['a+']
    """
    return _strings_under(spec, "Regex")


#: Short texts every untrusted file's text handling must get through within the regex time limit
#: at load: a pattern that backtracks catastrophically does so on one of these (long runs of one
#: class, a run broken at its end), so such a file is refused before anyone encodes with it.
PROBES = (
    "a" * 200 + "!",
    " " * 200 + "a",
    "0" * 200 + "x",
    "ab" * 100 + "\t",
    "\n" * 100 + "x",
    "你好" * 100,
    "Hello world! It's 2024, and naïve café-goers say “hi” 你好 😄 — don't they?\n" * 3,
    "".join(chr(c) for c in range(32, 127)) * 2,
)


def types_in(spec: Any) -> set[str]:
    """Every ``type`` named anywhere in a JSON tree (however malformed), without recursion."""
    return _strings_under(spec, "type")


def _strings_under(spec: Any, key: str) -> set[str]:
    """Every string value of ``key`` in the objects of a JSON tree, walked without recursion (a file nested
    thousands of levels deep is read, not a RecursionError)."""
    out: set[str] = set()
    stack = [spec]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get(key), str):
                out.add(node[key])
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return out


class HFPreTokenizer:
    """A tokenizer.json's normalizer, pre-tokenizer and added tokens, as ``tokenizers`` runs them.

    ``spec`` is what BPE Lab keeps of the file (and writes back): ``normalizer``,
    ``pre_tokenizer``, ``added_tokens`` (each with the id ``tokenizers`` gives it when it
    loads the file) and ``ignore_merges`` (a chunk that is a vocabulary token is that token,
    whatever the merges would build). ValueError when ``tokenizers`` cannot read it.

    ``trusted``: the file's regexes are known to be linear (a verified model file, or only
    patterns BPE Lab vetted), so ``tokenizers`` runs in this process. Any other file runs in
    worker processes under the regex time limit (``hf_guard``), and is refused here if it
    cannot get through ``PROBES`` within that limit.
    """

    pattern = None
    name = "tokenizer.json"
    normalizer = None  # the file's normalizer is tokenizers' business, not a Unicode form of ours

    trusted = False

    def __init__(self, spec: Mapping[str, Any], *, trusted: bool = False):
        if not isinstance(spec, Mapping):
            raise InvalidType(f"a tokenizer.json pipeline is a dict, not {type_name(spec)}")
        self.spec = {
            "normalizer": spec.get("normalizer"),
            "pre_tokenizer": spec.get("pre_tokenizer"),
            "added_tokens": [dict(a) for a in spec.get("added_tokens", ())],
            "ignore_merges": bool(spec.get("ignore_merges", False)),
        }
        self.ignore_merges: bool = self.spec["ignore_merges"]
        self._id_of: dict[str, int] = {a["content"]: a["id"] for a in self.spec["added_tokens"]}
        self._content_of: dict[int, str] = {i: c for c, i in self._id_of.items()}
        self.specials: frozenset[str] = frozenset(a["content"] for a in self.spec["added_tokens"] if a["special"])
        self._lock = threading.Lock()
        self._instances: dict = {}
        self.trusted = bool(trusted) or not regexes_in([self.spec["normalizer"], self.spec["pre_tokenizer"]])
        self._instance(None)  # tokenizers reads the spec now: a file it cannot read fails at load
        if not self.trusted:
            self._probe()

    # -- what the Tokenizer asks for

    @property
    def added_tokens(self) -> dict[str, int]:
        """``{content: id}`` of the added tokens that are not special (the special ones are the Tokenizer's)."""
        return {a["content"]: a["id"] for a in self.spec["added_tokens"] if not a["special"]}

    @functools.cached_property
    def added_text(self) -> dict[int, str]:
        """``{id: text}`` of the non-special added tokens: the text they stand for in the model's view
        (the content, normalized by the file's normalizer when the token is ``normalized``)."""
        tk, _, doc, as_text = self._instance(None)
        norm = tk.normalizer
        todo = [a for a in self.spec["added_tokens"] if not a["special"] and a["normalized"] and norm is not None]
        if todo and not self.trusted:
            done = self._guarded("normalize", doc, as_text, [a["content"] for a in todo], TimeBudget(USER_PATTERN_TIMEOUT))
        else:
            with refused_by_tokenizers("Hugging Face tokenizers cannot normalize this tokenizer.json's added tokens"):
                done = [norm.normalize_str(a["content"]) for a in todo]
        normalized = {a["id"]: t for a, t in zip(todo, done)}
        return {a["id"]: normalized.get(a["id"], a["content"]) for a in self.spec["added_tokens"] if not a["special"]}

    def budget(self) -> TimeBudget | None:
        # a trusted file's regexes run in Rust here, as in tokenizers; any other draws on the regex time limit
        return None if self.trusted else current_budget()

    def encode(self, encoder, text: str, allowed: Mapping[str, int], budget: TimeBudget | None = None) -> list[int]:
        return encoder.encode_pieces(self.pieces(text, allowed))

    def pieces(self, text: str, allowed: Mapping[str, int], budget: TimeBudget | None = None) -> list[Piece]:
        tk, ours, doc, as_text = self._instance(allowed)
        if self.trusted:
            with refused_by_tokenizers(lambda reason: str(_fails(reason))):
                enc = tk.encode(text, add_special_tokens=False)
            ids, words, offsets = enc.ids, enc.word_ids, enc.offsets
        else:
            ((ids, words, offsets),) = self._guarded("encode", doc, as_text, [text], budget or current_budget())
        if text.isascii():
            obyte: Sequence[int] = range(len(text) + 1)
        else:
            obyte = [0, *itertools.accumulate(1 if c < "\x80" else len(c.encode("utf-8", "surrogatepass")) for c in text)]
        out: list[Piece] = []
        run: list[tuple[bytes, Sequence[tuple[int, int]]]] = []  # pre-tokens since the last added token
        i, n = 0, len(ids)
        while i < n:
            tid = ids[i]
            if tid >= _FIRST_ADDED:
                out += _run(run, text, obyte)
                run = []
                c0, c1 = offsets[i]
                out.append(Piece(None, ours[tid], obyte[c0], obyte[c1]))
                i += 1
                continue
            if tid == _NOT_A_BYTE:
                raise ValueError("this tokenizer.json's pre-tokenizer passes on text that is not bytes (no ByteLevel stage)")
            j = i + 1
            word = words[i]
            while j < n and words[j] == word and ids[j] < _NOT_A_BYTE:
                j += 1
            run.append((bytes(ids[i:j]), offsets[i:j]))
            i = j
        return out + _run(run, text, obyte)

    def split(self, text: str) -> list[str]:
        """The pieces of ordinary text in the model's view; an added token is a piece of its own."""
        out = []
        for p in self.pieces(text, {}):
            if p.token is not None:
                out.append(self._content_of.get(p.token, ""))
            else:
                out.append(p.chunk if isinstance(p.chunk, str) else p.chunk.decode("utf-8", "replace"))
        return out

    def with_special_tokens(self, extra: Mapping[str, int]) -> HFPreTokenizer:
        """The same steps with more special tokens (found as written, like a chat format's); self if none is new."""
        new = {text: tid for text, tid in extra.items() if self._id_of.get(text) != tid}
        if not new:
            return self
        kept = [a for a in self.spec["added_tokens"] if a["content"] not in new]
        added = [
            {
                "id": tid,
                "content": text,
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "normalized": False,
                "special": True,
            }
            for text, tid in new.items()
        ]
        return HFPreTokenizer({**self.spec, "added_tokens": kept + added}, trusted=self.trusted)

    # -- an untrusted file's regexes, in a worker under the time limit

    def _guarded(self, op: str, doc: str, as_text: bool, payload: list[str], budget: TimeBudget) -> list:
        start = time.monotonic()
        try:
            return hf_guard.pool().call((op, doc, as_text, payload), budget.remaining())
        except hf_guard.GuardTimeout:
            raise ValueError(
                f"This tokenizer.json's own regexes (its pre-tokenizer's Split or normalizer's Replace patterns) took "
                f"longer than {budget.seconds:g} s on this text and were stopped: they probably backtrack catastrophically. "
                "Use a shorter text, or a tokenizer.json with simpler patterns."
            ) from None
        except hf_guard.GuardError as e:
            raise _fails(str(e)) from None
        finally:
            budget.spent += time.monotonic() - start

    def _probe(self) -> None:
        _, _, doc, as_text = self._instance(None)
        digest = hashlib.sha256(doc.encode("utf-8", "surrogatepass")).hexdigest()
        if digest in _PROBED:  # a saved file is read on every page: probe it once per process
            if _PROBED[digest]:
                raise ValueError(_PROBED[digest])
            return
        budget = TimeBudget(USER_PATTERN_TIMEOUT)
        try:
            self._guarded("encode", doc, as_text, list(PROBES), budget)
            verdict = ""
        except ValueError:
            if budget.remaining() > 0:
                raise
            worst = max(regexes_in([self.spec["normalizer"], self.spec["pre_tokenizer"]]), key=len)
            verdict = (
                f"this tokenizer.json's text handling took longer than {budget.seconds:g} s on a few short test texts "
                f"({sum(map(len, PROBES)):,} characters in all) and was stopped: a regex of it (such as `{_clip(worst)}`) "
                "backtracks catastrophically, so BPE Lab cannot run it safely. Simplify or remove that pattern."
            )
        with _PROBED_LOCK:
            if len(_PROBED) >= 1024:
                _PROBED.clear()
            _PROBED[digest] = verdict
        if verdict:
            raise ValueError(verdict) from None

    # -- tokenizers itself

    def _instance(self, allowed: Mapping[str, int] | None):
        """A ``tokenizers.Tokenizer`` of the file's text handling with the model that merges nothing,
        ``{its id: our id}`` of the added tokens, its JSON (what a worker builds) and whether special
        tokens are text in it.

        One per set of allowed special tokens (all, none, or a few), built once and never
        changed afterwards, so threads may share it.
        """
        if allowed is None or self.specials <= allowed.keys():
            key: Any = "all"
        elif not self.specials & allowed.keys():
            key = "none"
        else:
            key = frozenset(self.specials & allowed.keys())
        tk = self._instances.get(key)
        if tk is None:
            with self._lock:
                tk = self._instances.get(key)
                if tk is None:
                    tk = self._build(key)
                    if len(self._instances) > 16:  # a few subsets at most in practice; never grow without bound
                        self._instances = {k: v for k, v in self._instances.items() if k in ("all", "none")}
                    self._instances = {**self._instances, key: tk}
        return tk

    def _build(self, key):
        import tokenizers

        table = bytes_to_unicode()
        added = self.spec["added_tokens"]
        if isinstance(key, frozenset):  # the special tokens not allowed are text: left out
            added = [a for a in added if not a["special"] or a["content"] in key]
        doc = {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": [{**a, "id": _FIRST_ADDED + k} for k, a in enumerate(added)],
            "normalizer": self.spec["normalizer"],
            "pre_tokenizer": self.spec["pre_tokenizer"],
            "post_processor": None,
            "decoder": None,
            "model": {
                "type": "BPE",
                "dropout": None,
                "unk_token": _NOT_A_BYTE_TOKEN,
                "continuing_subword_prefix": None,
                "end_of_word_suffix": None,
                "fuse_unk": False,
                "byte_fallback": False,
                "ignore_merges": False,
                "vocab": {**{table[b]: b for b in range(256)}, _NOT_A_BYTE_TOKEN: _NOT_A_BYTE},
                "merges": [],
            },
        }
        text = json.dumps(doc, ensure_ascii=False)
        with refused_by_tokenizers("Hugging Face tokenizers cannot read this tokenizer.json's text handling"):
            tk = tokenizers.Tokenizer.from_str(text)
        tk.no_truncation()
        tk.no_padding()
        if key == "none":
            tk.encode_special_tokens = True  # set once, before anyone shares this instance
        ours = {}
        for a in added:
            local = tk.token_to_id(a["content"])
            if local is not None and local >= _FIRST_ADDED:
                ours[local] = a["id"]
        return tk, ours, text, key == "none"

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state.pop("_lock", None)
        state["_instances"] = {}  # rebuilt on first use: tokenizers' objects stay in their process
        state.pop("added_text", None)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"HFPreTokenizer({len(self.spec['added_tokens'])} added tokens)"


def _run(run: list[tuple[bytes, Sequence[tuple[int, int]]]], text: str, obyte: Sequence[int]) -> list[Piece]:
    """Consecutive pre-tokens (their bytes in the model's view, one ``tokenizers`` offset per byte) as Pieces of the typed text.

    Where the model's view of the run is the typed text (maybe after an inserted prefix
    space), each byte points at itself; elsewhere each byte points at the characters
    ``tokenizers``' offsets give it.
    """
    if not run:
        return []
    offsets = [o for _, offs in run for o in offs]
    c0 = min(a for a, _ in offsets)
    c1 = max(b for _, b in offsets)
    data = b"".join(d for d, _ in run)
    typed = text[c0:c1].encode("utf-8", "surrogatepass")
    inserted = len(data) - len(typed)
    exact = inserted >= 0 and data.endswith(typed)  # the text itself, after any inserted prefix space
    if exact and inserted:  # ... if the inserted bytes are the run's first: each typed byte lies where tokenizers says
        flat = [o for offs in (o for _, o in run) for o in offs]
        exact = all(obyte[a] <= obyte[c0] + q - inserted < obyte[b] for q, (a, b) in enumerate(flat) if q >= inserted)
    out = []
    pos = 0  # byte offset in the run's view
    for chunk, offs in run:
        k = len(chunk)
        if exact and pos >= inserted:
            start = obyte[c0] + pos - inserted
            piece = Piece(_text_or_bytes(chunk), None, start, start + k)
        else:
            align = tuple(
                (obyte[c0] + q - inserted, obyte[c0] + q - inserted + 1) if exact and q >= inserted else (obyte[a], obyte[b])
                for q, (a, b) in zip(range(pos, pos + k), offs)
            )
            piece = Piece(_text_or_bytes(chunk), None, min(a for a, _ in align), max(b for _, b in align), align)
        out.append(piece)
        pos += k
    return out


def _text_or_bytes(chunk: bytes) -> str | bytes:
    """A chunk as text when it is whole UTF-8 (the encoder caches by it), else as bytes (cut inside a character)."""
    try:
        return chunk.decode("utf-8")
    except UnicodeDecodeError:
        return chunk


def _fails(reason: str) -> ValueError:
    return ValueError(
        f"Hugging Face tokenizers fails on this text with this tokenizer.json's text handling ({reason}): "
        "its normalizer, pre-tokenizer or added tokens are broken; tokenizers itself cannot encode with this file"
    )


def _clip(text: str, n: int = 80) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


@contextlib.contextmanager
def refused_by_tokenizers(message: str | Callable[[str], str], error: type[ValueError] = ValueError) -> Iterator[None]:
    """Within: what Hugging Face ``tokenizers`` raises on a file's content, or its panic, becomes ``error``.

    ``message`` is the sentence before ``": reason"``, or a function of tokenizers' reason.
    A panic in its Rust code reaches Python as pyo3's PanicException, a BaseException that
    ``except Exception`` lets through, up to the page; KeyboardInterrupt and SystemExit pass.
    """
    try:
        yield
    except BaseException as e:
        if not (isinstance(e, Exception) or type(e).__name__ == "PanicException"):
            raise
        reason = _short(e)
        raise error(message(reason) if callable(message) else f"{message}: {reason}") from None


def _short(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return text[:300] + ("…" if len(text) > 300 else "")
