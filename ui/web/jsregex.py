"""A split pattern as data for a JavaScript RegExp that splits every text exactly as Python's ``regex`` does.

The browser encoder cuts text with a RegExp built from ``pattern_spec`` (by
``pattern.js``); the chunks must be the core's to the character, on every browser,
whatever Unicode version its engine knows. So the spec leaves nothing to the
browser's own tables:

* every character class (``\\p{L}``, ``[^\\s\\p{L}\\p{N}]``, ``\\s``, a case-insensitive
  letter, ``.``) comes as the explicit code points ``regex`` itself matches
  (``pattern_syntax.class_ranges``: the pinned regex 2025.9.18, Unicode 16);
* a class made of Unicode properties (``[^\\r\\n\\p{L}\\p{N}]``) also says which, with the
  code points of each property: the browser may then write ``\\p{L}`` natively (V8
  runs a pattern three to ten times faster that way: one whose source exceeds 20,000
  characters, as o200k's does with every letter spelled out, is not optimized), but
  only after comparing its own ``\\p{L}`` with these code points over all of Unicode,
  and correcting for every difference (``pattern.js``);
* a possessive quantifier or an atomic group ``(?>X)`` becomes a lookahead that
  captures and a backreference, ``(?=(X))\\1`` (as gpt-tokenizer writes tiktoken's
  patterns): JavaScript lookaheads never backtrack, which is what atomic means;
* ``$`` becomes ``(?=\\n?$)`` (Python's ``$`` also matches before a final newline),
  ``\\Z`` is JavaScript's ``$``, a multiline ``$`` is ``(?=\\n|$)``.

What the two engines would read differently is refused (``None``; the page then
tokenizes on the server): syntax ``pattern_syntax.parse`` does not model (lookbehind,
``\\b``, ``^``, backreferences, verbose or version-1 flags, ...); a pattern that can
match the empty string (after an empty match Python and JavaScript resume at
different places); a repetition of something that can match empty (the engines
stop such loops differently).

A spec is JSON: ``{"parts": [source or atom index, ...], "atoms": [atom, ...],
"props": {name: ranges}}``; an atom is ``{"ranges": [[lo, hi], ...]}`` (its code
points), plus ``"negate"``, ``"props"`` and ``"rest"`` (the code points of its
other items) when it is a class of properties. ``js_source`` writes the explicit
RegExp from a spec, as ``pattern.js`` does without native properties.

Finding the code points runs ``regex`` over all of Unicode per class, and every app process
needs OpenAI's three at start-up (docs/performance.md), so a built-in pattern's spec is kept in the data folder's cache (``tokenizer.models.disk_cache``,
``jsregex-<name>.json``) under a key of everything it depends on: the pattern, ``regex``'s
release and compiled extension (its Unicode tables), ``unicodedata.unidata_version``, the
Python version and the source of this module and of ``pattern_syntax``. A user's pattern is
computed in each process and never written (the cache stays a few files).

>>> js_source(r"a++|\\s")
'(?=(a+))\\\\1|[\\\\u{9}-\\\\u{d}\\\\u{20}\\\\u{85}\\\\u{a0}\\\\u{1680}\\\\u{2000}-\\\\u{200a}\\\\u{2028}\\\\u{2029}\\\\u{202f}\\\\u{205f}\\\\u{3000}]'
>>> pattern_spec(r"a?") is None  # can match the empty string
True
"""

from __future__ import annotations

import functools
import re
import sys
import unicodedata

import regex

from tokenizer.models import disk_cache
from tokenizer.pretokenize import pattern_syntax
from tokenizer.pretokenize.pattern_syntax import Unsupported, class_ranges, nullable, parse
from tokenizer.pretokenize.patterns import BUILTIN_PATTERNS, pattern_name

#: The flags the browser compiles the RegExp with.
FLAGS = "gu"
Ranges = tuple[tuple[int, int], ...]

#: Unicode general categories a class may name natively (``\\p{…}`` means the same set in both engines).
PROPERTIES = frozenset("L Lu Ll Lt Lm Lo M Mn Mc Me N Nd Nl No P Pc Pd Ps Pe Pi Pf Po S Sm Sc Sk So Z Zs Zl Zp".split())
# Characters written as \u{…} in the explicit form: the ones with a meaning in a RegExp, controls, spaces and
# the surrogates (two written next to each other would join into one character). Everything else is
# written as itself, which keeps a class of every letter at about 2,000 characters of source.
_ESCAPE = frozenset("\\^$.*+?()[]{}|/-")
_PROP_ITEM = re.compile(r"\\p\{(\w+)\}|\\p(\w)")


