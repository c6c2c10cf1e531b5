"""Benchmark section ``real_models``: the real-model phase of the default profile on each
conformance fixture (its corpus and its generated texts, ``runs.real_models.run_texts``),
its wall time split between the two subjects' own work, generating the texts, judging
and the rest, timed through the engine's timing hook and timing subjects as the
``harness`` section times the exploration. Harness efficiency: the subjects' share."""

from __future__ import annotations

import time
from typing import Any

from .figures import summary
from .scales import Scale
from .stages import STAGE_MEANING, STAGES, SUBJECT_STAGES, StageClock, TimedSubject


def phase_once(name: str, texts: int, seed_value: int) -> dict[str, Any]:
    """One instrumented real-model run of fixture ``name``: ``texts`` generated texts."""
    from ..fixture_builders.real_models import build_fixture
    from ..runs.engine import Engine
    from ..runs.real_models import LoadedFixture, corpus_texts, run_texts, text_size
    from ..runs.tally import Tally
    from ..subjects.reference import LENIENT, STRICT
    from ..subjects.upstream import UPSTREAM

    clock = StageClock()
    text = build_fixture(name).read_text(encoding="utf-8")
    subject: Any = TimedSubject(STRICT, clock, "reference")
    loaded = LoadedFixture(text, subject, upstream=TimedSubject(UPSTREAM, clock, "upstream"),
                           lenient=TimedSubject(LENIENT, clock, "reference"))
    engine = Engine(observe=loaded.observe, size=text_size, fixture=name, timing=clock)
    tally = Tally()
    clock.totals.clear()  # the loads are not the phase's per-text work
    started = time.perf_counter()
    generated = run_texts(loaded, engine, corpus_texts(), examples=texts,
                          seed_value=seed_value, tally=tally, timing=clock)
    wall = time.perf_counter() - started
    stages = {stage: clock.totals.get(stage, 0.0) for stage in STAGES[:-1]}
    stages["engine_and_rest"] = max(0.0, wall - sum(stages.values()))
    return {"texts": generated, "comparisons": tally.comparisons, "wall": wall,
            "stages": stages, "track": loaded.track}


def section_real_models(scale: Scale, notes: list[str]) -> dict[str, Any]:
    from ..core.profiles import DEFAULT_PROFILE, PROFILES
    from ..fixture_builders.real_models import FixtureError

    profile = PROFILES[DEFAULT_PROFILE]
    texts = profile.real_examples if scale.real_model_texts is None else scale.real_model_texts
    out: dict[str, Any] = {
        "what": f"the real-model phase of the default profile ({profile.name}: the corpus and "
                f"{texts} generated texts per fixture, seed 0, one process), instrumented "
                "with time.perf_counter around each stage (generation: the seeded batches of "
                "harness/strategies/sampled_texts.py); loads excluded",
        "fixtures": {},
    }
    for name in scale.fixtures:
        try:
            runs = [phase_once(name, texts, 0) for _ in range(scale.real_model_repeats)]
        except FixtureError as exc:
            notes.append(f"real_models: {name} not run: {exc}")
            out["fixtures"][name] = {"skipped": str(exc)}
            continue
        walls = [r["wall"] for r in runs]
        out["fixtures"][name] = {
            "track": runs[0]["track"],
            "texts": runs[0]["texts"],
            "comparisons": runs[0]["comparisons"],
            "seconds": summary(walls),
            "subjects_share": summary([sum(r["stages"][s] for s in SUBJECT_STAGES) / r["wall"]
                                       for r in runs]),
            "split": {stage: {"share": summary([r["stages"][stage] / r["wall"] for r in runs]),
                              "what": STAGE_MEANING[stage]} for stage in STAGES},
        }
    ran = [entry for entry in out["fixtures"].values() if "skipped" not in entry]
    if ran:
        out["subjects_share_min"] = min(entry["subjects_share"]["median"] for entry in ran)
    return out
