"""SentencePiece-style BPE (Llama 2, Mistral v1, Gemma, Phi-3): pieces merged by score or by merge rank, with byte fallback.

A second kind of BPE beside byte-level BPE. The text is not mapped to bytes first: spaces become
``▁`` (U+2581), a ``▁`` is put in front of the text (the "dummy prefix", where the model adds one),
and the text is cut into characters. Then, again and again, the adjacent pair whose joined text
is a piece of the vocabulary with the *highest score* is joined (the leftmost pair on a tie): the
score, not a merge rank, orders the merges. A character that is no piece at the end falls back to
its UTF-8 bytes, one ``<0xNN>`` token each. Decoding joins the pieces, turns ``▁`` back into spaces,
the byte tokens into bytes, and drops the dummy prefix's space.

This is llama.cpp's ``llm_tokenizer_spm_session`` (src/llama-vocab.cpp), which reproduces the
``sentencepiece`` package's BPE; tests/tokenizer/bpe/test_sentencepiece.py checks it against llama.cpp's
own test vectors for Llama 2's vocabulary.

Gemma 4's vocabulary is the same kind with a list of merges instead of scores (``tokenizer.ggml.model``
"gemma4", a Hugging Face BPE with byte fallback): the adjacent pair whose merge comes *first in the list*
is joined, the text is cut at runs of newlines first (a run that is a piece is that piece), and there is
no dummy prefix. That is llama.cpp's ``llm_tokenizer_bpe_session`` with Gemma 4's rules; its test vectors
check it (tests/tokenizer/models/test_llama_cpp.py). ``tokenizer.spm.SentencePieceTokenizer`` puts it behind the Tokenizer's
interface, for the registered models of this kind and every page; ``ui/web/spm.js`` is this module in the browser, laid
out the same way (the Tokenize page's live view), held to the same ids by tests/web/spm.test.mjs and the browser suite.

The two references differ where a model has user-defined pieces (``rules``): llama.cpp cuts them out of the text
and starts each stretch after one with the dummy prefix, and would join two pieces into a control piece; the
``sentencepiece`` package, which reads a ``.model`` file (Mistral's, ``formats.spm_model``), puts one dummy prefix
before the whole text, keeps a user-defined piece as one symbol inside it, and joins only into ordinary and
user-defined pieces.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Sequence

#: ``tokenizer.ggml.token_type`` of a byte-fallback token (``<0xNN>``) and of a control token
_BYTE, _CONTROL = 6, 3
#: the piece types merges may make under the ``sentencepiece`` package's rules (normal and user-defined)
_MERGEABLE = (1, 4)
SPACE = "\u2581"
#: whose behaviour a model follows where llama.cpp and the sentencepiece package differ (see the module's docstring)
RULES = ("llama.cpp", "sentencepiece")
#: ``ids`` key -> the GGUF entry ``tokenizer.ggml.<name>_token_id`` that gives it
_GGUF_IDS = {"unk": "unknown", "bos": "bos", "eos": "eos", "pad": "padding"}


class SentencePieceBPE:
    """A SentencePiece BPE vocabulary: ``pieces[i]`` is token i's text, ``scores[i]`` its merge priority.

    With ``merges`` (``"left right"`` strings, best first, as a GGUF or a tokenizer.json lists them) the merges'
    order is the priority instead of the scores; ``split_newlines`` cuts the text at runs of newlines first.
    ``rules`` is ``"llama.cpp"`` (a GGUF's) or ``"sentencepiece"`` (a ``.model`` file's): see the module's docstring.
    ``ids`` are the ``unk``, ``bos``, ``eos`` and ``pad`` ids the file names (-1: none), kept for writing it again.
    """

    def __init__(
        self,
        pieces: Sequence[str],
        scores: Sequence[float],
        types: Sequence[int],
        *,
        add_space_prefix: bool = True,
        merges: Sequence[str] | None = None,
        split_newlines: bool = False,
        rules: str = "llama.cpp",
        ids: dict[str, int] | None = None,
    ):
        if rules not in RULES:
            raise ValueError(f"rules must be one of {', '.join(map(repr, RULES))}, not {rules!r}")
        if not (len(pieces) == len(scores) == len(types)):
            raise ValueError(
                f"pieces, scores and types must have one entry per token ({len(pieces)}, {len(scores)}, {len(types)})"
            )
        self.pieces = list(pieces)
        self.scores = [float(s) for s in scores]
        self.types = list(types)
        self.add_space_prefix = add_space_prefix
        self.piece_to_id: dict[str, int] = {}
        for i, p in enumerate(self.pieces):
            self.piece_to_id.setdefault(p, i)
        self.byte_ids: dict[int, int] = {}
        for i, (p, t) in enumerate(zip(self.pieces, self.types)):
            if t == _BYTE:
                self.byte_ids[int(p[3:5], 16)] = i
        if len(self.byte_ids) != 256:
            raise ValueError(f"a byte-fallback vocabulary has 256 byte tokens <0x00>…<0xFF>; this one has {len(self.byte_ids)}")
        self.special_tokens = {p: i for i, (p, t) in enumerate(zip(self.pieces, self.types)) if t == _CONTROL}
        self.split_newlines = split_newlines
        self.rules = rules
        self.ids = dict(ids) if ids is not None else self._default_ids()
        self.merge_rank: dict[int, int] | None = None  # left id * n_vocab + right id -> the merge's place in the list
        if merges is not None:
            self._read_merges(merges)
            return
        # the pieces merges make (two characters or more, neither byte nor control), best score first: a piece's rank
        # orders it as a merge rank orders byte-level BPE's merges (the leftmost pair first on a tie, as in _merge)
        merged = [i for i, (p, t) in enumerate(zip(self.pieces, self.types)) if len(p) > 1 and t in (1, 4)]
        merged.sort(key=lambda i: (-self.scores[i], i))
        self.merged_ids: list[int] = merged
        self.rank: dict[int, int] = {tid: r for r, tid in enumerate(merged)}

    def _default_ids(self) -> dict[str, int]:
        """The first unknown piece, and ``<s>``, ``</s>``, ``<pad>`` when they are control pieces (-1: none)."""
        unk = next((i for i, t in enumerate(self.types) if t == 2), -1)
        out = {"unk": unk}
        for key, piece in (("bos", "<s>"), ("eos", "</s>"), ("pad", "<pad>")):
            i = self.piece_to_id.get(piece, -1)
            out[key] = i if i >= 0 and self.types[i] == _CONTROL else -1
        return out

    def _read_merges(self, merges: Sequence[str]) -> None:
        """The merge list as ranks; a piece's rank is the place of the first merge that makes it."""
        n = len(self.pieces)
        ranks: dict[int, int] = {}
        self.merged_ids = []
        self.rank = {}
        self.merge_pairs: list[tuple[int, int]] = []  # each merged piece's pair: the first merge that makes it
        for r, line in enumerate(merges):
            left, sep, right = line.partition(" ")
            a, b, c = (self.piece_to_id.get(x) for x in (left, right, left + right))
            if not sep or a is None or b is None or c is None:
                raise ValueError(f"merge {r} ({line!r}) is not two pieces of the vocabulary whose join is one too")
            ranks.setdefault(a * n + b, r)
            if c not in self.rank:
                self.rank[c] = len(self.merged_ids)
                self.merged_ids.append(c)
                self.merge_pairs.append((a, b))
        self.merge_rank = ranks

    @classmethod
    def from_gguf(cls, meta: dict) -> SentencePieceBPE:
        """From a GGUF's metadata (``formats.gguf.read_metadata``) whose ``tokenizer.ggml.model`` is ``"llama"`` (scores)
        or ``"gemma4"`` (merges, split at newlines, as llama.cpp reads Gemma 4)."""
        model = meta.get("tokenizer.ggml.model")
        if model not in ("llama", "gemma4"):
            raise ValueError(f"not a SentencePiece-style vocabulary: tokenizer.ggml.model is {model!r}, not 'llama' or 'gemma4'")
        gemma = model == "gemma4"
        return cls(
            meta["tokenizer.ggml.tokens"],
            meta["tokenizer.ggml.scores"],
            meta["tokenizer.ggml.token_type"],
            add_space_prefix=meta.get("tokenizer.ggml.add_space_prefix", not gemma),
            merges=meta["tokenizer.ggml.merges"] if gemma else None,
            split_newlines=gemma,
            ids={k: meta.get(f"tokenizer.ggml.{key}_token_id", -1) for k, key in _GGUF_IDS.items()},
        )

    @property
    def n_vocab(self) -> int:
        return len(self.pieces)

    def normalize(self, text: str) -> str:
        """The text as the model sees it: the dummy prefix, then every space as ``▁``."""
        if not text:
            return ""
        return ((" " if self.add_space_prefix else "") + text).replace(" ", SPACE)

    def encode(self, text: str) -> list[int]:
        """The ids of ``text`` (special-token strings are text; no BOS)."""
        if not isinstance(text, str):
            raise ValueError(f"text must be a str, not {type(text).__name__}")
        return self.merge_text(self.normalize(text.encode("utf-8", "replace").decode("utf-8")))

    def words(self, view: str) -> list[tuple[int, str]]:
        """``(character offset, word)``: the stretches of the model's view merged apart (all of it, or each run of
        newlines and each stretch between them)."""
        if not self.split_newlines:
            return [(0, view)] if view else []
        out, pos = [], 0
        for w in re.findall(r"[^\n]+|\n+", view):
            out.append((pos, w))
            pos += len(w)
        return out

    def whole_word(self, word: str) -> int | None:
        """The piece a word is without any merge (a run of newlines that is a piece, as llama.cpp takes Gemma 4's)."""
        return self.piece_to_id.get(word) if self.split_newlines and word[:1] == "\n" else None

    def merge_text(self, view: str, max_rank: int | None = None, events: list | None = None) -> list[int]:
        """The ids of the model's view (spaces as ``▁``), word by word (``words``); ``events`` as in ``_merge``, the
        character indices counted over the whole view."""
        out: list[int] = []
        for pos, word in self.words(view):
            tid = self.whole_word(word)
            if tid is not None:
                out.append(tid)
                continue
            found: list | None = [] if events is not None else None
            out.extend(self._merge(list(word), max_rank, found))
            if events is not None:
                events.extend((rank, pos + i, new) for rank, i, new in found)
        return out

    def _merge(self, symbols: list[str], max_rank: int | None = None, events: list | None = None) -> list[int]:
        """The ids of ``symbols`` (characters) merged; with ``max_rank`` only the merged pieces ranked below it are
        made, and ``events`` (a list) gets ``(rank, index of the first character, new id)`` for each merge."""
        n = len(symbols)
        text = symbols[:]  # each symbol's current text ("" once merged into its left neighbour)
        prev = list(range(-1, n - 1))
        nxt = [*range(1, n), -1]
        queue: list[tuple[float, int, int, int]] = []  # (-score, left, right, joined length)

        merge_rank, ids, width = self.merge_rank, self.piece_to_id, len(self.pieces)
        types = self.types if self.rules == "sentencepiece" else None

        def add(left: int, right: int) -> None:
            if left < 0 or right < 0:
                return
            joined = text[left] + text[right]
            if merge_rank is not None:  # the first merge in the list first; every piece a merge joins is in ids
                a, b = ids.get(text[left]), ids.get(text[right])
                r = None if a is None or b is None else merge_rank.get(a * width + b)
                if r is None or (max_rank is not None and self.rank[ids[joined]] >= max_rank):
                    return
                heapq.heappush(queue, (r, left, right, len(joined)))
                return
            tid = self.piece_to_id.get(joined)
            if tid is None or (types is not None and types[tid] not in _MERGEABLE):
                return
            if max_rank is not None and self.rank.get(tid, max_rank) >= max_rank:
                return
            heapq.heappush(queue, (-self.scores[tid], left, right, len(joined)))

        for i in range(1, n):
            add(i - 1, i)
        while queue:
            _, left, right, size = heapq.heappop(queue)
            if not text[left] or not text[right] or len(text[left]) + len(text[right]) != size:
                continue  # one side was merged since: a stale pair
            text[left] += text[right]
            text[right] = ""
            if events is not None:
                events.append((self.rank.get(self.piece_to_id[text[left]], -1), left, self.piece_to_id[text[left]]))
            nxt[left] = nxt[right]
            if nxt[right] >= 0:
                prev[nxt[right]] = left
            add(prev[left], left)
            add(left, nxt[left])
        out: list[int] = []
        i = 0 if n else -1
        while i != -1:
            self._emit(text[i], out)
            i = nxt[i]
        return out

    def _emit(self, piece: str, out: list[int]) -> None:
        tid = self.piece_to_id.get(piece)
        if tid is not None:
            out.append(tid)
            return
        out.extend(self.byte_ids[b] for b in piece.encode("utf-8"))  # byte fallback

    def decode(self, ids: Sequence[int]) -> str:
        """The text of ``ids``: pieces joined, ``▁`` as spaces, byte tokens as bytes, the dummy prefix's space dropped."""
        data = bytearray()
        for i in ids:
            if not 0 <= i < len(self.pieces):
                raise ValueError(f"id {i} is not in this vocabulary (0 to {len(self.pieces) - 1})")
            if self.types[i] == _BYTE:
                data.append(int(self.pieces[i][3:5], 16))
            elif self.types[i] != _CONTROL:
                data += self.pieces[i].replace(SPACE, " ").encode("utf-8")
        text = data.decode("utf-8", "replace")
        return text[1:] if self.add_space_prefix and text.startswith(" ") else text
