"""What a split pattern can do, read from its syntax: where a long text may be cut.

Splitting a long text piece by piece (to bound memory, to stream a file, to count on
two cores, to give the ASCII stretches of a text the fast path) is only exact if
every cut is a place where splitting the whole text would also cut and where neither
side could have behaved differently had it seen the other. Which places qualify
depends on the pattern: o200k's `` ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*`` runs from ``}`` over a
newline into ``//``, so a cut that is safe for GPT-2 is not safe for o200k. This module
works the safe cuts out from the pattern itself, for any pattern it can read, so the
encodings added to the registry later get them too; for a pattern it cannot read it
says so, and callers then do not cut at all.

The rule (``SafeCuts``): cut between two characters ``x`` and ``y`` when

1. no match of the pattern can consume ``x`` immediately followed by ``y`` (not even
   inside a lookahead), so no chunk crosses the cut and no match attempt that started
   before the cut can read ``y``;
2. no assertion (lookahead, ``$``, ``\\Z``) can be tested right after consuming ``x``:
   such a test is the only other way an attempt could see past the cut (at the end of
   the first piece it would see the end of the text instead of ``y``);
3. ``x`` is not a newline when the pattern uses ``$`` (which also matches before a
   final newline, so it would behave differently at the end of the first piece);
4. the pattern has nothing that looks behind (lookbehind, ``\\b``, ``^``, ``\\A``,
   ``\\G``, backreferences, ...), so an attempt starting at the cut cannot tell the
   second piece from the same place in the whole text.

Under 1-3 every step a match attempt before the cut takes (consume a character, test
an assertion) has the same outcome whether the text goes on with ``y`` or ends, so the
attempts, and the chunks, before the cut are the same; under 4 those after it are.
Text a pattern leaves unmatched becomes chunks of its own, so the two pieces' gap
chunks that meet at a cut are joined again (``Splitter.iter_chunks`` does it).

The check works on an abstract alphabet: code points are grouped by which of the
pattern's character classes they belong to (worked out with ``regex`` itself, over
every code point, so Unicode tables and case folding are exactly the engine's), and
rule 1 is checked on the pattern's Glushkov automaton, which over-approximates the
paths a backtracking engine can take: more paths only ever forbid more cuts.
"""

from __future__ import annotations

import array
import functools
import sys
from dataclasses import dataclass

import regex

MAX_CODE_POINT = 0x10FFFF


class Unsupported(Exception):
    """The pattern uses syntax this module does not model (callers then do not cut)."""


# ----------------------------------------------------------------------------- parsing

# AST nodes are tuples:
#   ("atom", k)                  consume one character of class k (an index into Parsed.atoms)
#   ("seq", (node, ...))
#   ("alt", (node, ...))
#   ("rep", node, lo, hi, mode)  hi None: unbounded; mode "" greedy, "?" lazy, "+" possessive
#   ("group", node, atomic)      (?:...), (...) or (?>...) when atomic
#   ("look", node, negative)     (?=...) or (?!...)
#   ("end", multiline)           $
#   ("endz",)                    \Z
#   ("empty",)

# global flags we cannot model (or that change what the syntax means)
_UNSUPPORTED_FLAGS = {
    regex.X: "verbose (?x)",
    regex.V1: "version 1 (?V1)",
    regex.L: "locale (?L)",
    regex.F: "full case folding (?f)",
    regex.P: "POSIX leftmost-longest (?p)",
    regex.B: "best match (?b)",
    regex.E: "enhance match (?e)",
    regex.W: "word boundaries (?w)",
    regex.R: "reverse searching (?r)",
}
_SIMPLE_ESCAPES = set("dDwWsS")
_LITERAL_ESCAPES = set("ntrfvae")


@dataclass(frozen=True)
class Parsed:
    """A pattern read into an AST; ``atoms`` are ``(source, flags)`` of each character class."""

    tree: tuple
    atoms: tuple[tuple[str, str], ...]
    has_dollar: bool  # $ without multiline (it also matches before a final newline)


