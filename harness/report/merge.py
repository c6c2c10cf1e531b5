"""``python -m harness merge``: the reports of the job shards of one run (``--shard 1/N``
… ``--shard N/N``) joined into the report one process would have written (timing fields
aside): counts added, each class's and failure's smallest witness kept (by size, then the
case's canonical JSON, as the run itself ranks them), the real-model fixtures put back in
their order, and what shard 1 alone ran (declared probes, morph track, pinned witnesses)
taken from it. docs/decisions/0030-logical-shards.md.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import TypeVar

from . import model
from .build import reproduce_command


class MergeError(Exception):
    """Shard reports that are not the shards of one run."""


def _order(witness: model.WitnessRecord) -> tuple[int, str]:
    return witness.case_size, json.dumps(witness.case, ensure_ascii=False, sort_keys=True)


def _smallest(witnesses: Iterable[model.WitnessRecord | None]) -> model.WitnessRecord | None:
    best: model.WitnessRecord | None = None
    for witness in witnesses:
        if witness is not None and (best is None or _order(witness) < _order(best)):
            best = witness
    return best


def _add(parts: Iterable[Mapping[str, int]], *, sort: bool) -> dict[str, int]:
    total: Counter[str] = Counter()
    order: dict[str, None] = {}
    for part in parts:
        for key, value in part.items():
            total[key] += value
            order.setdefault(key, None)
    keys = sorted(order) if sort else list(order)
    return {key: total[key] for key in keys}


def _shard_of(report: model.Report, path: str) -> tuple[int, int]:
    text = report.header.shard
    if text is None:
        raise MergeError(f"{path}: not a shard's report (run with --shard I/N)")
    index, count = (int(part) for part in text.split("/"))
    return index, count


def _check(reports: Sequence[tuple[str, model.Report]]) -> list[model.Report]:
    """The shard reports in shard order; every shard of one run, each once."""
    shards = sorted(((_shard_of(r, p), p, r) for p, r in reports), key=lambda s: s[0])
    count = shards[0][0][1]
    indices = [index for (index, n), _, _ in shards if n == count]
    if len(indices) != len(shards) or indices != list(range(1, count + 1)):
        found = ", ".join(f"{i}/{n}" for (i, n), _, _ in shards)
        raise MergeError(f"the shards of one run are 1/{count} … {count}/{count}, each once; "
                         f"given {found}")
    first = shards[0][2]
    for (index, _), path, report in shards[1:]:
        for what in ("command", "profile", "seed", "subject", "environment"):
            if getattr(report.header, what) != getattr(first.header, what):
                raise MergeError(f"{path}: shard {index} has another {what} than shard 1 "
                                 f"({getattr(report.header, what)!r:.80})")
        if report.report_version != first.report_version:
            raise MergeError(f"{path}: report version {report.report_version}, shard 1 has "
                             f"{first.report_version}")
    return [report for _, _, report in shards]


def _failures(reports: Sequence[model.Report], report_path: str) -> list[model.Failure]:
    counts: Counter[str] = Counter()
    witnesses: dict[str, list[model.WitnessRecord]] = {}
    reproducible: set[str] = set()
    for report in reports:
        for failure in report.failures:
            counts[failure.signature] += failure.count
            witnesses.setdefault(failure.signature, []).append(failure.witness)
            if failure.reproduce is not None:
                reproducible.add(failure.signature)
    out = []
    for i, signature in enumerate(sorted(counts), start=1):
        fid = f"F{i}"
        witness = _smallest(witnesses[signature])
        assert witness is not None
        out.append(model.Failure(
            id=fid, signature=signature, count=counts[signature], witness=witness,
            reproduce=(reproduce_command(report_path, failure=fid)
                       if signature in reproducible else None)))
    return out


def _searches(reports: Sequence[model.Report]) -> list[str]:
    done = {s for r in reports for s in r.summary.witness_searches}
    return (sorted(s for s in done if s.startswith("class "))
            + sorted(s for s in done if not s.startswith("class ")))


T = TypeVar("T")


def _interleave(queues: list[list[T]]) -> list[T]:
    """Back in the run's order: entry i of the run was the (i // N)-th of shard i % N."""
    out: list[T] = []
    position = 0
    while any(queues):
        queue = queues[position % len(queues)]
        if queue:
            out.append(queue.pop(0))
        position += 1
    return out


