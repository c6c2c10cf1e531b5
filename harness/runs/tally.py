"""The one tally every run keeps: counts per operation, tier, class and failure
signature, rule coverage, skipped tiers, harness errors, and the smallest witness of each
class and of each failure signature. Tallies of several workers merge into one."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from ..core.case import Case
from ..core.observation import Observation
from ..core.outcome import declined, outcome_kind
from ..judge.classify import Judgement, Verdict
from ..judge.compare import Divergence


def failure_signature(div: Divergence) -> str:
    """What makes two failures the same failure: track, operation, tier and both kinds
    (the subject's side named as the divergence names it)."""
    obs = div.observation
    return (f"{obs.track}/{obs.operation}/{div.tier}: {div.side} "
            f"{outcome_kind(obs.subject)} vs upstream {outcome_kind(obs.upstream)}")


def case_size(case: Case) -> int:
    """The size a generated witness is ranked by: its JSON length."""
    return len(json.dumps(case.to_json(), ensure_ascii=False))


@dataclass
class Witness:
    """One case showing a class or a failure. ``fixture`` names the real or unified
    fixture the case ran on (its document is then not reported); ``divergence`` is None
    for a failure that is no comparison (a segmentation check, a stale fixture)."""

    case: Case
    divergence: Divergence | None
    classes: tuple[str, ...]
    size: int
    shrunk: bool = False
    fixture: str | None = None
    detail: str = ""


@dataclass
class Tally:
    examples: int = 0
    #: Declared probe cases run (``harness.strategies.declared``), apart from ``examples``.
    declared: int = 0
    comparisons: int = 0
    #: operation -> {"compared", "agreed", "declined", "diverged:<tier>"} -> count
    by_operation: dict[str, Counter[str]] = field(default_factory=dict)
    by_class: Counter[str] = field(default_factory=Counter)
    rule_comparisons: Counter[str] = field(default_factory=Counter)
    #: Generated cases each feature label (``harness.strategies.describe``) applies to.
    features: Counter[str] = field(default_factory=Counter)
    failures: Counter[str] = field(default_factory=Counter)
    failure_witness: dict[str, Witness] = field(default_factory=dict)
    class_witness: dict[str, Witness] = field(default_factory=dict)
    #: How upstream took each generated document: loaded, refused[...], crashed[...].
    upstream_outcomes: Counter[str] = field(default_factory=Counter)
    #: "<operation>/<tier>" -> comparisons where that tier was not compared.
    skipped: Counter[str] = field(default_factory=Counter)
    #: Bugs of the harness itself met during the run (each makes the run fail).
    errors: list[str] = field(default_factory=list)
    #: Executions the judge had its replayer make (``harness.runs.replay``).
    replays: int = 0

    @property
    def failure_count(self) -> int:
        return sum(self.failures.values())

    @property
    def failed(self) -> bool:
        return bool(self.failures) or bool(self.errors)

    def record(self, case: Case, observations: Sequence[Observation], judgement: Judgement,
               *, size: int, fixture: str | None = None,
               rules: Callable[[Case, Observation], Iterable[str]] | None = None,
               features: Callable[[Case], Iterable[str]] | None = None) -> None:
        self.examples += 1
        if features is not None:
            self.features.update(features(case))
        self.comparisons += len(observations)
        if observations and observations[0].operation == "load":
            self.upstream_outcomes[outcome_kind(observations[0].upstream)] += 1
        diverged = judgement.diverged()
        for obs in observations:
            counts = self.by_operation.setdefault(obs.operation, Counter())
            counts["compared"] += 1
            verdict = diverged.get(id(obs))
            counts["declined" if declined(obs.subject) else "agreed" if verdict is None
                   else f"diverged:{verdict.divergence.tier}"] += 1
            if rules is not None:
                self.rule_comparisons.update(rules(case, obs))
        self.skipped.update(f"{operation}/{tier}" for operation, tier in judgement.skipped)
        self.replays += judgement.replays
        for verdict in judgement.verdicts:
            self.record_verdict(case, verdict, size=size, fixture=fixture)

    def record_verdict(self, case: Case, verdict: Verdict, *, size: int,
                       fixture: str | None = None) -> None:
        witness = Witness(case, verdict.divergence, verdict.classes, size, fixture=fixture,
                          detail=verdict.divergence.detail)
        if verdict.is_failure:
            signature = failure_signature(verdict.divergence)
            self.failures[signature] += 1
            keep_smaller(self.failure_witness, signature, witness)
            return
        for cls in verdict.classes:
            self.by_class[cls] += 1
            keep_smaller(self.class_witness, cls, witness)

    def record_failure(self, signature: str, witness: Witness) -> None:
        """A failure found by a check that is not a comparison of two outcomes."""
        self.failures[signature] += 1
        keep_smaller(self.failure_witness, signature, witness)

    def merge(self, part: Tally) -> Tally:
        """Add ``part``'s counts; keep the smaller witness of each key. Every field is
        merged by its type, so a field added later without a rule here fails loudly."""
        for spec in dataclasses.fields(Tally):
            mine, theirs = getattr(self, spec.name), getattr(part, spec.name)
            if isinstance(theirs, Counter):
                mine.update(theirs)
            elif isinstance(theirs, list):
                mine.extend(theirs)
            elif isinstance(theirs, dict):
                for key, value in theirs.items():
                    if isinstance(value, Counter):
                        mine.setdefault(key, Counter()).update(value)
                    elif isinstance(value, Witness):
                        keep_smaller(mine, key, value)
                    else:
                        raise TypeError(f"Tally.{spec.name}[{key!r}]: no merge rule for "
                                        f"{type(value).__name__}")
            elif isinstance(theirs, int):
                setattr(self, spec.name, mine + theirs)
            else:
                raise TypeError(f"Tally.{spec.name}: no merge rule for "
                                f"{type(theirs).__name__}")
        return self


def witness_order(witness: Witness) -> tuple[int, str]:
    """How witnesses rank: by size, ties broken by the case's canonical JSON, so the
    smallest witness does not depend on the order cases were met in (logical shards merged
    in any grouping give the same one: docs/decisions/0030-logical-shards.md). A fixture's
    witnesses share its document: their inputs alone break the tie."""
    data = witness.case.to_json()
    if witness.fixture is not None:
        del data["document"]
    return witness.size, json.dumps(data, ensure_ascii=False, sort_keys=True)


def no_larger(witness: Witness, than: Witness) -> bool:
    if witness.size != than.size:
        return witness.size < than.size
    return witness_order(witness) <= witness_order(than)


def keep_smaller(store: dict[str, Witness], key: str, witness: Witness) -> None:
    current = store.get(key)
    if current is not None and current.case is witness.case and (
            current.fixture == witness.fixture):
        return  # another verdict on the case held: the same order, so the one held stays
    if current is None or (no_larger(witness, current)
                           and witness_order(witness) != witness_order(current)):
        store[key] = witness