class _Parser:
    def __init__(self, pattern: str, flags: int):
        self.p = pattern
        self.i = 0
        self.atoms: dict[tuple[str, str], int] = {}
        self.has_dollar = False
        base = ""
        if flags & regex.I:
            base += "i"
        if flags & regex.S:
            base += "s"
        if flags & regex.A:
            base += "a"
        self.base = base
        self.multiline = bool(flags & regex.M)

    def parse(self) -> Parsed:
        tree = self.alternation(self.base, self.multiline)
        if self.i != len(self.p):
            raise Unsupported(f"unexpected {self.p[self.i]!r} at position {self.i}")
        return Parsed(tree, tuple(sorted(self.atoms, key=self.atoms.get)), self.has_dollar)

    # grammar: alternation := sequence ('|' sequence)* ; sequence := (primary quantifier?)*

    def alternation(self, flags: str, multiline: bool):
        branches = [self.sequence(flags, multiline)]
        while self.i < len(self.p) and self.p[self.i] == "|":
            self.i += 1
            branches.append(self.sequence(flags, multiline))
        return branches[0] if len(branches) == 1 else ("alt", tuple(branches))

    def sequence(self, flags: str, multiline: bool):
        items = []
        while self.i < len(self.p) and self.p[self.i] not in "|)":
            node = self.primary(flags, multiline)
            if node is None:
                continue
            items.append(self.quantified(node))
        if not items:
            return ("empty",)
        return items[0] if len(items) == 1 else ("seq", tuple(items))

    def quantified(self, node):
        p = self.p
        if self.i >= len(p):
            return node
        c = p[self.i]
        if c in "*+?":
            lo, hi = {"*": (0, None), "+": (1, None), "?": (0, 1)}[c]
            self.i += 1
        elif c == "{":
            m = regex.compile(r"\{(\d*)(?:(,)(\d*))?\}").match(p, self.i)
            if not m or (not m.group(1) and not m.group(3)):
                if regex.compile(r"\{\s*[ides]").match(p, self.i):
                    raise Unsupported("fuzzy matching")
                return node  # a literal '{' follows
            lo = int(m.group(1) or 0)
            hi = None if (m.group(2) and not m.group(3)) else int(m.group(3) if m.group(2) else m.group(1))
            self.i = m.end()
        else:
            return node
        mode = ""
        if self.i < len(p) and p[self.i] in "?+":
            mode = p[self.i]
            self.i += 1
        if self.i < len(p) and (p[self.i] in "*+?" or regex.compile(r"\{\d*,?\d*\}").match(p, self.i)):
            raise Unsupported("a quantifier on a quantifier")
        return ("rep", node, lo, hi, mode)

    def atom(self, source: str, flags: str):
        key = (source, flags)
        if key not in self.atoms:
            self.atoms[key] = len(self.atoms)
        return ("atom", self.atoms[key])

    def primary(self, flags: str, multiline: bool):
        p = self.p
        c = p[self.i]
        if c == "(":
            return self.group(flags, multiline)
        if c == "[":
            start = self.i
            self.i = _class_end(p, self.i)
            return self.atom(p[start : self.i], flags)
        if c == ".":
            self.i += 1
            return self.atom(".", flags)
        if c == "^":
            raise Unsupported("^ looks behind")
        if c == "$":
            self.i += 1
            if not multiline:
                self.has_dollar = True
            return ("end", multiline)
        if c == "\\":
            return self.escape(flags)
        if c in "*+?" or (c == "{" and regex.compile(r"\{\d*,?\d*\}").match(p, self.i)):
            raise Unsupported(f"nothing to repeat at position {self.i}")
        self.i += 1
        return self.atom(regex.escape(c), flags)

    def escape(self, flags: str):
        p = self.p
        if self.i + 1 >= len(p):
            raise Unsupported("a trailing backslash")
        c = p[self.i + 1]
        start = self.i
        if c in "pP":
            if self.i + 2 < len(p) and p[self.i + 2] == "{":
                end = p.find("}", self.i + 3)
                if end < 0:
                    raise Unsupported("an unclosed \\p{")
                self.i = end + 1
            else:
                self.i += 3
            return self.atom(p[start : self.i], flags)
        if c in _SIMPLE_ESCAPES or c in _LITERAL_ESCAPES:
            self.i += 2
            return self.atom(p[start : self.i], flags)
        if c == "x":
            self.i += 4
            return self.atom(p[start : self.i], flags)
        if c == "u":
            self.i += 6
            return self.atom(p[start : self.i], flags)
        if c == "U":
            self.i += 10
            return self.atom(p[start : self.i], flags)
        if c == "N" and self.i + 2 < len(p) and p[self.i + 2] == "{":
            end = p.find("}", self.i + 3)
            if end < 0:
                raise Unsupported("an unclosed \\N{")
            self.i = end + 1
            return self.atom(p[start : self.i], flags)
        if c == "0":
            m = regex.compile(r"\\0[0-7]{0,2}").match(p, self.i)
            self.i = m.end()
            return self.atom(p[start : self.i], flags)
        if c == "Z":
            self.i += 2
            return ("endz",)
        if c.isalnum() or c == "_":
            raise Unsupported(f"the escape \\{c}")
        self.i += 2
        return self.atom(p[start : self.i], flags)

    def group(self, flags: str, multiline: bool):
        p = self.p
        i = self.i + 1
        atomic = False
        look = None
        if p.startswith("?", i):
            rest = p[i + 1 :]
            if rest.startswith(":"):
                i += 2
            elif rest.startswith(">"):
                i += 2
                atomic = True
            elif rest.startswith("="):
                i += 2
                look = False
            elif rest.startswith("!"):
                i += 2
                look = True
            elif rest.startswith("|"):
                i += 2  # branch reset: only group numbering differs
            elif rest.startswith("#"):
                end = p.find(")", i)
                if end < 0:
                    raise Unsupported("an unclosed comment")
                self.i = end + 1
                return None
            elif rest.startswith(("P<", "<", "'")) and not rest.startswith(("<=", "<!")):
                close = ">" if rest[0] in "P<" else "'"
                end = p.find(close, i + 2)
                if end < 0:
                    raise Unsupported("an unclosed group name")
                i = end + 1
            else:
                m = regex.compile(r"((?:[aimsux]|V[01])*)(?:-([imsx]*))?([:)])").match(p, i + 1)
                if not m:
                    raise Unsupported(f"the group syntax at position {self.i}")
                on, off, end = m.group(1), m.group(2) or "", m.group(3)
                if "x" in on or "V1" in on or "x" in off:
                    raise Unsupported("verbose or version-1 flags")
                if end == ")":
                    # a bare flag group: in version 0 it applies to the whole pattern, which the
                    # compiled pattern's flags already say
                    self.i = m.end()
                    return None
                new = set(flags)
                for f in on.replace("V0", ""):
                    if f == "u":
                        new.discard("a")
                    elif f != "m":
                        new.add(f)
                for f in off:
                    new.discard(f)
                if "m" in on:
                    multiline = True
                if "m" in off:
                    multiline = False
                flags = "".join(sorted(new))
                i = m.end()
        self.i = i
        inner = self.alternation(flags, multiline)
        if self.i >= len(p) or p[self.i] != ")":
            raise Unsupported("an unclosed group")
        self.i += 1
        if look is not None:
            return ("look", inner, look)
        return ("group", inner, atomic)


