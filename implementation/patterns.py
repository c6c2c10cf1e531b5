"""The ``pattern`` of upstream's Replace normalizer and Replace decoder:
``{"String": s}`` (a literal) or ``{"Regex": r}`` (Oniguruma syntax upstream).

Only the subset of Oniguruma that Python's ``re`` expresses identically is accepted; the
rest is refused as ``unsupported-component`` (docs/decisions/0009-regex-subset.md).
Matches are iterated like the ``onig`` crate's ``find_iter`` (see ``onig_find_iter``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from .errors import excerpt, excerpt_keys
from .jsonfields import Node
from .regex_safety import BacktrackingRiskError, check_backtracking

_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


class UnsupportedRegexError(Exception):
    """An Oniguruma construct this reference cannot express identically with ``re``."""


WHITE_SPACE: frozenset[str] = frozenset(
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
"""Unicode White_Space: what Oniguruma's and Rust regex's ``\\s`` match (measured over every
code point). Python's ``\\s`` also takes U+001C..U+001F, so ``\\s`` is spelled out."""
#: The class body ``\\s`` becomes.
_WHITESPACE_CLASS = "".join(f"\\u{ord(c):04x}" for c in sorted(WHITE_SPACE))

_CONTROL_ESCAPES = {
    "t": "\t", "n": "\n", "r": "\r", "f": "\f", "v": "\x0b", "a": "\x07", "e": "\x1b",
}
_ANCHOR_ESCAPES = {"A": r"\A", "z": r"\Z", "Z": r"(?=\n?\Z)"}
_GROUP_OPENERS = {"(?:": "(?:", "(?=": "(?=", "(?!": "(?!", "(?<=": "(?<=", "(?<!": "(?<!"}
_LOOKAROUNDS = frozenset({"(?=", "(?!", "(?<=", "(?<!"})
_INTERVAL = re.compile(r"\{([0-9]*)(,?)([0-9]*)\}")
_MAX_REPEAT = 100_000  # ONIG_MAX_REPEAT_NUM
#: Longer Regex sources are refused (regex-backtracking) before translation.
MAX_REGEX_CHARS = 10_000
_QUANTIFIER_STARTS = frozenset("*+?{")


def _is_ascii_punctuation(char: str) -> bool:
    return char.isascii() and char.isprintable() and not char.isalnum()


@dataclass(slots=True)
class _GroupFrame:
    """An open group while translating, and what Oniguruma lets be repeated after it.

    Oniguruma refuses to repeat an anchor or look-around, and a non-capturing
    group one of whose alternatives is exactly one such element (``(?:^)*``,
    ``(?:a|^)*``); a capturing group is always repeatable (``(^)*``).
    """

    kind: Literal["top", "capture", "group", "look"]
    elements: int = 0  # elements in the current alternative
    sole_is_anchor: bool = False  # the current alternative is exactly one anchor-like element
    anchor_alternative: bool = False  # a finished alternative was exactly one anchor-like element

    def add(self, *, anchor_like: bool) -> None:
        self.elements += 1
        self.sole_is_anchor = anchor_like and self.elements == 1

    def next_alternative(self) -> None:
        self.anchor_alternative |= self.elements == 1 and self.sole_is_anchor
        self.elements = 0
        self.sole_is_anchor = False

    def close(self) -> bool:
        """Ends the group; True if it is anchor-like (not repeatable)."""
        self.next_alternative()
        return self.kind == "look" or (self.kind == "group" and self.anchor_alternative)


_ElementKind = Literal["atom", "anchor", "syntax"]

#: Oniguruma's ``^``: at the start, or after a newline that does not end the text. Spelled
#: without an alternation (not preceded by a non-newline, and not a newline-ended end), so
#: that the backtracking analysis (``regex_safety``) sees one assertion, not two routes.
_LINE_START = r"(?<![^\n])(?!(?<=\n)\Z)"


