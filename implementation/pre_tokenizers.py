"""Pre-tokenizers: ``Metaspace`` (:mod:`.metaspace`), ``ByteLevel`` (:mod:`.byte_level`), the
Split family (``Split`` with a String or an Oniguruma Regex pattern, ``Digits``,
``Punctuation``, ``Whitespace``, ``WhitespaceSplit``: :mod:`.split`) and ``Sequence``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from .alignment import NormalizedText
from .byte_level import ByteLevelPreTokenizer, byte_level_from_json
from .errors import excerpt
from .jsonfields import Node
from .metaspace import metaspace_from_json
from .split import SPLIT_FAMILY, split_family_from_json

SUPPORTED = ("Metaspace", "Sequence", "ByteLevel", *SPLIT_FAMILY)


class PreTokenizer(Protocol):
    def split(self, pieces: list[NormalizedText]) -> list[NormalizedText]: ...


@dataclass(frozen=True, slots=True)
class PreTokenizerSequence:
    pretokenizers: tuple[PreTokenizer, ...]

    def split(self, pieces: list[NormalizedText]) -> list[NormalizedText]:
        for pretokenizer in self.pretokenizers:
            pieces = pretokenizer.split(pieces)
        return pieces


def pre_tokenizer_from_json(node: Node) -> PreTokenizer | None:
    if node.is_null:
        return None
    kind = node.type_tag()
    if kind == "Metaspace":
        return metaspace_from_json(node)
    if kind == "ByteLevel":
        return ByteLevelPreTokenizer(byte_level_from_json(node))
    if kind in SPLIT_FAMILY:
        return split_family_from_json(node)
    if kind == "Sequence":
        children: list[PreTokenizer] = []
        for child in node.field("pretokenizers").elements():
            pre = pre_tokenizer_from_json(child)
            if pre is None:
                child.fail("invalid-type", "a pre-tokenizer in a Sequence cannot be null")
            children.append(pre)
        return PreTokenizerSequence(tuple(children))
    node.fail(
        "unsupported-component",
        f"pre-tokenizer type {excerpt(kind)} is not reproduced (supported: {', '.join(SUPPORTED)})",
        "type",
    )