def _class_end(p: str, i: int) -> int:
    """The index just after the character class that starts at ``p[i] == '['`` (version 0 syntax)."""
    j = i + 1
    if j < len(p) and p[j] == "^":
        j += 1
    if j < len(p) and p[j] == "]":
        j += 1
    while j < len(p):
        c = p[j]
        if c == "\\":
            if j + 2 < len(p) and p[j + 1] in "pPN" and p[j + 2] == "{":
                end = p.find("}", j + 3)
                if end < 0:
                    raise Unsupported("an unclosed escape in a class")
                j = end + 1
            else:
                j += 2
            continue
        if c == "[" and p.startswith(("[:", "[=", "[."), j):
            end = p.find(p[j + 1] + "]", j + 2)
            if end < 0:
                raise Unsupported("an unclosed POSIX class")
            j = end + 2
            continue
        if c == "[":
            raise Unsupported("a nested set")
        if c == "]":
            return j + 1
        j += 1
    raise Unsupported("an unclosed character class")


@functools.lru_cache(maxsize=64)
def parse(pattern: str) -> Parsed:
    """Read a split pattern; ``Unsupported`` when it uses syntax this module does not model.

    >>> parse(r"a+|\\s").tree
    ('alt', (('rep', ('atom', 0), 1, None, ''), ('atom', 1)))
    """
    try:
        compiled = regex.compile(pattern)
    except regex.error as e:
        raise Unsupported(f"not a valid regex: {e}") from None
    for flag, what in _UNSUPPORTED_FLAGS.items():
        if compiled.flags & flag:
            raise Unsupported(what)
    return _Parser(pattern, compiled.flags).parse()


