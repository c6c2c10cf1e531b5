"""Oniguruma patterns (Ruby syntax, no options), parsed into a small tree and emitted as
``regex`` syntax that matches exactly what Oniguruma matches: the one reader of both Regex
components (docs/decisions/0031-one-regex-core.md).

Each component reads a *dialect*, an allow-list: :data:`SPLIT` (the Split pre-tokenizer,
decision 0023) and the narrower :data:`REPLACE` (the Replace normalizer and decoder, decision
0009). Anything outside it raises :class:`UnsupportedRegexError`; what Oniguruma itself
refuses (an unterminated class, an unbalanced parenthesis, a repeat of an anchor...) raises
:class:`RegexSyntaxError`, measured in the tests to be refused upstream too.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Literal

from .char_classes import (
    HEX_DIGIT_ITEMS,
    ONIG_DOT,
    ONIG_WORD_ITEMS,
    ONIG_WORD_OUTSIDE_ITEMS,
    WHITE_SPACE_ITEMS,
    code_point,
)
from .errors import excerpt


class RegexError(Exception):
    """A pattern the reference refuses; ``rule`` is the rule id it is refused under."""

    rule = "unsupported-component"


class UnsupportedRegexError(RegexError):
    """Valid Oniguruma outside the dialect's allow-list (``unsupported-component``)."""


class RegexSyntaxError(RegexError):
    """A pattern Oniguruma itself refuses to compile (``regex-syntax``)."""

    rule = "regex-syntax"


#: ``\\p{..}`` names accepted (exactly as spelled here): each means the same code points in
#: Oniguruma and in ``regex`` (measured over every code point, see the tests).
PROPERTY_NAMES: frozenset[str] = frozenset({
    "L", "LC", "Lu", "Ll", "Lt", "Lm", "Lo",
    "M", "Mn", "Mc", "Me",
    "N", "Nd", "Nl", "No",
    "P", "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po",
    "S", "Sm", "Sc", "Sk", "So",
    "Z", "Zs", "Zl", "Zp",
    "C", "Cc", "Cf", "Co", "Cn",
    "Han", "Hiragana", "Katakana", "Hangul", "Latin",
})
#: Deeper group nesting is refused (well below Python's recursion limit).
MAX_NESTING = 100
_MAX_REPEAT = 100_000  # ONIG_MAX_REPEAT_NUM
_INTERVAL = re.compile(r"\{([0-9]*)(,?)([0-9]*)\}")
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
_CONTROL_ESCAPES = {
    "t": "\t", "n": "\n", "r": "\r", "f": "\f", "v": "\x0b", "a": "\x07", "e": "\x1b",
}
#: Class escapes: their ``regex`` class items (inside a class, and outside unless
#: ``_OUTSIDE_ESCAPES`` says otherwise).
_CLASS_ESCAPES = {
    "s": WHITE_SPACE_ITEMS, "S": r"\S", "d": r"\p{Nd}", "D": r"\P{Nd}",
    "w": ONIG_WORD_ITEMS, "h": HEX_DIGIT_ITEMS,
}
#: Class escapes that mean something else outside a class (Oniguruma's ``\\w`` there takes
#: six Latin-1 numbers more), and those only usable there (negated unions).
_OUTSIDE_ESCAPES = {"w": f"[{ONIG_WORD_OUTSIDE_ITEMS}]", "W": f"[^{ONIG_WORD_OUTSIDE_ITEMS}]",
                    "H": f"[^{HEX_DIGIT_ITEMS}]"}
#: Every letter of a class escape (a range cannot end in one: Oniguruma refuses it).
_CLASS_ESCAPE_LETTERS = frozenset("sSdDwWhHpP")
_ANCHORS = {"^": r"(?<![^\n])(?!(?<=\n)\Z)", "$": r"(?=\n|\Z)"}
_ANCHOR_ESCAPES = {"A": r"\A", "z": r"\Z", "Z": r"(?=\n?\Z)"}
_QUANTIFIER_STARTS = frozenset("*+?{")
#: Outside a class these are syntax; as literals they must be escaped.
_SPECIAL = frozenset("\\^$.|?*+()[]{}")

Mode = Literal["greedy", "lazy", "possessive"]


