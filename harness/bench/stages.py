"""Benchmark section ``harness``: the default conformance profile's exploration (no
shrinking): comparisons per second, and its time split between generation, the two
subjects, comparison, classification, recording and the rest, timed exclusively through
the engine's timing hook (``runs.engine.Timing``) and timing subjects; nothing patched."""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ..core.profiles import RunProfile
from .figures import rates, summary
from .scales import Scale


class StageClock:
    """Exclusive time per stage: entering a stage pauses the one it was called from."""

    def __init__(self) -> None:
        self.totals: defaultdict[str, float] = defaultdict(float)
        self.calls: Counter[str] = Counter()
        self._stack: list[str] = []
        self._mark = 0.0

    def enter(self, stage: str) -> None:
        now = time.perf_counter()
        if self._stack:
            self.totals[self._stack[-1]] += now - self._mark
        self._stack.append(stage)
        self.calls[stage] += 1
        self._mark = now

    def exit(self) -> None:
        now = time.perf_counter()
        self.totals[self._stack.pop()] += now - self._mark
        self._mark = now

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """The engine's timing hook (``runs.engine.Timing``): its stages, named as this
        section reports them."""
        self.enter(ENGINE_STAGES.get(name, name))
        try:
            yield
        finally:
            self.exit()


#: The engine's stage names -> this section's.
ENGINE_STAGES = {"observe": "execute_glue", "replay": "reference_for_classification",
                 "specification": "classify"}


class TimedSubject:
    """A subject whose every call is timed as ``stage`` (the rest is the subject's own)."""

    def __init__(self, subject: Any, clock: StageClock, stage: str) -> None:
        self.subject, self.clock, self.stage = subject, clock, stage

    def __getattr__(self, name: str) -> Any:
        return getattr(self.subject, name)

    def _timed(self, call: Callable[[], Any]) -> Any:
        self.clock.enter(self.stage)
        try:
            return call()
        finally:
            self.clock.exit()

    def load(self, document: str) -> Any:
        return self._timed(lambda: self.subject.load(document))

    def encode(self, handle: Any, text: str, pair: str | None = None, *,
               add_special_tokens: bool = True) -> Any:
        return self._timed(lambda: self.subject.encode(
            handle, text, pair, add_special_tokens=add_special_tokens))

    def decode(self, handle: Any, ids: Any, *, skip_special_tokens: bool) -> Any:
        return self._timed(lambda: self.subject.decode(
            handle, ids, skip_special_tokens=skip_special_tokens))


def timed_observer(clock: StageClock) -> Callable[[Any], Any]:
    """The generated run's observer over subjects timed as ``upstream`` and ``reference``."""
    from ..runs.observe import observe_case
    from ..subjects.reference import LENIENT, STRICT
    from ..subjects.upstream import UPSTREAM

    upstream = TimedSubject(UPSTREAM, clock, "upstream")
    tracks: Any = (TimedSubject(STRICT, clock, "reference"),
                   TimedSubject(LENIENT, clock, "reference"))
    return lambda case: observe_case(case, upstream, tracks)


def timed_strategy(strategy: Any, clock: StageClock) -> Any:
    """``strategy`` with its draws timed as ``generation`` (the same choices are drawn)."""
    from hypothesis import strategies as st

    @st.composite
    def drawn(draw: st.DrawFn) -> Any:
        clock.enter("generation")
        try:
            return draw(strategy)
        finally:
            clock.exit()

    return drawn()


STAGES = ("generation", "upstream", "reference", "reference_for_classification",
          "execute_glue", "compare", "classify", "record", "engine_and_rest")
#: The stages that are the subjects' own work (harness efficiency: their share of the wall).
SUBJECT_STAGES = ("upstream", "reference", "reference_for_classification")

STAGE_MEANING = {
    "generation": "Hypothesis drawing the cases (harness/strategies)",
    "upstream": "the upstream subject: tokenizers load/encode/decode and their Outcomes",
    "reference": "the reference subject: implementation/ load/encode/decode (both tracks)",
    "reference_for_classification": "what the judge has run again through its replayer "
                                    "(harness/runs/replay.py: the lenient reference "
                                    "re-loaded for the predicates, say)",
    "execute_glue": "harness/runs/observe.py around the subjects (document JSON, "
                    "Observations)",
    "compare": "harness/judge/compare.py: tiered comparison of each observation",
    "classify": "harness/judge/classify.py and the predicates, without what the replayer "
                "runs",
    "record": "Tally.record: counts, witnesses, rule coverage",
    "engine_and_rest": "the rest of the wall time: Hypothesis' engine (choice trees, "
                       "mutations), the test wrapper",
}