class _OnigTranslator:
    """Translates the Oniguruma (Ruby syntax) subset that ``re`` matches identically.

    Accepted: literals; ``.``; ``^`` (after a newline only if more text
    follows) and ``$`` (before any newline); ``|``; groups ``(``, ``(?:``, and
    look-arounds; ``*``, ``+``, ``?``, ``{n}``, ``{n,}``, ``{n,m}``, ``{,m}``
    with an optional lazy ``?`` (not after ``{n}``: Oniguruma reads ``x{n}?``
    as ``(?:x{n})?``); escapes ``\\t \\n \\r \\f \\v \\a \\e \\xHH \\uHHHH
    \\s \\S \\A \\z \\Z`` and escaped ASCII punctuation; classes ``[...]``,
    ``[^...]`` of characters, ranges and ``\\s``. Everything else (``\\d``,
    ``\\w``, ``\\b`` whose Unicode tables differ, inline options,
    possessive/stacked quantifiers, named or atomic groups, back-references,
    ``\\p{..}``, POSIX brackets, nested classes and ``&&``...) raises
    :class:`UnsupportedRegexError`, as does every repetition Oniguruma refuses.
    """

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.pos = 0
        self.out: list[str] = []
        self.frames: list[_GroupFrame] = [_GroupFrame("top")]
        self.quantifiable = False

    def translate(self) -> str:
        while self.pos < len(self.pattern):
            self._step()
        if len(self.frames) > 1:
            raise UnsupportedRegexError("unbalanced '('")
        return "".join(self.out)

    # -- top level ------------------------------------------------------------
    def _step(self) -> None:
        char = self.pattern[self.pos]
        if char in _QUANTIFIER_STARTS:
            self._quantifier()
        elif char == "\\":
            self._escape()
        elif char == "[":
            self._emit(self._char_class(), "atom")
        elif char == "(":
            self._open_group()
        elif char == ")":
            self._close_group()
        elif char == "|":
            self.pos += 1
            self.frames[-1].next_alternative()
            self._emit("|", "syntax")
        elif char in "^$":
            self.pos += 1
            self._emit(_LINE_START if char == "^" else "(?m:$)", "anchor")
        else:
            self.pos += 1
            self._emit("." if char == "." else re.escape(char), "atom")

    def _emit(self, text: str, kind: _ElementKind) -> None:
        self.out.append(text)
        if kind != "syntax":
            self.frames[-1].add(anchor_like=kind == "anchor")
        self.quantifiable = kind == "atom"

    def _open_group(self) -> None:
        opener = next((o for o in _GROUP_OPENERS if self.pattern.startswith(o, self.pos)), None)
        if opener is None and self.pattern.startswith("(?", self.pos):
            raise UnsupportedRegexError(f"group construct at offset {self.pos}")
        self.pos += len(opener) if opener else 1
        kind: Literal["capture", "group", "look"] = (
            "capture" if opener is None else "look" if opener in _LOOKAROUNDS else "group"
        )
        self.frames.append(_GroupFrame(kind))
        self._emit(_GROUP_OPENERS[opener] if opener else "(?:", "syntax")

    def _close_group(self) -> None:
        if len(self.frames) == 1:
            raise UnsupportedRegexError("unbalanced ')'")
        self.pos += 1
        anchor_like = self.frames.pop().close()
        self._emit(")", "anchor" if anchor_like else "atom")

    # -- quantifiers ----------------------------------------------------------
    def _quantifier(self) -> None:
        if not self.quantifiable:
            at = self.pos
            raise UnsupportedRegexError(f"quantifier without a repeatable target at offset {at}")
        text, exact = self._quantifier_body()
        if self.pattern.startswith("?", self.pos):
            if exact:
                raise UnsupportedRegexError("'{n}?' (Oniguruma: optional exact repeat, re: lazy)")
            self.pos += 1
            text += "?"
        if self.pos < len(self.pattern) and self.pattern[self.pos] in _QUANTIFIER_STARTS:
            raise UnsupportedRegexError(f"stacked or possessive quantifier at offset {self.pos}")
        self.out.append(text)
        self.quantifiable = False

    def _quantifier_body(self) -> tuple[str, bool]:
        char = self.pattern[self.pos]
        if char != "{":
            self.pos += 1
            return char, False
        match = _INTERVAL.match(self.pattern, self.pos)
        if match is None or not (match.group(1) or match.group(3)):
            raise UnsupportedRegexError(f"'{{' that is not an interval at offset {self.pos}")
        low, comma, high = match.groups()
        self._check_interval(low, high)
        self.pos = match.end()
        if not comma:
            return f"{{{low}}}", True
        return f"{{{low or 0},{high}}}", False

    @staticmethod
    def _check_interval(low: str, high: str) -> None:
        # The digit count first: int() of a 5,000-digit string raises ValueError.
        if any(len(n.lstrip("0")) > 6 for n in (low, high)):
            raise UnsupportedRegexError("repeat count above 100000")
        numbers = [int(n) for n in (low, high) if n]
        if any(n > _MAX_REPEAT for n in numbers):
            raise UnsupportedRegexError("repeat count above 100000")
        if low and high and int(low) > int(high):
            raise UnsupportedRegexError(f"interval {{{low},{high}}} with min > max")

    # -- escapes --------------------------------------------------------------
    def _escape(self) -> None:
        letter = self._peek_escape_letter()
        if letter in _ANCHOR_ESCAPES:
            self.pos += 2
            self._emit(_ANCHOR_ESCAPES[letter], "anchor")
        elif letter == "s":
            self.pos += 2
            self._emit(f"[{_WHITESPACE_CLASS}]", "atom")
        elif letter == "S":
            self.pos += 2
            self._emit(f"[^{_WHITESPACE_CLASS}]", "atom")
        else:
            self._emit(re.escape(self._escaped_char()), "atom")

    def _peek_escape_letter(self) -> str:
        if self.pos + 1 >= len(self.pattern):
            raise UnsupportedRegexError("trailing backslash")
        return self.pattern[self.pos + 1]

    def _escaped_char(self) -> str:
        """A backslash escape standing for one character; advances past it."""
        letter = self._peek_escape_letter()
        if letter in _CONTROL_ESCAPES:
            self.pos += 2
            return _CONTROL_ESCAPES[letter]
        if letter in "xu":
            return self._hex_escape(4 if letter == "u" else 2)
        if _is_ascii_punctuation(letter):
            self.pos += 2
            return letter
        raise UnsupportedRegexError(f"escape '\\{letter}'")

    def _hex_escape(self, width: int) -> str:
        digits = self.pattern[self.pos + 2 : self.pos + 2 + width]
        if len(digits) != width or any(c not in _HEX_DIGITS for c in digits):
            letter = self.pattern[self.pos + 1]
            raise UnsupportedRegexError(f"'\\{letter}' not followed by {width} hex digits")
        self.pos += 2 + width
        value = int(digits, 16)
        if 0xD800 <= value < 0xE000:
            raise UnsupportedRegexError("surrogate code point escape")
        return chr(value)

    # -- character classes ----------------------------------------------------
    def _char_class(self) -> str:
        self.pos += 1
        negate = self.pattern.startswith("^", self.pos)
        self.pos += int(negate)
        items: list[str] = []
        while True:
            if self.pos >= len(self.pattern):
                raise UnsupportedRegexError("unterminated character class")
            if self.pattern[self.pos] == "]":
                if not items:
                    raise UnsupportedRegexError("empty character class or leading ']'")
                self.pos += 1
                return "[" + ("^" if negate else "") + "".join(items) + "]"
            items.append(self._class_item(first=not items))

    def _class_item(self, *, first: bool) -> str:
        char = self.pattern[self.pos]
        if char == "[" or self.pattern.startswith("&&", self.pos):
            raise UnsupportedRegexError(f"nested class, POSIX bracket or '&&' at offset {self.pos}")
        if self.pattern.startswith("\\s", self.pos):
            self.pos += 2
            self._refuse_range_after("\\s")
            return _WHITESPACE_CLASS
        low, low_escaped = self._class_char()
        bare_dash = low == "-" and not low_escaped
        # Unreachable (kept as a guard): a '-' after an item is that item's range dash, or
        # refused after \s or a range, before it can be read as an item.
        stray_dash = bare_dash and not first and not self.pattern.startswith("]", self.pos)
        if stray_dash:  # pragma: no cover - see above
            raise UnsupportedRegexError("'-' inside a class: neither first, last nor a range")
        if not self._at_range_dash():
            return re.escape(low)
        if bare_dash:
            raise UnsupportedRegexError("class range starting with '-'")
        self.pos += 1
        high, high_escaped = self._class_char()
        if (high == "-" and not high_escaped) or high < low:
            raise UnsupportedRegexError(f"class range {low!r}-{high!r}")
        self._refuse_range_after(f"{low}-{high}")
        return f"{re.escape(low)}-{re.escape(high)}"

    def _at_range_dash(self) -> bool:
        at_dash = self.pattern.startswith("-", self.pos)
        return at_dash and not self.pattern.startswith("-]", self.pos)

    def _refuse_range_after(self, what: str) -> None:
        if self._at_range_dash():
            raise UnsupportedRegexError(f"'-' after {what!r} inside a class")

    def _class_char(self) -> tuple[str, bool]:
        """One class character and whether it was written as an escape."""
        if self.pos >= len(self.pattern):
            raise UnsupportedRegexError("unterminated character class")
        char = self.pattern[self.pos]
        if char == "[":
            raise UnsupportedRegexError(f"nested class at offset {self.pos}")
        if char == "\\":
            return self._escaped_char(), True
        self.pos += 1
        return char, False


