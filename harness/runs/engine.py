"""The one run engine: cases in, observations out, judged and tallied; targeted searches
that shrink a witness of each class and failure.

A run supplies an *observer* (a case -> its observations on two subjects) and how to
size a witness; the engine does the rest the same way for every kind of run:

- ``explore``: Hypothesis draws ``budget`` cases with a seed (generate phase only); each is
  observed, judged and recorded. Nothing raises, so one odd case never ends the run and
  every count is complete.
- ``run_items``: the same for a fixed list of cases (a corpus, replayed failures).
- ``search``: a targeted Hypothesis search raising on one class or failure signature, so
  Hypothesis shrinks the whole case; bounded by a count of evaluations, never by time, so
  a seed gives the same witness on any machine. It runs only for failures and for classes
  without a pinned witness that still shows them (``shrink_targets``). A bug of the
  harness met meanwhile (an exception from a predicate or a subject wrapper) is reported,
  never swallowed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import traceback
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

import hypothesis
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis.errors import Flaky

from ..core import interrupts
from ..core.case import Case
from ..core.observation import Observation
from ..core.profiles import Profile
from ..judge.classify import Explainer, Judgement, Verdict, judge
from ..judge.compare import REFERENCE_SIDE
from ..subjects.protocol import ALL_CAPABILITIES
from .reduce import reduce_case
from .replay import CaseReplayer
from .tally import Tally, Witness, case_size, failure_signature, no_larger

Observer = Callable[[Case], list[Observation]]


class Timing(Protocol):
    """A timing hook (the bench's clock): ``stage(name)`` is a context around each stage
    the engine runs: observe, compare, classify, specification, replay, record."""

    def stage(self, name: str) -> AbstractContextManager[None]: ...


#: One witness search: ("class", class id) or ("failure", failure signature).
Target = tuple[str, str]


class HarnessError(Exception):
    """A bug of the harness itself (not a finding about a subject)."""


@dataclass(frozen=True)
class Engine:
    observe: Observer
    capabilities: Collection[str] = ALL_CAPABILITIES
    size: Callable[[Case], int] = case_size
    rules: Callable[[Case, Observation], Iterable[str]] | None = None
    #: The feature labels of a case, counted per case in the tally (generated runs).
    features: Callable[[Case], Iterable[str]] | None = None
    fixture: str | None = None
    #: What explains divergences: our registry (None) or a subject's expectations.
    classes: Sequence[Explainer] | None = None
    #: Whether the specification oracle's findings are verdicts too (generated runs).
    specification: bool = False
    timing: Timing | None = None
    #: What the verdicts' words call the subject (``harness.judge.compare``).
    side: str = REFERENCE_SIDE

    def evaluate(self, case: Case) -> tuple[list[Observation], Judgement]:
        stage = self.timing.stage if self.timing is not None else None
        with stage("observe") if stage is not None else contextlib.nullcontext():
            observations = self.observe(case)
        replay = CaseReplayer(stage)
        judgement = judge(case, observations, self.capabilities, self.classes,
                          replay=replay, specification=self.specification, stage=stage,
                          side=self.side)
        return observations, dataclasses.replace(judgement, replays=replay.executions)

    def record(self, tally: Tally, case: Case) -> Judgement:
        """Evaluate one case into ``tally``. A bug of the harness (an exception out of a
        predicate, say) is recorded in ``tally.errors``, which fails the run."""
        interrupts.check()
        try:
            observations, judgement = self.evaluate(case)
        except Exception as exc:
            tally.errors.append(describe_error(exc))
            return Judgement([], [])
        with (self.timing.stage("record") if self.timing is not None
              else contextlib.nullcontext()):
            tally.record(case, observations, judgement, size=self.size(case),
                         fixture=self.fixture, rules=self.rules, features=self.features)
        return judgement

    def run_items(self, items: Iterable[Case], tally: Tally,
                  progress: Callable[[Tally], None] | None = None) -> Tally:
        for case in items:
            self.record(tally, case)
            if progress is not None:
                progress(tally)
        return tally

    def explore(self, strategy: Any, *, budget: int, seed_value: int, tally: Tally,
                progress: Callable[[Tally], None] | None = None) -> Tally:
        if budget <= 0:
            return tally

        @seed(seed_value)
        @settings(max_examples=budget, deadline=None, database=None,
                  phases=[Phase.generate], suppress_health_check=list(HealthCheck),
                  derandomize=False)
        @given(strategy)
        def explore(case: Case) -> None:
            self.record(tally, case)
            if progress is not None:
                progress(tally)

        explore()
        return tally

    def search(self, strategy: Any, target: Target, profile: Profile,
               seed_value: int, start: Case | None = None) -> Witness | None:
        """The smallest case found showing ``target``, shrunk by Hypothesis within the
        profile's count of evaluations; for a failure, the smaller of it and ``start``
        (the explored witness) is then reduced, document and input (``harness.runs.reduce``),
        within as many evaluations again. Raises ``HarnessError`` on a bug of ours."""
        kind, key = target
        wanted = _has_class(key) if kind == "class" else _has_signature(key)
        best: list[tuple[Case, Verdict]] = []
        evaluations = [0]
        errors: list[str] = []

        @seed(seed_value)
        @settings(max_examples=profile.shrink_examples, deadline=None, database=None,
                  phases=[Phase.generate, Phase.shrink],
                  suppress_health_check=list(HealthCheck), report_multiple_bugs=False,
                  print_blob=False, verbosity=hypothesis.Verbosity.quiet)
        @given(strategy)
        def search(case: Case) -> None:
            interrupts.check()
            if evaluations[0] >= profile.shrink_evaluations or errors:
                return
            evaluations[0] += 1
            try:
                _, judgement = self.evaluate(case)
            except Exception as exc:  # a bug of ours, reported below; never a finding
                errors.append(describe_error(exc))
                return
            for verdict in judgement.verdicts:
                if wanted(verdict):
                    if not best or self.size(case) <= self.size(best[0][0]):
                        best[:] = [(case, verdict)]
                    raise _FoundError

        # Expected: the search stops by raising; and once the evaluation budget is spent,
        # Hypothesis' final replay of its own minimal case may not raise (Flaky).
        with contextlib.suppress(_FoundError, Flaky):
            search()
        if errors:
            raise HarnessError(f"while searching a witness of {kind} {key!r}: {errors[0]}")
        if kind == "failure" and start is not None:
            origin = (best[0][0] if best and self.size(best[0][0]) <= self.size(start)
                      else start)
            best[:] = self._reduced(origin, wanted, profile.shrink_evaluations, key)
        if not best:
            return None
        case, verdict = best[0]
        return Witness(case, verdict.divergence, verdict.classes, self.size(case),
                       shrunk=True, fixture=self.fixture, detail=verdict.divergence.detail)


    def _reduced(self, case: Case, wanted: Callable[[Verdict], bool], budget: int,
                 key: str) -> list[tuple[Case, Verdict]]:
        """``case`` reduced while it shows ``wanted``, with the verdict that shows it
        (none when ``case`` does not show it)."""
        errors: list[str] = []

        def showing(candidate: Case) -> Verdict | None:
            try:
                _, judgement = self.evaluate(candidate)
            except Exception as exc:  # a bug of ours, reported below; never a finding
                errors.append(describe_error(exc))
                return None
            return next((v for v in judgement.verdicts if wanted(v)), None)

        if showing(case) is None:
            return []
        smallest, _ = reduce_case(case, lambda c: showing(c) is not None, self.size, budget)
        verdict = showing(smallest)
        if errors:
            raise HarnessError(f"while reducing the witness of failure {key!r}: {errors[0]}")
        return [(smallest, verdict)] if verdict is not None else []


def describe_error(exc: BaseException) -> str:
    """A harness error for the report: the exception and the last frames."""
    frames = "".join(traceback.format_tb(exc.__traceback__)[-3:])
    return "".join(traceback.format_exception_only(exc)).strip()[:2000] + "\n" + frames


class _FoundError(Exception):
    """Raised by a targeted search when the case shows its target."""


def _has_class(cls: str) -> Callable[[Verdict], bool]:
    return lambda verdict: cls in verdict.classes


def _has_signature(sig: str) -> Callable[[Verdict], bool]:
    return lambda v: v.is_failure and failure_signature(v.divergence) == sig


def shrink_targets(tally: Tally, pinned: Mapping[str, Witness] | None = None) -> list[Target]:
    """What needs a witness search: every failure signature, and every class the run met
    that has no pinned witness still showing it (none pinned, or only stale ones)."""
    pinned = pinned or {}
    return ([("class", cls) for cls in sorted(tally.class_witness) if cls not in pinned]
            + [("failure", sig) for sig in sorted(tally.failure_witness)])


def adopt_pinned(tally: Tally, pinned: Mapping[str, Witness]) -> None:
    """A class the run met reports its pinned witness (minimal already) unless the run
    met a smaller one."""
    for cls, witness in pinned.items():
        held = tally.class_witness.get(cls)
        if held is not None and no_larger(witness, held):
            tally.class_witness[cls] = witness


def explored_cases(tally: Tally, targets: Sequence[Target]) -> list[Case | None]:
    """The explored witness of each failure target (a fixture's is no generated case)."""
    found: list[Case | None] = []
    for kind, key in targets:
        witness = tally.failure_witness.get(key) if kind == "failure" else None
        found.append(witness.case if witness is not None and witness.fixture is None
                     else None)
    return found


def adopt_witnesses(tally: Tally, targets: Sequence[Target],
                    found: Sequence[Witness | None]) -> None:
    """Keep each searched witness that is no larger than the explored one."""
    for (kind, key), hit in zip(targets, found, strict=True):
        store = tally.class_witness if kind == "class" else tally.failure_witness
        if hit is not None and no_larger(hit, store[key]):
            store[key] = hit
