"""Upstream's Unicode transformations as streams of ``(character, change)``.

tokenizers 0.23.1 normalizes with the crate unicode-normalization-alignments 0.1.12, whose
NFD/NFKD/NFC/NFKC iterators yield every output character with a *change*: 0 when it takes
the place of the next input character, 1 when it is inserted after the previous one, -N
when it takes the place of the next input character and N more after it vanish.
``NormalizedText.transform`` turns a stream into alignments exactly as upstream's
``NormalizedString::transform`` does, so the spans follow from reproducing the streams:

- decomposition: each character's full decomposition, its first character 0 and the
  others 1, then the canonical reordering (a stable sort of every run of non-starters by
  combining class) moves the changes along with their characters;
- composition (over the decomposed stream): a starter absorbing a character takes
  ``its change + the absorbed one's - 1``; characters kept back because they are blocked
  are emitted after it;
- lowercase (Rust's ``char::to_lowercase``, character by character: no final-sigma rule):
  the first character of a character's lowercase 0, the others 1.

The Unicode data is this Python's ``unicodedata`` with the measured differences of
``unicode_tables`` (docs/decisions/0025-unicode-normalizers.md): code points upstream's
Unicode 9.0.0 tables do not know are inert (no decomposition, combining class 0), and
lowercase and whitespace follow upstream's Rust toolchain.
"""

from __future__ import annotations

import unicodedata
from functools import cache, lru_cache
from typing import Literal

from .unicode_tables import LOWERCASE, NORMALIZATION_INERT, UNIDATA_VERSION, WHITESPACE

Form = Literal["NFC", "NFD", "NFKC", "NFKD"]
FORMS: tuple[Form, ...] = ("NFC", "NFD", "NFKC", "NFKD")
#: One output character and its change (see the module docstring).
Change = tuple[str, int]

_INERT = frozenset(chr(cp) for a, b in NORMALIZATION_INERT for cp in range(a, b + 1))
_LOWERCASE = {chr(cp): lowered for cp, lowered in LOWERCASE.items()}
_WHITESPACE = frozenset(chr(cp) for cp in WHITESPACE)

# Hangul syllables: the algorithmic (de)composition of the Unicode standard, section 3.12.
_S_BASE, _L_BASE, _V_BASE, _T_BASE = 0xAC00, 0x1100, 0x1161, 0x11A7
_L_COUNT, _V_COUNT, _T_COUNT = 19, 21, 28
_N_COUNT = _V_COUNT * _T_COUNT
_S_COUNT = _L_COUNT * _N_COUNT


def tables_hold() -> bool:
    """True when this Python's Unicode data is the one ``unicode_tables`` was measured
    against (elsewhere the measured differences would be incomplete)."""
    return unicodedata.unidata_version == UNIDATA_VERSION


def is_whitespace(char: str) -> bool:
    """Rust's ``char::is_whitespace`` (what upstream's Strip removes)."""
    return char in _WHITESPACE


def lowercase(char: str) -> str:
    """Rust's ``char::to_lowercase`` of one character."""
    found = _LOWERCASE.get(char)
    return char.lower() if found is None else found


def lowercase_changes(text: str) -> list[Change]:
    out: list[Change] = []
    for char in text:
        lowered = lowercase(char)
        out.append((lowered[0], 0))
        out.extend((extra, 1) for extra in lowered[1:])
    return out


def normalization_changes(text: str, form: Form) -> list[Change]:
    """The stream upstream's ``form`` normalization yields for ``text``."""
    stream = _decomposed(text, compatible=form in ("NFKC", "NFKD"))
    return _composed(stream) if form in ("NFC", "NFKC") else stream


def combining_class(char: str) -> int:
    return 0 if char in _INERT else unicodedata.combining(char)


