"""Tiered comparison of two Outcomes of one operation.

Tiers, in order: ``load`` (accepted vs refused/crashed), ``encode`` (encoded vs refused or
crashed), ``ids``, ``tokens``, ``spans``, ``special_mask``, ``type_ids``,
``attention_mask``, ``word_ids``, ``decode``. Every tier of an encoding is compared: one
divergence per tier that differs, so a class that explains one tier (or, for spans, some
positions) never hides a difference at another. ``compare`` names the first. A tier either
side does not expose (an empty field, a capability a subject lacks, or offsets of an
upstream that has none) is skipped, and so are the word ids of two streams of other ids;
the skip is returned so that it can be counted; so is an operation the subject declined
as not expressible in its format (decision 0040).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from ..core.observation import ENCODING_TIERS, TIERS, Observation, Operation, Track
from ..core.outcome import Crashed, Decoded, Encoded, Loaded, Outcome, Refused, declined

__all__ = ["REFERENCE_SIDE", "SUBJECT_SIDE", "TIERS", "Comparison", "Divergence",
           "Observation", "Operation", "Track", "compare", "judge_tiers"]


#: What a divergence's words call the side under test: ``reference`` in our reference's own
#: run, ``subject`` in a third-party subject's run (docs/decisions/0036-*.md).
REFERENCE_SIDE = "reference"
SUBJECT_SIDE = "subject"


@dataclass(frozen=True)
class Divergence:
    tier: str
    detail: str
    observation: Observation
    #: The side under test, as the detail and the failure signature name it.
    side: str = REFERENCE_SIDE


@dataclass(frozen=True)
class Comparison:
    divergence: Divergence | None
    #: Tiers not compared because a side does not expose them.
    skipped: tuple[str, ...] = ()
    #: Every differing tier, in tier order (the first is ``divergence``).
    all_tiers: tuple[Divergence, ...] = ()

    @property
    def divergences(self) -> tuple[Divergence, ...]:
        if self.all_tiers:
            return self.all_tiers
        return () if self.divergence is None else (self.divergence,)


def compare(obs: Observation, capabilities: Collection[str] | None = None
            ) -> Divergence | None:
    """The first tier at which the two outcomes differ, or None."""
    return judge_tiers(obs, capabilities).divergence


def judge_tiers(obs: Observation, capabilities: Collection[str] | None = None,
                side: str = REFERENCE_SIDE) -> Comparison:
    """``compare``, also naming the tiers it skipped. ``capabilities``: the tiers both
    subjects can answer (None: every tier); ``side``: what the words call the subject."""
    ref, up = obs.subject, obs.upstream
    if declined(ref):  # not expressible in the subject's format: skipped and counted
        return Comparison(None, (DECLINED,))
    if isinstance(ref, Crashed):
        return Comparison(Divergence(obs.operation, f"{side} crashed: {ref.message}", obs,
                                     side))
    if obs.operation == "load":
        return Comparison(_compare_acceptance(obs, "load", Loaded, side))
    if obs.operation == "encode":
        if isinstance(ref, Encoded) and isinstance(up, Encoded):
            return _compare_encodings(obs, ref, up, capabilities, side)
        return Comparison(_compare_acceptance(obs, "encode", Encoded, side))
    if capabilities is not None and "decode" not in capabilities:
        return Comparison(None, ("decode",))
    if isinstance(ref, Decoded) and isinstance(up, Decoded):
        if ref.text == up.text:
            return Comparison(None)
        return Comparison(Divergence("decode", f"decoded {ref.text!r} vs upstream "
                                     f"{up.text!r}", obs, side))
    return Comparison(_compare_acceptance(obs, "decode", Decoded, side))


def _compare_acceptance(obs: Observation, tier: str, success: type,
                        side: str = REFERENCE_SIDE) -> Divergence | None:
    ref, up = obs.subject, obs.upstream
    if isinstance(ref, success) and isinstance(up, success):
        return None
    if isinstance(ref, Refused) and isinstance(up, Refused):
        return None  # both refuse: agreement; messages differ by design
    return Divergence(tier, f"{side} {_name(ref)} vs upstream {_name(up)}", obs, side)


def _compare_encodings(obs: Observation, ref: Encoded, up: Encoded,
                       capabilities: Collection[str] | None, side: str) -> Comparison:
    skipped: list[str] = []
    found: list[Divergence] = []
    for tier in ENCODING_TIERS:
        mine, theirs = getattr(ref, tier), getattr(up, tier)
        exposed = capabilities is None or tier in capabilities
        upstream_lacks = tier in _UPSTREAM_MAY_LACK and not theirs and bool(up.ids)
        other_stream = tier in _OF_THE_STREAM and ref.ids != up.ids
        if not exposed or upstream_lacks or other_stream or (
                (not mine or not theirs) and mine != theirs and tier in _OPTIONAL_TIERS):
            skipped.append(tier)
            continue
        if mine != theirs:
            found.append(Divergence(tier, _first_difference(mine, theirs), obs, side))
    return Comparison(found[0] if found else None, tuple(skipped), tuple(found))


#: The skipped "tier" of an operation the subject declined (``core.outcome.declined``).
DECLINED = "declined"
#: Tiers a subject (or a pinned oracle row) may leave empty: compared only when both
#: sides carry them.
_OPTIONAL_TIERS = frozenset({"type_ids", "attention_mask", "word_ids"})
#: Tiers that say something of each token of the stream (its word): of two streams of
#: other ids they are not comparable position by position (the ids tier holds the
#: divergence), so they are skipped and counted there.
_OF_THE_STREAM = frozenset({"word_ids"})
#: Tiers upstream itself may not expose (``tokenizers`` 1.x has no offsets and no
#: special-tokens mask; decision 0035): skipped and counted when upstream's are empty for
#: a non-empty encoding (0.x always gives one per id).
_UPSTREAM_MAY_LACK = frozenset({"spans", "special_mask"})


def _first_difference(mine: tuple[Any, ...], theirs: tuple[Any, ...]) -> str:
    for i, (a, b) in enumerate(zip(mine, theirs, strict=False)):
        if a != b:
            return f"position {i}: {a!r} vs upstream {b!r}"
    return f"length {len(mine)} vs upstream {len(theirs)}"


def _name(outcome: Outcome) -> str:
    if isinstance(outcome, Refused):
        return f"refused ({outcome.rule})"
    if isinstance(outcome, Crashed):
        return f"crashed ({outcome.kind}: {outcome.message[:80]})"
    return type(outcome).__name__.lower()
