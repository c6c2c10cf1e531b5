"""The conformance job: explore generated cases, classify every divergence, shrink one
witness per class and per failure, re-check pinned witnesses, and write the report.

Phases:
1. explore  - Hypothesis draws cases; each runs through both subjects (``execute``), is
              compared (``compare``) and classified (``classify``); nothing raises, so
              one odd case never ends the run and every count is complete.
2. shrink   - for each class observed and each failure signature, a targeted Hypothesis
              search raises on that signature, so Hypothesis shrinks the vocabulary and
              the texts together; the smallest explored case is the fallback.
3. pinned   - every witness pinned in ``oracles/divergences.json`` is re-run: one that
              no longer shows its class makes the run stale (upstream fixed it, or our
              rule changed).

With an example database, the failing cases stored there are replayed (and recorded like
explored ones) before phase 1, and each failure's witness is stored after phase 2; with
``workers`` > 1, phase 1 is sharded by seed across processes and phase 2's searches and
the real models are spread over them. Both live in ``harness.parallel``.
"""

from __future__ import annotations

import contextlib
import json
import platform
import time
import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import hypothesis
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis.database import ExampleDatabase

from .case import Case
from .classify import Verdict, classify, load_registry
from .compare import TIERS, Divergence, Observation, compare
from .coverage import RULES, rules_exercised
from .execute import execute
from .profiles import PROFILES, Profile
from .subjects import upstream

REPO_ROOT = Path(__file__).resolve().parent.parent
PINNED_WITNESSES = REPO_ROOT / "oracles" / "divergences.json"


def evaluate(case: Case) -> tuple[list[Observation], list[Verdict]]:
    """One case, end to end: observations and the verdict on each divergence."""
    observations = execute(case)
    divergences = [d for d in map(compare, observations) if d is not None]
    return observations, classify(case, divergences)


def failure_signature(div: Divergence) -> str:
    obs = div.observation
    return (f"{obs.track}/{obs.operation}/{div.tier}: reference "
            f"{_kind(obs.reference)} vs upstream {_kind(obs.upstream)}")


def _kind(outcome: Any) -> str:
    rule = getattr(outcome, "rule", None)
    kind = type(outcome).__name__.lower()
    if kind == "refused" and rule and len(rule) < 40:
        return f"refused[{rule}]"
    if kind == "crashed":
        return f"crashed[{outcome.kind}]"
    return kind


@dataclass
class Witness:
    case: Case
    divergence: Divergence
    classes: tuple[str, ...]
    shrunk: bool = False
    size: int = 0


@dataclass
class Stats:
    examples: int = 0
    comparisons: int = 0
    by_tier: dict[str, Counter[str]] = field(default_factory=dict)
    by_class: Counter[str] = field(default_factory=Counter)
    class_comparisons: Counter[str] = field(default_factory=Counter)
    rule_comparisons: Counter[str] = field(default_factory=Counter)
    failures: Counter[str] = field(default_factory=Counter)
    failure_witness: dict[str, Witness] = field(default_factory=dict)
    class_witness: dict[str, Witness] = field(default_factory=dict)
    upstream_outcomes: Counter[str] = field(default_factory=Counter)

    def record(self, case: Case, observations: list[Observation],
               verdicts: list[Verdict]) -> None:
        self.examples += 1
        self.comparisons += len(observations)
        size = _size(case)
        load = observations[0]
        self.upstream_outcomes[_kind(load.upstream)] += 1
        diverged = {id(v.divergence.observation): v for v in verdicts}
        for obs in observations:
            tier_counts = self.by_tier.setdefault(obs.operation, Counter())
            tier_counts["compared"] += 1
            verdict = diverged.get(id(obs))
            if verdict is None:
                tier_counts["agreed"] += 1
            else:
                tier_counts[f"diverged:{verdict.divergence.tier}"] += 1
            for rule in rules_exercised(case, obs):
                self.rule_comparisons[rule] += 1
        for verdict in verdicts:
            if verdict.is_failure:
                sig = failure_signature(verdict.divergence)
                self.failures[sig] += 1
                _keep_smaller(self.failure_witness, sig,
                              Witness(case, verdict.divergence, (), size=size))
                continue
            for cls in verdict.classes:
                self.by_class[cls] += 1
                self.class_comparisons[cls] += 1
                _keep_smaller(self.class_witness, cls,
                              Witness(case, verdict.divergence, verdict.classes, size=size))