@dataclass(frozen=True, slots=True)
class Dialect:
    """What one component's reader accepts beyond the common core (literals, ``.``, ``|``,
    ``(``, ``(?:``, look-arounds, ``* + ?`` and intervals with a lazy ``?``, the anchors, the
    one-character escapes, ``\\s \\S`` and flat classes)."""

    name: str
    #: Letters of class escapes usable outside a class, and inside one.
    outside_escapes: frozenset[str]
    class_escapes: frozenset[str]
    #: ``(?>...)`` and ``(?i:...)``.
    extended_groups: bool
    #: Possessive ``*+``, and Ruby's readings of ``x{n}?`` and ``x{n,m}+``.
    ruby_repeats: bool
    #: A quantifier on something that can match the empty string (``(a*)*``, ``()+``).
    nullable_repeats: bool
    #: ``{0}`` and ``{,0}``.
    zero_repeats: bool
    #: ``\\ `` (an escaped space) and a bare ``]`` or ``}`` as literals.
    loose_literals: bool
    #: Look-behind bodies: alternatives of sequences of single characters, or any body of
    #: one fixed width (what Python's ``re`` accepted, decision 0009).
    look_behind: Literal["characters", "fixed-width"]


#: The Split pre-tokenizer's reader (decision 0023).
SPLIT = Dialect("Split", frozenset("sSdDwWhHpP"), frozenset("sSdDwhpP"), extended_groups=True,
                ruby_repeats=True, nullable_repeats=False, zero_repeats=False,
                loose_literals=False, look_behind="characters")
#: The Replace normalizer's and decoder's reader: the subset of decision 0009.
REPLACE = Dialect("Replace", frozenset("sS"), frozenset("s"), extended_groups=False,
                  ruby_repeats=False, nullable_repeats=True, zero_repeats=True,
                  loose_literals=True, look_behind="fixed-width")


# -- the tree ---------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class CharSet:
    """One character out of a set: ``source`` is its ``regex`` syntax; ``literal`` its code
    point when it is a single character."""

    source: str
    literal: int | None = None


@dataclass(frozen=True, slots=True)
class Sequence:
    items: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Alternation:
    branches: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Repeat:
    body: Node
    low: int
    high: int | None  # None: unbounded
    mode: Mode = "greedy"


@dataclass(frozen=True, slots=True)
class Group:
    body: Node
    atomic: bool = False
    capturing: bool = False


@dataclass(frozen=True, slots=True)
class Look:
    body: Node
    behind: bool
    negative: bool


@dataclass(frozen=True, slots=True)
class Assertion:
    """An anchor (``^``, ``$``, ``\\A``...): ``source`` is its ``regex`` syntax."""

    source: str


Node = CharSet | Sequence | Alternation | Repeat | Group | Look | Assertion


def nullable(node: Node) -> bool:
    """Whether ``node`` can match the empty string."""
    if isinstance(node, CharSet):
        return False
    if isinstance(node, Assertion | Look):
        return True
    if isinstance(node, Sequence):
        return all(nullable(item) for item in node.items)
    if isinstance(node, Alternation):
        return any(nullable(branch) for branch in node.branches)
    if isinstance(node, Repeat):
        return node.low == 0 or nullable(node.body)
    return nullable(node.body)


def anchor_like(node: Node) -> bool:
    """What Oniguruma refuses to repeat (measured): an anchor, a look-around, and a plain
    non-capturing group one of whose alternatives is exactly one such element (``(?:^)``,
    ``(?:a|(?=b))``); ``(^)``, ``(?:^a)`` and ``(?>^)`` are repeatable."""
    if isinstance(node, Assertion | Look):
        return True
    if not isinstance(node, Group) or node.capturing or node.atomic:
        return False
    branches = node.body.branches if isinstance(node.body, Alternation) else (node.body,)
    return any(anchor_like(branch) for branch in branches)


def _width(node: Node) -> tuple[int, int | None]:
    """The fewest and most characters ``node`` reads (None: unbounded)."""
    if isinstance(node, CharSet):
        return 1, 1
    if isinstance(node, Assertion | Look):
        return 0, 0
    if isinstance(node, Group):
        return _width(node.body)
    if isinstance(node, Repeat):
        low, high = _width(node.body)
        if high == 0:
            return 0, 0
        most = None if high is None or node.high is None else high * node.high
        return low * node.low, most
    widths = [_width(part) for part in (node.items if isinstance(node, Sequence)
                                        else node.branches)]
    if isinstance(node, Sequence):
        highs = [high for _, high in widths]
        return sum(low for low, _ in widths), (None if None in highs
                                               else sum(h for h in highs if h is not None))
    lows = [low for low, _ in widths]
    highs = [high for _, high in widths]
    return min(lows), (None if None in highs else max(h for h in highs if h is not None))