# ----------------------------------------------------------------------------- character classes


def _every_code_point() -> str:
    """U+0000 to U+10FFFF in order, surrogates included (4.5 MB; built in ~40 ms, not kept)."""
    return (
        array.array("I", range(MAX_CODE_POINT + 1))
        .tobytes()
        .decode("utf-32-le" if sys.byteorder == "little" else "utf-32-be", "surrogatepass")
    )


_ESCAPED = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v", "a": "\a"}
_RANGES: dict[tuple[str, str], tuple[tuple[int, int], ...]] = {}  # (source, flags) -> ranges, filled once


def class_ranges(atoms) -> list[tuple[tuple[int, int], ...]]:
    """The code points each ``(source, flags)`` character-class atom matches, as inclusive ranges.

    Found by ``regex`` itself over every code point (one pass per class, a few
    milliseconds each), so the Unicode tables and case folding are the engine's.

    >>> class_ranges([("[a-c]", "i"), ("x", "")])
    [((65, 67), (97, 99)), ((120, 120),)]
    """
    everything = None
    out = []
    for source, flags in atoms:
        ranges = _RANGES.get((source, flags))
        if ranges is None:
            simple = _single_char(source)
            if simple is not None and "i" not in flags:
                ranges = ((ord(simple), ord(simple)),)
            else:
                if everything is None:
                    everything = _every_code_point()
                prefix = f"(?{flags})" if flags else ""
                runs = regex.compile(f"{prefix}(?:{source})+")
                ranges = tuple((m.start(), m.end() - 1) for m in runs.finditer(everything))
            if len(_RANGES) < 4096:  # a cache of small immutable tuples, shared safely (one dict operation each)
                _RANGES[(source, flags)] = ranges
        out.append(ranges)
    return out


def _single_char(source: str) -> str | None:
    """The one character a literal (plain or escaped) stands for, or None.

    >>> _single_char("a"), _single_char(r"\\."), _single_char(r"\\n"), _single_char(r"\\u00e9"), _single_char(r"\\d"), _single_char(".")
    ('a', '.', '\\n', 'é', None, None)
    """
    if len(source) == 1:
        return None if source == "." else source  # the one unescaped metacharacter an atom can be
    if source[0] != "\\":
        return None
    if len(source) == 2:
        c = source[1]
        return c if not c.isalnum() else _ESCAPED.get(c)
    if source[1] in "xuU" and len(source) == {"x": 4, "u": 6, "U": 10}[source[1]]:
        try:
            return chr(int(source[2:], 16))
        except ValueError:
            return None
    return None


@dataclass(frozen=True)
class Symbol:
    """A set of code points the pattern cannot tell apart: the same character classes hold for all."""

    atoms: frozenset[int]  # the atoms (indices) these code points belong to
    ranges: tuple[tuple[int, int], ...]


def alphabet(atom_ranges: list[tuple[tuple[int, int], ...]]) -> list[Symbol]:
    """Group every code point by the set of atoms it belongs to.

    >>> [(sorted(s.atoms), s.ranges) for s in alphabet([((97, 99),), ((98, 98),)])]
    [([], ((0, 96), (100, 1114111))), ([0], ((97, 97), (99, 99))), ([0, 1], ((98, 98),))]
    """
    events: dict[int, list[tuple[int, int]]] = {}
    for k, ranges in enumerate(atom_ranges):
        for lo, hi in ranges:
            events.setdefault(lo, []).append((k, +1))
            events.setdefault(hi + 1, []).append((k, -1))
    points = sorted(set(events) | {0})
    active: dict[int, int] = {}
    groups: dict[frozenset[int], list[tuple[int, int]]] = {}
    for n, start in enumerate(points):
        if start > MAX_CODE_POINT:
            break
        for k, d in events.get(start, ()):
            active[k] = active.get(k, 0) + d
            if not active[k]:
                del active[k]
        end = (points[n + 1] - 1) if n + 1 < len(points) else MAX_CODE_POINT
        key = frozenset(active)
        lst = groups.setdefault(key, [])
        if lst and lst[-1][1] == start - 1:
            lst[-1] = (lst[-1][0], min(end, MAX_CODE_POINT))
        else:
            lst.append((start, min(end, MAX_CODE_POINT)))
    return [Symbol(k, tuple(v)) for k, v in sorted(groups.items(), key=lambda kv: (len(kv[0]), sorted(kv[0])))]


