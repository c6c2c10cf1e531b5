"""Traditional Mongolian script: which characters go to the morph track, and how a
Mongolian run splits into morphemes (decision 0014).

Every function here is pure and works on Python character offsets of the input, so the
spans it returns are already the offset contract's spans.
"""

from __future__ import annotations

from collections.abc import Iterator

#: NARROW NO-BREAK SPACE: joins a suffix to its stem; starts a suffix morpheme.
NNBSP = "\u202f"
#: MONGOLIAN VOWEL SEPARATOR: before a detached final a/e; an ordinary symbol.
MVS = "\u180e"
#: The free variation selectors FVS1-FVS3 and FVS4; ordinary symbols.
FVS = ("\u180b", "\u180c", "\u180d", "\u180f")
CONTROLS = (NNBSP, MVS, *FVS)

#: The Mongolian block and the Mongolian Supplement: the morph track's script.
MONGOLIAN_RANGES: tuple[tuple[int, int], ...] = ((0x1800, 0x18AF), (0x11660, 0x1167F))
#: Punctuation of both blocks (birga, ellipsis, comma, full stop, colon, four dots, todo
#: soft hyphen, sibe syllable boundary marker, manchu comma and full stop, nirugu, and the
#: whole Supplement, which holds only birga variants): each is a morpheme of its own.
PUNCTUATION_RANGES: tuple[tuple[int, int], ...] = ((0x1800, 0x180A), (0x11660, 0x1167F))

Span = tuple[int, int]


def is_mongolian(ch: str) -> bool:
    """A character of U+1800-U+18AF or U+11660-U+1167F (letters, digits, punctuation,
    MVS and the FVS included; NNBSP is not: it only joins a run between two of these)."""
    code = ord(ch)
    return 0x1800 <= code <= 0x18AF or 0x11660 <= code <= 0x1167F


def is_morph_punctuation(ch: str) -> bool:
    code = ord(ch)
    return 0x1800 <= code <= 0x180A or 0x11660 <= code <= 0x1167F


def mongolian_runs(text: str, start: int = 0, end: int | None = None) -> Iterator[Span]:
    """The maximal runs of the morph track in ``text[start:end]``.

    A run is a maximal stretch of Mongolian-script characters (``is_mongolian``), where an
    NNBSP joins the run when the character before it and the character after it, both
    inside ``[start, end)``, are Mongolian-script characters. Everything else of the range
    is the general track's.
    """
    stop = len(text) if end is None else end
    i = start
    while i < stop:
        if not is_mongolian(text[i]):
            i += 1
            continue
        j = i + 1
        while j < stop:
            ch = text[j]
            if is_mongolian(ch):
                j += 1
            elif ch == NNBSP and j + 1 < stop and is_mongolian(text[j + 1]):
                j += 2
            else:
                break
        yield (i, j)
        i = j


def morphemes(text: str, start: int = 0, end: int | None = None) -> list[Span]:
    """The morphemes of ``text[start:end]`` (a morph-track run, or any string the morph
    track is asked to encode on its own), in order, covering the range exactly.

    - An NNBSP starts a new morpheme (the suffix it introduces) and is its first symbol.
    - Each Mongolian punctuation character is a morpheme of its own.
    - MVS and the FVS are ordinary symbols of the morpheme they stand in; they never
      split one.

    Equivalent upstream pre-tokenizer (``harness/fixture_builders/morph_track.py``): a Sequence
    of Split(NNBSP, MergedWithNext) and Split(punctuation class, Isolated).
    """
    stop = len(text) if end is None else end
    out: list[Span] = []
    current = start
    for i in range(start, stop):
        ch = text[i]
        if ch == NNBSP:
            if current < i:
                out.append((current, i))
            current = i
        elif is_morph_punctuation(ch):
            if current < i:
                out.append((current, i))
            out.append((i, i + 1))
            current = i + 1
    if current < stop:
        out.append((current, stop))
    return out
