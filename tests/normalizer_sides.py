"""Both sides of a Unicode normalizer, code point by code point: the reference's normalizer
of a type, its normalized text and alignments, and upstream's (tokenizers imported where
used), over every code point or the affected ones. Shared by
tests/differential/test_unicode_normalizers.py and
tests/exhaustive/test_normalizers_every_code_point.py
(docs/decisions/0025-unicode-normalizers.md).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterator
from typing import Any

from harness.fixture_builders import unicode_tables as generator
from harness.fixture_builders.code_points import code_points
from implementation import normalizers as ref_normalizers
from implementation import unicode_forms
from implementation.alignment import NormalizedText
from implementation.jsonfields import Node
from implementation.normalizers import Lowercase, Normalizer, UnicodeForm, normalizer_from_json

FORMS = unicode_forms.FORMS

ALL = [chr(cp) for cp in code_points()]
#: Around each code point: alone, then as a mark after U+0345 (class 240), before U+0334
#: (class 1) and between a + U+0301 and U+0316 (reordering shows a combining class).
PROBES = (("", ""), *generator.PROBES)


def reference_of(kind: str) -> Normalizer:
    """The reference's normalizer of that type, as the loader builds it."""
    normalizer = normalizer_from_json(Node({"type": kind}))
    assert isinstance(normalizer, UnicodeForm | Lowercase)
    return normalizer


def ours_str(normalizer: Normalizer) -> Callable[[str], str]:
    return lambda text: ref_normalizers.normalize_str(normalizer, text)


def composition_parts() -> set[str]:
    """Both characters of every canonical decomposition into two."""
    parts: set[str] = set()
    for char in ALL:
        fields = unicodedata.decomposition(char).split()
        if len(fields) == 2 and not fields[0].startswith("<"):
            parts.update(chr(int(field, 16)) for field in fields)
    return parts


def affected(char: str, parts: set[str]) -> bool:
    """A code point some Unicode normalizer changes, reorders or composes with another.
    Any other code point is left as it is by Python's unicodedata alone and beside a mark,
    and by upstream too (test_tables_are_up_to_date: upstream differs from Python only
    where the tables say)."""
    return (unicodedata.combining(char) != 0 or char.lower() != char or char in parts
            or any(unicodedata.normalize(f, char) != char for f in FORMS)
            or unicode_forms.combining_class(char) != unicodedata.combining(char))


_PARTS = composition_parts()
AFFECTED = [c for c in ALL if affected(c, _PARTS)]


def upstream_alignments(normalizer: Any, text: str) -> list[tuple[str, tuple[int, int]]]:
    """Every normalized character of ``text`` with its original character span, as
    upstream's NormalizedString aligns it."""
    import tokenizers

    pre = tokenizers.PreTokenizedString(text)
    pre.normalize(normalizer.normalize)
    pre.split(lambda _, piece: piece.split(tokenizers.Regex("(?m)."), "isolated"))
    return [(s, o) for s, o, _ in pre.get_splits(offset_referential="original",
                                                 offset_type="char")]


def reference_alignments(normalizer: Normalizer, text: str
                         ) -> list[tuple[str, tuple[int, int]]]:
    piece = NormalizedText.from_original(text)
    normalizer.normalize(piece)
    return list(zip(piece.text, piece.alignments, strict=True))


def batches(texts: list[str], size: int = 512) -> Iterator[list[str]]:
    yield from generator.chunks(texts, size)