def explore_once(examples: int, seed_value: int, profile: RunProfile) -> dict[str, Any]:
    """One instrumented exploration of ``examples`` cases of ``profile``'s strategy."""
    from ..judge.coverage import rules_exercised
    from ..runs.engine import Engine
    from ..runs.tally import Tally
    from ..runs.workers import exploration_sampled, strategy_of

    clock = StageClock()
    stats = Tally()
    strategy = timed_strategy(strategy_of(None, exploration_sampled(profile)), clock)
    engine = Engine(observe=timed_observer(clock), rules=rules_exercised, timing=clock)
    cpu = time.process_time()
    started = time.perf_counter()
    engine.explore(strategy, budget=examples, seed_value=seed_value, tally=stats)
    wall = time.perf_counter() - started
    cpu = time.process_time() - cpu
    stages = {stage: clock.totals.get(stage, 0.0) for stage in STAGES[:-1]}
    stages["engine_and_rest"] = max(0.0, wall - sum(stages.values()))
    return {"examples": stats.examples, "comparisons": stats.comparisons, "wall": wall,
            "cpu": cpu, "stages": stages}


def section_harness(scale: Scale, notes: list[str]) -> dict[str, Any]:
    from ..core.profiles import DEFAULT_PROFILE, PROFILES

    profile = PROFILES[DEFAULT_PROFILE]
    examples = profile.examples if scale.harness_examples is None else scale.harness_examples
    seed_value = 0
    runs = [explore_once(examples, seed_value, profile)
            for _ in range(scale.harness_repeats)]
    comparisons = [r["comparisons"] for r in runs]
    if len(set(comparisons)) != 1:
        notes.append(f"harness: the repeats compared different counts {comparisons} "
                     "(expected the same cases every time)")
    walls = [r["wall"] for r in runs]
    split: dict[str, Any] = {}
    for stage in STAGES:
        shares = [r["stages"][stage] / r["wall"] for r in runs]
        split[stage] = {"share": summary(shares),
                        "seconds": summary([r["stages"][stage] for r in runs]),
                        "what": STAGE_MEANING[stage]}
    grouped = {
        "generation": ("generation",),
        "upstream_subject": ("upstream",),
        "reference_subject": ("reference", "reference_for_classification"),
        "classification": ("compare", "classify"),
        "harness_glue_and_recording": ("execute_glue", "record"),
        "hypothesis_engine_and_rest": ("engine_and_rest",),
    }
    return {
        "what": f"the exploration phase of the default conformance profile "
                f"({profile.name}: {profile.examples} cases, each with "
                f"{profile.sampled_texts} sampled texts and {profile.sampled_id_runs} id runs "
                f"besides its drawn ones, seed {seed_value}, one process, "
                "no shrinking), instrumented with time.perf_counter around each stage",
        "note": "Hypothesis mixes constants from the loaded modules of this repository into "
                "what it draws, so with this module and the other sections loaded a seed "
                "explores other cases than `python -m harness conformance` does (the same "
                "mix); the repeats explore the same cases",
        "examples": runs[0]["examples"],
        "comparisons": runs[0]["comparisons"],
        "comparisons_per_second": rates(runs[0]["comparisons"], walls),
        "comparisons_per_cpu_second": rates(runs[0]["comparisons"],
                                            [r["cpu"] for r in runs]),
        "cases_per_second": rates(runs[0]["examples"], walls),
        "seconds": summary(walls),
        "split": split,
        "split_summary": {
            name: summary([sum(r["stages"][s] for s in members) / r["wall"] for r in runs])
            for name, members in grouped.items()},
        # Harness efficiency (issue 24): the subjects' own time as a share of the wall time
        # (goal: at least half; before the cheaper cases it was 0.13).
        "subjects_share": summary([sum(r["stages"][s] for s in SUBJECT_STAGES) / r["wall"]
                                   for r in runs]),
    }