def _keep_smaller(store: dict[str, Witness], key: str, witness: Witness) -> None:
    current = store.get(key)
    if current is None or witness.size < current.size:
        store[key] = witness


@dataclass
class RunResult:
    profile: Profile
    seed: int
    stats: Stats
    duration: float
    explore_seconds: float
    stale: list[dict[str, Any]]
    command: str
    environment: dict[str, str]
    real_models: list[Any] = field(default_factory=list)
    real_seconds: float = 0.0
    #: Failing cases replayed from the example database before exploring.
    replayed: int = 0
    #: The unified tokenizer's morph-track differential (harness/unified/conformance.py).
    unified: Any = None

    @property
    def real_failures(self) -> int:
        return sum(sum(r.failures.values()) for r in self.real_models)

    @property
    def failed(self) -> bool:
        return (bool(self.stats.failures) or bool(self.stale) or self.real_failures > 0
                or (self.unified is not None and bool(self.unified.failed)))


def environment() -> dict[str, str]:
    return {
        "tokenizers": upstream.version(),
        "python": platform.python_version(),
        "unicode": unicodedata.unidata_version,
        "hypothesis": hypothesis.__version__,
        "platform": platform.platform(terse=True),
    }


def run(*, profile_name: str, seed_value: int, examples: int | None, command: str,
        strategy: Any = None, progress: Callable[[Stats], None] | None = None,
        check_pinned: bool = True, real_examples: int | None = None, workers: int = 1,
        database: ExampleDatabase | None = None,
        phase: Callable[[str], None] | None = None,
        shrink: bool = True, with_unified: bool = True) -> RunResult:
    """The whole job. ``workers`` > 1 shards the exploration by seed across processes and
    spreads the witness searches and real models over them (``harness.parallel``);
    ``database`` replays the failing cases stored there first and stores this run's."""
    from . import parallel

    profile = PROFILES[profile_name]
    budget = examples if examples is not None else profile.examples
    real_budget = profile.real_examples if real_examples is None else real_examples
    stats = Stats()
    started = time.perf_counter()
    with parallel.Workers(workers, profile, seed_value, strategy) as pool:
        replayed = parallel.replay_failures(database, stats) if database is not None else 0
        pool.explore(stats, budget, progress)
        explored = time.perf_counter() - started
        if shrink:
            _shrink_witnesses(stats, pool.strategy, profile, seed_value,
                              search=pool.search, phase=phase)
        if database is not None:
            parallel.save_failures(database, stats)
        if check_pinned and phase is not None:
            phase("re-checking the pinned witnesses")
        stale = check_pinned_witnesses() if check_pinned else []
        real_started = time.perf_counter()
        real = pool.real_models(real_budget, phase) if real_budget >= 0 else []
        real_seconds = time.perf_counter() - real_started
    unified = _unified_morph_track(budget, seed_value, phase) if with_unified else None
    return RunResult(profile, seed_value, stats, time.perf_counter() - started, explored,
                     stale, command, environment(), real, real_seconds, replayed=replayed,
                     unified=unified)


def _unified_morph_track(examples: int, seed_value: int,
                         phase: Callable[[str], None] | None = None) -> Any:
    """The unified tokenizer's morph-track differential (harness/unified/conformance.py),
    or None where that package is absent; its own errors are recorded in its result (a
    failure of the run), never raised, so the rest of the report is still written."""
    try:
        from .unified.conformance import run_guarded
    except ImportError:
        return None
    if phase is not None:
        phase("the unified tokenizer's morph track")
    return run_guarded(examples=examples, seed_value=seed_value)


def explore(strategy: Any, *, budget: int, seed_value: int, stats: Stats,
            progress: Callable[[Stats], None] | None = None) -> Stats:
    """Phase 1: ``budget`` cases drawn with ``seed_value``, each recorded in ``stats``."""

    @seed(seed_value)
    @settings(max_examples=budget, deadline=None, database=None,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck),
              derandomize=False)
    @given(strategy)
    def explore(case: Case) -> None:
        observations, verdicts = evaluate(case)
        stats.record(case, observations, verdicts)
        if progress is not None:
            progress(stats)

    if budget > 0:
        explore()
    return stats