@lru_cache(maxsize=1 << 16)
def full_decomposition(char: str, compatible: bool) -> tuple[str, ...]:
    """The crate's fully decomposed form of one character: its canonical mapping (or,
    when ``compatible``, its compatibility one) decomposed recursively, not reordered."""
    if char <= "\x7f" or char in _INERT:
        return (char,)
    code = ord(char)
    if _S_BASE <= code < _S_BASE + _S_COUNT:
        index = code - _S_BASE
        parts = [_L_BASE + index // _N_COUNT, _V_BASE + (index % _N_COUNT) // _T_COUNT]
        if index % _T_COUNT:
            parts.append(_T_BASE + index % _T_COUNT)
        return tuple(map(chr, parts))
    mapping = unicodedata.decomposition(char)
    if not mapping or (mapping.startswith("<") and not compatible):
        return (char,)
    fields = mapping.split()
    if fields[0].startswith("<"):
        fields = fields[1:]
    return tuple(part for field in fields
                 for part in full_decomposition(chr(int(field, 16)), compatible))


def _decomposed(text: str, *, compatible: bool) -> list[Change]:
    out: list[Change] = []
    pending: list[tuple[int, str, int]] = []  # non-starters waiting for their reordering
    for char in text:
        for i, part in enumerate(full_decomposition(char, compatible)):
            ccc = combining_class(part)
            if ccc:
                pending.append((ccc, part, 1 if i else 0))
                continue
            if pending:
                out.extend((c, change) for _, c, change in sorted(pending, key=_by_class))
                pending.clear()
            out.append((part, 1 if i else 0))
    out.extend((c, change) for _, c, change in sorted(pending, key=_by_class))
    return out


def _by_class(entry: tuple[int, str, int]) -> int:
    return entry[0]


def _composed(stream: list[Change]) -> list[Change]:
    """The crate's ``Recompositions`` state machine over a decomposed stream."""
    out: list[Change] = []
    composee: Change | None = None
    blocked: list[Change] = []  # characters after the composee it could not absorb
    last_class: int | None = None  # the class of the last of them
    for char, change in stream:
        ccc = combining_class(char)
        if composee is None:
            if ccc:
                out.append((char, change))
            else:
                composee = (char, change)
            continue
        if last_class is not None and last_class >= ccc:
            if ccc == 0:  # a starter after blocked marks: all of them are emitted
                out.append(composee)
                out.extend(blocked)
                blocked.clear()
                composee, last_class = (char, change), None
            else:
                blocked.append((char, change))
                last_class = ccc
            continue
        composite = compose(composee[0], char)
        if composite is not None:
            composee = (composite, composee[1] + change - 1)
        elif last_class is None and ccc == 0:
            out.append(composee)
            composee = (char, change)
        else:
            blocked.append((char, change))
            last_class = ccc
    if composee is not None:
        out.append(composee)
    out.extend(blocked)
    return out


def compose(first: str, second: str) -> str | None:
    """The primary composite of two characters (Hangul syllables included), if any."""
    a, b = ord(first), ord(second)
    if _L_BASE <= a < _L_BASE + _L_COUNT and _V_BASE <= b < _V_BASE + _V_COUNT:
        return chr(_S_BASE + ((a - _L_BASE) * _V_COUNT + (b - _V_BASE)) * _T_COUNT)
    if (_S_BASE <= a < _S_BASE + _S_COUNT and (a - _S_BASE) % _T_COUNT == 0
            and _T_BASE < b < _T_BASE + _T_COUNT):
        return chr(a + b - _T_BASE)
    return _composition_table().get((first, second))


@cache
def _composition_table() -> dict[tuple[str, str], str]:
    """Every canonical decomposition into two characters whose composite is in NFC (not
    excluded from composition), inert code points left out."""
    table: dict[tuple[str, str], str] = {}
    for code in range(0x110000):
        char = chr(code)
        mapping = unicodedata.decomposition(char)
        if not mapping or mapping.startswith("<") or char in _INERT:
            continue
        fields = mapping.split()
        if len(fields) == 2 and unicodedata.is_normalized("NFC", char):
            table[(chr(int(fields[0], 16)), chr(int(fields[1], 16)))] = char
    return table
