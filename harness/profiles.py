"""Named run profiles of the conformance job (Hypothesis budgets)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Profile:
    name: str
    examples: int
    #: Budget of the targeted searches that shrink one witness per class / failure.
    shrink_examples: int
    shrink_seconds: float
    #: Hypothesis texts per real-model fixture (after the committed corpus).
    real_examples: int
    description: str


PROFILES: dict[str, Profile] = {
    p.name: p
    for p in (
        Profile("dev", 300, 150, 8.0, 500, "a quick look while developing"),
        Profile("ci", 3000, 300, 12.0, 20000,
                "the default: what `nox -s conformance` runs in CI"),
        Profile("nightly", 30000, 1000, 60.0, 100000, "the long nightly exploration"),
    )
}
DEFAULT_PROFILE = "ci"
