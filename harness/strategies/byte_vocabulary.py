"""Byte-level vocabularies (GPT-2, Llama 3): the 256 byte symbols of GPT-2's byte map, and
merges grown over the symbols of an alphabet's characters.

The byte map is the reference's (``implementation.byte_level``), never restated here. The
merges rebuild some multi-byte characters from their symbols (so a token may hold part of
a character, or all of it), merge a few words of the alphabet left to right (with the space
symbol ``Ġ`` in front or not, as GPT-2's words are), and then grow like the classic
vocabularies' merges, over the symbols the alphabet spells, so they fire on texts drawn
from it. No ``<0xXX>`` pieces, no byte fallback, no prefix or suffix.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from hypothesis import strategies as st

from harness.strategies import profile as shares
from harness.strategies._weights import weighted
from harness.strategies.profile import DEFAULT_WEIGHTS, UnkKind, Weights
from harness.strategies.vocabulary import (
    Decoration,
    MergeBook,
    grown_merges,
    model_objects,
    reserved_strings,
)
from implementation.byte_level import BYTE_SYMBOLS, to_symbols

#: The symbol of the space byte (``Ġ``), which starts GPT-2's words.
SPACE_SYMBOL: Final = to_symbols(" ")


def is_byte_level_vocabulary(vocab: Any) -> bool:
    """Every one of the 256 byte symbols is a vocabulary string."""
    return isinstance(vocab, dict) and all(symbol in vocab for symbol in BYTE_SYMBOLS)


def _chain(book: MergeBook, parts: Sequence[str]) -> None:
    """Merges building ``parts`` up left to right (stopping at the longest piece allowed)."""
    head = parts[0]
    for part in parts[1:]:
        if len(head) + len(part) > shares.MAX_PIECE_CHARS:
            return
        book.add(head, part)
        head += part


@st.composite
def character_merges(draw: st.DrawFn, book: MergeBook, alphabet: Sequence[str]) -> None:
    """1..3 multi-byte characters of the alphabet rebuilt from their symbols, left to
    right or right to left."""
    wide = [c for c in alphabet if len(to_symbols(c)) > 1]
    if not wide:
        return
    for char in draw(st.lists(st.sampled_from(wide), min_size=1, max_size=3, unique=True)):
        symbols = list(to_symbols(char))
        if draw(st.booleans()):
            _chain(book, symbols)
        else:
            tail = symbols[-1]
            for symbol in reversed(symbols[:-1]):
                book.add(symbol, tail)
                tail = symbol + tail


@st.composite
def word_merges(draw: st.DrawFn, book: MergeBook, alphabet: Sequence[str]) -> None:
    """0..``BYTE_LEVEL_WORDS_MAX`` words of 1..4 characters, ``Ġ`` in front or not, each
    merged left to right symbol by symbol."""
    word = st.tuples(st.booleans(), st.lists(st.sampled_from(list(alphabet)), min_size=1,
                                             max_size=4))
    for spaced, chars in draw(st.lists(word, max_size=shares.BYTE_LEVEL_WORDS_MAX)):
        symbols = list(to_symbols((" " if spaced else "") + "".join(chars)))
        if len(symbols) > 1:
            _chain(book, symbols)


@st.composite
def byte_level_models(
    draw: st.DrawFn,
    profile: Weights = DEFAULT_WEIGHTS,
    *,
    alphabet: Sequence[str],
    reserved: Sequence[str] = (),
    unk_token: str | None = None,
    unk: UnkKind = "absent",
    free_ids: int = 0,
) -> dict[str, Any]:
    """A BPE ``model`` over the 256 byte symbols (in byte order after the reserved strings)
    and merges grown over the symbols of ``alphabet`` and the space."""
    reserved = reserved_strings(reserved, unk_token, unk)
    bases = list(dict.fromkeys(to_symbols(" " + "".join(alphabet))))
    book = MergeBook.over(bases, Decoration())
    book.pieces = dict.fromkeys([*reserved, *BYTE_SYMBOLS])
    draw(character_merges(book, alphabet))
    draw(word_merges(book, alphabet))
    low, high = shares.MERGE_COUNT_BOUNDS[draw(weighted(profile.merge_count))]
    draw(grown_merges(book, draw(st.integers(low, high))))
    return draw(model_objects(profile, book, reserved, decoration=Decoration(),
                              unk_token=unk_token, unk=unk, byte_fallback=False,
                              ignore_merges=profile.byte_level_ignore_merges,
                              free_ids=free_ids))
