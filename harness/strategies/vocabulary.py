"""BPE vocabularies: byte alphabets, decorated base pieces, merges grown from pieces, ids.

Everything here follows upstream's merge rule (tokenizers 0.23.1,
``BpeBuilder::build``): the result of merge ``(a, b)`` is ``a + b[prefix_bytes:]`` — the
*byte* length of ``continuing_subword_prefix`` is cut off ``b`` whether or not ``b``
starts with it.  ``merge_result`` computes it and refuses the two shapes the generator
must control: a right part shorter than the prefix (upstream panics; generated only as
the "prefix-underflow" hazard) and a cut inside a UTF-8 character (undefined behaviour
upstream: never generated).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from hypothesis import strategies as st

from harness.strategies import alphabet as chars
from harness.strategies import profile as shares
from harness.strategies._weights import chance, weighted
from harness.strategies.profile import (
    DEFAULT_WEIGHTS,
    ByteAlphabetKind,
    IdLayout,
    MergeHazard,
    MergesForm,
    UnkKind,
    VersionLine,
    Weights,
)

Merge = tuple[str, str]
#: Byte value -> the spelling of its piece in this vocabulary.
ByteAlphabet = dict[int, str]

VERSION_HEADER: Final = "#version: 0.2"

# --- byte pieces ------------------------------------------------------------------------------


def byte_piece(value: int, *, lower: bool = False) -> str:
    """``<0xC3>`` (the spelling upstream's byte fallback looks up), or ``<0xc3>``."""
    return f"<0x{value:02x}>" if lower else f"<0x{value:02X}>"


def parse_byte_piece(piece: str) -> int | None:
    """The byte a ``<0xXX>`` / ``<0xxx>`` piece stands for, else None."""
    if len(piece) == 6 and piece.startswith("<0x") and piece.endswith(">"):
        digits = piece[3:5]
        if all(c in "0123456789abcdefABCDEF" for c in digits):
            return int(digits, 16)
    return None


#: Bytes worth leaving out or keeping on purpose: the ends of the range, the decision's
#: 'X' (0x58) and é (C3 A9), space, '#' (the bytes of a "##" prefix), newline, and lead
#: bytes of 3- and 4-byte characters.
INTERESTING_BYTES: Final = (0x00, 0xFF, 0x58, 0xC3, 0xA9, 0x20, 0x23, 0x0A, 0xE6, 0xF0, 0x9F)
#: The sparse alphabets of the byte-fallback decision, and a few more.
SPARSE_SETS: Final[tuple[tuple[int, ...], ...]] = (
    (0x58,), (0xC3,), (0xC3, 0x58), (0xE2, 0x82, 0xAC), (0xF0, 0x9F),
)


def _some_bytes(max_size: int) -> st.SearchStrategy[list[int]]:
    return st.lists(
        st.one_of(st.sampled_from(INTERESTING_BYTES), st.integers(0, 255)),
        min_size=1, max_size=max_size, unique=True,
    )


@st.composite
def byte_alphabets(draw: st.DrawFn, kind: ByteAlphabetKind) -> ByteAlphabet:
    """The byte pieces of one vocabulary, by kind (see ``profile.BYTE_ALPHABET``)."""
    if kind == "absent":
        return {}
    if kind == "complete":
        return {b: byte_piece(b) for b in range(256)}
    if kind == "lowercase":
        return {b: byte_piece(b, lower=True) for b in range(256)}
    if kind == "missing-some":
        missing = set(draw(_some_bytes(6)))
        return {b: byte_piece(b) for b in range(256) if b not in missing}
    if kind == "mixed-case":
        # Lower-casing only changes pieces with a hex letter; pick among those.
        lowered = set(draw(st.lists(st.sampled_from([0xC3, 0xA9, 0xFF, 0x0A, 0xAB, 0x9F]),
                                    min_size=1, max_size=6, unique=True)))
        return {b: byte_piece(b, lower=b in lowered) for b in range(256)}
    # sparse
    present = draw(st.one_of(st.sampled_from(SPARSE_SETS), _some_bytes(8).map(tuple)))
    return {b: byte_piece(b) for b in sorted(present)}


# --- decoration and the merge rule -------------------------------------------------------


class UnsafeMergeError(ValueError):
    """A merge upstream cannot build safely (prefix underflow or a cut inside a character)."""


@dataclass(frozen=True)
class Decoration:
    """``continuing_subword_prefix`` and ``end_of_word_suffix`` (None when absent)."""

    prefix: str | None = None
    suffix: str | None = None

    @property
    def cut(self) -> int:
        """How many bytes upstream cuts off a merge's right part."""
        return len(self.prefix.encode()) if self.prefix else 0

    def base_forms(self, char: str) -> list[str]:
        """The symbols ``char`` can become: initial, continuing, word-final, both."""
        forms = [char]
        if self.prefix:
            forms.append(self.prefix + char)
        if self.suffix:
            forms.append(char + self.suffix)
        if self.prefix and self.suffix:
            forms.append(self.prefix + char + self.suffix)
        return forms

    def can_be_left(self, piece: str) -> bool:
        """Not word-final: a piece ending with the suffix never has a right neighbour."""
        return not self.suffix or not piece.endswith(self.suffix)

    def can_be_right(self, piece: str) -> bool:
        """A continuing piece: it starts with the prefix (any piece when there is none)."""
        return not self.prefix or piece.startswith(self.prefix)

    def undecorate(self, piece: str) -> str:
        if self.prefix and piece.startswith(self.prefix) and len(piece) > len(self.prefix):
            piece = piece[len(self.prefix):]
        if self.suffix and piece.endswith(self.suffix) and len(piece) > len(self.suffix):
            piece = piece[: -len(self.suffix)]
        return piece


def merge_result(left: str, right: str, prefix: str | None) -> str:
    """Upstream's result for merge ``(left, right)``; ``UnsafeMergeError`` for the unsafe shapes."""
    cut = len(prefix.encode()) if prefix else 0
    raw = right.encode()
    if len(raw) < cut:
        raise UnsafeMergeError(f"right part {right!r} is shorter than the prefix {prefix!r}")
    try:
        return left + raw[cut:].decode()
    except UnicodeDecodeError as err:
        raise UnsafeMergeError(f"prefix cut falls inside a character of {right!r}") from err


def cut_is_safe(right: str, prefix: str | None) -> bool:
    try:
        merge_result("", right, prefix)
    except UnsafeMergeError:
        return False
    return True


# --- merges -------------------------------------------------------------------------------


@dataclass
class MergeBook:
    """Merges in rank order and the vocabulary strings they need, built up step by step."""

    decoration: Decoration
    pieces: dict[str, None]          # every vocabulary string, in creation order
    merges: list[Merge]
    lefts: list[str]
    rights: list[str]
    _seen: set[Merge] = field(default_factory=set, repr=False)

    @classmethod
    def over(cls, pieces: Sequence[str], decoration: Decoration) -> MergeBook:
        return cls(
            decoration=decoration,
            pieces=dict.fromkeys(pieces),
            merges=[],
            lefts=[p for p in pieces if decoration.can_be_left(p)],
            rights=[p for p in pieces if decoration.can_be_right(p)],
        )

    def add(self, left: str, right: str, *, keep_result: bool = True) -> str | None:
        """Record merge ``(left, right)``; returns its result, or None if skipped."""
        if (left, right) in self._seen:
            return None
        result = merge_result(left, right, self.decoration.prefix)
        if len(result) > shares.MAX_PIECE_CHARS:
            return None
        self.merges.append((left, right))
        self._seen.add((left, right))
        if keep_result and result not in self.pieces:
            self.pieces[result] = None
            if self.decoration.can_be_left(result):
                self.lefts.append(result)
            if self.decoration.can_be_right(result) and result != left:
                self.rights.append(result)
        return result


@st.composite
def grown_merges(draw: st.DrawFn, book: MergeBook, count: int) -> None:
    """``count`` merges, each of an existing left piece and an existing continuing piece."""
    for _ in range(count):
        if not book.lefts or not book.rights:
            return
        # One draw per merge (a cell of the lefts x rights grid): fewer choices, faster.
        n = len(book.rights)
        k = draw(st.sampled_from(range(len(book.lefts) * n)))
        book.add(book.lefts[k // n], book.rights[k % n])


@st.composite
def byte_piece_merges(draw: st.DrawFn, book: MergeBook, byte_alphabet: ByteAlphabet) -> None:
    """Merges that rebuild uncovered multi-byte characters from their byte pieces."""
    usable = [c for c in chars.UNCOVERED_POOL if chars.utf8_width(c) > 1
              and all(b in byte_alphabet for b in c.encode())]
    if not usable:
        return
    for char in draw(st.lists(st.sampled_from(usable), min_size=1, max_size=3, unique=True)):
        parts = [byte_alphabet[b] for b in char.encode()]
        if draw(st.booleans()):  # right-associative: (b1 b2) first, then b0 + that
            tail = parts[-1]
            for part in reversed(parts[:-1]):
                result = book.add(part, tail)
                if result is None:
                    break
                tail = result
        else:
            head = parts[0]
            for part in parts[1:]:
                result = book.add(head, part)
                if result is None:
                    break
                head = result


@st.composite
def undecorated_right_merges(draw: st.DrawFn, book: MergeBook) -> None:
    """1..2 merges whose right part does not start with the prefix (cut at a boundary)."""
    prefix = book.decoration.prefix
    candidates = [p for p in book.pieces if prefix and not p.startswith(prefix)
                  and cut_is_safe(p, prefix)]
    if not candidates or not book.lefts:
        return
    for _ in range(draw(st.integers(1, 2))):
        left = book.lefts[draw(st.integers(0, len(book.lefts) - 1))]
        book.add(left, draw(st.sampled_from(candidates)))


@st.composite
def reordered(draw: st.DrawFn, merges: list[Merge], order: str) -> list[Merge]:
    """Ranks as grown, with a few swaps, or shuffled (so a result can outrank its parts)."""
    merges = list(merges)
    if len(merges) < 2 or order == "grown":
        return merges
    if order == "swapped":
        for _ in range(draw(st.integers(1, 5))):
            i = draw(st.integers(0, len(merges) - 1))
            j = draw(st.integers(0, len(merges) - 1))
            merges[i], merges[j] = merges[j], merges[i]
        return merges
    random.Random(draw(st.integers(0, 2**32 - 1))).shuffle(merges)
    return merges


@st.composite
def with_duplicates(draw: st.DrawFn, merges: list[Merge]) -> list[Merge]:
    """1..3 merges repeated at a later rank (upstream keeps the last occurrence's rank)."""
    merges = list(merges)
    if not merges:
        return merges
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(merges) - 1))
        j = draw(st.integers(i + 1, len(merges)))
        merges.insert(j, merges[i])
    return merges


@st.composite
def hazard_merge(draw: st.DrawFn, hazard: MergeHazard, vocab: Sequence[str],
                 book: MergeBook) -> Merge | None:
    """One merge upstream refuses or panics on, or None when this vocabulary has none."""
    prefix = book.decoration.prefix
    present = set(vocab)
    max_len = max((len(p.encode()) for p in vocab), default=0)
    rights = [r for r in book.rights if cut_is_safe(r, prefix)]
    if hazard == "part-missing":
        stranger = draw(chars.uncovered_characters())
        other = draw(st.sampled_from(list(vocab))) if vocab else "a"
        return (stranger, other) if draw(st.booleans()) else (other, stranger)
    if hazard == "prefix-underflow":
        short = [p for p in vocab if prefix and len(p.encode()) < len(prefix.encode())]
        if not short or not book.lefts:
            return None
        return (draw(st.sampled_from(book.lefts)), draw(st.sampled_from(short)))
    if not book.lefts or not rights:
        return None
    if hazard == "result-longer-than-vocab":
        longest = max(vocab, key=lambda p: len(p.encode()))
        tails = [r for r in rights if merge_result("", r, prefix)]
        if not tails:
            return None
        return (longest, draw(st.sampled_from(tails)))
    # result-missing: a result absent from the vocabulary, no longer than its longest entry
    # (longer ones panic instead of erroring).  Scan from a drawn start so it shrinks.
    pairs = [(a, b) for a in book.lefts for b in rights]
    start = draw(st.integers(0, len(pairs) - 1))
    for k in range(len(pairs)):
        a, b = pairs[(start + k) % len(pairs)]
        result = merge_result(a, b, prefix)
        if result not in present and len(result.encode()) <= max_len:
            return (a, b)
    return None


def merges_json(merges: Sequence[Merge], form: MergesForm, version_line: VersionLine,
                middle: int = 0) -> list[Any]:
    """The ``merges`` field: pair form, or legacy ``"a b"`` strings with ``#version`` lines.

    The legacy form cannot express a part containing a space; such lists stay in pair form.
    """
    if form == "pair" or any(" " in part for merge in merges for part in merge):
        return [[a, b] for a, b in merges]
    lines: list[str] = [f"{a} {b}" for a, b in merges]
    if version_line == "header":
        lines.insert(0, VERSION_HEADER)
    elif version_line == "middle":
        lines.insert(min(middle, len(lines)), VERSION_HEADER)
    return lines


# --- ids ----------------------------------------------------------------------------------


@st.composite
def id_layouts(draw: st.DrawFn, strings: Sequence[str], reserved: int,
               layout: IdLayout, free: int = 0) -> dict[str, int]:
    """Ids for ``strings``: the first ``reserved`` get 0..k-1, the rest per ``layout``.

    Never two strings on one id (upstream would pick one at random per process). With
    holes, the ``free`` ids from the vocabulary's size up are left to added tokens outside
    the model (upstream gives them the ids past the size, not past the largest id).
    """
    n = len(strings)
    ids = list(range(reserved, n))
    if layout != "contiguous" and len(ids) > 1:
        rng = random.Random(draw(st.integers(0, 2**32 - 1)))
        if layout == "holes":
            spare = draw(st.integers(1, max(1, len(ids) // 3)))
            ids = sorted(i + free if i >= n else i
                         for i in rng.sample(range(reserved, n + spare), len(ids)))
            if draw(st.booleans()):
                rng.shuffle(ids)
        else:
            rng.shuffle(ids)
    return {s: i for i, s in enumerate(strings[:reserved])} | dict(
        zip(strings[reserved:], ids, strict=True))


# --- the model ----------------------------------------------------------------------------


def _decoration(prefix: str, suffix: str) -> Decoration:
    return Decoration(None if prefix == "none" else prefix, None if suffix == "none" else suffix)


@st.composite
def dropouts(draw: st.DrawFn, profile: Weights = DEFAULT_WEIGHTS) -> float | None:
    kind = draw(weighted(profile.dropout))
    if kind == "null":
        return None
    if kind == "zero":
        return 0.0
    if kind == "one":
        return 1.0
    return draw(st.sampled_from([0.5, 0.1, 0.9]))


@st.composite
def bpe_models(
    draw: st.DrawFn,
    profile: Weights = DEFAULT_WEIGHTS,
    *,
    alphabet: Sequence[str] | None = None,
    reserved: Sequence[str] = (),
    unk_token: str | None = "<unk>",
    unk: UnkKind | None = None,
    allow_holes: bool = True,
    free_ids: int = 0,
) -> dict[str, Any]:
    """A BPE ``model`` object (the serialized form of tokenizers 0.23.1, fields in order).

    ``reserved`` strings (specials) take ids 0..k-1 in the model vocabulary.  ``unk`` says
    whether ``unk_token`` is in the vocabulary ("present": it is added to ``reserved`` if
    missing), null ("absent"), or names a string outside it ("dangling").
    ``allow_holes=False`` keeps ids dense; with holes, ``free_ids`` ids from the
    vocabulary's size up stay free for the added tokens outside the model.
    """
    if alphabet is None:
        alphabet = draw(chars.alphabets())
    unk_kind: UnkKind = unk if unk is not None else draw(weighted(profile.unk))
    reserved = reserved_strings(reserved, unk_token, unk_kind)
    decoration = _decoration(draw(weighted(profile.prefix)), draw(weighted(profile.suffix)))

    byte_kind = draw(weighted(profile.byte_alphabet))
    bytes_ = draw(byte_alphabets(byte_kind))
    byte_fallback = draw(weighted(profile.byte_fallback_with_bytes if bytes_
                                  else profile.byte_fallback_without_bytes))

    bases = [form for char in alphabet for form in decoration.base_forms(char)]
    if decoration.prefix and draw(chance(shares.DECORATED_FORMS_DROPPED)):
        decorated = [p for p in bases if p not in alphabet]
        dropped = set(draw(st.lists(st.sampled_from(decorated), min_size=1, max_size=3)))
        bases = [p for p in bases if p not in dropped]
    # Grown merges combine the alphabet's pieces only (not specials, not byte pieces).
    book = MergeBook.over(bases, decoration)
    book.pieces = dict.fromkeys([*reserved, *bytes_.values(), *bases])

    low, high = shares.MERGE_COUNT_BOUNDS[draw(weighted(profile.merge_count))]
    draw(grown_merges(book, draw(st.integers(low, high))))
    with_byte_merges: bool = draw(weighted(profile.byte_merges))
    if bytes_ and with_byte_merges:
        draw(byte_piece_merges(book, bytes_))
    if decoration.prefix and draw(chance(shares.UNDECORATED_RIGHT)):
        draw(undecorated_right_merges(book))

    return draw(model_objects(profile, book, reserved, decoration=decoration,
                              unk_token=unk_token, unk=unk_kind, byte_fallback=byte_fallback,
                              ignore_merges=profile.ignore_merges, allow_holes=allow_holes,
                              free_ids=free_ids))


def reserved_strings(reserved: Sequence[str], unk_token: str | None, unk: UnkKind
                     ) -> list[str]:
    """The strings at ids 0..k-1: the reserved ones, with the unk token first when it is
    "present", without it when it is "dangling"."""
    out = list(dict.fromkeys(reserved))
    if unk == "present" and unk_token is not None and unk_token not in out:
        out.insert(0, unk_token)
    if unk == "dangling" and unk_token in out:
        out.remove(unk_token)
    return out


@st.composite
def model_objects(draw: st.DrawFn, profile: Weights, book: MergeBook, reserved: Sequence[str],
                  *, decoration: Decoration, unk_token: str | None, unk: UnkKind,
                  byte_fallback: bool, ignore_merges: Mapping[bool, int],
                  allow_holes: bool = True, free_ids: int = 0) -> dict[str, Any]:
    """The ``model`` object over a grown ``MergeBook``: the merges reordered, repeated and
    given a hazard as the profile says, ids laid out, the merges' form and the flags."""
    merges = draw(reordered(book.merges, draw(weighted(profile.rank_order))))
    if draw(weighted(profile.duplicate_merges)):
        merges = draw(with_duplicates(merges))
    strings = list(book.pieces)
    hazard = draw(weighted(profile.merge_hazard))
    if hazard != "none":
        bad = draw(hazard_merge(hazard, strings, book))
        if bad is not None:
            merges.insert(draw(st.integers(0, len(merges))), bad)

    layout: IdLayout = draw(weighted(profile.id_layout))
    if layout == "holes" and not allow_holes:
        layout = "shuffled"
    vocab = draw(id_layouts(strings, len(reserved), layout, free_ids))
    form = draw(weighted(profile.merges_form))
    version_line = draw(weighted(shares.VERSION_LINE)) if form == "legacy" else "none"
    middle = draw(st.integers(0, len(merges))) if version_line == "middle" else 0
    return {
        "type": "BPE",
        "dropout": draw(dropouts(profile)),
        "unk_token": None if unk == "absent" else unk_token,
        "continuing_subword_prefix": decoration.prefix,
        "end_of_word_suffix": decoration.suffix,
        "fuse_unk": draw(weighted(profile.fuse_unk)),
        "byte_fallback": byte_fallback,
        "ignore_merges": draw(weighted(ignore_merges)),
        "vocab": vocab,
        "merges": merges_json(merges, form, version_line, middle),
    }


def model_decoration(model: Mapping[str, Any]) -> Decoration:
    return Decoration(model.get("continuing_subword_prefix") or None,
                      model.get("end_of_word_suffix") or None)


def parsed_merges(model: Mapping[str, Any]) -> list[Merge]:
    """The model's merges as pairs, in rank order (legacy ``#version`` lines dropped)."""
    out: list[Merge] = []
    for entry in model.get("merges") or []:
        if isinstance(entry, str):
            if entry.startswith("#version"):
                continue
            parts = entry.split(" ")
            if len(parts) == 2:
                out.append((parts[0], parts[1]))
        elif isinstance(entry, list) and len(entry) == 2:
            out.append((str(entry[0]), str(entry[1])))
    return out
