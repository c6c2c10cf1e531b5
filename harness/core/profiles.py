"""Named run profiles of the conformance job: every budget counts examples, never seconds,
so the same seed gives the same report on a fast machine and a slow one."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RunProfile:
    name: str
    #: Generated cases explored.
    examples: int
    #: Each targeted witness search: cases drawn before shrinking starts...
    shrink_examples: int
    #: ...and cases evaluated in all (drawing and shrinking); past it the search stops.
    shrink_evaluations: int
    #: Hypothesis texts per real-model fixture (after the committed corpus).
    real_examples: int
    description: str
    #: Texts of the committed corpus per real-model fixture, spread over it (None: all).
    real_corpus: int | None = None
    #: The first this many conformance fixtures (None: every one).
    real_fixtures: int | None = None
    #: Texts and id runs each explored case gets besides its drawn ones, expanded from one
    #: drawn seed (decision 0054); witness searches draw without them.
    sampled_texts: int = 0
    sampled_id_runs: int = 0


PROFILES: dict[str, RunProfile] = {
    p.name: p
    for p in (
        RunProfile("smoke", 20, 5, 20, 5, "seconds: the command line's own tests",
                real_corpus=60, real_fixtures=2),
        RunProfile("dev", 300, 150, 400, 500, "a quick look while developing",
                real_corpus=300, sampled_texts=24, sampled_id_runs=8),
        RunProfile("ci", 3000, 300, 800, 20000,
                "the default: what `nox -s conformance` runs in CI",
                sampled_texts=24, sampled_id_runs=8),
        RunProfile("nightly", 30000, 1000, 4000, 100000, "the long nightly exploration",
                   sampled_texts=48, sampled_id_runs=16),
        RunProfile("matrix", 20, 5, 20, 0, "the matrix' budget for each subject: smoke's "
                   "cases, every real file over the whole corpus"),
    )
}
DEFAULT_PROFILE = "ci"


def profiles_help() -> str:
    """What each profile costs, for ``--help``."""
    return "profiles (--profile):\n" + "\n".join(
        f"  {p.name:8} {p.examples} generated cases, {p.real_examples} texts per real model; "
        f"{p.description}" for p in PROFILES.values())
