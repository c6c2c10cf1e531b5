"""Regex syntax probes: short Oniguruma patterns, each written for one construct the
reference's regex reader (``implementation.oniguruma``) treats on a path of its own in its
Split or its Replace dialect, declared once here.

Real-world patterns and their mutations only ever hold the syntax real tokenizers use, so
the readers' other paths (look-behind, atomic groups, anchors, ``\\x``/``\\u`` escapes,
class edge cases) and their refusals went unexercised. Each probe stands in for a whole
Regex, at a small share (``profile.SPLIT_PATTERN``, ``profile.REPLACE_REGEX``):

- *read* probes, the reference translates them (upstream compiles them too; the run
  compares their splits and replacements);
- *probes*, upstream compiles them and the reference refuses them (the intended classes
  strict-unreproducible-regex and strict-regex-backtracking);
- *broken* probes, Oniguruma itself refuses them: both sides refuse the file, a deliberate
  hazard, left out with ``hazards=False``.

Which side refuses what was measured on tokenizers 0.23.1 (``tests/harness/test_strategies.py``
checks every table against upstream).
"""

from __future__ import annotations

from typing import Any, Final

from harness.core import regex_read
from implementation.patterns import MAX_REGEX_CHARS

JSON = dict[str, Any]

#: The read probes, declared in ``harness.core.regex_read`` (the judge reads them too).
ONIGURUMA_READ: Final = regex_read.ONIGURUMA_READ
REPLACE_READ: Final = regex_read.REPLACE_READ
REPLACE_READ_EACH: Final = regex_read.REPLACE_READ_EACH

#: Longer than the reference analyses (both readers refuse it as regex-backtracking).
OVERLONG_REGEX: Final = "a" * (MAX_REGEX_CHARS + 1)

# --- Split (Oniguruma, translated for the regex package) ---------------------------------------

#: Split patterns upstream compiles and the reference refuses, one per refusal of the reader.
ONIGURUMA_PROBES: Final = (
    "a**",              # stacked quantifiers
    "a{3,2}",           # an interval with min > max
    "a{,}",             # '{' that is not an interval (Oniguruma: a literal)
    r"\x4",             # \x without two hex digits
    r"\ud800",          # a surrogate code point
    r"\pL",             # a property without braces
    r"\P{^L}",          # a doubly negated property
    "[]a]",             # a class with a leading ']'
    "ab[]c]",           # the same, further into the pattern (its ']' looked for after it)
    "[a-c-e]",          # '-' after a range
    "[a[b]]",           # a nested class
    "[--a]",            # a range starting with '-'
    r"[\W]",            # a negated class escape inside a class
    r"\k",              # an escape outside the subset
    "]",                # an unescaped ']'
    "(?#x)",            # a group construct outside the subset (a comment)
    "(?<=a+)c",         # a look-behind that is not alternatives of fixed strings
    "(a*)+",            # a repeat of something that can match the empty string
    "(?i:ss)",          # case folding that reads one character as two
    "(?i:a+)",          # case folding over more than literals
    "(" * 101 + "a" + ")" * 101,  # groups nested deeper than the reader follows
    "[a-[b]]",          # a nested class as a range's end
    "(a+)+$",           # ambiguous: exponential backtracking (regex-backtracking)
    OVERLONG_REGEX,     # too long to analyse (regex-backtracking)
)
#: Split patterns Oniguruma refuses: both sides refuse the file (a hazard).
ONIGURUMA_BROKEN: Final = (
    "a)", "(a", "a{100001}", "a{12345678}", r"\p{Foo}", r"\p{L", "[z-a]", r"[a-\d]", "[abc",
    "[a-", "a\\", r"[\s-a]", "(?=a)*",
    # Unterminated names that a known one starts (L, Nd): a reader that took the name up to
    # the pattern's last character would read a property, and go on from a wrong place.
    r"\p{Lx", r"a\p{Ndy",
)

#: Split-family JSON upstream's deserializer refuses, by what is broken (a hazard).
SPLIT_MALFORMED: Final[tuple[tuple[str, JSON], ...]] = (
    ("behavior-two-keys", {"type": "Split", "pattern": {"String": " "},
                           "behavior": {"Isolated": None, "Removed": None}, "invert": False}),
    ("behavior-with-value", {"type": "Split", "pattern": {"String": " "},
                             "behavior": {"Isolated": 1}, "invert": False}),
    ("behavior-number", {"type": "Split", "pattern": {"String": " "}, "behavior": 1,
                         "invert": False}),
    ("behavior-unknown", {"type": "Split", "pattern": {"String": " "}, "behavior": "isolated",
                          "invert": False}),
    ("pattern-two-keys", {"type": "Split", "pattern": {"String": " ", "Regex": " "},
                          "behavior": "Isolated", "invert": False}),
    ("punctuation-null", {"type": "Punctuation", "behavior": None}),
)

# --- Replace (Oniguruma, the reader's narrower Replace dialect) -------------------------------

#: Replace patterns upstream compiles and the reference refuses, one per refusal.
REPLACE_PROBES: Final = (
    "a{2}?",            # Oniguruma: an optional exact repeat (not read in this dialect)
    "a*+",              # possessive
    "a{,}",             # '{' that is not an interval
    r"\x4",             # \x without two hex digits
    r"\ud800",          # a surrogate code point
    "[]a]",             # a class with a leading ']'
    "ab[]c]",           # the same, further into the pattern (its ']' looked for after it)
    "[--a]",            # a range starting with '-'
    "[a-c-e]",          # '-' after a range
    "[a-[b]]",          # a nested class as a range's end
    "(?<=a+)b",         # a look-behind of no fixed width
    OVERLONG_REGEX,     # too long to analyse (regex-backtracking)
)