# ----------------------------------------------------------------------------- paths


def _glushkov(node, looks_are_items: bool, extra: set):
    """``(nullable, first, last, pairs)`` of a node: the items a path can start or end
    with and the items that can follow each other. Items are ``("a", k)`` for atoms and,
    when ``looks_are_items``, ``("l", id)`` for assertions; otherwise assertions are
    transparent. Pairs inside lookahead bodies go to ``extra``: a lookahead reads
    consecutive characters too, but what follows it starts where it started."""
    kind = node[0]
    if kind == "atom":
        item = ("a", node[1])
        return False, {item}, {item}, set()
    if kind == "empty":
        return True, set(), set(), set()
    if kind in ("end", "endz", "look"):
        if kind == "look":
            _, f, _last, pairs = _glushkov(node[1], looks_are_items, extra)
            extra |= pairs
        if looks_are_items:
            item = ("l", id(node))
            return False, {item}, {item}, set()
        return True, set(), set(), set()
    if kind == "group":
        return _glushkov(node[1], looks_are_items, extra)
    if kind == "alt":
        nullable, first, last, pairs = False, set(), set(), set()
        for child in node[1]:
            n, f, lst, p = _glushkov(child, looks_are_items, extra)
            nullable |= n
            first |= f
            last |= lst
            pairs |= p
        return nullable, first, last, pairs
    if kind == "seq":
        nullable, first, last, pairs = True, set(), set(), set()
        for child in node[1]:
            n, f, lst, p = _glushkov(child, looks_are_items, extra)
            pairs |= p
            pairs |= {(a, b) for a in last for b in f}
            if nullable:
                first |= f
            last = (last | lst) if n else set(lst)
            nullable = nullable and n
        return nullable, first, last, pairs
    if kind == "rep":
        _, child, lo, hi, _mode = node
        n, f, lst, p = _glushkov(child, looks_are_items, extra)
        if hi is None or hi > 1:
            p = p | {(a, b) for a in lst for b in f}
        if hi == 0:
            return True, set(), set(), set()
        return n or lo == 0, f, lst, p
    raise AssertionError(f"unknown node {kind}")


# ----------------------------------------------------------------------------- safe cuts


class SafeCuts:
    """Where texts split by one pattern may be cut: between ``x`` and ``y`` when the symbol
    of ``x`` is a key of ``avoid`` and ``y`` belongs to none of the atoms ``avoid[key]``.

    ``find`` looks the two symbols up for a stretch of text at a time, with numpy: a
    table lookup per character, so even a megabyte without a single cut (a million
    digits, say) is scanned in milliseconds.
    """

    def __init__(self, symbols: list[Symbol], avoid: dict[int, frozenset[int]]):
        import numpy as np

        self.symbols = tuple(symbols)
        self.avoid = dict(avoid)
        bounds = sorted((lo, i) for i, x in enumerate(symbols) for lo, _ in x.ranges)
        self._starts = np.array([lo for lo, _ in bounds], dtype=np.uint32)
        self._symbol_at = np.array([i for _, i in bounds], dtype=np.intp)
        allowed = np.zeros((len(symbols), len(symbols)), dtype=bool)
        for i, banned in avoid.items():
            for j, y in enumerate(symbols):
                allowed[i, j] = not (y.atoms & banned)
        self._allowed = allowed

    def find(self, text: str, start: int) -> int:
        """The first safe cut at or after ``start`` (strictly inside ``text``), or -1.

        >>> safe_cuts(r"\\w+|\\s+").find("ab cd", 1)
        2
        """
        import numpy as np  # imported where used (a module attribute would stop SafeCuts pickling)

        pos = max(start, 1)
        n = len(text)
        span = 256
        while pos < n:
            end = min(n, pos + span)
            seg = text[pos - 1 : end]  # the characters on both sides of the cuts pos .. end - 1
            points = np.frombuffer(seg.encode("utf-32-le", "surrogatepass"), dtype="<u4")
            sym = self._symbol_at[np.searchsorted(self._starts, points, side="right") - 1]
            ok = self._allowed[sym[:-1], sym[1:]]
            k = int(ok.argmax())
            if ok[k]:
                return pos + k
            pos = end
            span *= 4
        return -1


