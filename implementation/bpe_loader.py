"""Loading the BPE model: the ``model`` object of a tokenizer.json -> a ``BpeModel``, every
check in the order that decides which refusal a file with several faults gets (rule ids
and JSON paths: ``docs/spec/``; the reference's own refusals: decisions 0004, 0005, 0006,
0011). The model itself (merging, byte fallback, caches) is ``bpe.py``."""

from __future__ import annotations

import itertools
import math
import operator
import re
import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .bpe import BYTE_PIECES, BpeModel, byte_piece
from .errors import LoadError, clip, excerpt
from .jsonfields import Node, json_type

_LEGACY_VERSION_PREFIX = "#version"
_BYTE_PIECE = re.compile(r"<0x([0-9A-Fa-f]{2})>")
_LOWER_HEX = frozenset("abcdef")


@dataclass(frozen=True, slots=True)
class _Merge:
    """The merge rules as read from JSON, before validation, as columns: left parts, right
    parts, and the index in ``$.model.merges`` of each (a legacy ``#version`` line takes an
    index and no rank)."""

    left: list[str]
    right: list[str]
    index: list[int]


def load_bpe_model(node: Node, *, strict: bool,
                   before_build: Callable[[], None] | None = None) -> BpeModel:
    """Load the ``model`` object of a tokenizer.json (``node.path == "$.model"``).

    Every check runs first, in the order that decides which refusal a file with several
    faults gets; then ``before_build`` (the loader's other components and their
    refusals, the founding decoder-shape rule among them); only then are the lookup
    tables built (the merge map, the reverse vocabulary), the bulk of the load."""
    declared_byte_fallback(node)
    vocab_node = node.field("vocab")
    vocab = _parse_vocab(vocab_node)
    merges = _parse_merges(node.field("merges"))
    unk_token = node.optional_str("unk_token")
    prefix = node.optional_str("continuing_subword_prefix")
    suffix = node.optional_str("end_of_word_suffix")
    fuse_unk = node.optional_bool("fuse_unk")
    byte_fallback = node.optional_bool("byte_fallback")
    ignore_merges = node.optional_bool("ignore_merges")
    dropout_node = node.field("dropout", required=False)
    dropout = _parse_dropout(dropout_node)
    merge_ids = _merge_ids(vocab, merges, prefix, node.field("merges"))
    # The refusals below are this reference's own: upstream accepts all of these.
    _check_unique_ids(vocab, vocab_node)
    _check_dropout_deterministic(dropout, dropout_node)
    if strict and unk_token is not None and unk_token not in vocab:
        node.fail(
            "unk-token-not-in-vocabulary",
            f"unk_token {excerpt(unk_token)} is not in the vocabulary",
            "unk_token",
        )
    if strict and byte_fallback:
        _check_byte_alphabet(vocab, vocab_node)
    if before_build is not None:
        before_build()
    return BpeModel(
        vocab=dict(vocab),  # a copy: the document's own dict stays the caller's
        merges=_merge_map(*merge_ids),
        unk_token=unk_token,
        fuse_unk=fuse_unk,
        byte_fallback=byte_fallback,
        continuing_subword_prefix=prefix,
        end_of_word_suffix=suffix,
        ignore_merges=ignore_merges,
        dropout=dropout,
        strict=strict,
        junctions=(_junctions(merges) if prefix is None and suffix is None else None),
    )


def declared_byte_fallback(node: Node) -> bool:
    """Whether the ``model`` object declares ``byte_fallback`` (its type checked first: an
    object, of type BPE if a type is given), read before anything is built: the founding
    decoder-shape rule depends on it alone."""
    node.obj()
    if node.has("type"):
        type_node = node.field("type")
        if type_node.str_() != "BPE":
            type_node.fail(
                "unsupported-component", f"model type {excerpt(type_node.value)} is not BPE"
            )
    return node.optional_bool("byte_fallback")


# -- loading helpers ----------------------------------------------------------------
# Each helper has a fast path of C-level passes (map, zip, set, dict) for the common case
# of a valid file; only where it finds something wrong does a loop in element order run,
# to name the first offending element and its rule exactly as before.
_U32 = 2**32


def _parse_vocab(node: Node) -> dict[str, int]:
    raw = node.obj()
    values = raw.values()
    if not raw or (set(map(type, values)) == {int} and min(values) >= 0
                   and max(values) < _U32):
        return raw  # valid as it is (copied when the model is built)
    vocab: dict[str, int] = {}
    for token, token_id in raw.items():
        if type(token_id) is int and 0 <= token_id < _U32:
            vocab[token] = token_id  # what Node.u32() accepts, without a Node per entry
        else:
            vocab[token] = Node(token_id, node.child_path(token)).u32()  # refuses it
    return vocab  # pragma: no cover - u32() refuses the first bad entry