# -- emitting regex syntax --------------------------------------------------------------------

def emit(node: Node) -> str:
    """``node`` in ``regex`` syntax (version 0, no flags)."""
    if isinstance(node, CharSet | Assertion):
        return node.source
    if isinstance(node, Sequence):
        return "".join(emit(item) for item in node.items)
    if isinstance(node, Alternation):
        return "|".join(emit(branch) for branch in node.branches)
    if isinstance(node, Group):
        return ("(?>" if node.atomic else "(?:") + emit(node.body) + ")"
    if isinstance(node, Look):
        opener = "(?<" if node.behind else "(?"
        return opener + ("!" if node.negative else "=") + emit(node.body) + ")"
    body = emit(node.body)
    if not isinstance(node.body, CharSet):
        body = f"(?:{body})"
    return body + _quantifier(node.low, node.high) + {"greedy": "", "lazy": "?",
                                                       "possessive": "+"}[node.mode]


def _quantifier(low: int, high: int | None) -> str:
    if (low, high) == (0, None):
        return "*"
    if (low, high) == (1, None):
        return "+"
    if (low, high) == (0, 1):
        return "?"
    if high is None:
        return f"{{{low},}}"
    return f"{{{low}}}" if low == high else f"{{{low},{high}}}"


def literal(char: str) -> CharSet:
    """A CharSet matching exactly ``char``."""
    if char.isascii() and char.isalnum():
        return CharSet(char, ord(char))
    return CharSet(code_point(ord(char)), ord(char))


# -- case folding for (?i:...) ----------------------------------------------------------------

@functools.cache
def _folds() -> tuple[dict[str, str], frozenset[str]]:
    """For each ASCII letter, the class items of the characters whose case folding is that
    letter (``s``: ``sSſ``; ``k``: ``kKK``); and every ASCII string of two or more
    characters that is the full case folding of one character (``ss``: ``ß``; ``st``)."""
    letters: dict[str, list[int]] = {}
    multi: set[str] = set()
    for cp in range(0x110000):
        if 0xD800 <= cp < 0xE000:
            continue
        folded = chr(cp).casefold()
        if not folded.isascii() or not folded.isalpha():
            continue
        if len(folded) == 1:
            letters.setdefault(folded, []).append(cp)
        else:
            multi.add(folded)
    items = {letter: "".join(code_point(cp) for cp in sorted(cps))
             for letter, cps in letters.items()}
    return items, frozenset(multi)


def _case_insensitive(char: str) -> CharSet:
    items, _ = _folds()
    folded = char.casefold()
    if not (char.isascii() and char.isalpha()):
        return literal(char)
    return CharSet(f"[{items[folded]}]")


# -- the parser -------------------------------------------------------------------------------