@functools.lru_cache(maxsize=64)
def safe_cuts(pattern: str) -> SafeCuts | None:
    """The safe cuts of a split pattern (see the module's rule), or None when it has none
    or uses syntax this module does not model.

    >>> cuts = safe_cuts(r"\\w+|\\s+")
    >>> cuts.find("ab cd", 1), cuts.find("ab cd", 3), cuts.find("abcd", 1)
    (2, 3, -1)
    >>> safe_cuts(r"(?<=a)b") is None  # a lookbehind: no cut is provably safe
    True
    """
    try:
        parsed = parse(pattern)
    except Unsupported:
        return None
    # newline and carriage return get symbols of their own: rule 3 is about them
    atoms = list(parsed.atoms) + [("\\n", ""), ("\\r", "")]
    newline = len(parsed.atoms)
    symbols = alphabet(class_ranges(atoms))
    extra: set = set()
    _, _, _, cons = _glushkov(parsed.tree, False, extra)
    cons |= extra
    extra_l: set = set()
    _, _, _, with_looks = _glushkov(parsed.tree, True, extra_l)
    with_looks |= extra_l
    before_look = {a[1] for a, b in with_looks if a[0] == "a" and b[0] == "l"}
    followers: dict[int, set[int]] = {}
    for a, b in cons:
        followers.setdefault(a[1], set()).add(b[1])
    # left symbol -> the atoms its right neighbour must avoid
    avoid: dict[int, frozenset[int]] = {}
    for i, x in enumerate(symbols):
        if x.atoms & before_look or (parsed.has_dollar and newline in x.atoms):
            continue
        banned = frozenset(set().union(*(followers.get(k, set()) for k in x.atoms)))
        if any(not (y.atoms & banned) for y in symbols):
            avoid[i] = banned
    return SafeCuts(symbols, avoid) if avoid else None


# ----------------------------------------------------------------------------- a twin for Python's re

_BMP = 0xFFFF


def _re_class(ranges) -> str:
    """A Python ``re`` class of the ranges' code points up to U+FFFF (``(?!)`` when none)."""
    parts = []
    for lo, hi in ranges:
        if lo > _BMP:
            break
        hi = min(hi, _BMP)
        parts.append(f"\\u{lo:04x}" if lo == hi else f"\\u{lo:04x}-\\u{hi:04x}")
    if not parts:
        return "(?!)"
    if len(parts) == 1 and ranges[0][0] == ranges[0][1]:
        return parts[0]
    return "[" + "".join(parts) + "]"


def _emit(node, atoms: list[str]) -> str:
    kind = node[0]
    if kind == "atom":
        return atoms[node[1]]
    if kind == "seq":
        return "".join(_emit(child, atoms) for child in node[1])
    if kind == "alt":
        return "(?:" + "|".join(_emit(child, atoms) for child in node[1]) + ")"
    if kind == "group":
        return ("(?>" if node[2] else "(?:") + _emit(node[1], atoms) + ")"
    if kind == "look":
        return ("(?!" if node[2] else "(?=") + _emit(node[1], atoms) + ")"
    if kind == "end":
        return "(?m:$)" if node[1] else "$"
    if kind == "endz":
        return r"\Z"
    if kind == "empty":
        return ""
    _, child, lo, hi, mode = node
    if (lo, hi) == (0, 1) and child[0] != "atom":
        # X? as a choice, not a repeat: re enters a repeat through a heap-allocated frame, and a
        # choice whose first branch starts with a character is skipped on one look (o200k's 's, 'll)
        inner = _emit(child, atoms)
        return {"": f"(?:{inner}|)", "?": f"(?:|{inner})", "+": f"(?>{inner}|)"}[mode]
    quantifier = {(0, None): "*", (1, None): "+", (0, 1): "?"}.get((lo, hi))
    if quantifier is None:
        quantifier = f"{{{lo}}}" if hi == lo else f"{{{lo},{'' if hi is None else hi}}}"
    inner = _emit(child, atoms)
    if child[0] != "atom":
        inner = f"(?:{inner})"
    return inner + quantifier + mode