def _char(cp: int) -> str:
    c = chr(cp)
    if c in _ESCAPE or cp < 0x21 or 0x7F <= cp <= 0xA0 or 0xD800 <= cp <= 0xDFFF or c.isspace():
        return f"\\u{{{cp:x}}}"
    return c


def class_body(ranges: Ranges) -> str:
    """The code points of ``ranges`` as the inside of a JavaScript class (for the ``u`` flag).

    >>> class_body(((97, 99), (0x1F600, 0x1F600), (0x2D, 0x2E)))
    'a-c😀\\\\u{2d}\\\\u{2e}'
    """
    parts = []
    for lo, hi in ranges:
        if lo == hi:
            parts.append(_char(lo))
        elif hi == lo + 1:
            parts.append(_char(lo) + _char(hi))
        else:
            parts.append(f"{_char(lo)}-{_char(hi)}")
    return "".join(parts)


def js_class(ranges: Ranges) -> str:
    """A JavaScript class (or one character) matching exactly ``ranges``.

    >>> js_class(((97, 97),)), js_class(((97, 99),)), js_class(())
    ('a', '[a-c]', '[]')
    """
    if len(ranges) == 1 and ranges[0][0] == ranges[0][1]:
        return _char(ranges[0][0])
    return "[" + class_body(ranges) + "]"


def _union(*sets: Ranges) -> Ranges:
    """The union of range lists, as sorted disjoint ranges (adjacent ones joined)."""
    out: list[list[int]] = []
    for lo, hi in sorted(r for s in sets for r in s):
        if out and lo <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return tuple((lo, hi) for lo, hi in out)


def _complement(ranges: Ranges) -> Ranges:
    out, pos = [], 0
    for lo, hi in ranges:
        if lo > pos:
            out.append((pos, lo - 1))
        pos = hi + 1
    if pos <= 0x10FFFF:
        out.append((pos, 0x10FFFF))
    return tuple(out)


def _decompose(source: str, flags: str, ranges: Ranges, props: dict[str, Ranges]) -> dict | None:
    """A class of Unicode properties as ``{"negate", "props", "rest"}``, checked to give exactly ``ranges``; else None."""
    if flags or not source.startswith("["):
        if flags or not _PROP_ITEM.fullmatch(source):
            return None
        source = f"[{source}]"
    body = source[1:-1]
    negate = body.startswith("^")
    if negate:
        body = body[1:]
    names: list[str] = []
    pieces: list[str] = []
    pos = 0
    for m in _PROP_ITEM.finditer(body):
        if m.start() > 0 and body[m.start() - 1] == "\\":  # an escaped backslash before it: not a property
            return None
        name = m.group(1) or m.group(2)
        if name not in PROPERTIES or body[m.start() - 1 : m.start()] == "-" or body[m.end() : m.end() + 1] == "-":
            return None
        names.append(name)
        pieces.append(body[pos : m.start()])
        pos = m.end()
    pieces.append(body[pos:])
    rest_source = "".join(pieces)
    if not names or "[" in rest_source:
        return None
    try:
        rest = class_ranges([(f"[{rest_source}]", "")])[0] if rest_source else ()
        for name in names:
            if name not in props:
                props[name] = class_ranges([(f"\\p{{{name}}}", "")])[0]
    except Exception:  # regex refuses what is left: keep the explicit form
        return None
    union = _union(rest, *(props[n] for n in names))
    if (_complement(union) if negate else union) != tuple(ranges):
        return None
    return {"negate": negate, "props": names, "rest": [list(r) for r in rest]}