def _parse_merges(node: Node) -> _Merge:
    """Pair form ``[["a","b"], ...]`` or legacy form ``["a b", ...]`` (untagged, never mixed).

    ``_Merge.path`` is the index of the element in ``node`` (its path is built only to
    fail: ``node.child_path(index)``)."""
    if not isinstance(node.value, list):
        node.fail("invalid-type", f"expected an array, got {json_type(node.value)}")
    elements: list[Any] = node.value
    if elements and isinstance(elements[0], str):
        return _parse_legacy_merges(node, elements)
    if set(map(type, elements)) <= {list} and set(map(len, elements)) <= {2}:
        lefts = list(map(_FIRST, elements))
        rights = list(map(_SECOND, elements))
        if set(map(type, lefts)) <= {str} and set(map(type, rights)) <= {str}:
            return _Merge(lefts, rights, list(range(len(elements))))
    for index, value in enumerate(elements):
        if not (
            isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value)
        ):
            node.fail("merge-malformed", "expected a pair of strings like all other merges",
                      index)
    raise AssertionError("unreachable")  # pragma: no cover - the loop refuses one


def _parse_legacy_merges(node: Node, elements: list[Any]) -> _Merge:
    if not set(map(type, elements)) <= {str}:
        for index, value in enumerate(elements):
            if not isinstance(value, str):
                node.fail("merge-malformed", "expected an 'a b' string like all other merges",
                          index)
    versions = list(map(str.startswith, elements, itertools.repeat(_LEGACY_VERSION_PREFIX)))
    indices = list(itertools.compress(range(len(elements)), map(operator.not_, versions)))
    lines = [elements[i] for i in indices] if len(indices) != len(elements) else elements
    if not lines:
        return _Merge([], [], [])
    if set(map(str.count, lines, itertools.repeat(" "))) <= {1}:
        # Every line holds one space: split all of them at once (no list per line).
        parts = " ".join(lines).split(" ")
        return _Merge(parts[0::2], parts[1::2], indices)
    for rank, (index, line) in enumerate(zip(indices, lines, strict=True)):
        if line.count(" ") != 1:
            node.fail(
                "merge-malformed",
                f"legacy merge {excerpt(line)} does not split on ' ' into exactly "
                f"two parts (upstream: Merges text file invalid at line {rank + 1})",
                index,
            )
    raise AssertionError("unreachable")  # pragma: no cover - the loop refuses one


def _junctions(merges: _Merge) -> frozenset[str]:
    """The last character of every merge's left part followed by the first of its right."""
    return frozenset(map(operator.add, map(_LAST_CHAR, merges.left),
                         map(_FIRST_CHAR, merges.right)))


_FIRST_CHAR = operator.itemgetter(slice(None, 1))
_LAST_CHAR = operator.itemgetter(slice(-1, None))
_FIRST = operator.itemgetter(0)
_SECOND = operator.itemgetter(1)


def _parse_dropout(node: Node) -> float | None:
    """``None`` when off (absent, null, 0 after f32 rounding); range-checked like upstream."""
    if node.is_null:
        return None
    value = _to_f32(node.number())
    if not 0.0 <= value <= 1.0:
        node.fail("dropout-out-of-range", f"dropout {excerpt(node.value)} is outside [0, 1]")
    return None if value == 0.0 else value


def _to_f32(value: float) -> float:
    """Round like serde's f64 -> f32 conversion (overflow goes to infinity)."""
    try:
        result: float = struct.unpack("f", struct.pack("f", value))[0]
    except OverflowError:
        return math.copysign(math.inf, value)
    return result


def _check_dropout_deterministic(dropout: float | None, node: Node) -> None:
    if dropout is not None and dropout != 1.0:
        node.fail(
            "dropout-nondeterministic",
            f"dropout {excerpt(node.value)} draws merges from an unseeded RNG upstream; "
            "only 0 (off) and 1 (no merges) are reproducible",
        )


