"""Split patterns between two regex engines: Oniguruma (Hugging Face tokenizers) and Python's ``regex``.

A tokenizer.json writes its Split patterns for Oniguruma, the engine ``tokenizers``
runs them with; BPE Lab runs patterns with Python's ``regex``. The two read some
constructs differently, so a pattern is never passed from one to the other as text:
it is parsed into one small syntax tree whose meaning is the same in both engines,
then written out for the other engine (``from_oniguruma``, ``to_oniguruma``). What
the tree cannot express exactly is refused with a ValueError that says why.

Where the engines differ, and what this module does about it (each checked against
``tokenizers`` in tests/tokenizer/pretokenize/test_onig.py, the character classes on every code point):

=========================  ==================================  ==================================
construct                  Oniguruma (tokenizers)              Python ``regex``
=========================  ==================================  ==================================
``\\w``, ``\\b``             letters, marks, Nd, Pc, and         letters, marks, Nd, Pc, and
                           ``² ³ ¹ ¼ ½ ¾`` (not in ``[\\w]``)   U+200C/U+200D (Join_Control)
``\\h``                     a hex digit                         horizontal space
``X{1,3}+``                ``(?:X{1,3})+``: a repeat of a      possessive ``X{1,3}``
                           repeat
``X{2}?``                  ``(?:X{2})?``: optional             exactly two (lazy)
``^``                      start, or after ``\\n`` (never at    start of the text only
                           the very end)
``$``                      before any ``\\n``, or at the end   at the end, or before a final ``\\n``
``\\Z``                     at the end or before a final ``\\n``  at the end only
``(?m)``                   ``.`` also matches ``\\n``           ``^``/``$`` match at lines
``a(?i)b|c``               ``a(?i:b|c)``                       ``(?i)`` reaches to the group's end
``(?i)`` on ``i``           ``i``, ``I``                         also ``İ`` (U+0130)
``(?i)`` on ``ss``          also ``ß``, ``ẞ`` (multi-character  no multi-character folding
                           folding; ``ff``, ``fi``, ``st``…)
``[a[b]]``, ``[a&&b]``     nested class, intersection          literal ``[``, ``&``
empty matches              an empty match right after the      allowed (Python 3.7 rules)
                           last match is skipped
=========================  ==================================  ==================================

Supported: literals and escapes (``\\t \\n \\r \\f \\v \\a \\e \\xHH \\x{H…} \\uHHHH \\0``),
``.``, classes (ranges, negation, ``\\s \\S \\d \\D \\w \\W \\h \\H``, ``\\p{…}`` for
general categories, scripts and the binary properties in ``PROPERTIES``; in
Oniguruma also nested classes and ``&&``), groups (capturing or not, named),
lookaround, atomic groups, ``* + ? {n} {n,} {,m} {n,m}`` with lazy and possessive
forms, alternation, ``^ $ \\A \\z \\Z \\b \\B``, and the ``i`` and ``m`` (Oniguruma) /
``i m s`` (Python) flags. Case-insensitive parts may hold only ASCII characters
(no multi-character folds such as ``ss``). Refused: backreferences, subroutine calls,
conditionals, ``\\K \\G \\R \\X``, POSIX brackets, ``x`` mode, a repeated part that can
match empty text (the engines stop such loops differently), and anything else.

>>> from_oniguruma(r"\\p{N}{1,3}+|[\\w&&\\D]+").pattern
'(?:\\\\p{N}{1,3})+|(?:(?=[\\\\p{Alphabetic}\\\\p{M}\\\\d\\\\p{Pc}])\\\\D)+'
>>> to_oniguruma(r"\\p{N}{1,3}+")
'(?>\\\\p{N}{1,3})'
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import NamedTuple

# ----------------------------------------------------------------------------- the syntax tree


@dataclass(frozen=True, slots=True)
class Prop:
    """A Unicode property that both engines read alike (a name from ``PROPERTIES``)."""

    name: str
    negated: bool = False


@dataclass(frozen=True, slots=True)
class CharSet:
    """One character out of a set: ``items`` are ``(lo, hi)`` code point ranges, ``Prop``s,
    nested ``CharSet``s or ``Inter``s, united; ``negated`` complements the union."""

    items: tuple
    negated: bool = False


@dataclass(frozen=True, slots=True)
class Inter:
    """The intersection of character sets (Oniguruma's ``&&``)."""

    parts: tuple[CharSet, ...]


@dataclass(frozen=True, slots=True)
class Seq:
    items: tuple


@dataclass(frozen=True, slots=True)
class Alt:
    options: tuple


@dataclass(frozen=True, slots=True)
class Repeat:
    body: object
    lo: int
    hi: int | None  # None: no upper bound
    mode: str = "greedy"  # or "lazy"; a possessive repeat is Atomic(Repeat(...))


@dataclass(frozen=True, slots=True)
class Atomic:
    body: object


@dataclass(frozen=True, slots=True)
class Look:
    body: object
    behind: bool
    negative: bool


@dataclass(frozen=True, slots=True)
class Anchor:
    """A zero-width assertion, by meaning (not by spelling):

    ``start`` (start of text), ``end`` (end of text), ``end_nl`` (end, or before a final
    newline), ``onig_bol`` (start, or after a newline not at the end), ``bol`` (start or
    after any newline), ``eol`` (before a newline or at the end), ``onig_word`` /
    ``onig_nonword`` and ``py_word`` / ``py_nonword`` (word boundaries of either engine).
    """

    kind: str


EMPTY = Seq(())

# ----------------------------------------------------------------------------- character data

ANY = CharSet(((0, 0x10FFFF),))
NOT_NEWLINE = CharSet(((10, 10),), negated=True)
SPACE = CharSet((Prop("White_Space"),))
DIGIT = CharSet((Prop("Nd"),))
HEX = CharSet(((48, 57), (65, 70), (97, 102)))
# Oniguruma's \w outside a class (and \b, \p{Word}): Unicode word characters and, from its
# Latin-1 table, ² ³ ¹ ¼ ½ ¾. Inside a class (``[\w]``) only the Unicode word characters.
ONIG_WORD = CharSet((Prop("Alphabetic"), Prop("M"), Prop("Nd"), Prop("Pc"), (0xB2, 0xB3), (0xB9, 0xB9), (0xBC, 0xBE)))
ONIG_WORD_IN_CLASS = CharSet((Prop("Alphabetic"), Prop("M"), Prop("Nd"), Prop("Pc")))
# Python regex's \w: the same Unicode word characters and Join_Control (U+200C, U+200D).
PY_WORD = CharSet((Prop("Alphabetic"), Prop("M"), Prop("Nd"), Prop("Pc"), (0x200C, 0x200D)))

#: Property names both engines read alike, by canonical spelling (checked on every code
#: point against tokenizers in tests/tokenizer/pretokenize/test_onig.py). General categories, scripts
#: and a few binary properties; ``Word`` is left out (the engines disagree, see ``\\w``).
GENERAL_CATEGORIES = {
    "L": "Letter", "LC": "Cased_Letter", "Lu": "Uppercase_Letter", "Ll": "Lowercase_Letter", "Lt": "Titlecase_Letter",
    "Lm": "Modifier_Letter", "Lo": "Other_Letter", "M": "Mark", "Mn": "Nonspacing_Mark", "Mc": "Spacing_Mark",
    "Me": "Enclosing_Mark", "N": "Number", "Nd": "Decimal_Number", "Nl": "Letter_Number", "No": "Other_Number",
    "P": "Punctuation", "Pc": "Connector_Punctuation", "Pd": "Dash_Punctuation", "Ps": "Open_Punctuation",
    "Pe": "Close_Punctuation", "Pi": "Initial_Punctuation", "Pf": "Final_Punctuation", "Po": "Other_Punctuation",
    "S": "Symbol", "Sm": "Math_Symbol", "Sc": "Currency_Symbol", "Sk": "Modifier_Symbol", "So": "Other_Symbol",
    "Z": "Separator", "Zs": "Space_Separator", "Zl": "Line_Separator", "Zp": "Paragraph_Separator",
    "C": "Other", "Cc": "Control", "Cf": "Format", "Co": "Private_Use", "Cn": "Unassigned",
}  # fmt: skip
BINARY_PROPERTIES = (
    "Alphabetic", "White_Space", "Uppercase", "Lowercase", "Cased", "Any", "ASCII", "Assigned", "Join_Control",
    "Emoji", "Emoji_Presentation", "Extended_Pictographic", "Math", "Dash", "Hex_Digit", "Ideographic",
    "Regional_Indicator", "Variation_Selector", "Diacritic", "Extender", "Unified_Ideograph",
)  # fmt: skip
SCRIPTS = (
    "Adlam", "Ahom", "Anatolian_Hieroglyphs", "Arabic", "Armenian", "Avestan", "Balinese", "Bamum", "Bassa_Vah",
    "Batak", "Bengali", "Bhaiksuki", "Bopomofo", "Brahmi", "Braille", "Buginese", "Buhid", "Canadian_Aboriginal",
    "Carian", "Caucasian_Albanian", "Chakma", "Cham", "Cherokee", "Chorasmian", "Common", "Coptic", "Cuneiform",
    "Cypriot", "Cypro_Minoan", "Cyrillic", "Deseret", "Devanagari", "Dives_Akuru", "Dogra", "Duployan",
    "Egyptian_Hieroglyphs", "Elbasan", "Elymaic", "Ethiopic", "Georgian", "Glagolitic", "Gothic", "Grantha",
    "Greek", "Gujarati", "Gunjala_Gondi", "Gurmukhi", "Han", "Hangul", "Hanifi_Rohingya", "Hanunoo", "Hatran",
    "Hebrew", "Hiragana", "Imperial_Aramaic", "Inherited", "Inscriptional_Pahlavi", "Inscriptional_Parthian",
    "Javanese", "Kaithi", "Kannada", "Katakana", "Kawi", "Kayah_Li", "Kharoshthi", "Khitan_Small_Script", "Khmer",
    "Khojki", "Khudawadi", "Lao", "Latin", "Lepcha", "Limbu", "Linear_A", "Linear_B", "Lisu", "Lycian", "Lydian",
    "Mahajani", "Makasar", "Malayalam", "Mandaic", "Manichaean", "Marchen", "Masaram_Gondi", "Medefaidrin",
    "Meetei_Mayek", "Mende_Kikakui", "Meroitic_Cursive", "Meroitic_Hieroglyphs", "Miao", "Modi", "Mongolian", "Mro",
    "Multani", "Myanmar", "Nabataean", "Nag_Mundari", "Nandinagari", "New_Tai_Lue", "Newa", "Nko", "Nushu",
    "Nyiakeng_Puachue_Hmong", "Ogham", "Ol_Chiki", "Old_Hungarian", "Old_Italic", "Old_North_Arabian", "Old_Permic",
    "Old_Persian", "Old_Sogdian", "Old_South_Arabian", "Old_Turkic", "Old_Uyghur", "Oriya", "Osage", "Osmanya",
    "Pahawh_Hmong", "Palmyrene", "Pau_Cin_Hau", "Phags_Pa", "Phoenician", "Psalter_Pahlavi", "Rejang", "Runic",
    "Samaritan", "Saurashtra", "Sharada", "Shavian", "Siddham", "SignWriting", "Sinhala", "Sogdian", "Sora_Sompeng",
    "Soyombo", "Sundanese", "Syloti_Nagri", "Syriac", "Tagalog", "Tagbanwa", "Tai_Le", "Tai_Tham", "Tai_Viet",
    "Takri", "Tamil", "Tangsa", "Tangut", "Telugu", "Thaana", "Thai", "Tibetan", "Tifinagh", "Tirhuta", "Toto",
    "Ugaritic", "Vai", "Vithkuqi", "Wancho", "Warang_Citi", "Yezidi", "Yi", "Zanabazar_Square",
)  # fmt: skip


def _loose(name: str) -> str:
    """Property names compare loosely in both engines: case, spaces, ``_`` and ``-`` do not count."""
    return name.replace(" ", "").replace("_", "").replace("-", "").lower()


@functools.lru_cache(maxsize=1)
def _property_names() -> dict[str, str]:
    names: dict[str, str] = {}
    for short, long in GENERAL_CATEGORIES.items():
        names[_loose(short)] = names[_loose(long)] = short
    for name in (*BINARY_PROPERTIES, *SCRIPTS):
        names.setdefault(_loose(name), name)
    # spellings both engines accept for the same sets
    names.update({"alpha": "Alphabetic", "space": "White_Space", "digit": "Nd", "punct": "P", "joinc": "Join_Control"})
    return names


def property_named(name: str) -> str:
    """The canonical name of a property both engines read alike; ValueError otherwise.

    >>> property_named("letter"), property_named("Is_Han") if False else property_named("han")
    ('L', 'Han')
    """
    found = _property_names().get(_loose(name))
    if found is None:
        raise ValueError(
            f"\\p{{{name}}} is not a property BPE Lab can match exactly as Hugging Face's Oniguruma does; "
            "use a general category (L, Lu, N, P, S, ...), a script (Latin, Han, ...) or a binary property such as Alphabetic"
        )
    return found


# Case-insensitive matching of ASCII letters: the characters each engine adds beyond the two
# ASCII cases (checked on every code point in the tests).
ONIG_FOLDS = {"k": (0x212A,), "s": (0x17F,)}
PY_FOLDS = {"i": (0x130,), "k": (0x212A,), "s": (0x17F,)}
# Oniguruma folds these letter pairs of a literal string into one character (ß, ﬀ, ﬁ, ﬂ, ﬅ):
# a case-insensitive literal holding one of them is refused.
_MULTI_FOLD_PAIRS = frozenset({"ss", "st", "ff", "fi", "fl"})


def _fold(c: int, extra: dict[str, tuple[int, ...]]) -> CharSet:
    ch = chr(c)
    cps = sorted({c, ord(ch.lower()), ord(ch.upper()), *extra.get(ch.lower(), ())})
    return CharSet(tuple((x, x) for x in cps))


# ----------------------------------------------------------------------------- parsing


class _Parser:
    """Recursive descent over one pattern; ``onig`` picks Oniguruma's reading, else Python's."""

    def __init__(self, pattern: str, onig: bool):
        if not isinstance(pattern, str):
            raise ValueError(f"a split pattern must be a string, not {type(pattern).__name__}")
        self.p = pattern
        self.i = 0
        self.onig = onig
        self.engine = "Oniguruma" if onig else "Python regex"

    # -- helpers
    def refuse(self, what: str) -> ValueError:
        return ValueError(f"split pattern {self.p!r}, position {self.i}: {what}")

    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.p[j] if j < len(self.p) else ""

    def startswith(self, s: str) -> bool:
        return self.p.startswith(s, self.i)

    # -- grammar
    def parse(self, flags: frozenset[str]) -> object:
        if not self.onig:  # Python: inline flags at the very start apply to the whole pattern
            while self.startswith("(?"):
                isolated = self.isolated_flags(flags)
                if isolated is None:
                    break
                flags = isolated
        node = self.alt(flags)
        if self.i < len(self.p):
            raise self.refuse("unmatched ')'")
        return node

    def alt(self, flags):
        options = [self.seq(flags)]
        while self.peek() == "|":
            self.i += 1
            options.append(self.seq(flags))
        return options[0] if len(options) == 1 else Alt(tuple(options))

    def seq(self, flags):
        items: list = []
        while self.i < len(self.p) and self.peek() not in "|)":
            if self.startswith("(?"):
                isolated = self.isolated_flags(flags)
                if isolated is not None:
                    if not self.onig:
                        raise self.refuse("an inline flag group such as (?i) is only supported at the very start of the pattern")
                    # Oniguruma: "a(?i)b|c" is "a(?i:b|c)": the flag takes the rest of the group, later alternatives included
                    items.append(self.alt(isolated))
                    break
            atom = self.atom(flags)
            if atom is None:  # a comment
                continue
            items.append(self.quantified(atom, flags))
        self._check_multi_fold(items, flags)
        return items[0] if len(items) == 1 else Seq(tuple(items))

    def isolated_flags(self, flags):
        """``(?imx-imx)`` at the cursor: consume it and return the new flags, or None if it is another group."""
        j = self.i + 2
        on = True
        new = set(flags)
        while j < len(self.p) and self.p[j] not in ":)":
            c = self.p[j]
            if c == "-" and on:
                on = False
            elif c in self.flag_letters():
                (new.add if on else new.discard)(self.flag_name(c))
            else:
                return None
            j += 1
        if j >= len(self.p) or j == self.i + 2:
            return None
        if self.p[j] == ")":
            self.i = j + 1
            return frozenset(new)
        return None

    def flag_letters(self) -> str:
        return "im" if self.onig else "ims"

    def flag_name(self, c: str) -> str:
        if self.onig:
            return {"i": "icase", "m": "dotall"}[c]
        return {"i": "icase", "m": "multiline", "s": "dotall"}[c]

    def atom(self, flags):
        c = self.peek()
        if c == "(":
            return self.group(flags)
        if c == "[":
            self.i += 1
            return self.char_class(flags)
        if c == ".":
            self.i += 1
            return ANY if "dotall" in flags else NOT_NEWLINE
        if c == "^":
            self.i += 1
            if self.onig:
                return Anchor("onig_bol")
            return Anchor("bol" if "multiline" in flags else "start")
        if c == "$":
            self.i += 1
            if self.onig or "multiline" in flags:
                return Anchor("eol")
            return Anchor("end_nl")
        if c == "\\":
            return self.escape(flags, in_class=False)
        if c in "*+?":
            raise self.refuse(f"{c!r} has nothing to repeat")
        if c == "{" and self.interval() is not None:
            raise self.refuse("a repeat {…} has nothing to repeat")
        self.i += 1
        return self.literal(ord(c), flags)

    def literal(self, cp: int, flags) -> CharSet:
        if "icase" in flags:
            if cp >= 128:
                raise self.refuse(
                    f"case-insensitive matching of the non-ASCII character {chr(cp)!r} is not supported "
                    "(the two engines fold such characters differently)"
                )
            if chr(cp).isalpha():
                return _fold(cp, ONIG_FOLDS if self.onig else PY_FOLDS)
        return CharSet(((cp, cp),))

    def _check_multi_fold(self, items, flags):
        if not (self.onig and "icase" in flags):
            return
        for a, b in zip(items, items[1:]):
            last, first = _edge_chars(a, last=True), _edge_chars(b, last=False)
            if any(x + y in _MULTI_FOLD_PAIRS for x in last for y in first):
                raise self.refuse(
                    "case-insensitive letters such as 'ss', 'st', 'ff', 'fi' or 'fl' are refused: Oniguruma also matches "
                    "them as one character (ß, ﬅ, ﬀ, ﬁ, ﬂ) in ways Python's regex cannot reproduce exactly"
                )

    def group(self, flags):
        start = self.i
        self.i += 1
        if self.peek() != "?":
            body = self.alt(flags)
            return self.close(body, start)
        self.i += 1
        c = self.peek()
        if c == ":":
            self.i += 1
            return self.close(self.alt(flags), start)
        if c == "#":
            end = self.p.find(")", self.i)
            if end < 0:
                raise self.refuse("unterminated comment (?#…")
            self.i = end + 1
            return None
        if c and c in "=!":
            self.i += 1
            return Look(self.close(self.alt(flags), start), False, c == "!")
        if c == ">":
            self.i += 1
            return Atomic(self.close(self.alt(flags), start))
        if c == "<" and self.peek(1) and self.peek(1) in "=!":
            neg = self.peek(1) == "!"
            self.i += 2
            body = self.close(self.alt(flags), start)
            if not _fixed_length(body):
                raise self.refuse(
                    "a look-behind may hold only fixed-length text (characters, classes, {n} repeats, alternatives of those); "
                    "Oniguruma and Python's regex read variable lengths, anchors and nested look-arounds in it differently"
                )
            return Look(body, True, neg)
        if c == "<" or (c == "'" and self.onig) or (c == "P" and self.peek(1) == "<" and not self.onig):
            if c == "P":
                self.i += 1
            close = ">" if self.peek() == "<" else "'"
            end = self.p.find(close, self.i + 1)
            name = self.p[self.i + 1 : end] if end > 0 else ""
            if (
                end < 0
                or not name
                or not (name[0].isalpha() or name[0] == "_")
                or not all(ch.isalnum() or ch == "_" for ch in name)
            ):
                raise self.refuse("a named group needs a name of letters, digits and '_'")
            self.i = end + 1
            return self.close(self.alt(flags), start)
        # scoped flags (?i:…), (?-i:…)
        j = self.i
        on = True
        new = set(flags)
        while j < len(self.p) and self.p[j] not in ":)":
            ch = self.p[j]
            if ch == "-" and on:
                on = False
            elif ch in self.flag_letters():
                (new.add if on else new.discard)(self.flag_name(ch))
            else:
                raise self.refuse(self.unsupported_group(ch))
            j += 1
        if j < len(self.p) and self.p[j] == ":" and j > self.i:
            self.i = j + 1
            return self.close(self.alt(frozenset(new)), start)
        raise self.refuse(self.unsupported_group(self.p[self.i : self.i + 1] or "end"))

    def unsupported_group(self, c: str) -> str:
        known = {
            "x": "extended mode (x) is not supported",
            "~": "absent groups (?~…) are not supported",
            "(": "conditional groups are not supported",
            "P": "Python-style named groups (?P…) are not supported here",
            "R": "recursion is not supported",
            "|": "branch reset groups are not supported",
        }
        if c in known:
            return known[c]
        if c.isdigit():
            return "subroutine calls are not supported"
        return f"the group (?{c}… is not supported ({self.engine} flags other than {', '.join(self.flag_letters())} are refused)"

    def close(self, body, start):
        if self.peek() != ")":
            self.i = start
            raise self.refuse("unterminated group '('")
        self.i += 1
        return body

    # -- quantifiers
    def interval(self):
        """``{n}``, ``{n,}``, ``{,m}``, ``{n,m}`` at the cursor: ``(lo, hi, length)``, or None if ``{`` is literal."""
        j = self.i + 1
        k = j
        while k < len(self.p) and self.p[k].isdigit():
            k += 1
        lo_s = self.p[j:k]
        if k < len(self.p) and self.p[k] == "}":
            if not lo_s:
                return None
            n = int(lo_s)
            return (n, n, k + 1 - self.i)
        if k >= len(self.p) or self.p[k] != ",":
            return None
        m = k + 1
        while m < len(self.p) and self.p[m].isdigit():
            m += 1
        hi_s = self.p[k + 1 : m]
        if m >= len(self.p) or self.p[m] != "}" or (not lo_s and not hi_s):
            return None
        lo = int(lo_s) if lo_s else 0
        hi = int(hi_s) if hi_s else None
        return (lo, hi, m + 1 - self.i)

    def quantifier(self):
        """The repeat at the cursor: ``(lo, hi, interval?)`` and consumed, or None."""
        c = self.peek()
        if c == "*":
            self.i += 1
            return (0, None, False)
        if c == "+":
            self.i += 1
            return (1, None, False)
        if c == "?":
            self.i += 1
            return (0, 1, False)
        if c == "{":
            iv = self.interval()
            if iv is None:
                return None
            lo, hi, length = iv
            if hi is not None and lo > hi:
                raise self.refuse(f"the repeat {{{lo},{hi}}} has its bounds the wrong way round")
            if lo > 100_000 or (hi or 0) > 100_000:
                raise self.refuse("repeat counts above 100000 are refused (Oniguruma's limit)")
            self.i += length
            return (lo, hi, True)
        return None

    def quantified(self, atom, flags):
        q = self.quantifier()
        if q is None:
            return atom
        lo, hi, interval = q
        mode = "greedy"
        fixed = interval and lo == hi
        nxt = self.peek()
        if nxt == "?" and not (self.onig and fixed):
            self.i += 1
            mode = "lazy"
        elif nxt == "+" and not (self.onig and interval):
            self.i += 1
            mode = "possessive"
        node = self._repeat(atom, lo, hi, mode)
        # Oniguruma: "{n,m}+" and "{n}?" repeat the repeat; any other stacking is refused
        if self.onig and interval and self.peek() in ("+", "?") and mode == "greedy":
            c = self.peek()
            self.i += 1
            node = self._repeat(node, 1 if c == "+" else 0, None if c == "+" else 1, "greedy")
        if self.quantifier_follows():
            raise self.refuse("a repeat of a repeat (such as a** or a{2}{3}) is not supported")
        return node

    def quantifier_follows(self) -> bool:
        c = self.peek()
        return bool(c) and (c in "*+?" or (c == "{" and self.interval() is not None))

    def _repeat(self, body, lo, hi, mode):
        if _zero_width(body):
            raise self.refuse("a repeated lookaround or anchor is refused (Oniguruma rejects such a repeat)")
        if (hi is None or hi > 1) and nullable(body):
            raise self.refuse(
                "a repeated part that can match empty text is refused: Oniguruma and Python's regex end such loops differently"
            )
        if lo == hi and mode == "lazy":
            mode = "greedy"  # exactly n times, however eager
        if mode == "possessive":  # one tree for "X*+" and "(?>X*)": the engines spell it differently
            return Atomic(body if lo == hi == 1 else Repeat(body, lo, hi, "greedy"))
        if lo == hi == 1:
            return body
        return Repeat(body, lo, hi, mode)

    # -- escapes
    def hex_digits(self, start: int, lo: int, hi: int) -> tuple[int, int]:
        j = start
        while j < len(self.p) and j - start < hi and self.p[j] in "0123456789abcdefABCDEF":
            j += 1
        if j - start < lo:
            raise self.refuse("a hexadecimal escape needs hex digits")
        return int(self.p[start:j], 16), j

    def code_point(self, cp: int) -> int:
        if cp > 0x10FFFF or 0xD800 <= cp <= 0xDFFF:
            raise self.refuse(f"U+{cp:X} is not a character")
        return cp

    def escape(self, flags, in_class: bool):
        """An escape at the cursor: a code point (int), a ``CharSet`` or an ``Anchor``."""
        self.i += 1
        c = self.peek()
        if not c:
            raise self.refuse("the pattern ends with a lone backslash")
        self.i += 1
        simple = {"t": 9, "n": 10, "r": 13, "f": 12, "v": 11, "a": 7}
        if self.onig:
            simple["e"] = 27
        if c in simple:
            return self.literal_or_cp(simple[c], flags, in_class)
        if c == "x":
            if self.onig and self.peek() == "{":
                cp, j = self.hex_digits(self.i + 1, 1, 8)
                if j >= len(self.p) or self.p[j] != "}":
                    raise self.refuse("\\x{… needs a closing '}'")
                self.i = j + 1
            else:
                cp, self.i = self.hex_digits(self.i, 1 if self.onig else 2, 2)
            return self.literal_or_cp(self.code_point(cp), flags, in_class)
        if c == "u":
            cp, self.i = self.hex_digits(self.i, 4, 4)
            return self.literal_or_cp(self.code_point(cp), flags, in_class)
        if c == "U" and not self.onig:
            cp, self.i = self.hex_digits(self.i, 8, 8)
            return self.literal_or_cp(self.code_point(cp), flags, in_class)
        if c == "0":
            j = self.i
            while j < len(self.p) and j - self.i < 2 and self.p[j] in "01234567":
                j += 1
            cp = int(self.p[self.i : j] or "0", 8)
            self.i = j
            return self.literal_or_cp(cp, flags, in_class)
        sets = {"d": DIGIT, "s": SPACE, "w": self.word(in_class)}
        if self.onig:
            sets["h"] = HEX
        if c.lower() in sets:
            base = sets[c.lower()]
            negated = c.isupper()
            if "icase" in flags and (negated or c.lower() == "w"):
                raise self.refuse(f"\\{c} inside a case-insensitive part is not supported")
            return CharSet(base.items, negated)
        if c and c in "pP":
            return self.property(c == "P", flags, in_class)
        if not in_class:
            anchors = {"A": "start", "z": "end", "Z": "end_nl", "b": "onig_word", "B": "onig_nonword"}
            if not self.onig:
                anchors = {"A": "start", "Z": "end", "b": "py_word", "B": "py_nonword"}
            if c in anchors:
                return Anchor(anchors[c])
        if c.isdigit():
            raise self.refuse(f"\\{c}: backreferences and octal escapes are not supported")
        if c.isascii() and c.isalnum():
            raise self.refuse(f"the escape \\{c} is not supported")
        return self.literal_or_cp(ord(c), flags, in_class)

    def literal_or_cp(self, cp: int, flags, in_class: bool):
        return cp if in_class else self.literal(cp, flags)

    def word(self, in_class: bool) -> CharSet:
        if not self.onig:
            return PY_WORD
        return ONIG_WORD_IN_CLASS if in_class else ONIG_WORD

    def property(self, negated: bool, flags, in_class: bool) -> CharSet:
        if self.peek() == "{":
            end = self.p.find("}", self.i)
            if end < 0:
                raise self.refuse("\\p{… needs a closing '}'")
            name = self.p[self.i + 1 : end]
            self.i = end + 1
        elif not self.onig and self.peek().isalpha():
            name = self.peek()
            self.i += 1
        else:
            raise self.refuse("\\p needs a property name in braces, e.g. \\p{L}")
        if name.startswith("^"):
            negated = not negated
            name = name[1:]
        if _loose(name) == "word":
            return CharSet(self.word(in_class).items, negated)
        try:
            canonical = property_named(name)
        except ValueError as e:
            raise self.refuse(str(e)) from None
        if "icase" in flags and (negated or canonical not in ("Nd", "White_Space", "N", "P", "S", "Z")):
            raise self.refuse(f"\\p{{{name}}} inside a case-insensitive part is not supported")
        return CharSet((Prop(canonical),), negated)

    # -- character classes
    def char_class(self, flags) -> CharSet:
        start = self.i - 1
        negated = False
        if self.peek() == "^":
            negated = True
            self.i += 1
            if "icase" in flags:
                raise self.refuse("a negated class inside a case-insensitive part is not supported")
        segments: list[list] = [[]]
        items = segments[0]
        first = True
        while True:
            c = self.peek()
            if not c:
                self.i = start
                raise self.refuse("unterminated character class '['")
            if c == "]" and not first:
                self.i += 1
                break
            first = False
            if self.onig and self.startswith("&&"):
                self.i += 2
                items = []
                segments.append(items)
                continue
            if c == "[" and (self.onig or self.peek(1) == ":"):
                if self.peek(1) == ":":
                    raise self.refuse("POSIX bracket expressions such as [:alpha:] are not supported")
                self.i += 1
                items.append(self.char_class(flags))
                continue
            raw_dash = c == "-"
            item = self.class_atom(flags)
            if isinstance(item, int) and self.peek() == "-" and self.peek(1) not in ("]", ""):
                if self.onig and self.startswith("-&&"):
                    items.append(item)
                    continue
                self.i += 1
                end = self.class_atom(flags)
                if not isinstance(end, int):
                    raise self.refuse("a range in a class must end with a single character")
                if end < item:
                    raise self.refuse(f"the range {chr(item)!r}-{chr(end)!r} is out of order")
                items.append(self.fold_range(item, end, flags))
                continue
            if raw_dash and items and isinstance(items[-1], CharSet) and self.peek() != "]":
                raise self.refuse("'-' after a class such as \\d is ambiguous; escape it as \\-")
            items.append(self.fold_range(item, item, flags) if isinstance(item, int) else item)
        if any(not seg for seg in segments):
            raise self.refuse("'&&' needs a class on both sides")
        parts = [CharSet(_flatten(seg)) for seg in segments]
        if len(parts) == 1:
            return CharSet(parts[0].items, negated)
        return CharSet((Inter(tuple(parts)),), negated)

    def class_atom(self, flags):
        c = self.peek()
        if c == "\\":
            if self.peek(1) == "b":
                raise self.refuse("\\b inside a class is not supported")
            out = self.escape(flags, in_class=True)
            if isinstance(out, Anchor):
                raise self.refuse("an anchor cannot stand inside a class")
            return out
        self.i += 1
        return ord(c)

    def fold_range(self, lo: int, hi: int, flags):
        if "icase" not in flags:
            return (lo, hi)
        if hi >= 128:
            raise self.refuse("case-insensitive classes may hold only ASCII characters")
        items = []
        for cp in range(lo, hi + 1):
            items.extend(self.literal(cp, flags).items)
        return CharSet(tuple(items))


def _flatten(items) -> tuple:
    """Class items with nested plain (not negated) classes spliced in: a union of unions is one union."""
    out: list = []
    for i in items:
        if isinstance(i, CharSet) and not i.negated:
            out.extend(_flatten(i.items))
        else:
            out.append(i)
    return tuple(out)


def _edge_chars(node, last: bool) -> set[str]:
    """ASCII letters (lower case) that may stand at the end (``last``) or start of ``node``'s match."""
    if isinstance(node, CharSet):
        if node.negated:
            return set()
        out = set()
        for item in node.items:
            if isinstance(item, tuple) and item[1] < 128:
                out |= {chr(c).lower() for c in range(item[0], item[1] + 1) if chr(c).isalpha()}
            elif isinstance(item, tuple):
                out |= {chr(c).lower() for c in range(item[0], min(item[1], 127) + 1) if chr(c).isalpha()}
        return out
    if isinstance(node, Seq):
        items = node.items[::-1] if last else node.items
        out = set()
        for it in items:
            out |= _edge_chars(it, last)
            if not nullable(it):
                break
        return out
    if isinstance(node, Alt):
        return set().union(*(_edge_chars(o, last) for o in node.options))
    if isinstance(node, Repeat | Atomic):
        return _edge_chars(node.body, last)
    return set()


# ----------------------------------------------------------------------------- properties of the tree


def nullable(node) -> bool:
    """True when ``node`` can match empty text."""
    if isinstance(node, CharSet):
        return False
    if isinstance(node, Seq):
        return all(nullable(i) for i in node.items)
    if isinstance(node, Alt):
        return any(nullable(o) for o in node.options)
    if isinstance(node, Repeat):
        return node.lo == 0 or nullable(node.body)
    if isinstance(node, Atomic):
        return nullable(node.body)
    return True  # Look, Anchor


def _fixed_length(node, top: bool = True) -> bool:
    """True when ``node`` matches text of one length only (alternatives of different lengths at the top)."""
    if node is None or isinstance(node, CharSet | Inter):
        return True
    if isinstance(node, Seq):
        return all(_fixed_length(i, False) for i in node.items) and _widths(node) is not None
    if isinstance(node, Alt):
        return all(_fixed_length(o, top) for o in node.options) and (top or _widths(node) is not None)
    if isinstance(node, Repeat):
        return node.lo == node.hi and _fixed_length(node.body, False)
    return False  # Look, Anchor, Atomic


def _widths(node) -> int | None:
    """The one length ``node`` matches, or None."""
    if node is None:
        return 0
    if isinstance(node, CharSet | Inter):
        return 1
    if isinstance(node, Seq):
        ws = [_widths(i) for i in node.items]
        return None if None in ws else sum(ws)
    if isinstance(node, Alt):
        ws = {_widths(o) for o in node.options}
        return ws.pop() if len(ws) == 1 and None not in ws else None
    if isinstance(node, Repeat) and node.lo == node.hi:
        w = _widths(node.body)
        return None if w is None else w * node.lo
    return None


def _zero_width(node) -> bool:
    """True when ``node`` only asserts (lookarounds, anchors) and never consumes a character."""
    if isinstance(node, Look | Anchor):
        return True
    if isinstance(node, Seq):
        return bool(node.items) and all(_zero_width(i) for i in node.items)
    if isinstance(node, Alt):
        return all(_zero_width(o) for o in node.options)
    if isinstance(node, Repeat | Atomic):
        return _zero_width(node.body)
    return False


# ----------------------------------------------------------------------------- writing

_NAMED = {9: "\\t", 10: "\\n", 13: "\\r", 12: "\\f", 11: "\\v"}


def _py_char(cp: int, in_class: bool) -> str:
    c = chr(cp)
    if c in ("\\]^-[" if in_class else "\\.^$|?*+()[]{}"):
        return "\\" + c
    if cp in _NAMED:
        return _NAMED[cp]
    if c.isascii() and c.isprintable():
        return c
    if cp < 0x100:
        return f"\\x{cp:02x}"
    return f"\\u{cp:04x}" if cp < 0x10000 else f"\\U{cp:08x}"


def _onig_char(cp: int, in_class: bool) -> str:
    c = chr(cp)
    if c in ("\\]^-[&" if in_class else "\\.^$|?*+()[]{}"):
        return "\\" + c
    if cp in _NAMED:
        return _NAMED[cp]
    if c.isascii() and c.isprintable():
        return c
    return f"\\x{{{cp:x}}}"


# sets with a short spelling that means the same in both engines
_SHORT = {(Prop("White_Space"),): "s", (Prop("Nd"),): "d"}


class _Writer:
    """Writes a tree for one engine; every character set comes out as one atom."""

    def __init__(self, onig: bool):
        self.onig = onig
        self.char = _onig_char if onig else _py_char

    def write(self, node, prec: int = 0) -> str:
        """``prec``: 0 where an alternation may stand bare, 1 inside a sequence, 2 a repeat's body."""
        if isinstance(node, Alt):
            s = "|".join(self.write(o, 0) for o in node.options)
            return s if prec == 0 else f"(?:{s})"
        if isinstance(node, Seq):
            s = "".join(self.write(i, 1) for i in node.items)
            return s if prec < 2 and node.items else f"(?:{s})"
        if isinstance(node, Repeat):
            s = self.repeat(node)
            return f"(?:{s})" if prec == 2 else s
        if isinstance(node, Atomic):
            inner = node.body
            if isinstance(inner, Repeat) and inner.mode == "greedy":
                interval = (inner.lo, inner.hi) not in ((0, None), (1, None), (0, 1))
                if not (self.onig and interval):  # a possessive repeat: "X++", "X{1,3}+"
                    s = self.repeat(inner) + "+"
                    return f"(?:{s})" if prec == 2 else s
            return f"(?>{self.write(inner)})"
        if isinstance(node, Look):
            kind = ("<" if node.behind else "") + ("!" if node.negative else "=")
            return f"(?{kind}{self.write(node.body)})"
        if isinstance(node, Anchor):
            return self.anchor(node.kind)
        if isinstance(node, CharSet):
            return self.charset(node)
        raise AssertionError(f"not a pattern node: {node!r}")

    def repeat(self, node: Repeat) -> str:
        body = self.write(node.body, 2)
        lo, hi, mode = node.lo, node.hi, node.mode
        q = {(0, None): "*", (1, None): "+", (0, 1): "?"}.get((lo, hi))
        interval = q is None
        if interval:
            q = f"{{{lo}}}" if lo == hi else f"{{{lo},}}" if hi is None else f"{{{lo},{hi}}}"
        if mode == "lazy":  # never a fixed count (the parser makes "{n}?" greedy): Oniguruma reads "{n}?" as optional
            return body + q + "?"
        return body + q

    def anchor(self, kind: str) -> str:
        if kind in ("onig_word", "py_word", "onig_nonword", "py_nonword"):
            if kind.startswith("onig") == self.onig:
                return "\\b" if kind.endswith("_word") else "\\B"
            w = self.charset(ONIG_WORD if kind.startswith("onig") else PY_WORD)
            if kind.endswith("_word"):
                return f"(?:(?<={w})(?!{w})|(?<!{w})(?={w}))"
            return f"(?:(?<={w})(?={w})|(?<!{w})(?!{w}))"
        if self.onig:
            return {
                "start": "\\A", "end": "\\z", "end_nl": "\\Z", "eol": "$", "onig_bol": "^",
                "bol": "(?:\\A|(?<=\\n))",
            }[kind]  # fmt: skip
        return {
            "start": "\\A", "end": "\\Z", "end_nl": "(?=\\n?\\Z)", "eol": "(?=\\n|\\Z)",
            "onig_bol": "(?:\\A|(?<=\\n)(?=[\\s\\S]))", "bol": "(?:\\A|(?<=\\n))",
        }[kind]  # fmt: skip

    def charset(self, cs: CharSet) -> str:
        items = cs.items
        if not cs.negated and len(items) == 1 and isinstance(items[0], CharSet):
            return self.charset(items[0])
        if not cs.negated and len(items) == 1 and isinstance(items[0], tuple) and items[0][0] == items[0][1]:
            return self.char(items[0][0], False)
        if items in _SHORT:
            letter = _SHORT[items]
            return "\\" + (letter.upper() if cs.negated else letter)
        if len(items) == 1 and isinstance(items[0], Prop):
            neg = cs.negated != items[0].negated
            return ("\\P{" if neg else "\\p{") + items[0].name + "}"
        if self.onig:
            return self.onig_class(cs)
        if all(isinstance(i, tuple | Prop) for i in items):
            return "[" + ("^" if cs.negated else "") + "".join(self.class_item(i) for i in items) + "]"
        # Python regex (version 0) has no nested classes: a union becomes an alternation, an
        # intersection lookaheads, a complement a negative lookahead; each consumes one character
        parts = []
        simple = tuple(i for i in items if isinstance(i, tuple | Prop))
        if simple:
            parts.append(self.charset(CharSet(simple)))
        for i in items:
            if isinstance(i, CharSet):
                parts.append(self.charset(i))
            elif isinstance(i, Inter):
                *heads, last = i.parts
                parts.append("".join(f"(?={self.charset(h)})" for h in heads) + self.charset(last))
        union = parts[0] if len(parts) == 1 and not parts[0].startswith("(?=") else "(?:" + "|".join(parts) + ")"
        return f"(?:(?!{union})[\\s\\S])" if cs.negated else union

    def class_item(self, item) -> str:
        if isinstance(item, Prop):
            if (item,) in _SHORT:
                return "\\" + (_SHORT[(item,)].upper() if item.negated else _SHORT[(item,)])
            return ("\\P{" if item.negated else "\\p{") + item.name + "}"
        if isinstance(item, CharSet) and item.items in _SHORT:
            return self.charset(item)
        lo, hi = item
        if lo == hi:
            return self.char(lo, True)
        sep = "" if hi == lo + 1 else "-"
        return self.char(lo, True) + sep + self.char(hi, True)

    def onig_class(self, cs: CharSet) -> str:
        """Oniguruma's own class syntax: nested classes are unions, ``&&`` intersects."""
        out = []
        for i in cs.items:
            if isinstance(i, CharSet):
                out.append(self.charset(i))
            elif isinstance(i, Inter):
                out.append("[" + "&&".join(self.onig_content(p) for p in i.parts) + "]")
            else:
                out.append(self.class_item(i))
        return "[" + ("^" if cs.negated else "") + "".join(out) + "]"

    def onig_content(self, cs: CharSet) -> str:
        return self.onig_class(cs) if cs.negated else self.onig_class(cs)[1:-1]


# ----------------------------------------------------------------------------- the two directions


class Translation(NamedTuple):
    """A pattern rewritten for the other engine, and facts about it.

    ``pattern`` is the rewritten text; ``nullable`` says whether it can match empty text
    (then the engines step past empty matches differently, and the caller must iterate
    as Oniguruma does); ``tree`` is the parsed meaning, comparable across engines.
    """

    pattern: str
    nullable: bool
    tree: object


def parse_oniguruma(pattern: str):
    """The meaning of an Oniguruma pattern (as tokenizers compiles it); ValueError if unsupported."""
    return _Parser(pattern, onig=True).parse(frozenset())


def parse_python(pattern: str):
    """The meaning of a Python ``regex`` pattern (version 0); ValueError if unsupported."""
    return _Parser(pattern, onig=False).parse(frozenset())


@functools.lru_cache(maxsize=256)
def from_oniguruma(pattern: str) -> Translation:
    """An Oniguruma pattern (a tokenizer.json Split) as a Python ``regex`` pattern that matches alike.

    >>> from_oniguruma(r"\\s+$").pattern
    '\\\\s+(?=\\\\n|\\\\Z)'
    """
    tree = parse_oniguruma(pattern)
    return Translation(_Writer(onig=False).write(tree), nullable(tree), tree)


@functools.lru_cache(maxsize=256)
def to_oniguruma(pattern: str) -> str:
    """A Python ``regex`` pattern as Oniguruma must be told it, to match alike; ValueError if it cannot be.

    >>> to_oniguruma(r"'(?i:[sd])|\\s+$")
    "'[Ss\\\\x{17f}Dd]|\\\\s+\\\\Z"
    """
    tree = parse_python(pattern)
    if nullable(tree):
        raise ValueError(
            f"split pattern {pattern!r} can match empty text; Oniguruma (Hugging Face tokenizers) steps past an empty "
            "match differently from Python's regex, so the split could differ: make every alternative match at least one character"
        )
    return _Writer(onig=True).write(tree)


def same_meaning(onig_pattern: str, python_pattern: str) -> bool:
    """True when the two patterns parse to the same tree (so they split every text alike)."""
    try:
        return parse_oniguruma(onig_pattern) == parse_python(python_pattern)
    except ValueError:
        return False


__all__ = [
    "Translation",
    "from_oniguruma",
    "to_oniguruma",
    "parse_oniguruma",
    "parse_python",
    "same_meaning",
    "nullable",
    "property_named",
]
