"""The conformance job: every run of ``nox -s conformance``, in order, into one result.

1. replay the failing cases stored in the example database (recorded like explored ones);
2. explore generated cases (``runs.generated``), sharded over workers, then run every
   declared probe once (``strategies.declared``: our reference only);
3. search a shrunk witness of each class and each failure signature;
4. store the failures' witnesses in the example database;
5. re-run the pinned witnesses (``runs.pinned``): a class whose witness stopped showing
   it is stale;
6. the real-model fixtures (``runs.real_models``);
7. the unified tokenizer's morph track (``runs.morph_track``).

With ``subject`` (a third-party subject's spec, ``runs.third_party``) the same phases run
with that subject in place of our reference, judged by its expectations file: its pinned
witnesses are re-checked instead of ours, and steps 1, 4 and 7 (our example database and
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
from .runs.engine import HarnessError, adopt_witnesses, describe_error, shrink_targets
from .runs.generated import ENGINE
from .runs.morph_track import MorphTrackRun
from .runs.morph_track import run as run_morph_track
from .runs.pinned import Stale, check_pinned_witnesses
from .runs.real_models import FixtureRun
from .runs.tally import Tally
from .runs.third_party import check_subject_witnesses, engine_for
from .runs.workers import Workers
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

    @property
    def real_failures(self) -> int:
        return sum(r.tally.failure_count + len(r.tally.errors) for r in self.real_models)

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
        real_fixtures: tuple[str, ...] = CONFORMANCE_FIXTURES,
        subject: str | None = None) -> JobResult:
    """The whole job. ``workers`` > 1 shards the exploration by seed across processes and
    spreads the witness searches and real models over them; ``database`` replays the
    failing cases stored there first and stores this run's. ``subject``: a third-party
    subject's spec in place of our reference. ``declared``: after the exploration, run
    every declared probe once (our reference only)."""
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
    with Workers(workers, profile, seed_value, strategy, subject) as pool:
        replayed = 0
        if database is not None:
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
        if shrink:
            targets = shrink_targets(tally)
            if targets:
                say(f"shrinking {len(targets)} witnesses")
            try:
                adopt_witnesses(tally, targets, pool.search(targets))
            except HarnessError as exc:
                tally.errors.append(str(exc))
            except Exception as exc:  # a worker's own bug, re-raised here by the pool
                tally.errors.append(describe_error(exc))
        if database is not None:
            example_db.save_failures(database, tally)
        stale: list[Stale] = []
        if check_pinned:
            say("re-checking the pinned witnesses")
            stale = (check_pinned_witnesses() if subject is None
                     else check_subject_witnesses(subject))
        real_started = time.perf_counter()
        real: list[FixtureRun] = []
        if real_budget >= 0 and real_fixtures:
            say(f"real models: {len(real_fixtures)} fixtures")
            real = pool.real_models(real_budget, real_fixtures)
        real_seconds = time.perf_counter() - real_started
    morph = None
    if with_morph_track:
        say("the unified tokenizer's morph track")
        morph = run_morph_track(examples=budget, seed_value=seed_value)
    return JobResult(profile, seed_value, tally, time.perf_counter() - started, explored,
                     stale, command, environment(), workers, real, real_seconds,
                     replayed=replayed, morph_track=morph,
                     subject=subject_info(subject) if subject is not None else None)


def run_declared() -> Tally:
    """Every declared probe (``harness.strategies.declared``) through the generated run's
    engine: counted as ``declared``, not as generated examples, and adding no feature
    labels (those measure what the generator reaches)."""
    part = ENGINE.run_items(declared_cases(), Tally())
    part.declared, part.examples = part.examples, 0
    part.features.clear()
    return part