class _Parser:
    def __init__(self, source: str, dialect: Dialect) -> None:
        self.src = source
        self.dialect = dialect
        self.pos = 0
        self.depth = 0

    def parse(self) -> Node:
        node = self._alternation()
        if self.pos < len(self.src):  # only a ')' stops an alternation early
            raise RegexSyntaxError(f"unbalanced ')' at offset {self.pos}")
        return node

    def _peek(self, offset: int = 0) -> str:
        at = self.pos + offset
        return self.src[at] if at < len(self.src) else ""

    def _alternation(self) -> Node:
        branches = [self._sequence()]
        while self._peek() == "|":
            self.pos += 1
            branches.append(self._sequence())
        return branches[0] if len(branches) == 1 else Alternation(tuple(branches))

    def _sequence(self) -> Node:
        items: list[Node] = []
        while self.pos < len(self.src) and self._peek() not in "|)":
            if self._peek() in _QUANTIFIER_STARTS:
                self._refuse_quantifier_without_target()
            items.append(self._quantified(self._atom()))
        return items[0] if len(items) == 1 else Sequence(tuple(items))

    def _refuse_quantifier_without_target(self) -> None:
        if self._peek() != "{" or self._interval() is not None:
            raise RegexSyntaxError(f"quantifier without a target at offset {self.pos}")
        raise UnsupportedRegexError(f"'{{' that is not an interval at offset {self.pos}")

    # -- atoms ------------------------------------------------------------------------------
    def _atom(self) -> Node:
        char = self._peek()
        if char == "(":
            return self._group()
        if char == "[":
            return self._char_class()
        if char == "\\":
            return self._escape()
        self.pos += 1
        if char in _ANCHORS:
            return Assertion(_ANCHORS[char])
        if char == ".":
            return CharSet(ONIG_DOT)
        if char in "]}" and not self.dialect.loose_literals:
            raise UnsupportedRegexError(f"unescaped {char!r} at offset {self.pos - 1}")
        return literal(char)

    def _group(self) -> Node:
        start = self.pos
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise UnsupportedRegexError(f"groups nested more than {MAX_NESTING} deep")
        rest = self.src[start:start + 4]
        extended = self.dialect.extended_groups
        node: Node
        if extended and rest.startswith("(?i:"):
            self.pos += 4
            node = self._case_insensitive_body()
        elif rest.startswith(("(?<=", "(?<!")):
            self.pos += 4
            body = self._alternation()
            self._check_look_behind(body)
            node = Look(body, behind=True, negative=rest[3] == "!")
        elif rest.startswith(("(?=", "(?!")):
            self.pos += 3
            node = Look(self._alternation(), behind=False, negative=rest[2] == "!")
        elif rest.startswith("(?:") or (extended and rest.startswith("(?>")):
            self.pos += 3
            node = Group(self._alternation(), atomic=rest[2] == ">")
        elif rest.startswith("(?"):
            raise UnsupportedRegexError(f"group construct {rest!r} at offset {start}")
        else:
            self.pos += 1
            node = Group(self._alternation(), capturing=True)
        if self._peek() != ")":
            raise RegexSyntaxError(f"unbalanced '(' at offset {start}")
        self.pos += 1
        self.depth -= 1
        return node

    def _check_look_behind(self, body: Node) -> None:
        if self.dialect.look_behind == "fixed-width":
            low, high = _width(body)
            if low != high:
                raise UnsupportedRegexError("look-behind that is not of one fixed width")
            return
        # Alternatives of fixed sequences of single characters (where Oniguruma's
        # restrictions and ``regex``'s unbounded look-behind agree).
        branches = body.branches if isinstance(body, Alternation) else (body,)
        for branch in branches:
            items = branch.items if isinstance(branch, Sequence) else (branch,)
            if not items or not all(isinstance(item, CharSet) for item in items):
                raise UnsupportedRegexError(
                    "look-behind holding more than alternatives of single characters")

    def _case_insensitive_body(self) -> Node:
        """``(?i:`` over alternatives of ASCII literal characters (each letter becomes the
        class of the characters folding to it); refused where Oniguruma's multi-character
        folding could match one character for two (``(?i:ss)`` matches ``ß``)."""
        _, multi = _folds()
        branches: list[Node] = []
        chars: list[str] = []
        while True:
            char = self._peek()
            if char in ("|", ")", ""):
                word = "".join(chars).casefold()
                if any(fold in word for fold in multi):
                    raise UnsupportedRegexError(
                        f"(?i:...) alternative {excerpt(''.join(chars))}: Oniguruma folds "
                        "a character to several of its letters")
                items = [_case_insensitive(c) for c in chars]
                branches.append(items[0] if len(items) == 1 else Sequence(tuple(items)))
                if char != "|":
                    break
                self.pos += 1
                chars = []
                continue
            if char == "\\" and self._is_punctuation_escape(self._peek(1)):
                chars.append(self._peek(1))
                self.pos += 2
            elif char.isascii() and char.isprintable() and char not in _SPECIAL:
                chars.append(char)
                self.pos += 1
            else:
                raise UnsupportedRegexError(
                    f"(?i:...) holding {char!r} at offset {self.pos}: only ASCII literals "
                    "and '|' are reproduced there")
        body = branches[0] if len(branches) == 1 else Alternation(tuple(branches))
        return Group(body)

    # -- quantifiers ------------------------------------------------------------------------
    def _quantified(self, atom: Node) -> Node:
        char = self._peek()
        if char not in _QUANTIFIER_STARTS:
            return atom
        at = self.pos
        if anchor_like(atom):
            raise RegexSyntaxError(
                f"quantifier at offset {at} on an anchor or a look-around")
        if not self.dialect.nullable_repeats and nullable(atom):
            raise UnsupportedRegexError(
                f"quantifier at offset {at} on something that can match the empty string")
        low, high, interval = self._quantifier_body()
        exact = interval and self.src[at:self.pos].count(",") == 0
        suffix = self._peek()
        node: Node
        if self.dialect.ruby_repeats and suffix == "?" and interval and low == high:
            self.pos += 1  # Ruby: x{n}? is (?:x{n})?
            node = Repeat(Repeat(atom, low, high), 0, 1)
        elif self.dialect.ruby_repeats and suffix == "+" and interval:
            self.pos += 1  # Ruby: x{n,m}+ is (?:x{n,m})+, not possessive
            node = Repeat(Repeat(atom, low, high), 1, None)
        elif suffix == "?" and exact:
            raise UnsupportedRegexError("'{n}?' (Oniguruma: an optional exact repeat)")
        elif suffix == "?" or (suffix == "+" and self.dialect.ruby_repeats):
            self.pos += 1
            node = Repeat(atom, low, high, "lazy" if suffix == "?" else "possessive")
        else:
            node = Repeat(atom, low, high)
        if self._peek() in _QUANTIFIER_STARTS:
            raise UnsupportedRegexError(
                f"stacked or possessive quantifiers at offset {self.pos}")
        return node

    def _interval(self) -> re.Match[str] | None:
        match = _INTERVAL.match(self.src, self.pos)
        return match if match is not None and (match.group(1) or match.group(3)) else None

    def _quantifier_body(self) -> tuple[int, int | None, bool]:
        """``(low, high, written as an interval)``, past the quantifier."""
        char = self._peek()
        if char != "{":
            self.pos += 1
            return {"*": (0, None, False), "+": (1, None, False), "?": (0, 1, False)}[char]
        match = self._interval()
        if match is None:
            raise UnsupportedRegexError(f"'{{' that is not an interval at offset {self.pos}")
        low_text, comma, high_text = match.groups()
        if any(len(n.lstrip("0")) > 6 for n in (low_text, high_text)):
            raise RegexSyntaxError("repeat count above 100000")
        low = int(low_text.lstrip("0") or "0")  # int() refuses 4,300 digits and more
        high = (int(high_text.lstrip("0") or "0") if high_text else None) if comma else low
        if low > _MAX_REPEAT or (high is not None and high > _MAX_REPEAT):
            raise RegexSyntaxError("repeat count above 100000")
        if high is not None and (low > high or (high == 0 and not self.dialect.zero_repeats)):
            raise UnsupportedRegexError(f"interval {excerpt(match.group(0))} (min > max, or max 0)")
        self.pos = match.end()
        return low, high, True

    # -- escapes ----------------------------------------------------------------------------
    def _escape(self) -> Node:
        letter = self._peek(1)
        if letter in _ANCHOR_ESCAPES:
            self.pos += 2
            return Assertion(_ANCHOR_ESCAPES[letter])
        if letter in self.dialect.outside_escapes:
            if letter in _OUTSIDE_ESCAPES:
                self.pos += 2
                return CharSet(_OUTSIDE_ESCAPES[letter])
            return CharSet(f"[{self._class_escape()}]")
        return literal(self._escaped_char())

    def _class_escape(self) -> str:
        """The class items of ``\\s \\S \\d \\D \\w \\h \\p{..} \\P{..}`` at the cursor,
        advancing past it."""
        letter = self._peek(1)
        if letter in _CLASS_ESCAPES:
            self.pos += 2
            return _CLASS_ESCAPES[letter]
        return self._property()

    def _property(self) -> str:
        negate = self._peek(1) == "P"
        if self._peek(2) != "{":
            raise UnsupportedRegexError(f"property escape without braces at offset {self.pos}")
        end = self.src.find("}", self.pos + 3)
        if end == -1:
            raise RegexSyntaxError(f"unterminated property name at offset {self.pos}")
        name = self.src[self.pos + 3:end]
        if name.startswith("^"):
            if negate:
                raise UnsupportedRegexError("'\\P{^..}' (double negation)")
            negate, name = True, name[1:]
        if name not in PROPERTY_NAMES:
            raise UnsupportedRegexError(
                f"property {excerpt(name)} (reproduced: {', '.join(sorted(PROPERTY_NAMES))})")
        self.pos = end + 1
        return ("\\P{" if negate else "\\p{") + name + "}"

    def _is_punctuation_escape(self, char: str) -> bool:
        return len(char) == 1 and char.isascii() and char.isprintable() and (
            not char.isalnum()) and (char != " " or self.dialect.loose_literals)

    def _escaped_char(self) -> str:
        """A backslash escape standing for one character; advances past it."""
        letter = self._peek(1)
        if letter == "":
            raise RegexSyntaxError("trailing backslash")
        if letter in _CONTROL_ESCAPES:
            self.pos += 2
            return _CONTROL_ESCAPES[letter]
        if letter in "xu":
            width = 4 if letter == "u" else 2
            digits = self.src[self.pos + 2:self.pos + 2 + width]
            if len(digits) != width or any(c not in _HEX_DIGITS for c in digits):
                raise UnsupportedRegexError(
                    f"'\\{letter}' not followed by {width} hex digits at offset {self.pos}")
            value = int(digits, 16)
            if 0xD800 <= value < 0xE000:
                raise UnsupportedRegexError("surrogate code point escape")
            self.pos += 2 + width
            return chr(value)
        if self._is_punctuation_escape(letter):
            self.pos += 2
            return letter
        raise UnsupportedRegexError(f"escape '\\{letter}' at offset {self.pos}")

    # -- character classes ------------------------------------------------------------------
    def _char_class(self) -> CharSet:
        start = self.pos
        self.pos += 1
        negate = self._peek() == "^"
        self.pos += int(negate)
        items: list[str] = []
        while True:
            char = self._peek()
            if char == "":
                raise RegexSyntaxError(f"unterminated character class at offset {start}")
            if char == "]":
                if not items:
                    if "]" not in self.src[self.pos + 1:]:
                        raise RegexSyntaxError(f"empty character class at offset {start}")
                    raise UnsupportedRegexError(f"a class with a leading ']' at offset {start}")
                self.pos += 1
                break
            items.append(self._class_item(first=not items))
        return CharSet("[" + ("^" if negate else "") + "".join(items) + "]")

    def _class_item(self, *, first: bool) -> str:
        char = self._peek()
        if char == "[" or self.src.startswith("&&", self.pos):
            raise UnsupportedRegexError(
                f"nested class, POSIX bracket or '&&' at offset {self.pos}")
        if char == "\\" and self._peek(1) in _CLASS_ESCAPE_LETTERS:
            if self._peek(1) not in self.dialect.class_escapes:
                raise UnsupportedRegexError(
                    f"'\\{self._peek(1)}' inside a class at offset {self.pos}")
            items = self._class_escape()
            if self._at_range_dash():
                raise RegexSyntaxError(f"'-' after a class escape at offset {self.pos}")
            return items
        low, low_escaped = self._class_char()
        bare_dash = low == "-" and not low_escaped
        # Unreachable (kept as a guard): a '-' after an item is that item's range dash, or
        # refused after a class escape or a range, before it can be read as an item.
        if bare_dash and not first and self._peek() != "]":  # pragma: no cover - see above
            raise UnsupportedRegexError(
                f"'-' inside a class at offset {self.pos - 1}: neither first, last nor a range")
        if not self._at_range_dash():
            return code_point(ord(low))
        if bare_dash:
            raise UnsupportedRegexError(f"class range starting with '-' at offset {self.pos}")
        self.pos += 1
        if self._peek() == "\\" and self._peek(1) in _CLASS_ESCAPE_LETTERS:
            raise RegexSyntaxError(f"class range ending in a class escape at {self.pos}")
        high, high_escaped = self._class_char()
        if high == "-" and not high_escaped:
            raise UnsupportedRegexError(f"class range {low!r}-{high!r}")
        if high < low:
            raise RegexSyntaxError(f"empty class range {low!r}-{high!r}")
        if self._at_range_dash():
            raise UnsupportedRegexError(f"'-' after a range at offset {self.pos}")
        return f"{code_point(ord(low))}-{code_point(ord(high))}"

    def _at_range_dash(self) -> bool:
        return self._peek() == "-" and self._peek(1) != "]"

    def _class_char(self) -> tuple[str, bool]:
        """One class character and whether it was written as an escape."""
        char = self._peek()
        if char == "":
            raise RegexSyntaxError("unterminated character class")
        if char == "[":
            raise UnsupportedRegexError(f"nested class at offset {self.pos}")
        if char == "\\":
            return self._escaped_char(), True
        self.pos += 1
        return char, False


def parse(source: str, dialect: Dialect = SPLIT) -> Node:
    """The tree of the Oniguruma (Ruby syntax) pattern ``source``; raises
    :class:`UnsupportedRegexError` outside ``dialect`` and :class:`RegexSyntaxError` where
    Oniguruma refuses the pattern."""
    return _Parser(source, dialect).parse()
