"""The conformance job: every run of ``nox -s conformance``, in order, into one result.

1. replay the failing cases stored in the example database (recorded like explored ones);
2. explore generated cases (``runs.generated``), sharded over workers, then run every
   declared probe once (``strategies.declared``: our reference only);
3. re-run the pinned witnesses (``runs.pinned``): a class whose witness stopped showing
   it is stale; one that still shows it reports that witness unless the run met a smaller
   one (docs/decisions/0029-pinned-witnesses-first.md);
4. search a shrunk witness of each failure signature and of each class with no pinned
   witness still showing it;
5. store the failures' witnesses in the example database;
6. the real-model fixtures (``runs.real_models``);
7. the unified tokenizer's morph track (``runs.morph_track``).

With ``subject`` (a third-party subject's spec, ``runs.third_party``) the same phases run
with that subject in place of our reference, judged by its expectations file: its pinned
witnesses are re-checked instead of ours, and steps 1, 5 and 7 (our example database and
our unified tokenizer) are left out.

The report is built from the result by ``harness.report``; nothing here writes a file.
"""

from __future__ import annotations

import platform
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import hypothesis
from hypothesis.database import ExampleDatabase

from .core import interrupts
from .core.profiles import PROFILES, Profile
from .fixtures.real_models import CONFORMANCE_FIXTURES
from .runs import database as example_db
from .runs.engine import (
    HarnessError,
    adopt_pinned,
    adopt_witnesses,
    describe_error,
    explored_cases,
    shrink_targets,
)
from .runs.generated import ENGINE
from .runs.morph_track import MorphTrackRun
from .runs.morph_track import run as run_morph_track
from .runs.pinned import PinnedCheck, Stale
from .runs.pinned import check_pinned as check_pinned_rows
from .runs.real_models import FixtureRun
from .runs.tally import Tally
from .runs.third_party import check_subject_witnesses, engine_for
from .runs.workers import LOGICAL_SHARDS, Workers, logical_shards
from .strategies.declared import declared_cases
from .subjects.upstream import UPSTREAM


@dataclass(frozen=True)
class SubjectInfo:
    """The third-party subject a run judged (None in a JobResult: our reference)."""

    spec: str
    name: str
    version: str
    capabilities: tuple[str, ...]
    expectations: str
    #: Times the subject's process was restarted after a crash, a timeout or garbage.
    restarts: int


def subject_info(spec: str) -> SubjectInfo:
    wired = engine_for(spec)
    return SubjectInfo(wired.spec, wired.subject.name, wired.subject.version(),
                       tuple(sorted(wired.subject.capabilities)), wired.expectations.path,
                       wired.subject.restarts)


@dataclass
class JobResult:
    profile: Profile
    seed: int
    tally: Tally
    duration: float
    explore_seconds: float
    stale: list[Stale]
    command: str
    environment: dict[str, str]
    workers: int = 1
    real_models: list[FixtureRun] = field(default_factory=list)
    real_seconds: float = 0.0
    #: Failing cases replayed from the example database before exploring.
    replayed: int = 0
    morph_track: MorphTrackRun | None = None
    subject: SubjectInfo | None = None
    #: Seconds of each phase after the exploration (explore_seconds, real_seconds above).
    pinned_seconds: float = 0.0
    search_seconds: float = 0.0
    morph_seconds: float = 0.0
    #: Witness searches run (failures, classes without a pinned witness still showing them),
    #: as "class <id>" / "failure <signature>".
    searched: tuple[str, ...] = ()
    #: ``(I, N)``: this run is shard I of N (``--shard I/N``); None: the whole run.
    shard: tuple[int, int] | None = None

    @property
    def real_failures(self) -> int:
        return sum(r.tally.failure_count + len(r.tally.errors) for r in self.real_models)

    @property
    def not_run(self) -> list[FixtureRun]:
        """The real-model fixtures that could not be run here: the run is incomplete."""
        return [r for r in self.real_models if r.not_run is not None]

    @property
    def failed(self) -> bool:
        return (self.tally.failed or bool(self.stale) or self.real_failures > 0
                or (self.morph_track is not None and self.morph_track.tally.failed))


def environment() -> dict[str, str]:
    return {
        "tokenizers": UPSTREAM.version(),
        "python": platform.python_version(),
        "unicode": unicodedata.unidata_version,
        "hypothesis": hypothesis.__version__,
        "platform": platform.platform(terse=True),
    }


