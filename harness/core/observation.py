"""One operation run on two subjects: the unit every later layer compares and judges."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .outcome import Outcome, outcome_to_json

Operation = Literal["load", "encode", "decode"]
#: ``strict``: the subject as users load it; ``lenient``: the reference's lenient mode, run
#: only where a strict refusal would hide the inputs.
Track = Literal["strict", "lenient"]
#: Every tier an observation can differ at, in the order a reader checks them.
TIERS = ("load", "encode", "ids", "tokens", "spans", "special_mask", "type_ids",
         "attention_mask", "word_ids", "decode")
#: The tiers of an encoding, each a tuple field of ``Encoded``.
ENCODING_TIERS = ("ids", "tokens", "spans", "special_mask", "type_ids", "attention_mask",
                  "word_ids")


@dataclass(frozen=True)
class Observation:
    """One operation run on both sides: ``subject`` is the implementation under test (our
    reference or a third party), ``upstream`` the library it is compared with
    (docs/decisions/0036-one-vocabulary-for-the-two-sides.md)."""

    track: Track
    operation: Operation
    input: str | tuple[int, ...] | None
    options: tuple[tuple[str, Any], ...]
    subject: Outcome
    upstream: Outcome

    def option(self, name: str, default: Any = None) -> Any:
        return dict(self.options).get(name, default)

    def to_json(self) -> dict[str, Any]:
        return {
            "track": self.track,
            "operation": self.operation,
            "input": list(self.input) if isinstance(self.input, tuple) else self.input,
            "options": dict(self.options),
            "subject": outcome_to_json(self.subject),
            "upstream": outcome_to_json(self.upstream),
        }
