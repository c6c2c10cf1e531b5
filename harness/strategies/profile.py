"""Every share of generation, as a named weight table, and the ``Profile`` that bundles them.

A weight table maps each option of one dimension to its weight per hundred cases
(some tables are per thousand where the option is rare; the docstring says).
The first key of each table is the simplest option and the one shrinking goes to.

``cases(byte_alphabet="complete")`` and friends narrow a table through
``Profile.narrowed``; the numbers themselves live here and only here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from harness.strategies._weights import restrict

# --- kinds ------------------------------------------------------------------------------------

ByteAlphabetKind = Literal[
    "complete", "missing-some", "sparse", "lowercase", "mixed-case", "absent"
]
UnkKind = Literal["present", "absent", "dangling"]
DropoutKind = Literal["null", "zero", "one", "other"]
MergesForm = Literal["pair", "legacy"]
VersionLine = Literal["header", "none", "middle"]
MergeCount = Literal["few", "some", "many"]
RankOrder = Literal["grown", "swapped", "shuffled"]
MergeHazard = Literal[
    "none", "result-missing", "result-longer-than-vocab", "part-missing", "prefix-underflow"
]
IdLayout = Literal["contiguous", "shuffled", "holes"]
NormalizerKind = Literal["none", "llama", "prepend", "replace-string", "replace-regex", "sequence"]
PreTokenizerKind = Literal["none", "metaspace", "sequence"]
DecoderKind = Literal["none", "byte-fallback", "llama", "metaspace", "perturbed"]
AddedTokensKind = Literal["none", "llama", "llama+extras", "extras"]
PostProcessorKind = Literal["none", "template"]

#: Aliases accepted by ``Profile.narrowed``, per dimension, for groups of options.
ALIASES: Final[Mapping[str, Mapping[str, tuple[str, ...]]]] = {
    "byte_alphabet": {
        "partial": ("missing-some", "sparse"),
        "lower": ("lowercase", "mixed-case"),
        "present": ("complete", "missing-some", "sparse", "lowercase", "mixed-case"),
    },
}

# --- alphabet ---------------------------------------------------------------------------------

#: Alphabet size bounds (characters of the base vocabulary, before decoration).
ALPHABET_MIN: Final = 1
ALPHABET_MAX: Final = 40
#: Per thousand: a Metaspace/Llama pipeline forces '▁' into the alphabet (real vocabularies
#: always have it); the rest leave it to chance so uncovered '▁' is exercised too.
METASPACE_IN_ALPHABET: Final = 900

# --- byte alphabet and model flags ---------------------------------------------------------

#: Byte pieces ``<0xXX>`` in the vocabulary.  "missing-some": all but 1..6 (the refusal the
#: decision names); "sparse": only a handful (incl. the decision's only-<0x58> and
#: <0xC3>-without-<0xA9>); "lowercase": all 256 as ``<0xc3>``; "mixed-case": complete but
#: 1..6 spelled in lower case.
BYTE_ALPHABET: Final[Mapping[ByteAlphabetKind, int]] = {
    "complete": 40, "missing-some": 10, "sparse": 12, "lowercase": 6, "mixed-case": 4,
    "absent": 28,
}
#: ``byte_fallback`` when byte pieces exist / when they do not.
BYTE_FALLBACK_WITH_BYTES: Final[Mapping[bool, int]] = {True: 75, False: 25}
BYTE_FALLBACK_WITHOUT_BYTES: Final[Mapping[bool, int]] = {False: 70, True: 30}
#: Merges between byte pieces (``<0xC3>`` + ``<0xA9>``), when byte pieces exist.
BYTE_MERGES: Final[Mapping[bool, int]] = {False: 65, True: 35}
FUSE_UNK: Final[Mapping[bool, int]] = {False: 50, True: 50}
IGNORE_MERGES: Final[Mapping[bool, int]] = {False: 80, True: 20}
#: dropout null / 0.0 / 1.0 / another value in (0, 1) (upstream: unseeded RNG).
DROPOUT: Final[Mapping[DropoutKind, int]] = {"null": 70, "zero": 10, "one": 17, "other": 3}
UNK: Final[Mapping[UnkKind, int]] = {"present": 60, "absent": 25, "dangling": 15}
#: ``continuing_subword_prefix``; "none" is no prefix.  The multi-byte ones make the
#: byte-length cut of upstream's merge rule differ from a character cut.
PREFIX: Final[Mapping[str, int]] = {"none": 72, "##": 16, "@@": 3, "▁": 5, "ä": 4}
#: ``end_of_word_suffix``; "none" is no suffix.
SUFFIX: Final[Mapping[str, int]] = {"none": 75, "</w>": 18, "▁": 4, "_": 3}
#: Per thousand, with a prefix: some decorated base forms ("##a") are left out of the
#: vocabulary, so decorated symbols fall to byte fallback / unk.
DECORATED_FORMS_DROPPED: Final = 250
#: Per thousand, with a prefix: 1..2 merges whose right part does not start with the prefix
#: (upstream cuts the prefix's byte length anyway: ``["a","bcd"]`` → ``"ad"``).  Only cuts
#: at a character boundary are generated: a cut inside a UTF-8 character is undefined
#: behaviour upstream (unsafe ``from_utf8_unchecked``) and is never generated.
UNDECORATED_RIGHT: Final = 120

# --- merges -----------------------------------------------------------------------------------

MERGES_FORM: Final[Mapping[MergesForm, int]] = {"pair": 75, "legacy": 25}
#: In the legacy form: a ``#version`` line at the top, none, or one in the middle.
VERSION_LINE: Final[Mapping[VersionLine, int]] = {"header": 70, "none": 20, "middle": 10}
#: How many merges are grown: few 0..12, some 13..50, many 51..150 (byte merges extra).
MERGE_COUNT: Final[Mapping[MergeCount, int]] = {"few": 55, "some": 33, "many": 12}
MERGE_COUNT_BOUNDS: Final[Mapping[MergeCount, tuple[int, int]]] = {
    "few": (0, 12), "some": (13, 50), "many": (51, 150),
}
#: Longest merge result, in characters.
MAX_PIECE_CHARS: Final = 16
#: 1..3 merges repeated later in the list (upstream keeps the LAST rank).
DUPLICATE_MERGES: Final[Mapping[bool, int]] = {False: 85, True: 15}
#: The merges' order: as grown (consistent ranks), a few swapped, or shuffled.
RANK_ORDER: Final[Mapping[RankOrder, int]] = {"grown": 70, "swapped": 18, "shuffled": 12}
#: Per thousand: one merge upstream refuses (result or part out of vocabulary) or panics on
#: (result longer than every entry; right part shorter than the prefix).  "prefix-underflow"
#: only applies with a prefix (otherwise no hazard is added).
MERGE_HAZARD: Final[Mapping[MergeHazard, int]] = {
    "none": 940, "result-missing": 20, "result-longer-than-vocab": 15, "part-missing": 10,
    "prefix-underflow": 15,
}

# --- ids --------------------------------------------------------------------------------------

#: Reserved specials always take ids 0..k-1; the rest are contiguous, shuffled, or
#: shuffled with holes.  Holes are not generated when an added token lies outside the
#: model vocabulary (upstream numbers it from the vocabulary *size*, which would collide).
ID_LAYOUT: Final[Mapping[IdLayout, int]] = {"contiguous": 40, "shuffled": 30, "holes": 30}

# --- pipeline components ----------------------------------------------------------------------

NORMALIZER: Final[Mapping[NormalizerKind, int]] = {
    "none": 35, "llama": 30, "prepend": 10, "replace-string": 10, "replace-regex": 5,
    "sequence": 10,
}
PRE_TOKENIZER: Final[Mapping[PreTokenizerKind, int]] = {"none": 55, "metaspace": 35, "sequence": 10}
#: Metaspace ``prepend_scheme`` and ``split``.
PREPEND_SCHEME: Final[Mapping[str, int]] = {"always": 40, "first": 35, "never": 25}
METASPACE_SPLIT: Final[Mapping[bool, int]] = {True: 60, False: 40}
#: "perturbed": one of the two reproduced shapes with one step dropped, two swapped, one
#: repeated, one added, or one replaced by another type.
DECODER: Final[Mapping[DecoderKind, int]] = {
    "none": 18, "byte-fallback": 15, "llama": 27, "metaspace": 15, "perturbed": 25,
}
PERTURBATION: Final[Mapping[str, int]] = {"drop": 20, "swap": 20, "repeat": 20, "add": 20,
                                          "replace": 20}
#: Per thousand of perturbed decoders: Llama's chain with its Strip window changed to
#: ``stop=1`` (upstream panics decoding an empty run after Fuse, and on a lone " " when
#: start and stop cross).
STRIP_HAZARD: Final = 150
#: Per thousand: two vocabulary strings share one id (see ``cases._with_duplicate_id``).
DUPLICATE_ID_HAZARD: Final = 10
ADDED_TOKENS: Final[Mapping[AddedTokensKind, int]] = {
    "none": 30, "llama": 35, "llama+extras": 20, "extras": 15,
}
#: Extras (other specials, non-special added tokens) per case when there are any.
EXTRAS_MIN: Final = 1
EXTRAS_MAX: Final = 4
#: Per thousand, each extra from the fixed pool is outside the model vocabulary (upstream
#: gives it the next id past the vocabulary).
EXTRA_OUT_OF_VOCAB: Final = 500
#: Per thousand: the Llama specials declared ``normalized: true`` (older uploads).
LLAMA_SPECIALS_NORMALIZED: Final = 80
#: Per thousand, for each of lstrip / rstrip / single_word on an extra; and the
#: ``normalized`` flag flipped from its default (``not special``).
ADDED_FLAG: Final = 150
ADDED_NORMALIZED_FLIPPED: Final = 300
POST_PROCESSOR: Final[Mapping[PostProcessorKind, int]] = {"none": 45, "template": 55}
#: Template shape: BOS only (Llama), BOS + EOS, or no specials at all.
TEMPLATE_SHAPE: Final[Mapping[str, int]] = {"bos": 50, "bos-eos": 35, "plain": 15}
#: Per thousand templates: one broken as ``components.TEMPLATE_HAZARDS`` lists.
TEMPLATE_HAZARD: Final = 40

# --- inputs -----------------------------------------------------------------------------------

TEXTS_MIN: Final = 1
TEXTS_MAX: Final = 6
FRAGMENTS_MAX: Final = 12
#: Per thousand: a text is empty.
EMPTY_TEXT: Final = 40
#: Text fragments: a covered character, a vocabulary piece (so merges fire), spaces (single
#: and runs), an uncovered character (the share split evenly among UTF-8 widths), a control
#: character, a literal added/special token, a literal ``<0xXX>`` string.
FRAGMENT: Final[Mapping[str, int]] = {
    "char": 35, "piece": 27, "space": 11, "uncovered": 13, "control": 5, "added": 7,
    "byte-literal": 2,
}
#: Per thousand: a text also carries one arbitrary Unicode scalar value (``st.characters``).
WILD_CHARACTER: Final = 150
#: Per thousand, a case also carries pair inputs (only meaningful with a template).
PAIRS: Final = 300
ID_RUNS_MIN: Final = 1
ID_RUNS_MAX: Final = 4
#: Segments per id run, and per thousand: an id run is empty.
ID_SEGMENTS_MAX: Final = 5
EMPTY_ID_RUN: Final = 40
#: Segments an id run is made of: valid ids of any kind, the byte pieces of whole characters
#: (valid UTF-8), a character cut mid-way (<0xF0> <0x9F>), invalid byte sequences
#: (<0xC3> <0x28>, overlongs, surrogates), a special, a character's byte pieces with a
#: special inside (<0xC3> <s> <0xA9>), an id naming no token.
ID_SEGMENT: Final[Mapping[str, int]] = {
    "valid": 34, "utf8": 20, "cut": 14, "invalid": 8, "special": 8, "split": 8, "unknown": 8,
}


@dataclass(frozen=True)
class Profile:
    """One weight table per dimension; ``Profile()`` is the default mix."""

    byte_alphabet: Mapping[ByteAlphabetKind, int] = dataclasses.field(
        default_factory=lambda: dict(BYTE_ALPHABET))
    byte_fallback_with_bytes: Mapping[bool, int] = dataclasses.field(
        default_factory=lambda: dict(BYTE_FALLBACK_WITH_BYTES))
    byte_fallback_without_bytes: Mapping[bool, int] = dataclasses.field(
        default_factory=lambda: dict(BYTE_FALLBACK_WITHOUT_BYTES))
    byte_merges: Mapping[bool, int] = dataclasses.field(default_factory=lambda: dict(BYTE_MERGES))
    fuse_unk: Mapping[bool, int] = dataclasses.field(default_factory=lambda: dict(FUSE_UNK))
    ignore_merges: Mapping[bool, int] = dataclasses.field(
        default_factory=lambda: dict(IGNORE_MERGES))
    dropout: Mapping[DropoutKind, int] = dataclasses.field(default_factory=lambda: dict(DROPOUT))
    unk: Mapping[UnkKind, int] = dataclasses.field(default_factory=lambda: dict(UNK))
    prefix: Mapping[str, int] = dataclasses.field(default_factory=lambda: dict(PREFIX))
    suffix: Mapping[str, int] = dataclasses.field(default_factory=lambda: dict(SUFFIX))
    merges_form: Mapping[MergesForm, int] = dataclasses.field(
        default_factory=lambda: dict(MERGES_FORM))
    merge_count: Mapping[MergeCount, int] = dataclasses.field(
        default_factory=lambda: dict(MERGE_COUNT))
    duplicate_merges: Mapping[bool, int] = dataclasses.field(
        default_factory=lambda: dict(DUPLICATE_MERGES))
    rank_order: Mapping[RankOrder, int] = dataclasses.field(
        default_factory=lambda: dict(RANK_ORDER))
    merge_hazard: Mapping[MergeHazard, int] = dataclasses.field(
        default_factory=lambda: dict(MERGE_HAZARD))
    id_layout: Mapping[IdLayout, int] = dataclasses.field(default_factory=lambda: dict(ID_LAYOUT))
    normalizer: Mapping[NormalizerKind, int] = dataclasses.field(
        default_factory=lambda: dict(NORMALIZER))
    pre_tokenizer: Mapping[PreTokenizerKind, int] = dataclasses.field(
        default_factory=lambda: dict(PRE_TOKENIZER))
    decoder: Mapping[DecoderKind, int] = dataclasses.field(default_factory=lambda: dict(DECODER))
    strip_hazard: int = STRIP_HAZARD
    duplicate_id_hazard: int = DUPLICATE_ID_HAZARD
    added_tokens: Mapping[AddedTokensKind, int] = dataclasses.field(
        default_factory=lambda: dict(ADDED_TOKENS))
    post_processor: Mapping[PostProcessorKind, int] = dataclasses.field(
        default_factory=lambda: dict(POST_PROCESSOR))
    template_shape: Mapping[str, int] = dataclasses.field(
        default_factory=lambda: dict(TEMPLATE_SHAPE))
    pairs: int = PAIRS
    template_hazard: int = TEMPLATE_HAZARD

    def narrowed(self, **choices: Any) -> Profile:
        """This profile with some dimensions narrowed to the given option(s).

        Each keyword names a field; its value is one option, an alias from ``ALIASES``, or an
        iterable of them.  ``byte_fallback=True/False`` narrows both byte_fallback tables;
        ``hazards=False`` removes every deliberate upstream refusal or panic (merge hazards,
        Strip windows, broken templates); ``strip_hazard`` and ``pairs`` take a per-thousand number.
        """
        updates: dict[str, Any] = {}
        for name, value in choices.items():
            if value is None:
                continue
            if name == "byte_fallback":
                updates["byte_fallback_with_bytes"] = restrict(
                    self.byte_fallback_with_bytes, _options(name, value))
                updates["byte_fallback_without_bytes"] = restrict(
                    self.byte_fallback_without_bytes, _options(name, value))
            elif name == "hazards":
                if not value:
                    updates["merge_hazard"] = {"none": 1}
                    updates["strip_hazard"] = 0
                    updates["duplicate_id_hazard"] = 0
                    updates["template_hazard"] = 0
            elif name in ("strip_hazard", "pairs", "template_hazard"):
                updates[name] = int(value)
            elif name in {f.name for f in dataclasses.fields(self)}:
                updates[name] = restrict(getattr(self, name), _options(name, value))
            else:
                raise TypeError(f"Profile has no dimension {name!r}")
        return dataclasses.replace(self, **updates)


def _options(name: str, value: object) -> list[Any]:
    aliases = ALIASES.get(name, {})
    if isinstance(value, str):
        return list(aliases.get(value, (value,)))
    if isinstance(value, Iterable):
        expanded: list[Any] = []
        for item in value:
            expanded.extend(_options(name, item) if isinstance(item, str) else [item])
        return expanded
    return [value]


DEFAULT_PROFILE: Final = Profile()
