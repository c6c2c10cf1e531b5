"""The ``pattern`` of upstream's Replace normalizer and decoder: ``{"String": s}`` or
``{"Regex": r}``.

Upstream compiles Regex patterns with Oniguruma. Python's ``re`` agrees with it on plain
literals, classes, alternation and quantifiers; it does not agree on empty matches,
anchors, word boundaries, look-around and back-references, so those are refused by name
(``unsupported-component``) rather than reproduced approximately. ``\\s`` is rewritten to
the Unicode White_Space set Oniguruma uses (Python's ``\\s`` also matches U+001C..U+001F).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .alignment import Span
from .jsonfields import Node

# Unicode White_Space, the set Oniguruma's and Rust's \s match.
WHITE_SPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_WS_CLASS = "".join(f"\\u{ord(c):04x}" for c in WHITE_SPACE)

_UNREPRODUCIBLE = re.compile(r"\\[bBAZzGk1-9]|\(\?[=!<]|\(\?P=|[\^$]")


@dataclass(frozen=True, slots=True)
class Pattern:
    """A compiled Replace pattern; ``find`` returns non-overlapping, non-empty matches."""

    source: str
    is_regex: bool
    _regex: re.Pattern[str] | None

    def find(self, text: str) -> list[Span]:
        if self._regex is None:
            if not self.source:
                return []
            spans: list[Span] = []
            start = text.find(self.source)
            while start != -1:
                end = start + len(self.source)
                spans.append((start, end))
                start = text.find(self.source, end)
            return spans
        return [m.span() for m in self._regex.finditer(text)]

    def to_json(self) -> dict[str, str]:
        return {"Regex" if self.is_regex else "String": self.source}


def pattern_from_json(node: Node) -> Pattern:
    obj = node.obj()
    if set(obj) == {"String"}:
        return Pattern(node.field("String").str_(), False, None)
    if set(obj) == {"Regex"}:
        source = node.field("Regex").str_()
        return Pattern(source, True, _compile(source, node.child_path("Regex")))
    node.fail("invalid-value", 'a pattern is exactly one of {"String": ...} or {"Regex": ...}')


def _compile(source: str, path: str) -> re.Pattern[str]:
    where = Node(source, path)
    if _UNREPRODUCIBLE.search(source.replace("\\\\", "").replace("[^", "[")):
        where.fail(
            "unsupported-component",
            f"regex {source!r} uses an anchor, boundary, look-around or back-reference: "
            "Oniguruma and Python disagree on those, so it is not reproduced",
        )
    translated = source.replace("\\s", f"[{_WS_CLASS}]")
    try:
        compiled = re.compile(translated)
    except (re.error, RecursionError, OverflowError) as exc:
        where.fail("invalid-value", f"regex {source!r} does not compile: {exc}")
    if compiled.search("") is not None or compiled.fullmatch("") is not None:
        where.fail(
            "unsupported-component",
            f"regex {source!r} can match the empty string; empty matches are not reproduced",
        )
    return compiled
