"""The Split family of pre-tokenizers: ``Split`` (a String or Oniguruma Regex pattern, one
of five delimiter behaviours, ``invert``), ``Digits``, ``Punctuation``, ``Whitespace`` and
``WhitespaceSplit``.

All of them are upstream's ``NormalizedString::split(pattern, behavior)`` on each piece:
the pattern (:mod:`.patterns`) cuts the piece's normalized text into contiguous
``(start, end, is_match)`` parts, the behaviour decides which parts are kept and which are
joined (:func:`kept_ranges`), and every kept part is a slice of the piece, so its span is
the original character span of its normalized characters (offset contract). Empty parts
are dropped, as upstream's ``PreTokenizedString::split`` drops them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import regex  # type: ignore[import-untyped, unused-ignore]

from .alignment import NormalizedText
from .char_class_tables import REGEX_MODULE_VERSION
from .char_classes import NUMERIC, PUNCTUATION, WHITE_SPACE_ITEMS, WHITESPACE_WORDS
from .errors import excerpt, excerpt_keys
from .jsonfields import Node
from .patterns import Pattern, pattern_from_json

Behavior = Literal["Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous"]
BEHAVIORS: tuple[Behavior, ...] = (
    "Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous")


def kept_ranges(parts: list[tuple[int, int, bool]], behavior: Behavior) -> list[tuple[int, int]]:
    """The ranges ``NormalizedString::split`` keeps, folding the parts as upstream does."""
    if behavior == "Isolated":
        return [(start, end) for start, end, _ in parts]
    if behavior == "Removed":
        return [(start, end) for start, end, is_match in parts if not is_match]
    out: list[list[int]] = []
    previous = False
    if behavior == "MergedWithNext":
        for start, end, is_match in reversed(parts):
            if is_match and not previous and out:
                out[-1][0] = start
            else:
                out.append([start, end])
            previous = is_match
        out.reverse()
    else:
        for start, end, is_match in parts:
            joins = (is_match == previous) if behavior == "Contiguous" else (
                is_match and not previous)
            if joins and out:
                out[-1][1] = end
            else:
                out.append([start, end])
            previous = is_match
    return [(start, end) for start, end in out]


@dataclass(frozen=True, slots=True)
class SplitPreTokenizer:
    """One ``NormalizedString::split`` per piece; also Digits, Punctuation, Whitespace and
    WhitespaceSplit, which are such a split with a fixed pattern and behaviour."""

    pattern: Pattern
    behavior: Behavior
    invert: bool = False

    def split(self, pieces: list[NormalizedText]) -> list[NormalizedText]:
        out: list[NormalizedText] = []
        for piece in pieces:
            parts = self.pattern.find_matches(piece.text, self.invert)
            out.extend(piece.slice(start, end)
                       for start, end in kept_ranges(parts, self.behavior) if start < end)
        return out


# -- the fixed patterns -------------------------------------------------------------------------

#: Rust's ``char::is_numeric``, one character a match (upstream's ``Fn(char) -> bool``
#: pattern), and so on.
_NUMERIC = Pattern.of_regex(NUMERIC)
_PUNCTUATION = Pattern.of_regex(PUNCTUATION)
_WHITE_SPACE = Pattern.of_regex(f"[{WHITE_SPACE_ITEMS}]")
_WHITESPACE_WORDS = Pattern.of_regex(WHITESPACE_WORDS)


def digits(individual_digits: bool) -> SplitPreTokenizer:
    """``{"type": "Digits", "individual_digits": b}`` (required)."""
    return SplitPreTokenizer(_NUMERIC, "Isolated" if individual_digits else "Contiguous")


def punctuation(behavior: Behavior = "Isolated") -> SplitPreTokenizer:
    return SplitPreTokenizer(_PUNCTUATION, behavior)


def whitespace() -> SplitPreTokenizer:
    """``\\w+|[^\\w\\s]+`` (Rust regex crate), inverted and removed: runs of word
    characters and runs of other non-space characters are kept."""
    return SplitPreTokenizer(_WHITESPACE_WORDS, "Removed", invert=True)


def whitespace_split() -> SplitPreTokenizer:
    return SplitPreTokenizer(_WHITE_SPACE, "Removed")


# -- JSON ----------------------------------------------------------------------------------------

def behavior_from_json(node: Node, *, empty_object_as_unit: bool = False) -> Behavior:
    """A ``SplitDelimiterBehavior``: ``"Isolated"``, or serde's map form ``{"Isolated":
    null}`` (Punctuation's, read through a flattened struct, also ``{"Isolated": {}}``)."""
    value = node.value
    name_node = node
    if isinstance(value, dict):
        keys = list(value)
        if len(keys) != 1:
            node.fail("invalid-value", "expected a behavior name or an object with a single "
                      f"key; got keys {excerpt_keys(keys)}")
        name_node = Node(keys[0], node.child_path(keys[0]))
        unit = value[keys[0]]
        if not (unit is None or (empty_object_as_unit and unit == {})):
            node.fail("invalid-type", f"the behavior {excerpt(keys[0])} takes no value, got "
                      f"{excerpt(unit)}", keys[0])
    elif not isinstance(value, str):
        node.fail("invalid-type", f"expected a behavior name, got {excerpt(value)}")
    name = name_node.value
    if name not in BEHAVIORS:
        name_node.fail("invalid-value",
                       f"behavior {excerpt(name)} is not one of {', '.join(BEHAVIORS)}")
    return name  # type: ignore[no-any-return]


#: The Split-family types, each read from its JSON object.
SPLIT_FAMILY = ("Split", "Digits", "Punctuation", "Whitespace", "WhitespaceSplit")


def split_family_from_json(node: Node) -> SplitPreTokenizer:
    """A pre-tokenizer of :data:`SPLIT_FAMILY` (its ``type`` already read). Refused as
    ``unsupported-component`` under a ``regex`` module other than the one the character
    classes were measured with: its Unicode tables would decide, unmeasured."""
    kind = node.type_tag()
    if regex.__version__ != REGEX_MODULE_VERSION:  # pragma: no cover - the pinned module runs
        node.fail("unsupported-component", f"{kind} needs the regex module "
                  f"{REGEX_MODULE_VERSION} its character classes were measured with; this is "
                  f"{excerpt(regex.__version__)} (docs/decisions/0023)", "type")
    if kind == "Split":
        return split_from_json(node)
    if kind == "Digits":
        return digits(node.field("individual_digits").bool_())
    if kind == "Punctuation":
        return punctuation_from_json(node)
    if kind == "Whitespace":
        return whitespace()
    if kind == "WhitespaceSplit":
        return whitespace_split()
    node.fail(  # pragma: no cover - pre_tokenizers dispatches only SPLIT_FAMILY types here
        "invalid-value", f"{excerpt(kind)} is not one of {', '.join(SPLIT_FAMILY)}", "type")


def split_from_json(node: Node) -> SplitPreTokenizer:
    """``{"type": "Split", "pattern": ..., "behavior": ..., "invert": b}``, all required;
    other keys are ignored, as upstream ignores them."""
    pattern = pattern_from_json(node.field("pattern"), "Split")
    behavior = behavior_from_json(node.field("behavior"))
    invert = node.field("invert").bool_()
    return SplitPreTokenizer(pattern, behavior, invert)


def punctuation_from_json(node: Node) -> SplitPreTokenizer:
    """``{"type": "Punctuation", "behavior": ...}``: absent means Isolated; null is
    refused, as upstream refuses it."""
    if "behavior" not in node.obj():
        return punctuation()
    value = Node(node.obj()["behavior"], node.child_path("behavior"))
    if value.is_null:
        value.fail("invalid-type", "behavior cannot be null")
    return punctuation(behavior_from_json(value, empty_object_as_unit=True))