class _FoundError(Exception):
    def __init__(self, case: Case, verdict: Verdict) -> None:
        super().__init__("found")
        self.case = case
        self.verdict = verdict


#: One witness search: ("class", class id) or ("failure", failure signature).
Target = tuple[str, str]
Found = tuple[Case, Verdict]


def shrink_targets(stats: Stats) -> list[Target]:
    return ([("class", cls) for cls in sorted(stats.class_witness)]
            + [("failure", sig) for sig in sorted(stats.failure_witness)])


def search_target(strategy: Any, target: Target, profile: Profile,
                  seed_value: int) -> Found | None:
    """Phase 2 for one target: the smallest case found showing it, with its verdict."""
    kind, key = target
    wanted = _has_class(key) if kind == "class" else _has_signature(key)
    found = _targeted_search(strategy, wanted, profile, seed_value)
    return None if found is None else (found.case, found.verdict)


def _shrink_witnesses(stats: Stats, strategy: Any, profile: Profile, seed_value: int, *,
                      search: Callable[[list[Target]], list[Found | None]] | None = None,
                      phase: Callable[[str], None] | None = None) -> None:
    targets = shrink_targets(stats)
    if phase is not None and targets:
        phase(f"shrinking {len(targets)} witnesses")
    found = (search(targets) if search is not None else
             [search_target(strategy, t, profile, seed_value) for t in targets])
    for (kind, key), hit in zip(targets, found, strict=True):
        store = stats.class_witness if kind == "class" else stats.failure_witness
        if hit is not None and _size(hit[0]) <= store[key].size:
            store[key] = Witness(hit[0], hit[1].divergence, hit[1].classes,
                                 shrunk=True, size=_size(hit[0]))


def _has_class(cls: str) -> Callable[[Verdict], bool]:
    return lambda verdict: cls in verdict.classes


def _has_signature(sig: str) -> Callable[[Verdict], bool]:
    return lambda v: v.is_failure and failure_signature(v.divergence) == sig


def _targeted_search(strategy: Any, wanted: Callable[[Verdict], bool], profile: Profile,
                     seed_value: int) -> _FoundError | None:
    """Let Hypothesis find and shrink a case showing ``wanted``; keep the smallest seen.

    Past the time budget the search stops raising, which ends shrinking early; the
    smallest case seen so far is kept either way (so a cut-short shrink is still used).
    """
    deadline = time.perf_counter() + profile.shrink_seconds
    best: list[_FoundError] = []

    @seed(seed_value)
    @settings(max_examples=profile.shrink_examples, deadline=None, database=None,
              phases=[Phase.generate, Phase.shrink], suppress_health_check=list(HealthCheck),
              report_multiple_bugs=False, print_blob=False, verbosity=hypothesis.Verbosity.quiet)
    @given(strategy)
    def search(case: Case) -> None:
        if time.perf_counter() > deadline:
            return
        _, verdicts = evaluate(case)
        for verdict in verdicts:
            if wanted(verdict):
                found = _FoundError(case, verdict)
                if not best or _size(case) <= _size(best[0].case):
                    best[:] = [found]
                raise found

    # The outcome is in `best`; Hypothesis' own complaints (a flaky replay once the
    # deadline has passed) do not matter here.
    with contextlib.suppress(Exception):
        search()
    return best[0] if best else None


def _size(case: Case) -> int:
    return len(json.dumps(case.to_json(), ensure_ascii=False))


def check_pinned_witnesses(path: Path = PINNED_WITNESSES) -> list[dict[str, Any]]:
    """Re-run each pinned witness; a class whose witness stopped diverging is stale."""
    if not path.is_file():
        return []
    data = json.loads(path.read_text(encoding="utf-8"))
    stale: list[dict[str, Any]] = []
    for row in data.get("cases", []):
        case = Case.from_json(row["case"])
        _, verdicts = evaluate(case)
        classes = {c for v in verdicts for c in v.classes}
        if row["class"] not in classes:
            stale.append({"id": row["id"], "class": row["class"],
                          "now": sorted(classes) or "no divergence"})
    return stale


__all__ = ["RULES", "TIERS", "RunResult", "Stats", "evaluate", "explore", "load_registry",
           "run", "search_target", "shrink_targets"]
