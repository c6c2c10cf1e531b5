"""MorphBPE: BPE with byte fallback applied within each morpheme, never across one.

The model itself is the reference's ``BpeModel`` (the same merging, byte fallback and
spans as the general track); this module only decides the units it runs on
(``script.morphemes``) and maps its in-morpheme spans to the input.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .. import bpe_loader
from ..bpe import BpeModel
from ..decoders import ByteFallback
from ..jsonfields import Node
from .script import morphemes


@dataclass(frozen=True, slots=True)
class MorphToken:
    """One MorphBPE token: its id *in the morph model*, its string, its half-open
    character span in the encoded string and the index of its morpheme there."""

    id: int
    value: str
    start: int
    end: int
    morpheme: int


class MorphBPE:
    """A loaded MorphBPE model. Build it with :meth:`from_json`."""

    def __init__(self, model: BpeModel) -> None:
        self.model = model
        self._decoder = ByteFallback()

    @classmethod
    def from_json(cls, node: Node) -> MorphBPE:
        """Load a BPE ``model`` object (the ``model`` of a tokenizer.json) strictly.

        Refused (``LoadError`` naming the JSON path): everything the reference refuses in a
        BPE model, and a model without ``byte_fallback`` or with a word decoration.
        """
        obj = node.obj()
        if obj.get("byte_fallback") is not True:
            node.fail("morph-byte-fallback-required",
                      "the morph model must declare byte_fallback: true (with all 256 "
                      "<0xXX> pieces), so that every morpheme can be encoded",
                      "byte_fallback")
        for key in ("continuing_subword_prefix", "end_of_word_suffix"):
            if obj.get(key) is not None:
                node.fail("morph-decoration-unsupported",
                          f"{key} is not supported by MorphBPE (decode could not invert it)",
                          key)
        return cls(bpe_loader.load_bpe_model(node, strict=True))

    @classmethod
    def from_dict(cls, model: Mapping[str, Any], path: str = "$") -> MorphBPE:
        return cls.from_json(Node(dict(model), path))

    # -- the vocabulary -----------------------------------------------------------------
    def size(self) -> int:
        """One past the largest id: the width of the morph range in the unified space."""
        return max(self.model.vocab.values(), default=-1) + 1

    def token_to_id(self, token: str) -> int | None:
        return self.model.token_to_id(token)

    def id_to_token(self, token_id: int) -> str | None:
        return self.model.id_to_token(token_id)

    # -- encoding -----------------------------------------------------------------------
    def encode(self, text: str, start: int = 0, end: int | None = None) -> list[MorphToken]:
        """Tokenize ``text[start:end]``: morphemes, then BPE within each one.

        Spans are offsets into ``text``. Nothing is normalized, so each token covers
        exactly the characters it was built from — MVS, FVS and the morpheme's leading
        NNBSP included — and no token spans two morphemes.
        """
        out: list[MorphToken] = []
        for index, (m_start, m_end) in enumerate(morphemes(text, start, end)):
            for t in self.model.tokenize(text[m_start:m_end]):
                out.append(MorphToken(t.id, t.value, m_start + t.start, m_start + t.end, index))
        return out

    # -- decoding -----------------------------------------------------------------------
    def decode_tokens(self, tokens: list[str]) -> str:
        """Token strings back to text: byte pieces to characters (upstream's ByteFallback:
        an invalid byte run gives one U+FFFD per byte), then concatenation."""
        return "".join(self._decoder.decode_chain(tokens))
