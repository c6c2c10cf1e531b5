"""Normalizers, each on a NormalizedText: ``Sequence``, ``Prepend``, ``Replace``, the
Unicode forms ``NFC``, ``NFD``, ``NFKC``, ``NFKD``, ``Lowercase`` and ``Strip``.

JSON shapes are upstream's (tokenizers 0.23.1): the unit normalizers (the four forms and
``Lowercase``) take no field and ignore any other; ``Strip`` requires the booleans
``strip_left`` and ``strip_right`` (``null`` is a wrong type, as upstream says) and
ignores other fields. How the Unicode ones align, and with which Unicode data:
``unicode_forms`` and docs/decisions/0025-unicode-normalizers.md.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Protocol

from .alignment import NormalizedText
from .errors import excerpt
from .jsonfields import Node
from .patterns import Pattern, pattern_from_json
from .unicode_forms import (
    FORMS,
    Form,
    is_whitespace,
    lowercase_changes,
    normalization_changes,
    tables_hold,
)
from .unicode_tables import UNIDATA_VERSION

SUPPORTED = ("Sequence", "Prepend", "Replace", *FORMS, "Lowercase", "Strip")
_FORM_NAMED: dict[str, Form] = {form: form for form in FORMS}


class Normalizer(Protocol):
    def normalize(self, piece: NormalizedText) -> None: ...


@dataclass(frozen=True, slots=True)
class Prepend:
    prepend: str

    def normalize(self, piece: NormalizedText) -> None:
        piece.prepend(self.prepend)


@dataclass(frozen=True, slots=True)
class Replace:
    pattern: Pattern
    content: str

    def normalize(self, piece: NormalizedText) -> None:
        matches = [(a, b) for a, b, is_match in self.pattern.find_matches(piece.text) if is_match]
        piece.replace_ranges(matches, self.content)


@dataclass(frozen=True, slots=True)
class UnicodeForm:
    """``NFC``, ``NFD``, ``NFKC`` or ``NFKD`` over the whole piece (marks are reordered
    across character boundaries, as upstream does)."""

    form: Form

    def normalize(self, piece: NormalizedText) -> None:
        if not piece.text.isascii():  # ASCII never decomposes nor composes
            piece.transform(normalization_changes(piece.text, self.form))


@dataclass(frozen=True, slots=True)
class Lowercase:
    """Upstream's per-character lowercase (a multi-character lowercase, like that of
    ``İ``, aligns each extra character with its source)."""

    def normalize(self, piece: NormalizedText) -> None:
        piece.transform(lowercase_changes(piece.text))


@dataclass(frozen=True, slots=True)
class Strip:
    """Removes leading (``strip_left``) and/or trailing (``strip_right``) whitespace."""

    strip_left: bool
    strip_right: bool

    def normalize(self, piece: NormalizedText) -> None:
        piece.strip(self.strip_left, self.strip_right, is_whitespace)


@dataclass(frozen=True, slots=True)
class NormalizerSequence:
    normalizers: tuple[Normalizer, ...]

    def normalize(self, piece: NormalizedText) -> None:
        for normalizer in self.normalizers:
            normalizer.normalize(piece)


def normalize_str(normalizer: Normalizer | None, text: str) -> str:
    """The normalized form of a plain string (used for normalized added tokens)."""
    piece = NormalizedText.from_original(text)
    if normalizer is not None:
        normalizer.normalize(piece)
    return piece.text


def normalizer_from_json(node: Node) -> Normalizer | None:
    if node.is_null:
        return None
    kind = node.type_tag()
    if kind == "Sequence":
        return NormalizerSequence(
            tuple(_required(child) for child in node.field("normalizers").elements())
        )
    if kind == "Prepend":
        return Prepend(node.field("prepend").str_())
    if kind == "Replace":
        pattern = pattern_from_json(node.field("pattern"), "Replace")
        return Replace(pattern, node.field("content").str_())
    if kind == "Strip":
        return Strip(_required_bool(node, "strip_left"), _required_bool(node, "strip_right"))
    form = _FORM_NAMED.get(kind)
    if form is not None or kind == "Lowercase":
        _check_unicode_data(node, kind)
        return Lowercase() if form is None else UnicodeForm(form)
    node.fail(
        "unsupported-component",
        f"normalizer type {excerpt(kind)} is not reproduced (supported: {', '.join(SUPPORTED)})",
        "type",
    )


def _required_bool(node: Node, key: str) -> bool:
    """A boolean field that must be present; ``null`` is a wrong type, not an absence."""
    if key not in node.obj():
        node.fail("missing-field", f"required field {excerpt(key)} is missing", key)
    return Node(node.obj()[key], node.child_path(key)).bool_()


def _check_unicode_data(node: Node, kind: str) -> None:
    """The Unicode normalizers are reproduced with the Unicode data their measured tables
    hold for; under another Python's ``unicodedata`` they are refused by name."""
    if not tables_hold():  # pragma: no cover - only under a Python whose
        # unicodedata is not the one the measured tables hold for
        node.fail(
            "unsupported-component",
            f"normalizer type {excerpt(kind)} is reproduced with Unicode data "
            f"{UNIDATA_VERSION} only (this Python's unicodedata is "
            f"{unicodedata.unidata_version}; docs/decisions/0025-unicode-normalizers.md)",
            "type",
        )


def _required(node: Node) -> Normalizer:
    normalizer = normalizer_from_json(node)
    if normalizer is None:
        node.fail("invalid-type", "a normalizer in a Sequence cannot be null")
    return normalizer