def _has_assertion(node) -> bool:
    kind = node[0]
    if kind in ("look", "end", "endz"):
        return True
    if kind in ("seq", "alt"):
        return any(_has_assertion(c) for c in node[1])
    if kind in ("rep", "group"):
        return _has_assertion(node[1])
    return False


def nullable(node) -> bool:
    """Whether a parsed node can match the empty string (assertions and ``empty`` do)."""
    kind = node[0]
    if kind == "atom":
        return False
    if kind == "seq":
        return all(nullable(c) for c in node[1])
    if kind == "alt":
        return any(nullable(c) for c in node[1])
    if kind == "rep":
        return node[2] == 0 or nullable(node[1])
    if kind == "group":
        return nullable(node[1])
    return True  # look, end, endz, empty


def _first_atoms(nodes) -> set[int]:
    """The atoms whose characters a sequence of nodes can consume first (more than that is fine)."""
    out: set[int] = set()
    for node in nodes:
        kind = node[0]
        if kind == "atom":
            out.add(node[1])
        elif kind == "seq":
            out |= _first_atoms(node[1])
        elif kind == "alt":
            for c in node[1]:
                out |= _first_atoms([c])
        elif kind in ("rep", "group"):
            out |= _first_atoms([node[1]])
        if not nullable(node):
            break
    return out


def _overlap(a, b) -> bool:
    """Whether two sorted lists of inclusive code-point ranges share a code point."""
    i = j = 0
    while i < len(a) and j < len(b):
        if a[i][1] < b[j][0]:
            i += 1
        elif b[j][1] < a[i][0]:
            j += 1
        else:
            return True
    return False


def _possessive_where_safe(alternative, ranges):
    """One top-level alternative with each greedy repeat of a class made possessive where that cannot
    change a match: Python's ``re`` then never backtracks into it, which saves about a tenth of a split.

    A greedy ``X*``/``X+``/``X?``/``X{m,n}`` gives characters back only when what follows fails
    after the longest run. That never happens when what follows can match empty text and tests
    nothing (no lookahead, ``$`` or ``\\Z``), and never helps when it cannot start with a character of
    ``X``: so ``X`` may be possessive then.
    """
    if alternative[0] == "rep":
        alternative = ("seq", (alternative,))
    if alternative[0] != "seq":
        return alternative
    items = list(alternative[1])
    for i, node in enumerate(items):
        if node[0] != "rep" or node[4] != "" or node[1][0] != "atom":
            continue
        rest = items[i + 1 :]
        if any(_has_assertion(r) for r in rest):
            continue
        if all(nullable(r) for r in rest) or not any(_overlap(ranges[node[1][1]], ranges[k]) for k in _first_atoms(rest)):
            items[i] = (*node[:4], "+")
    return ("seq", tuple(items))


def _ranges_minus(a, b) -> tuple[tuple[int, int], ...]:
    """The code points of sorted inclusive ranges ``a`` that are not in ``b``, as ranges.

    >>> _ranges_minus(((9, 13), (32, 32)), ((10, 10), (13, 13)))
    ((9, 9), (11, 12), (32, 32))
    """
    out = []
    for lo, hi in a:
        for blo, bhi in b:
            if bhi < lo or blo > hi:
                continue
            if blo > lo:
                out.append((lo, blo - 1))
            lo = bhi + 1
            if lo > hi:
                break
        if lo <= hi:
            out.append((lo, hi))
    return tuple(out)


