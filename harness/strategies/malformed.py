"""Malformed documents: one field broken in a way upstream's deserializer refuses.

Each malformation replaces one or two fields of a generated document by a fixed broken
value (a JSON shape serde rejects: an unknown ``type``, a missing or null field, a value
out of range). Upstream 0.23.1 refuses every one at load, and so does the reference (by
the rule and path its loader names): the two agree, and the reference's refusal paths are
exercised. Only the load is compared for such a document, so its inputs are drawn from
the well-formed document first. The values are fixed so that ``malformation_of`` can
read the kind back from a document (feature labels are read from the case itself).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

#: A JSON path as keys from the document's root (``("model", "type")``).
FieldPath = tuple[str, ...]


@dataclass(frozen=True)
class Malformation:
    """The broken values, each at its path; the rest of the document is kept."""

    fields: tuple[tuple[FieldPath, Any], ...]

    def apply(self, document: Mapping[str, Any]) -> dict[str, Any]:
        broken = dict(document)
        for path, value in self.fields:
            _set(broken, path, value)
        return broken

    def found_in(self, document: Mapping[str, Any]) -> bool:
        return all(_get(document, path) == value for path, value in self.fields)


def _set(document: dict[str, Any], path: FieldPath, value: Any) -> None:
    """``value`` at ``path``, copying each object on the way (the original is untouched)."""
    *parents, last = path
    node = document
    for key in parents:
        node[key] = dict(node[key])
        node = node[key]
    node[last] = value


_MISSING: Final = object()


def _get(document: Mapping[str, Any], path: FieldPath) -> Any:
    node: Any = document
    for key in path:
        if not isinstance(node, Mapping) or key not in node:
            return _MISSING
        node = node[key]
    return node


_METASPACE: Final = {"type": "Metaspace", "replacement": "\u2581", "split": True}
_NORMALIZED_AWAY: Final = "\u2062"  # INVISIBLE TIMES: deleted by the normalizer below

#: Every malformation, by the name its feature label carries.
MALFORMATIONS: Final[Mapping[str, Malformation]] = {
    # added_tokens: null (absent is an empty list; null is "invalid type: null")
    "added-tokens-null": Malformation(((("added_tokens",), None),)),
    # a normalized added token the normalizer deletes: an empty pattern
    "added-normalized-to-empty": Malformation((
        (("normalizer",), {"type": "Replace", "pattern": {"String": _NORMALIZED_AWAY},
                           "content": ""}),
        (("added_tokens",), [{"id": 0, "content": _NORMALIZED_AWAY, "single_word": False,
                              "lstrip": False, "rstrip": False, "normalized": True,
                              "special": False}]),
    )),
    "normalizer-unknown-type": Malformation(((("normalizer",), {"type": "NoSuchNormalizer"}),)),
    "normalizer-missing-field": Malformation(
        ((("normalizer",), {"type": "Strip", "strip_left": True}),)),
    "normalizer-null-step": Malformation(
        ((("normalizer",), {"type": "Sequence", "normalizers": [None]}),)),
    "pre-tokenizer-unknown-type": Malformation(
        ((("pre_tokenizer",), {"type": "NoSuchPreTokenizer"}),)),
    "pre-tokenizer-null-step": Malformation(
        ((("pre_tokenizer",), {"type": "Sequence", "pretokenizers": [None]}),)),
    "metaspace-unknown-scheme": Malformation(
        ((("pre_tokenizer",), {**_METASPACE, "prepend_scheme": "sometimes"}),)),
    "metaspace-prefix-space-mismatch": Malformation(
        ((("pre_tokenizer",), {**_METASPACE, "prepend_scheme": "first",
                               "add_prefix_space": False}),)),
    "byte-level-missing-field": Malformation(
        ((("pre_tokenizer",), {"type": "ByteLevel", "add_prefix_space": False}),)),
    "decoder-unknown-type": Malformation(((("decoder",), {"type": "NoSuchDecoder"}),)),
    "decoder-strip-overflow": Malformation(
        ((("decoder",), {"type": "Strip", "content": " ", "start": 2**64, "stop": 0}),)),
    "post-processor-unknown-type": Malformation(
        ((("post_processor",), {"type": "NoSuchPostProcessor"}),)),
    "template-piece-without-kind": Malformation((
        (("post_processor",), {"type": "TemplateProcessing", "single": [{}],
                               "pair": [{"Sequence": {"id": "A", "type_id": 0}}],
                               "special_tokens": {}}),
    )),
    "model-unknown-type": Malformation(((("model", "type"), "NoSuchModel"),)),
    "vocab-id-out-of-range": Malformation(((("model", "vocab"), {"a": -1}),)),
    "merge-not-a-pair": Malformation(((("model", "merges"), [["a", "b", "c"]]),)),
    "merge-forms-mixed": Malformation(((("model", "merges"), ["a b", ["a", "b"]]),)),
    "legacy-merge-three-parts": Malformation(((("model", "merges"), ["a b c"]),)),
    "dropout-out-of-range": Malformation(((("model", "dropout"), 1.5),)),
    "dropout-overflows-f32": Malformation(((("model", "dropout"), 1e300),)),
}


def malformation_of(document: Mapping[str, Any]) -> str | None:
    """The name of the malformation ``document`` carries, if any."""
    return next((name for name, m in MALFORMATIONS.items() if m.found_in(document)), None)
