"""Pinned witnesses by shape: the distinct ways a class shows, each pinned by its own
small case.

A report carries one witness per class, the smallest the run met; for a class that can
show in several distinct ways that one witness pins only one of them. The founding
decoder rule is the sharpest example: a witness with no decoder at all stays green for a
reference that accepts an extra step after ``Strip``. Each shape here is a hand-built
case (its document and inputs written out below; both sides' outcomes come from running
them at regeneration, never typed in) that pins one more way its class shows. Every
regeneration of ``oracles/divergences.json`` rebuilds these rows, and every conformance
run re-checks them like every other pinned witness.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core.case import Case

Json = dict[str, Any]


@dataclass(frozen=True)
class Shape:
    """One distinct way ``class_id`` shows, pinned by ``case``."""

    class_id: str
    name: str
    why: str
    case: Case

    @property
    def row_id(self) -> str:
        return f"div-{self.class_id}.{self.name}"


# -- small byte_fallback documents ------------------------------------------------------

_BYTES = {f"<0x{b:02X}>": 3 + b for b in range(256)}
_VOCAB = {"<unk>": 0, "<s>": 1, "</s>": 2, **_BYTES, "▁": 259, "a": 260, "b": 261,
          "▁a": 262, "ab": 263}
_MERGES = [["▁", "a"], ["a", "b"]]
_REPLACE: Json = {"type": "Replace", "pattern": {"String": "▁"}, "content": " "}
_STRIP: Json = {"type": "Strip", "content": " ", "start": 1, "stop": 0}
_CHAIN: list[Json] = [_REPLACE, {"type": "ByteFallback"}, {"type": "Fuse"}, _STRIP]
_METASPACE: Json = {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always",
                    "split": False}
_METASPACE_SPLIT: Json = {**_METASPACE, "split": True}
_SPECIALS = [{"id": i, "content": c, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True}
             for i, c in enumerate(("<unk>", "<s>", "</s>"))]
_TEMPLATE = {
    "type": "TemplateProcessing",
    "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
               {"Sequence": {"id": "A", "type_id": 0}}],
    "pair": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
             {"Sequence": {"id": "A", "type_id": 0}},
             {"SpecialToken": {"id": "</s>", "type_id": 0}},
             {"Sequence": {"id": "B", "type_id": 1}},
             {"SpecialToken": {"id": "</s>", "type_id": 1}}],
    "special_tokens": {t: {"id": t, "ids": [i], "tokens": [t]}
                       for t, i in (("<s>", 1), ("</s>", 2))},
}


def _document(decoder: Any, *, byte_fallback: bool = True, post: Any = None,
              pre: Any = None) -> Json:
    """A Llama-2-like document: Prepend/Replace normalizer, the full byte alphabet,
    ``decoder`` and ``post`` as given."""
    return {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": _SPECIALS,
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Prepend", "prepend": "▁"},
            {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]},
        "pre_tokenizer": pre, "post_processor": post, "decoder": decoder,
        "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>",
                  "continuing_subword_prefix": None, "end_of_word_suffix": None,
                  "fuse_unk": True, "byte_fallback": byte_fallback, "ignore_merges": False,
                  "vocab": _VOCAB, "merges": _MERGES},
    }


def _chain(*steps: Json) -> Json:
    return {"type": "Sequence", "decoders": list(steps)}


def _suffixed_byte_level_post() -> Json:
    """End-of-word suffix ``</w>`` under byte_fallback (a symbol without its piece falls
    back to the bytes of the character *and* of the suffix), Metaspace words, a right-
    stripping added token, and the template followed by a trimming ByteLevel
    post-processor."""
    document = _document(_chain(*_CHAIN), pre=_METASPACE_SPLIT, post={
        "type": "Sequence", "processors": [
            _TEMPLATE, {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
                        "use_regex": True}]})
    document["normalizer"] = None
    document["model"]["end_of_word_suffix"] = "</w>"
    document["model"]["vocab"] = {**_VOCAB, "▁</w>": 264, "▁b</w>": 265, "<|im_start|>": 266}
    document["added_tokens"] = [*_SPECIALS, {
        "id": 266, "content": "<|im_start|>", "single_word": False, "lstrip": False,
        "rstrip": True, "normalized": False, "special": True}]
    return document


_DECODER_SHAPE = "strict-decoder-shape"

#: Every declared shape, in a stable order.
SHAPES: tuple[Shape, ...] = (
    Shape(_DECODER_SHAPE, "missing-decoder",
          "byte_fallback with no decoder: $.decoder",
          Case(_document(None))),
    Shape(_DECODER_SHAPE, "other-type",
          "a decoder that is neither ByteFallback nor the Sequence: $.decoder",
          Case(_document({"type": "Fuse"}))),
    Shape(_DECODER_SHAPE, "step-out-of-order",
          "the chain's steps in another order: the first out of place, $.decoder.decoders[1]",
          Case(_document(_chain(_REPLACE, {"type": "Fuse"}, {"type": "ByteFallback"},
                                _STRIP)))),
    Shape(_DECODER_SHAPE, "extra-step-after-strip",
          "the chain with one more step after Strip: $.decoder.decoders[4]",
          Case(_document(_chain(*_CHAIN, {"type": "Fuse"})))),
    Shape(_DECODER_SHAPE, "steps-missing-at-end",
          "the chain without its Strip: $.decoder.decoders",
          Case(_document(_chain(*_CHAIN[:3])))),
    Shape(_DECODER_SHAPE, "metaspace-step",
          "a Metaspace step inside the chain under byte_fallback: $.decoder.decoders[0]",
          Case(_document(_chain(_METASPACE, {"type": "ByteFallback"}, {"type": "Fuse"})))),
    Shape("metaspace-decoder-not-applied", "bare",
          "a bare Metaspace decoder (no byte_fallback): accepted, not applied",
          Case(_document(_METASPACE, byte_fallback=False), id_runs=((262, 261),))),
    Shape("metaspace-decoder-not-applied", "in-sequence",
          "a Metaspace step inside a Sequence (no byte_fallback): accepted, not applied",
          Case(_document(_chain(_METASPACE, {"type": "Fuse"}), byte_fallback=False),
               id_runs=((262, 261),))),
    Shape("template-special-spans", "pair",
          "a pair through the template: each special token's span, both sequences",
          Case(_document(_chain(*_CHAIN), post=_TEMPLATE), pairs=(("a", "b"),))),
    Shape("strict-decode-unknown-id", "meets-strip-panic",
          "an unknown id after '▁' through the chain with Strip(' ', 1, 1): we refuse the "
          "id, upstream drops it and panics in Strip on the one-character text (two "
          "classes explain the divergence together)",
          Case(_document(_chain(_REPLACE, {"type": "ByteFallback"}, {"type": "Fuse"},
                                {**_STRIP, "stop": 1})),
               id_runs=((259, 999),))),
    Shape("byte-level-trimmed-offsets", "meets-decorated-byte-fallback",
          "three span classes on one encoding: the template's special, the byte pieces of a "
          "character and of the '</w>' suffix (decorated byte fallback), and the right-"
          "stripped added token the ByteLevel post-processor trims",
          Case(_suffixed_byte_level_post(), texts=("  \x7f<|im_start|> b",))),
)
