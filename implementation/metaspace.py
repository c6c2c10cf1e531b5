"""SentencePiece's ``Metaspace`` family: the pre-tokenizer, the decoder, and the options both
read alike (``replacement``, ``prepend_scheme``, ``split``), as upstream deserializes them.

The pre-tokenizer turns every space into ``replacement``, prepends one per
``prepend_scheme`` and, with ``split``, cuts before each replacement (upstream's
``split(char, MergedWithNext)``). The decoder is validated like upstream and applied as the
identity: decision 0002 (docs/decisions/0002-metaspace-decoder-not-applied.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .alignment import NormalizedText
from .errors import excerpt
from .jsonfields import Node

PrependScheme = Literal["always", "first", "never"]


@dataclass(frozen=True, slots=True)
class MetaspaceOptions:
    """What a Metaspace pre-tokenizer or decoder object declares."""

    replacement: str
    prepend_scheme: PrependScheme = "always"
    split_on_replacement: bool = True


@dataclass(frozen=True, slots=True)
class MetaspacePreTokenizer:
    """``{"type": "Metaspace", ...}`` as a pre-tokenizer."""

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
    """Upstream's ``split(char, MergedWithNext)`` on a one-character delimiter: each
    delimiter opens a new piece (of consecutive delimiters only the last one joins what
    follows, the others stand alone)."""
    text = piece.text
    starts = [0, *(i for i, char in enumerate(text) if char == delimiter and i > 0)]
    ends = [*starts[1:], len(text)]
    return [piece.slice(a, b) for a, b in zip(starts, ends, strict=True) if a < b]


@dataclass(frozen=True, slots=True)
class MetaspaceDecoder:
    """``{"type": "Metaspace", ...}`` as a decoder: validated like upstream, applied as identity.

    Decision-byte-fallback rule 2: for a file without byte_fallback, a Metaspace
    decoder "is accepted and not applied, and Decode returns the escaped text".
    """

    replacement: str
    prepend_scheme: PrependScheme
    split: bool

    def decode_chain(self, tokens: list[str]) -> list[str]:
        return list(tokens)


def metaspace_options_from_json(node: Node) -> MetaspaceOptions:
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
    return MetaspaceOptions(replacement, scheme, split)


def metaspace_from_json(node: Node) -> MetaspacePreTokenizer:
    options = metaspace_options_from_json(node)
    return MetaspacePreTokenizer(options.replacement, options.prepend_scheme,
                                 options.split_on_replacement)


def metaspace_decoder_from_json(node: Node) -> MetaspaceDecoder:
    """Upstream deserializes the Metaspace decoder exactly like the pre-tokenizer."""
    options = metaspace_options_from_json(node)
    return MetaspaceDecoder(options.replacement, options.prepend_scheme,
                            options.split_on_replacement)
