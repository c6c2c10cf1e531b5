"""A job's result (``harness.job.JobResult``) as the report model."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from ..core.profiles import RunProfile
from ..core.resources import repository_path
from ..fixture_builders.morph_track import UPSTREAM_DOCUMENT
from ..judge.compare import SUBJECT_SIDE
from ..judge.coverage import RULES
from ..judge.registry import load_registry
from ..runs import reach as reaches
from ..runs import tally as tallies
from ..runs.morph_track import MorphTrackRun
from ..runs.pinned import Stale
from ..runs.real_models import FixtureRun
from ..runs.third_party import expectations_at
from . import model


class JobResultLike(Protocol):
    """What the report needs of a job's result (``harness.job.JobResult``)."""

    @property
    def profile(self) -> RunProfile: ...
    @property
    def seed(self) -> int: ...
    @property
    def tally(self) -> tallies.Tally: ...
    @property
    def duration(self) -> float: ...
    @property
    def explore_seconds(self) -> float: ...
    @property
    def stale(self) -> Sequence[Stale]: ...
    @property
    def command(self) -> str: ...
    @property
    def environment(self) -> Mapping[str, str]: ...
    @property
    def workers(self) -> int: ...
    @property
    def real_models(self) -> Sequence[FixtureRun]: ...
    @property
    def real_seconds(self) -> float: ...
    @property
    def replayed(self) -> int: ...
    @property
    def morph_track(self) -> MorphTrackRun | None: ...
    @property
    def search_seconds(self) -> float: ...
    @property
    def pinned_seconds(self) -> float: ...
    @property
    def morph_seconds(self) -> float: ...
    @property
    def searched(self) -> tuple[str, ...]: ...
    @property
    def shard(self) -> tuple[int, int] | None: ...
    @property
    def failed(self) -> bool: ...
    @property
    def subject(self) -> SubjectInfoLike | None: ...


