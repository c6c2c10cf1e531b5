"""The character classes of the Split-family pre-tokenizers, as ``regex`` class items.

Each is the set upstream uses, measured over every code point against tokenizers 0.23.1
with ``regex`` 2024.11.6 (tests/exhaustive/test_char_classes_every_code_point.py recomputes
every one of them live; docs/decisions/0023-regex-dependency.md records the measurements):

- Oniguruma's ``\\p{..}`` general categories and scripts, ``\\s``, ``\\d`` and ``.`` mean
  what they mean in ``regex``: both carry Unicode 16.0 tables.
- Oniguruma's ``\\w`` is not ``regex``'s: it does not take ZWNJ/ZWJ (``Join_Control``),
  and, outside a class only, it takes the six Latin-1 numbers ``² ³ ¹ ¼ ½ ¾`` (its
  ISO-8859-1 table decides below U+0100 there; ``[\\w]`` does not take them).
- The Rust side (``char::is_numeric``, the ``unicode_categories`` crate's punctuation)
  follows other Unicode versions; the code points where it differs from ``regex``'s tables
  are the measured data of :mod:`implementation.char_class_tables`.
"""

from __future__ import annotations

from .char_class_tables import NUMERIC_EXTRA, PUNCTUATION_EXTRA, PUNCTUATION_MISSING

Ranges = tuple[tuple[int, int], ...]


def code_point(value: int) -> str:
    """``value`` as a ``regex`` escape usable inside and outside a class."""
    if value < 0x100:
        return f"\\x{value:02x}"
    if value < 0x10000:
        return f"\\u{value:04x}"
    return f"\\U{value:08x}"


def range_items(ranges: Ranges) -> str:
    """Class items for inclusive code point ranges."""
    return "".join(code_point(lo) if lo == hi else f"{code_point(lo)}-{code_point(hi)}"
                   for lo, hi in ranges)


#: Unicode White_Space: Oniguruma's ``\\s``, Rust's ``char::is_whitespace`` and the Rust
#: regex crate's ``\\s`` alike, and ``regex``'s ``\\s`` (25 code points in all four).
WHITE_SPACE_ITEMS = r"\s"
WHITE_SPACE: frozenset[str] = frozenset(
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
"""The same 25 code points as characters (Python's own ``str.isspace`` also takes
U+001C..U+001F)."""
#: Oniguruma's ``\\w`` inside a class (see the module docstring).
ONIG_WORD_ITEMS = r"\p{Alphabetic}\p{M}\p{Nd}\p{Pc}"
#: Oniguruma's ``\\w`` outside a class: also the six Latin-1 numbers.
ONIG_WORD_OUTSIDE_ITEMS = ONIG_WORD_ITEMS + r"\xb2\xb3\xb9\xbc-\xbe"
#: Oniguruma's ``\\h``: a hexadecimal digit (not horizontal space, as in Perl).
HEX_DIGIT_ITEMS = "0-9A-Fa-f"
#: Oniguruma's ``.``: everything but a line feed.
ONIG_DOT = r"[^\n]"
#: The Rust regex crate's ``\\w`` (UTS #18 Annex C), which the Whitespace pre-tokenizer uses.
RUST_WORD_ITEMS = r"\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}"
#: The Whitespace pre-tokenizer's pattern ``\\w+|[^\\w\\s]+`` with the Rust crate's classes.
WHITESPACE_WORDS = f"[{RUST_WORD_ITEMS}]+|[^{RUST_WORD_ITEMS}{WHITE_SPACE_ITEMS}]+"
#: Rust's ``char::is_numeric`` (General_Category N in the Rust release's Unicode version):
#: the Digits pre-tokenizer.
NUMERIC = rf"[\p{{N}}{range_items(NUMERIC_EXTRA)}]"
#: Rust's ``char::is_ascii_punctuation`` or ``unicode_categories``' ``is_punctuation``
#: (General_Category P in that crate's Unicode version): the Punctuation pre-tokenizer.
PUNCTUATION = (rf"(?![{range_items(PUNCTUATION_MISSING)}])"
               rf"[\p{{P}}!-/:-@\[-`{{-~{range_items(PUNCTUATION_EXTRA)}]")