def translate_oniguruma(pattern: str) -> str:
    """Python ``re`` source matching exactly what Oniguruma (Ruby syntax) matches.

    Raises :class:`UnsupportedRegexError` for anything outside the supported subset,
    including a translation ``re`` cannot compile (e.g. a variable-width
    look-behind, which Oniguruma accepts).
    """
    translated = _OnigTranslator(pattern).translate()
    try:
        re.compile(translated)
    except re.error as exc:
        raise UnsupportedRegexError(f"not expressible with Python's re ({exc})") from exc
    return translated


def onig_find_iter(regex: re.Pattern[str], text: str) -> Iterator[tuple[int, int]]:
    """The spans the ``onig`` crate's ``find_iter`` yields (character offsets).

    Unlike ``re.finditer``, an empty match ending where the previous match ended
    is skipped, and the search resumes one character later: ``x*`` over
    ``abxd`` matches at 0, 1, 2-3 and 4, not also at 3.
    """
    last_end = 0
    last_match_end: int | None = None
    while last_end <= len(text):
        match = regex.search(text, last_end)
        if match is None:
            return
        start, end = match.span()
        if start == end and last_match_end == end:
            last_end += 1
            continue
        last_end = last_match_end = end
        yield start, end


@dataclass(frozen=True, slots=True)
class ReplacePattern:
    """``{"String": s}`` (a literal) or ``{"Regex": r}`` (Oniguruma), compiled for ``re``.

    ``regex`` is None for a non-empty literal, which is searched with ``str.find`` (the
    same leftmost, non-overlapping matches as upstream's escaped regex, without compiling
    a literal that may be megabytes long).
    """

    kind: Literal["String", "Regex"]
    source: str
    regex: re.Pattern[str] | None

    def spans(self, text: str) -> Iterator[tuple[int, int]]:
        if self.regex is not None:
            yield from onig_find_iter(self.regex, text)
            return
        literal = self.source
        at = text.find(literal)
        while at != -1:
            yield at, at + len(literal)
            at = text.find(literal, at + len(literal))

    def find_matches(self, text: str) -> list[tuple[int, int, bool]]:
        """Upstream's ``Pattern::find_matches``: contiguous ``(start, end, is_match)`` pieces.

        An empty ``text`` is one non-matching piece, even for a pattern matching
        the empty string.
        """
        if not text:
            return [(0, 0, False)]
        pieces: list[tuple[int, int, bool]] = []
        previous = 0
        for start, end in self.spans(text):
            if previous != start:
                pieces.append((previous, start, False))
            pieces.append((start, end, True))
            previous = end
        if previous != len(text):
            pieces.append((previous, len(text), False))
        return pieces

    def replace(self, text: str, content: str) -> str:
        return "".join(
            content if is_match else text[start:end]
            for start, end, is_match in self.find_matches(text)
        )