def _merge_ids(
    vocab: dict[str, int], merges: _Merge, prefix: str | None, node: Node
) -> tuple[list[int], list[int], list[int]]:
    """Validate each merge in order (first failure wins): the ids of the left parts, the
    right parts and the results."""
    lefts, rights = merges.left, merges.right
    get = vocab.get
    left_ids = list(map(get, lefts))
    right_ids = list(map(get, rights))
    if prefix is None:
        results = list(map(operator.add, lefts, rights))
    else:  # rare (WordPiece-like files): one merge at a time, in order
        prefix_len = len(prefix.encode())
        results = []
        for left, right, index in zip(lefts, rights, merges.index, strict=True):
            path = node.child_path(index)
            _merge_part_id(vocab, left, path)
            _merge_part_id(vocab, right, path)
            results.append(left + _cut_prefix(right, prefix_len, path))
    result_ids = list(map(get, results))
    if None in left_ids or None in right_ids or None in result_ids:
        for left, right, index, result, left_id, right_id, result_id in zip(
                lefts, rights, merges.index, results, left_ids, right_ids, result_ids,
                strict=True):
            path = node.child_path(index)
            if left_id is None:
                _merge_part_id(vocab, left, path)
            if right_id is None:
                _merge_part_id(vocab, right, path)
            if result_id is None:
                raise LoadError(
                    "merge-out-of-vocabulary",
                    path,
                    f"Token `{clip(result)}` out of vocabulary (the result of merging "
                    f"{excerpt(left)} and {excerpt(right)})",
                )
    return left_ids, right_ids, result_ids  # type: ignore[return-value]


def _merge_map(left_ids: list[int], right_ids: list[int], result_ids: list[int]
               ) -> dict[int, int]:
    """Pair key -> ``rank << 32 | new id``; the last rank of a pair wins."""
    keys = map(operator.or_, map(operator.lshift, left_ids, itertools.repeat(32)), right_ids)
    values = map(operator.or_, map(operator.lshift, itertools.count(), itertools.repeat(32)),
                 result_ids)
    return dict(zip(keys, values, strict=False))


def _merge_part_id(vocab: dict[str, int], part: str, path: str) -> int:
    part_id = vocab.get(part)
    if part_id is None:
        raise LoadError("merge-out-of-vocabulary", path, f"Token `{clip(part)}` out of vocabulary")
    return part_id


def _cut_prefix(right: str, prefix_len: int, path: str) -> str:
    """Upstream cuts ``prefix_len`` bytes off the right part, whether or not it has the prefix."""
    raw = right.encode()
    if len(raw) < prefix_len:
        raise LoadError(
            "merge-prefix-underflow",
            path,
            f"merge right part {excerpt(right)} is {len(raw)} bytes, shorter than the "
            f"{prefix_len}-byte continuing_subword_prefix (upstream panics)",
        )
    try:
        return raw[prefix_len:].decode()
    except UnicodeDecodeError:
        raise LoadError(
            "merge-prefix-splits-character",
            path,
            f"cutting {prefix_len} bytes (the continuing_subword_prefix length) off "
            f"{excerpt(right)} splits a UTF-8 character (upstream builds an invalid string)",
        ) from None


def _check_unique_ids(vocab: dict[str, int], node: Node) -> None:
    if len(set(vocab.values())) == len(vocab):
        return
    seen: dict[int, str] = {}
    for token, token_id in vocab.items():
        other = seen.setdefault(token_id, token)
        if other != token:
            node.fail(
                "duplicate-id",
                f"{excerpt(token)} and {excerpt(other)} share id {token_id} "
                "(upstream keeps one at random)",
                token,
            )


#: Every spelling of a byte piece with a lower-case hex digit (what _BYTE_PIECE matches,
#: upper-case spellings aside): looked up, so that a valid vocabulary is not scanned.
_LOWER_CASE_PIECES: tuple[str, ...] = tuple(
    f"<0x{a}{b}>" for a in "0123456789ABCDEFabcdef" for b in "0123456789ABCDEFabcdef"
    if not _LOWER_HEX.isdisjoint(a + b))


def _check_byte_alphabet(vocab: dict[str, int], node: Node) -> None:
    """Strict byte_fallback: no lower-case byte piece, and all 256 upper-case ones present."""
    if not any(map(vocab.__contains__, _LOWER_CASE_PIECES)) and all(
            map(vocab.__contains__, BYTE_PIECES)):
        return
    for token in vocab:
        match = _BYTE_PIECE.fullmatch(token)
        if match is not None and not _LOWER_HEX.isdisjoint(match.group(1)):
            node.fail(
                "byte-piece-lowercase",
                f"byte piece {excerpt(token)} is spelled in lower case; byte fallback only "
                f"ever looks up {byte_piece(int(match.group(1), 16))!r}",
                token,
            )
    for piece in BYTE_PIECES:
        if piece not in vocab:
            node.fail(
                "byte-alphabet-incomplete",
                f"byte_fallback is declared but {piece!r} is missing from the "
                "vocabulary (all 256 <0xXX> pieces are required)",
            )