def _faster_for_re(alternative, ranges: list, atoms: list) -> list:
    """One top-level alternative rewritten into what Python's ``re`` runs faster, with the same matches.

    Returns the alternatives that replace it, in order (one or two); may add classes to
    ``ranges`` and ``atoms``. Each rewrite gives the same matches on any text (the tests
    check them against ``regex``); together with the optional groups of ``_emit`` they cut
    the instructions ``re`` spends splitting text (docs/performance.md):

    - a greedy optional class first, ``X?R``, becomes ``XR|R`` (the same tries in the same
      order): ``re`` skips an alternative that starts with a class after one look at the
      next character, instead of entering a repeat.
    - a bounded repeat first, ``X{1,3}``, becomes ``XX{0,2}``, for the same reason.
    - ``S*T`` or ``S*T+`` ending the alternative, with every character of ``T`` in ``S``
      (``\\s*[\\r\\n]+``), matches up to the last ``T`` of the run of ``S``; it becomes
      ``(?:[S-T]*+T)++``, which finds that place without backtracking over the run.

    >>> print(bmp_twin(r"[0-9]{1,3}|[ac]?c|[ \\n]*\\n+|x(?:yz)?"))
    [\\u0030-\\u0039][\\u0030-\\u0039]{0,2}+|[\\u0061\\u0063]\\u0063|\\u0063|(?:\\u0020*+\\u000a)++|\\u0078(?:(?:\\u0079\\u007a)|)
    """
    items = list(alternative[1]) if alternative[0] == "seq" else [alternative]
    if len(items) >= 2:
        s, t = items[-2], items[-1]
        if t[0] == "rep" and t[1][0] == "atom" and t[2] == 1 and t[3] is None:
            t = t[1]
        if s[0] == "rep" and s[1][0] == "atom" and s[2:] == (0, None, "") and t[0] == "atom":
            run, last = ranges[s[1][1]], ranges[t[1]]
            rest = _ranges_minus(run, last)
            if last and rest and not _ranges_minus(last, run):
                ranges.append(rest)
                atoms.append(_re_class(rest))
                step = ("seq", (("rep", ("atom", len(ranges) - 1), 0, None, "+"), t))
                items[-2:] = [("rep", step, 1, None, "+")]
    first = items[0]
    if first[0] == "rep" and first[1][0] == "atom" and first[3] is not None and first[2] >= 1:
        lo, hi = first[2] - 1, first[3] - 1
        items[:1] = [first[1]] + ([("rep", first[1], lo, hi, first[4])] if hi else [])
    elif first[0] == "rep" and first[1][0] == "atom" and first[2:] == (0, 1, "") and len(items) > 1:
        return [("seq", (first[1], *items[1:])), ("seq", tuple(items[1:]))]
    return [("seq", tuple(items))]


@functools.lru_cache(maxsize=64)
def bmp_twin(pattern: str) -> str | None:
    """The pattern for Python's ``re``, exact on text without characters above U+FFFF.

    Every character class becomes its code points up to U+FFFF, found with ``regex``
    itself (so ``\\p{L}`` means Unicode 16's letters, as in tiktoken, not Python's own
    tables), and case-insensitive letters become the classes they match; quantifiers,
    possessive and lazy ones, atomic groups, lookaheads and ``$`` mean the same in both
    engines. Python's ``re`` runs these patterns 2-3 times faster than ``regex`` (its
    large classes are a two-level table for the Basic Multilingual Plane) but has no
    time limit, so only trusted patterns use it; a greedy repeat that can never give
    back a character usefully is made possessive (``_possessive_where_safe``). None when
    the pattern uses syntax ``parse`` does not model.

    >>> import re
    >>> re.findall(bmp_twin(r"\\p{Lu}\\p{Ll}+|\\s+"), "Hello World ÉTÉ")
    ['Hello', ' ', 'World', ' ']
    """
    try:
        parsed = parse(pattern)
    except Unsupported:
        return None
    ranges = class_ranges(parsed.atoms)
    atoms = [_re_class(r) for r in ranges]
    tree = parsed.tree
    alternatives = tree[1] if tree[0] == "alt" else (tree,)
    faster = [b for a in alternatives for b in _faster_for_re(_possessive_where_safe(a, ranges), ranges, atoms)]
    # the top level needs no group
    return "|".join(_emit(a, atoms) for a in faster)
