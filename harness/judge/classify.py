"""The one verdict function (``judge``): every divergence is intended (by named classes)
or a failure, and, where asked, every finding of the specification oracle a failure.

For the ``spans`` tier a divergence may need several classes at once (template specials
and decorated byte pieces in one sequence): it is intended only when the union of the
positions the classes explain covers every differing position.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Protocol

from ..core.case import Case
from ..core.observation import Observation
from ..core.outcome import Encoded
from .compare import REFERENCE_SIDE, Divergence, judge_tiers
from .predicates import ALL, Context, Predicate, differing_positions
from .registry import load_registry
from .replay import Replayer
from .specification import check_case

#: A timing hook: a context around each stage of the judgement ("compare", "classify",
#: "specification").
Stage = Callable[[str], AbstractContextManager[None]]


class Explainer(Protocol):
    """What classifies a divergence: a registry class of ours, or an expectation of a
    third-party subject (``harness.judge.expectations``)."""

    @property
    def id(self) -> str: ...
    @property
    def explains(self) -> tuple[str, ...]: ...
    @property
    def predicate(self) -> Predicate: ...


@dataclass(frozen=True)
class Verdict:
    """``classes`` empty means failure."""

    divergence: Divergence
    classes: tuple[str, ...]

    @property
    def is_failure(self) -> bool:
        return not self.classes


@dataclass(frozen=True)
class Judgement:
    """What the judge made of one case's observations."""

    verdicts: list[Verdict]
    #: (operation, tier) of every tier skipped because a subject does not expose it.
    skipped: list[tuple[str, str]]
    #: How many executions the judge had the replayer make (set by the run engine).
    replays: int = 0

    def diverged(self) -> dict[int, Verdict]:
        """Verdict by ``id()`` of its observation: the first (lowest tier) of each."""
        found: dict[int, Verdict] = {}
        for verdict in self.verdicts:
            found.setdefault(id(verdict.divergence.observation), verdict)
        return found


def judge(case: Case, observations: Sequence[Observation],
          capabilities: Collection[str] | None = None,
          classes: Sequence[Explainer] | None = None, *, replay: Replayer,
          specification: bool = False, stage: Stage | None = None,
          side: str = REFERENCE_SIDE) -> Judgement:
    """Compare every observation and classify every divergence (by ``classes``: the
    registry of our intended divergences unless given); with ``specification``, every
    finding of the specification oracle on the reference's outcomes is a failure verdict
    too. Whatever must run again runs through ``replay``. ``side``: what the verdicts'
    words call the subject."""
    timed = stage if stage is not None else _untimed
    divergences: list[Divergence] = []
    skipped: list[tuple[str, str]] = []
    with timed("compare"):
        for obs in observations:
            comparison = judge_tiers(obs, capabilities, side)
            skipped.extend((obs.operation, tier) for tier in comparison.skipped)
            divergences.extend(comparison.divergences)
    with timed("classify"):
        verdicts = classify(case, divergences, classes, replay=replay) if divergences else []
    if specification:
        with timed("specification"):
            verdicts.extend(Verdict(d, ()) for d in check_case(case, observations, replay))
    return Judgement(verdicts, skipped)


def _untimed(_: str) -> AbstractContextManager[None]:
    return nullcontext()


def classify(case: Case, divergences: list[Divergence],
             registry: Sequence[Explainer] | None = None, *, replay: Replayer
             ) -> list[Verdict]:
    classes = registry if registry is not None else load_registry()
    ctx = Context(case, replay)
    return [_classify_one(ctx, div, classes) for div in divergences]


def _classify_one(ctx: Context, div: Divergence,
                  classes: Sequence[Explainer]) -> Verdict:
    candidates = [c for c in classes if div.tier in c.explains]
    ctx.in_force = frozenset(str(getattr(c.predicate, "__name__", "")) for c in classes)
    if div.tier == "spans":
        return _classify_positions(ctx, div, candidates)
    for cls in candidates:
        ctx.also = []
        if cls.predicate(ctx, div):
            return Verdict(div, (cls.id, *_composed(ctx, classes)))
    return Verdict(div, ())


def _composed(ctx: Context, classes: Sequence[Explainer]) -> tuple[str, ...]:
    """The classes a predicate composed with (``Context.also``), by id."""
    return tuple(c.id for c in classes
                 if getattr(c.predicate, "__name__", None) in ctx.also)


def _classify_positions(ctx: Context, div: Divergence,
                        candidates: list[Explainer]) -> Verdict:
    ref, up = div.observation.subject, div.observation.upstream
    assert isinstance(ref, Encoded) and isinstance(up, Encoded)
    differing = differing_positions(ref.spans, up.spans)
    explained: set[int] = set()
    used: list[str] = []
    for cls in candidates:
        positions = cls.predicate(ctx, div)
        if positions == ALL:
            positions = frozenset(differing)
        if positions:
            explained |= positions
            used.append(cls.id)
    if differing <= explained:
        return Verdict(div, tuple(used))
    return Verdict(div, ())
