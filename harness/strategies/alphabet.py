"""Characters: the pools alphabets and texts draw from, grouped by UTF-8 width.

Two disjoint pools.  ``ALPHABET_POOL`` is what vocabularies are built from; the
``UNCOVERED`` pool never enters a generated alphabet, so every case has characters
of each width that the vocabulary does not cover (byte fallback, unk, dropped
characters) — and byte-piece merges are built over exactly those characters, so
the texts that use them make the merges fire.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from hypothesis import strategies as st

from harness.strategies import profile

METASPACE: Final = "\u2581"  # '▁'
SPACE: Final = " "

#: One-byte characters: letters first (shrinking goes to 'a'), digits, punctuation that
#: collides with token syntax ('<', '>', '#', '/', '_' ...), the space.
ONE_BYTE: Final = "abcdefghijklmnopqrstuvwHW0123.,!?'-<>#/_ "
#: Control characters (one byte each): tab, newline, CR, NUL, ESC, DEL.
CONTROLS: Final = "\t\n\r\x00\x1b\x7f"
#: Two-byte characters: Latin, Greek, Cyrillic, Hebrew, Arabic letters.
TWO_BYTE: Final = "éßñüωдюעذ"
#: Combining marks (U+0301, U+0308, U+0327 are two bytes; U+20D7 is three).
COMBINING: Final = "\u0301\u0308\u0327\u20d7"
#: Three-byte characters: CJK, euro sign, Hangul, Thai, the metaspace '▁'.
THREE_BYTE: Final = "日本中文€가ก" + METASPACE
#: Four-byte characters: emoji, mathematical letters, a CJK extension B ideograph.
FOUR_BYTE: Final = "😀🦙𝔸𠀀"

ALPHABET_POOL: Final = ONE_BYTE + CONTROLS + TWO_BYTE + COMBINING + THREE_BYTE + FOUR_BYTE

#: Characters never put in an alphabet, by UTF-8 width.
UNCOVERED: Final[dict[int, str]] = {
    1: "xyzXYZ9~|",
    2: "çøΩжמ\u0300",
    3: "語漢→☃ᄀ",
    4: "🙂🚀𝕏𐍈",
}
UNCOVERED_POOL: Final = "".join(UNCOVERED.values())

#: Sequences that are not valid UTF-8, for decode id runs: a continuation byte alone,
#: a lead byte followed by ASCII, an overlong, a surrogate, a code point past U+10FFFF.
INVALID_BYTE_RUNS: Final[tuple[tuple[int, ...], ...]] = (
    (0xA9,), (0xC3, 0x28), (0xC0, 0x80), (0xED, 0xA0, 0x80), (0xF4, 0x90, 0x80, 0x80),
    (0xFF,), (0xE2, 0x82),
)

assert not set(ALPHABET_POOL) & set(UNCOVERED_POOL)


def utf8_width(char: str) -> int:
    return len(char.encode("utf-8"))


def alphabets(*, required: Sequence[str] = ()) -> st.SearchStrategy[list[str]]:
    """Distinct characters from ``ALPHABET_POOL`` (plus ``required``), mixing widths.

    Lists shrink towards few, early (ASCII) characters.
    """
    chosen = st.lists(
        st.sampled_from(ALPHABET_POOL),
        min_size=profile.ALPHABET_MIN,
        max_size=profile.ALPHABET_MAX - len(required),
        unique=True,
    )
    if not required:
        return chosen
    return chosen.map(lambda chars: list(dict.fromkeys([*required, *chars])))


def uncovered_characters(width: int | None = None) -> st.SearchStrategy[str]:
    """A character outside every generated alphabet; of one UTF-8 width if given."""
    if width is None:
        return st.sampled_from(UNCOVERED_POOL)
    return st.sampled_from(UNCOVERED[width])


def any_character() -> st.SearchStrategy[str]:
    """Any Unicode scalar value (no surrogates): the texts' 'wild' share."""
    return st.characters(codec="utf-8")
