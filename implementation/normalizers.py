"""Normalizers: ``Sequence``, ``Prepend``, ``Replace``, each on a NormalizedText."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from .alignment import NormalizedText
from .errors import excerpt
from .jsonfields import Node
from .patterns import ReplacePattern, parse_replace_pattern

SUPPORTED = ("Sequence", "Prepend", "Replace")


class Normalizer(Protocol):
    def normalize(self, piece: NormalizedText) -> None: ...


@dataclass(frozen=True, slots=True)
class Prepend:
    prepend: str

    def normalize(self, piece: NormalizedText) -> None:
        piece.prepend(self.prepend)


@dataclass(frozen=True, slots=True)
class Replace:
    pattern: ReplacePattern
    content: str

    def normalize(self, piece: NormalizedText) -> None:
        matches = [(a, b) for a, b, is_match in self.pattern.find_matches(piece.text) if is_match]
        piece.replace_ranges(matches, self.content)


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
        return Replace(parse_replace_pattern(node.field("pattern")), node.field("content").str_())
    node.fail(
        "unsupported-component",
        f"normalizer type {excerpt(kind)} is not reproduced (supported: {', '.join(SUPPORTED)})",
        "type",
    )


def _required(node: Node) -> Normalizer:
    normalizer = normalizer_from_json(node)
    if normalizer is None:
        node.fail("invalid-type", "a normalizer in a Sequence cannot be null")
    return normalizer