def parse_replace_pattern(node: Node) -> ReplacePattern:
    """``pattern`` of a Replace component: an object with exactly one of String, Regex.

    A Regex is refused as ``unsupported-component`` outside the reproduced subset, and as
    ``regex-backtracking`` when Python's ``re`` could take unbounded time on it
    (``regex_safety``; docs/decisions/0017-regex-backtracking.md). Both modes alike.
    """
    keys = list(node.obj())
    if len(keys) != 1 or keys[0] not in ("String", "Regex"):
        node.fail("invalid-value", "expected exactly one of 'String', 'Regex'; got keys "
                  f"{excerpt_keys(keys)}")
    kind: Literal["String", "Regex"] = "String" if keys[0] == "String" else "Regex"
    source_node = node.field(kind)
    source = source_node.str_()
    if kind == "String":
        return ReplacePattern(kind, source, None if source else re.compile(""))
    if len(source) > MAX_REGEX_CHARS:
        source_node.fail("regex-backtracking", f"Replace regex {excerpt(source)} is longer "
                         f"than {MAX_REGEX_CHARS} characters: too large to analyse")
    try:
        translated = translate_oniguruma(source)
    except UnsupportedRegexError as exc:
        source_node.fail("unsupported-component", f"Replace regex {excerpt(source)}: {exc}")
    try:
        check_backtracking(translated)
    except BacktrackingRiskError as exc:
        source_node.fail("regex-backtracking", f"Replace regex {excerpt(source)}: {exc}; "
                         "Python's re could take exponential or high-polynomial time on it "
                         "(upstream loads it and panics on long enough inputs)")
    return ReplacePattern(kind, source, re.compile(translated))
