"""Tiered comparison of two Outcomes of one operation.

Tiers, in order: ``load`` (accepted vs refused/crashed), ``encode`` (encoded vs refused or
crashed), ``ids``, ``tokens``, ``spans``, ``special_mask``, ``decode``. A divergence is
reported at the first tier where the two differ, so a difference in ids is never also
counted as one in spans.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .outcome import Crashed, Decoded, Encoded, Loaded, Outcome, Refused, outcome_to_json

Operation = Literal["load", "encode", "decode"]
Track = Literal["strict", "lenient"]
TIERS = ("load", "encode", "ids", "tokens", "spans", "special_mask", "decode")


@dataclass(frozen=True)
class Observation:
    """One operation run on both subjects."""

    track: Track
    operation: Operation
    input: str | tuple[int, ...] | None
    options: tuple[tuple[str, Any], ...]
    reference: Outcome
    upstream: Outcome

    def option(self, name: str, default: Any = None) -> Any:
        return dict(self.options).get(name, default)

    def to_json(self) -> dict[str, Any]:
        return {
            "track": self.track,
            "operation": self.operation,
            "input": list(self.input) if isinstance(self.input, tuple) else self.input,
            "options": dict(self.options),
            "reference": outcome_to_json(self.reference),
            "upstream": outcome_to_json(self.upstream),
        }


@dataclass(frozen=True)
class Divergence:
    tier: str
    detail: str
    observation: Observation


def compare(obs: Observation) -> Divergence | None:
    ref, up = obs.reference, obs.upstream
    if isinstance(ref, Crashed):
        return Divergence(_kind_tier(obs), f"reference crashed: {ref.message}", obs)
    if obs.operation == "load":
        return _compare_acceptance(obs, "load", Loaded)
    if obs.operation == "encode":
        if isinstance(ref, Encoded) and isinstance(up, Encoded):
            return _compare_encodings(obs, ref, up)
        return _compare_acceptance(obs, "encode", Encoded)
    if isinstance(ref, Decoded) and isinstance(up, Decoded):
        if ref.text == up.text:
            return None
        return Divergence("decode", f"decoded {ref.text!r} vs upstream {up.text!r}", obs)
    return _compare_acceptance(obs, "decode", Decoded)


def _kind_tier(obs: Observation) -> str:
    return obs.operation


def _compare_acceptance(obs: Observation, tier: str, success: type) -> Divergence | None:
    ref, up = obs.reference, obs.upstream
    if isinstance(ref, success) and isinstance(up, success):
        return None
    if isinstance(ref, Refused) and isinstance(up, Refused):
        return None  # both refuse: agreement; messages differ by design
    return Divergence(tier, f"reference {_name(ref)} vs upstream {_name(up)}", obs)


def _compare_encodings(obs: Observation, ref: Encoded, up: Encoded) -> Divergence | None:
    for tier, mine, theirs in (
        ("ids", ref.ids, up.ids),
        ("tokens", ref.tokens, up.tokens),
        ("spans", ref.spans, up.spans),
        ("special_mask", ref.special_mask, up.special_mask),
    ):
        if mine != theirs:
            return Divergence(tier, _first_difference(mine, theirs), obs)
    return None


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
