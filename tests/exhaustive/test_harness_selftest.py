"""The harness catches a broken reference.

The mutation suite (``tests/mutants.py``) plants realistic bugs in the reference, one at a
time; a short conformance run must then report a failure (an unexplained divergence, or a
finding of the specification oracle) or a stale pinned witness. The unpatched reference
passes the same short runs, so a mutant's failure is the mutant's, not noise. CI runs a
sample (one per family); ``nox -s mutants`` runs every mutant and prints the score.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("tokenizers")

from mutants import MUTANTS, SAMPLE, Mutant, caught, planted, short_run

from harness.job import JobResult

BY_NAME: dict[str, Mutant] = {m.name: m for m in MUTANTS}


@pytest.fixture(scope="module")
def baseline() -> Iterator[JobResult]:
    yield short_run()


def test_the_unpatched_reference_passes_the_short_run(baseline: JobResult) -> None:
    assert not caught(baseline), (dict(baseline.tally.failures), baseline.stale)


@pytest.mark.parametrize("name", SAMPLE)
def test_the_unpatched_reference_passes_each_narrowed_run(name: str) -> None:
    mutant = BY_NAME[name]
    result = short_run(mutant.constraints, mutant.examples)
    assert not caught(result), (dict(result.tally.failures), result.stale)


@pytest.mark.parametrize("name", SAMPLE)
def test_each_sampled_mutant_is_caught(name: str) -> None:
    mutant = BY_NAME[name]
    with planted(mutant):
        result = short_run(mutant.constraints, mutant.examples)
    assert caught(result), f"mutant {name!r} went unnoticed: {result.tally.by_class}"


def test_the_suite_spans_every_semantic_module() -> None:
    modules = {m.module for m in MUTANTS}
    assert modules >= {"bpe", "tokenizer", "added_vocabulary", "normalizers", "decoders",
                       "metaspace", "post_processors", "patterns", "alignment",
                       "encoding"}
    assert len(MUTANTS) >= 20
    assert set(SAMPLE) <= set(BY_NAME)


@pytest.mark.parametrize(("name", "stale"), [
    ("decorated byte pieces with wrong spans", "div-decorated-byte-fallback-spans"),
    ("decoder shape with a step after Strip accepted",
     "div-strict-decoder-shape.extra-step-after-strip"),
    ("Metaspace decoder applied", "div-metaspace-decoder-not-applied"),
])
def test_the_default_run_fails_on_each_founding_rule_broken(name: str, stale: str) -> None:
    """Whatever the generator draws, the default run re-checks the pinned witnesses, and a
    stale one fails it: each of these planted bugs stales at least the one named."""
    from harness.runs.pinned import check_pinned_witnesses

    with planted(BY_NAME[name]):
        found = [s.id for s in check_pinned_witnesses()]
    assert stale in found, found