def _fixtures(reports: Sequence[model.Report]) -> list[model.Fixture]:
    return _interleave([list(r.real_models.fixtures) for r in reports])


def _not_run(reports: Sequence[model.Report]) -> list[model.NotRun]:
    """The fixtures no shard could run, in the run's order."""
    return _interleave([list(r.real_models.not_run) for r in reports])


def merge(reports: Sequence[tuple[str, model.Report]], report_path: str) -> model.Report:
    """The report of the whole run from ``(path, report)`` of each of its shards."""
    if not reports:
        raise MergeError("no shard reports given")
    parts = _check(reports)
    first = parts[0]
    summaries = [r.summary for r in parts]
    failures = _failures(parts, report_path)
    by_class = _add((s.by_class for s in summaries), sort=False)
    explore = sum(s.explore_seconds for s in summaries)
    examples = sum(s.examples for s in summaries)
    comparisons = sum(s.comparisons for s in summaries)
    summary = model.Summary(
        examples=examples, comparisons=comparisons,
        replayed=sum(s.replayed for s in summaries),
        failures=sum(f.count for f in failures), failure_signatures=len(failures),
        intended_divergences=sum(s.intended_divergences for s in summaries),
        harness_errors=sum(s.harness_errors for s in summaries),
        by_operation={op: _add((s.by_operation.get(op, {}) for s in summaries), sort=True)
                      for op in sorted({op for s in summaries for op in s.by_operation})},
        by_class=by_class,
        # In the registry's order (the classes' list; a mapping is written sorted).
        classes_not_observed=[c.id for c in first.classes if by_class.get(c.id, 0) == 0],
        upstream_load_outcomes=_add((s.upstream_load_outcomes for s in summaries), sort=True),
        skipped_tiers=_add((s.skipped_tiers for s in summaries), sort=True),
        stale_pinned_witnesses=first.summary.stale_pinned_witnesses,
        duration_seconds=max(s.duration_seconds for s in summaries),
        explore_seconds=round(explore, 1),
        cases_per_second=round(examples / max(explore, 1e-9), 1),
        comparisons_per_second=round(comparisons / max(explore, 1e-9), 1),
        declared_probes=sum(s.declared_probes for s in summaries),
        witness_search_seconds=round(sum(s.witness_search_seconds for s in summaries), 1),
        pinned_seconds=round(sum(s.pinned_seconds for s in summaries), 1),
        real_models_seconds=round(sum(s.real_models_seconds for s in summaries), 1),
        morph_track_seconds=round(sum(s.morph_track_seconds for s in summaries), 1),
        witness_searches=_searches(parts),
        judge_replays=sum(s.judge_replays for s in summaries))
    classes = []
    for entry in first.classes:
        same = [next(c for c in r.classes if c.id == entry.id) for r in parts]
        classes.append(model.ClassEntry(
            id=entry.id, kind=entry.kind, title=entry.title, decision=entry.decision,
            upstream=entry.upstream, why=entry.why, observed=sum(c.observed for c in same),
            reproduce=reproduce_command(report_path, class_id=entry.id),
            witness=_smallest(c.witness for c in same)))
    fixtures = _fixtures(parts)
    coverage = model.Coverage(
        rules={rule: model.RuleCoverage(cov.meaning, sum(r.coverage.rules[rule].comparisons
                                                         for r in parts))
               for rule, cov in first.coverage.rules.items()},
        classes=_add((r.coverage.classes for r in parts), sort=False),
        features=_add((r.coverage.features for r in parts), sort=True))
    merged = model.Report(
        report_version=first.report_version, verdict="pass", summary=summary,
        header=model.Header(command=first.header.command, profile=first.header.profile,
                            seed=first.header.seed, subject=first.header.subject,
                            environment=first.header.environment),
        failures=failures,
        harness_errors=[e for r in parts for e in r.harness_errors],
        classes=classes,
        real_models=model.RealModels(
            failures=sum(r.real_models.failures for r in parts), fixtures=fixtures,
            seconds=round(sum(r.real_models.seconds for r in parts), 1),
            not_run=_not_run(parts)),
        unified_morph_track=first.unified_morph_track,
        coverage=coverage, subject=first.subject)
    merged.verdict = ("fail" if merged.failing_parts()
                      else "incomplete" if merged.real_models.not_run else "pass")
    return merged