def run(*, profile_name: str, seed_value: int, examples: int | None, command: str,
        strategy: Any = None, progress: Callable[[Tally], None] | None = None,
        check_pinned: bool = True, real_examples: int | None = None, workers: int = 1,
        database: ExampleDatabase | None = None,
        phase: Callable[[str], None] | None = None,
        shrink: bool = True, with_morph_track: bool = True, declared: bool = True,
        real_fixtures: tuple[str, ...] | None = None,
        subject: str | None = None, shard: tuple[int, int] | None = None) -> JobResult:
    """The whole job. ``workers`` > 1 shards the exploration by seed across processes and
    spreads the witness searches and real models over them; ``database`` replays the
    failing cases stored there first and stores this run's. ``subject``: a third-party
    subject's spec in place of our reference. ``declared``: after the exploration, run
    every declared probe once (our reference only). ``shard``: ``(I, N)`` runs job shard
    I of N only: the logical shards ``k % N == I - 1`` of the exploration and the
    real-model fixtures of the same positions; shard 1 also replays the database and runs
    the declared probes and the morph track (``harness.report.merge`` joins the reports)."""
    profile = PROFILES[profile_name]
    budget = examples if examples is not None else profile.examples
    real_budget = profile.real_examples if real_examples is None else real_examples
    tally = Tally()
    started = time.perf_counter()

    def say(text: str) -> None:
        interrupts.set_phase(text)
        if phase is not None:
            phase(text)

    if subject is not None:
        database, with_morph_track = None, False
    mine = shard_positions(shard)
    if shard is not None and shard[0] != 1:
        declared, with_morph_track = False, False
    if real_fixtures is None:  # the profile's: its first real_fixtures (None: all)
        real_fixtures = CONFORMANCE_FIXTURES[:profile.real_fixtures]
    real_fixtures = tuple(f for i, f in enumerate(real_fixtures) if mine(i))
    # No more processes than there are shards or fixtures to spread over them (a pool's
    # start-up costs seconds; the report is the same either way).
    spread = len(real_fixtures) if real_budget >= 0 else 0
    workers = min(workers, max(logical_shards(budget), spread, 1))
    with Workers(workers, profile, seed_value, strategy, subject,
                 shards=[k for k in range(LOGICAL_SHARDS) if mine(k)]) as pool:
        replayed = 0
        if database is not None and (shard is None or shard[0] == 1):
            say("replaying the example database")
            replayed = example_db.replay_failures(database, ENGINE, tally)
        say(f"exploring {budget} generated cases")
        pool.explore(tally, budget, progress)
        if declared and subject is None:
            say("the declared probes")
            tally.merge(run_declared())
            if progress is not None:
                progress(tally)
        explored = time.perf_counter() - started
        pinned = PinnedCheck()
        if check_pinned:
            say("re-checking the pinned witnesses")
            pinned = check_pinned_rows() if subject is None else check_subject_witnesses(subject)
            adopt_pinned(tally, pinned.witnesses)
        pinned_seconds = time.perf_counter() - started - explored
        searched: tuple[str, ...] = ()
        if shrink:
            targets = shrink_targets(tally, pinned.witnesses)
            searched = tuple(f"{kind} {key}" for kind, key in targets)
            if targets:
                say(f"witness searches: 0/{len(targets)}")
            try:
                adopt_witnesses(tally, targets, pool.search(
                    targets, lambda k: say(f"witness searches: {k}/{len(targets)}"),
                    starts=explored_cases(tally, targets)))
            except HarnessError as exc:
                tally.errors.append(str(exc))
            except Exception as exc:  # a worker's own bug, re-raised here by the pool
                tally.errors.append(describe_error(exc))
        search_seconds = time.perf_counter() - started - explored - pinned_seconds
        if database is not None:
            example_db.save_failures(database, tally)
        stale = pinned.stale
        real_started = time.perf_counter()
        real: list[FixtureRun] = []
        if real_budget >= 0 and real_fixtures:
            say(f"real models: {len(real_fixtures)} fixtures")
            real = pool.real_models(real_budget, real_fixtures)
        real_seconds = time.perf_counter() - real_started
    morph = None
    morph_started = time.perf_counter()
    if with_morph_track:
        say("the unified tokenizer's morph track")
        morph = run_morph_track(examples=budget, seed_value=seed_value)
    morph_seconds = time.perf_counter() - morph_started
    return JobResult(profile, seed_value, tally, time.perf_counter() - started, explored,
                     stale, command, environment(), workers, real, real_seconds,
                     replayed=replayed, morph_track=morph,
                     subject=subject_info(subject) if subject is not None else None,
                     pinned_seconds=pinned_seconds, search_seconds=search_seconds,
                     morph_seconds=morph_seconds, searched=searched, shard=shard)


def shard_positions(shard: tuple[int, int] | None) -> Callable[[int], bool]:
    """Which positions (logical shards, real-model fixtures) job shard ``(I, N)`` takes."""
    if shard is None:
        return lambda _: True
    index, count = shard
    return lambda position: position % count == index - 1


def run_declared() -> Tally:
    """Every declared probe (``harness.strategies.declared``) through the generated run's
    engine: counted as ``declared``, not as generated examples, and adding no feature
    labels (those measure what the generator reaches)."""
    part = ENGINE.run_items(declared_cases(), Tally())
    part.declared, part.examples = part.examples, 0
    part.features.clear()
    return part
