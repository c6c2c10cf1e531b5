"""Pre-tokenizers: ``Metaspace`` (every ``prepend_scheme`` x ``split``), ``ByteLevel``, the
Split family (``Split`` with a String or an Oniguruma Regex pattern, ``Digits``,
``Punctuation``, ``Whitespace``, ``WhitespaceSplit``: :mod:`.split`) and ``Sequence``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from .alignment import NormalizedText
from .byte_level import ByteLevelPreTokenizer, byte_level_from_json
from .errors import excerpt
from .jsonfields import Node
from .split import SPLIT_FAMILY, Pattern, find_matches, kept_ranges, split_family_from_json

PrependScheme = Literal["always", "first", "never"]
SUPPORTED = ("Metaspace", "Sequence", "ByteLevel", *SPLIT_FAMILY)


class PreTokenizer(Protocol):
    def split(self, pieces: list[NormalizedText]) -> list[NormalizedText]: ...


@dataclass(frozen=True, slots=True)
class Metaspace:
    replacement: str
    prepend_scheme: PrependScheme = "always"
    split_on_replacement: bool = True

    def split(self, pieces: list[NormalizedText]) -> list[NormalizedText]:
        out: list[NormalizedText] = []
        for piece in pieces:
            out.extend(p for p in self._split_one(piece) if p.text)
        return out

    def _split_one(self, piece: NormalizedText) -> list[NormalizedText]:
        text = piece.text
        piece.replace_ranges([(i, i + 1) for i, c in enumerate(text) if c == " "],
                             self.replacement)
        if not piece.text.startswith(self.replacement) and (
            self.prepend_scheme == "always"
            or (self.prepend_scheme == "first" and piece.original_start == 0)
        ):
            piece.prepend(self.replacement)
        if not self.split_on_replacement:
            return [piece]
        return _split_merged_with_next(piece, self.replacement)


def _split_merged_with_next(piece: NormalizedText, delimiter: str) -> list[NormalizedText]:
    """Upstream's ``split(char, MergedWithNext)``: each delimiter opens a new piece,
    except that of consecutive delimiters only the last one joins what follows."""
    parts = find_matches(Pattern.of_literal(delimiter), piece.text)
    return [piece.slice(a, b) for a, b in kept_ranges(parts, "MergedWithNext") if a < b]


@dataclass(frozen=True, slots=True)
class PreTokenizerSequence:
    pretokenizers: tuple[PreTokenizer, ...]

    def split(self, pieces: list[NormalizedText]) -> list[NormalizedText]:
        for pretokenizer in self.pretokenizers:
            pieces = pretokenizer.split(pieces)
        return pieces


def metaspace_from_json(node: Node) -> Metaspace:
    """Shared by the pre-tokenizer and the decoder: upstream deserializes both alike."""
    replacement = node.field("replacement").char()
    scheme: PrependScheme = "always"
    if "prepend_scheme" in node.obj():  # present means a string: upstream refuses null here
        scheme_node = Node(node.obj()["prepend_scheme"], node.child_path("prepend_scheme"))
        value = scheme_node.str_()
        if value not in ("always", "first", "never"):
            scheme_node.fail("invalid-value",
                             f"prepend_scheme {excerpt(value)} is not one of always, first, never")
        scheme = value  # type: ignore[assignment]
    add_prefix_space = node.field("add_prefix_space", required=False)
    if not add_prefix_space.is_null and add_prefix_space.bool_() is False and scheme != "never":
        add_prefix_space.fail("invalid-value",
                              "add_prefix_space does not match declared prepend_scheme")
    split = node.optional_bool("split", default=True)
    node.optional_str("str_rep")  # ignored upstream, but must be a string when present
    return Metaspace(replacement, scheme, split)


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