class _Writer:
    def __init__(self):
        self.parts: list[str | int] = []
        self.groups = 0  # capturing groups written so far (only ours: the pattern's own groups become (?:)

    def text(self, s: str) -> None:
        if self.parts and isinstance(self.parts[-1], str):
            self.parts[-1] += s
        else:
            self.parts.append(s)

    def atomic(self, write_inner) -> None:
        """``(?=(X))\\n``: X matched once, as far as it first gets, and never given back."""
        self.groups += 1
        n = self.groups
        self.text("(?=(")
        write_inner()
        self.text(f"))\\{n}")

    def emit(self, node) -> None:
        kind = node[0]
        if kind == "atom":
            self.parts.append(node[1])
        elif kind == "seq":
            for c in node[1]:
                self.emit(c)
        elif kind == "alt":
            self.text("(?:")
            for i, c in enumerate(node[1]):
                if i:
                    self.text("|")
                self.emit(c)
            self.text(")")
        elif kind == "group":
            if node[2]:
                self.atomic(lambda: self.emit(node[1]))
            else:
                self.text("(?:")
                self.emit(node[1])
                self.text(")")
        elif kind == "look":
            self.text("(?!" if node[2] else "(?=")
            self.emit(node[1])
            self.text(")")
        elif kind == "end":
            self.text(r"(?=\n|$)" if node[1] else r"(?=\n?$)")
        elif kind == "endz":
            self.text("$")
        elif kind == "empty":
            pass
        else:
            self.repeat(node)

    def repeat(self, node) -> None:
        _, child, lo, hi, mode = node
        if nullable(child):
            raise Unsupported("a repetition of something that can match the empty string")
        quantifier = {(0, None): "*", (1, None): "+", (0, 1): "?"}.get((lo, hi))
        if quantifier is None:
            quantifier = f"{{{lo}}}" if hi == lo else f"{{{lo},{'' if hi is None else hi}}}"

        def inner() -> None:
            if child[0] == "atom":
                self.emit(child)  # an atom is one character or one class: it takes a quantifier as it is
            else:
                self.text("(?:")
                self.emit(child)
                self.text(")")
            self.text(quantifier)

        if mode == "+":
            self.atomic(inner)
        else:
            inner()
            if mode == "?":
                self.text("?")


@functools.lru_cache(maxsize=64)
def pattern_spec(pattern: str | None) -> dict | None:
    """The RegExp of ``pattern`` as data (see the module), or None when the browser cannot split exactly like it.

    A built-in pattern's spec comes from the data folder's cache when it is there under this very key, and is
    written there once computed; what is read back is JSON, as the computed spec is (lists, never tuples).
    """
    if pattern is None:
        return None
    if pattern not in _BUILTIN:
        return _spec(pattern)
    name = f"jsregex-{pattern_name(pattern)}.json"
    key = _cache_key(pattern)
    cached = disk_cache.read_json(name, key)
    if cached is None or (isinstance(cached, dict) and set(cached) == {"parts", "atoms", "props"}):
        return cached
    spec = _spec(pattern)
    disk_cache.write_json(name, key, spec)
    return spec


_BUILTIN = frozenset(BUILTIN_PATTERNS.values())
#: The source this process runs, read when it was imported (a file edited since then must not key an old result).
_CODE = [disk_cache.file_digest(__file__), disk_cache.file_digest(pattern_syntax.__file__)]


@functools.cache
def _engine() -> dict:
    """What the code points of a class depend on besides the pattern: ``regex``'s release and its compiled extension
    (the Unicode tables and case folding are in it), Python's Unicode version and Python itself."""
    import importlib.metadata

    try:
        release = importlib.metadata.version("regex")
    except importlib.metadata.PackageNotFoundError:
        release = None
    extension = sys.modules.get("regex._regex")
    return {
        "regex": [release, regex.__version__, disk_cache.file_digest(extension.__file__) if extension else None],
        "unidata": unicodedata.unidata_version,
        "python": sys.version,
    }


def _cache_key(pattern: str) -> str:
    return disk_cache.digest({"what": "ui.web.jsregex.pattern_spec", "pattern": pattern, "code": _CODE, **_engine()})


def _spec(pattern: str) -> dict | None:
    """``pattern_spec`` computed: the tree written as JavaScript, then every class's code points from ``regex``."""
    try:
        parsed = parse(pattern)
        if nullable(parsed.tree):
            raise Unsupported("the pattern can match the empty string")
        tree = parsed.tree
        writer = _Writer()
        if tree[0] == "alt":  # the top level needs no group
            for i, c in enumerate(tree[1]):
                if i:
                    writer.text("|")
                writer.emit(c)
        else:
            writer.emit(tree)
    except Unsupported:
        return None
    props: dict[str, Ranges] = {}
    atoms = []
    for (source, flags), ranges in zip(parsed.atoms, class_ranges(parsed.atoms)):
        atom: dict = {"ranges": [list(r) for r in ranges]}
        parts = _decompose(source, flags, ranges, props)
        if parts is not None:
            atom.update(parts)
        atoms.append(atom)
    return {"parts": writer.parts, "atoms": atoms, "props": {k: [list(r) for r in v] for k, v in props.items()}}


def js_source(pattern: str | None) -> str | None:
    """The explicit RegExp source of ``pattern`` (compile it with ``FLAGS``), or None as ``pattern_spec``."""
    spec = pattern_spec(pattern)
    if spec is None:
        return None
    atoms = [js_class(tuple(map(tuple, a["ranges"]))) for a in spec["atoms"]]
    return "".join(p if isinstance(p, str) else atoms[p] for p in spec["parts"])