class SubjectInfoLike(Protocol):
    """What the report needs of a third-party subject (``harness.job.SubjectInfo``)."""

    @property
    def spec(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def version(self) -> str: ...
    @property
    def capabilities(self) -> tuple[str, ...]: ...
    @property
    def expectations(self) -> str: ...
    @property
    def restarts(self) -> int: ...

MORPH_WHAT = ("the unified tokenizer's morph track (MorphBPE) against its upstream "
              "expression, a tokenizer.json run by tokenizers; per Mongolian run, and "
              "whole texts that are one run (with specials)")
DEFAULT_REPORT = "reports/conformance.yaml"


def _round(value: float, digits: int = 1) -> float:
    return round(value, digits)


def witness(w: tallies.Witness) -> model.WitnessRecord:
    entry = model.WitnessRecord(detail=w.detail, classes=list(w.classes), shrunk=w.shrunk,
                          case_size=w.size, fixture=w.fixture)
    if w.divergence is not None:
        obs = w.divergence.observation.to_json()
        entry.tier = w.divergence.tier
        entry.track = obs["track"]
        entry.operation = obs["operation"]
        entry.input = obs["input"]
        entry.options = obs["options"]
        if w.divergence.side == SUBJECT_SIDE:  # a third-party run: in its own words
            entry.subject = obs["subject"]
        else:
            entry.reference = obs["subject"]
        entry.upstream = obs["upstream"]
    elif w.case.texts:
        entry.input = w.case.texts[0]
    if w.fixture is None:
        entry.case = w.case.to_json()
    return entry


def reproduce_command(report_path: str, *, failure: str | None = None,
                      class_id: str | None = None) -> str:
    which = f"--failure {failure}" if failure is not None else f"--class {class_id}"
    return f"python -m harness reproduce {report_path} {which}"


def failures(tally: tallies.Tally, *, prefix: str = "F",
             report_path: str | None = None) -> list[model.Failure]:
    out = []
    for i, sig in enumerate(sorted(tally.failures), start=1):
        fid = f"{prefix}{i}"
        out.append(model.Failure(
            id=fid, signature=sig, count=tally.failures[sig],
            witness=witness(tally.failure_witness[sig]),
            reproduce=(reproduce_command(report_path, failure=fid)
                       if report_path is not None else None)))
    return out


def tally_section(tally: tallies.Tally, *, prefix: str,
                  report_path: str | None = None) -> model.TallyRecord:
    agreed = sum(ops.get("agreed", 0) for ops in tally.by_operation.values())
    return model.TallyRecord(
        examples=tally.examples, comparisons=tally.comparisons, agreed=agreed,
        by_operation=_counts(tally.by_operation), by_class=dict(sorted(tally.by_class.items())),
        failures=failures(tally, prefix=prefix, report_path=report_path),
        skipped_tiers=dict(sorted(tally.skipped.items())),
        harness_errors=list(tally.errors))


def _counts(by_operation: Mapping[str, Mapping[str, int]]) -> dict[str, dict[str, int]]:
    return {op: dict(sorted(c.items())) for op, c in sorted(by_operation.items())}


def fixture_section(run: FixtureRun) -> model.Fixture:
    ref_s = run.corpus_encode_seconds.get("reference", 0.0)
    up_s = run.corpus_encode_seconds.get("upstream", 0.0)
    return model.Fixture(
        fixture=run.name, sha256=run.sha256, corpus_texts=run.corpus_texts,
        generated_texts=run.generated_texts,
        tally=tally_section(run.tally, prefix=f"{run.name}:F"),
        class_witnesses={c: witness(w) for c, w in sorted(run.tally.class_witness.items())},
        load_seconds=dict(run.load_seconds),
        corpus_encode_seconds={"reference": _round(ref_s, 3), "upstream": _round(up_s, 3),
                               **({"ratio": _round(ref_s / up_s)} if up_s else {})})


def morph_section(run: MorphTrackRun) -> model.MorphTrack:
    return model.MorphTrack(
        what=MORPH_WHAT, config=run.config,
        upstream_document=model.UpstreamDocument(
            path=repository_path("unified", UPSTREAM_DOCUMENT.name), sha256=run.document_sha256,
            committed_copy_current=run.committed_document_current),
        corpus_texts=run.corpus_texts, generated_texts=run.generated_texts,
        runs_compared=run.runs, whole_texts_compared=run.whole_texts,
        tally=tally_section(run.tally, prefix="morph:F"),
        class_witnesses={c: witness(w) for c, w in sorted(run.tally.class_witness.items())},
        seconds=_round(run.seconds))


def _class_entries(result: JobResultLike, report_path: str) -> list[model.ClassEntry]:
    """Our registry's classes, or the expectations of the run's third-party subject."""
    tally = result.tally
    entries = []
    described: list[tuple[str, str, str, str, list[str], str]]
    if result.subject is None:
        described = [(c.id, c.kind, c.title, c.decision, list(c.upstream), c.why)
                     for c in load_registry()]
    else:
        expected = expectations_at(result.subject.expectations)
        described = [(e.id, e.side, e.title, f"{result.subject.expectations}#{e.id}",
                      [e.link] if e.link else [], e.why) for e in expected.entries]
        if expected.inherit_reference:
            described += [(c.id, c.kind, c.title, c.decision, list(c.upstream), c.why)
                          for c in load_registry()]
    for class_id, kind, title, decision, upstream, why in described:
        seen = tally.class_witness.get(class_id)
        entries.append(model.ClassEntry(
            id=class_id, kind=kind, title=title, decision=decision, upstream=upstream,
            why=why, observed=tally.by_class.get(class_id, 0),
            reproduce=reproduce_command(report_path, class_id=class_id),
            witness=witness(seen) if seen is not None else None))
    return entries


def build_report(result: JobResultLike, report_path: str = DEFAULT_REPORT,
                 reach: Sequence[reaches.Reach] | None = None) -> model.Report:
    """The report of a job; ``reach``: the run's measure of implementation/ (``--reach``)."""
    tally = result.tally
    classes = _class_entries(result, report_path)
    registry = classes
    explore = max(result.explore_seconds, 1e-9)
    real_failures = sum(f.tally.failure_count + len(f.tally.errors)
                        for f in result.real_models)
    not_run = [model.NotRun(f.name, f.not_run) for f in result.real_models
               if f.not_run is not None]
    summary = model.Summary(
        examples=tally.examples, comparisons=tally.comparisons, replayed=result.replayed,
        failures=tally.failure_count, failure_signatures=len(tally.failures),
        intended_divergences=sum(tally.by_class.values()),
        harness_errors=len(tally.errors), by_operation=_counts(tally.by_operation),
        by_class={cls.id: tally.by_class.get(cls.id, 0) for cls in registry},
        classes_not_observed=[c.id for c in registry if c.id not in tally.by_class],
        upstream_load_outcomes=dict(sorted(tally.upstream_outcomes.items())),
        skipped_tiers=dict(sorted(tally.skipped.items())), judge_replays=tally.replays,
        stale_pinned_witnesses=[model.StaleRecord(s.id, s.class_id, list(s.now))
                                for s in result.stale],
        duration_seconds=_round(result.duration),
        explore_seconds=_round(result.explore_seconds),
        cases_per_second=_round(tally.examples / explore),
        comparisons_per_second=_round(tally.comparisons / explore),
        declared_probes=tally.declared,
        witness_search_seconds=_round(result.search_seconds),
        pinned_seconds=_round(result.pinned_seconds),
        real_models_seconds=_round(result.real_seconds),
        morph_track_seconds=_round(result.morph_seconds),
        witness_searches=list(result.searched))
    return model.Report(
        report_version=model.REPORT_VERSION,
        verdict=("fail" if result.failed else "incomplete" if not_run else "pass"),
        summary=summary,
        header=model.Header(command=result.command, profile=result.profile.name,
                            seed=result.seed,
                            subject=("reference (implementation/, strict; lenient track "
                                     "where strict refuses)" if result.subject is None else
                                     f"{result.subject.name} ({result.subject.version})"),
                            environment=dict(result.environment),
                            shard=(f"{result.shard[0]}/{result.shard[1]}"
                                   if result.shard is not None else None)),
        failures=failures(tally, report_path=report_path),
        harness_errors=list(tally.errors),
        classes=classes,
        real_models=model.RealModels(
            failures=real_failures,
            fixtures=[fixture_section(f) for f in result.real_models if f.not_run is None],
            seconds=_round(result.real_seconds), not_run=not_run),
        unified_morph_track=(morph_section(result.morph_track)
                             if result.morph_track is not None else None),
        coverage=model.Coverage(
            rules={rule: model.RuleCoverage(meaning, tally.rule_comparisons.get(rule, 0))
                   for rule, meaning in RULES.items()},
            classes={cls.id: tally.by_class.get(cls.id, 0) for cls in registry},
            features=dict(sorted(tally.features.items())),
            reach=_reach_section(reach)),
        subject=_subject_section(result.subject))


def _subject_section(info: SubjectInfoLike | None) -> model.Subject | None:
    if info is None:
        return None
    return model.Subject(spec=info.spec, name=info.name, version=info.version,
                         capabilities=list(info.capabilities),
                         expectations=info.expectations, restarts=info.restarts)



def _reach_section(reach: Sequence[reaches.Reach] | None) -> model.ReachRecord | None:
    if reach is None:
        return None
    modules = {r.module: model.ModuleReach(r.statements, r.covered_statements, r.branches,
                                           r.covered_branches, round(r.percent, 1))
               for r in reach}
    short = [r.module for r in reach if not r.meets_target] + reaches.missing(list(reach))
    return model.ReachRecord(reaches.TARGET, modules, short)
