"""The matrix summary from what the subjects' jobs left (``runner.Outcome``): a row per
subject (version, verdict, one-line reason), a finding per pinned witness with every
subject's cell (the transplant), and a row per real file with what each subject met on it
over the corpus. Reads the reports; runs nothing (decision 0037).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any, cast

from ..fixture_builders.real_models import CONFORMANCE_FIXTURES
from ..report.files import read_report
from ..report.model import Fixture, Report, WitnessRecord
from ..site.severity import derive
from .model import (
    MATRIX_VERSION,
    Cell,
    FileCell,
    Finding,
    Grade,
    Matrix,
    RealFile,
    SubjectRow,
    Verdict,
)
from .runner import NOT_RUN, Outcome
from .witnesses import REFERENCE, Pinned


def subject_row(outcome: Outcome, report: Report | None, display: str) -> SubjectRow:
    """The row of one subject (``display``: where its report is written)."""
    if report is None:
        return SubjectRow(outcome.name, "", "not-run", outcome.reason, "", "", 0, 0, 0, 0, 0,
                          0, round(outcome.seconds, 1))
    info = report.subject
    version = info.version if info is not None else report.header.environment.get(
        "implementation", "implementation/")
    verdict: Verdict = report.verdict
    reason = "; ".join(report.failing_parts() + outcome.notes)
    if report.verdict == "incomplete":
        reason = "; ".join([f"{len(report.real_models.not_run)} real model(s) not run here",
                            *outcome.notes])
    summary = report.summary
    return SubjectRow(
        outcome.name, version, verdict, reason, display,
        info.expectations if info is not None else "harness/judge/divergences.yaml",
        info.restarts if info is not None else 0, summary.examples, summary.comparisons,
        summary.failures, sum(1 for c in report.classes if c.observed),
        len(summary.stale_pinned_witnesses), round(outcome.seconds, 1), severities(report))


def _grade(witness: WitnessRecord) -> str:
    return derive(witness.operation, witness.tier, witness.outcome, witness.upstream)[0]


def severities(report: Report) -> dict[str, int]:
    """How often the run met each grade (failures and observed entries, by witness)."""
    counts: Counter[str] = Counter()
    for failure in report.failures:
        counts[_grade(failure.witness)] += failure.count
    for entry in report.classes:
        if entry.observed and entry.witness is not None:
            counts[_grade(entry.witness)] += entry.observed
    return dict(sorted(counts.items()))


def not_run_rows(names: Sequence[str]) -> list[SubjectRow]:
    """The rows of registered subjects the matrix does not run (``runner.NOT_RUN``)."""
    return [SubjectRow(name, "", "not-run", NOT_RUN[name], "", "", 0, 0, 0, 0, 0, 0, 0.0)
            for name in names]


def _cell(name: str, transplant: dict[str, Any] | None, witness: str) -> Cell:
    row = (transplant or {}).get("rows", {}).get(witness)
    if row is None or row.get("result") not in ("shown", "agrees"):
        return Cell(name, "not-run")
    if row["result"] == "agrees":
        return Cell(name, "agrees")
    return Cell(name, "shown", cast(Grade, row["grade"]), list(row.get("explained_by", [])))


def findings(witnesses: Sequence[Pinned], outcomes: Sequence[Outcome]) -> list[Finding]:
    """A finding per pinned witness: graded on its own subject (else on the first subject
    that shows it), with every subject's cell."""
    found: list[Finding] = []
    for pinned in witnesses:
        cells = [_cell(o.name, o.transplant, pinned.id) for o in outcomes]
        shown = [c for c in cells if c.result == "shown"]
        own = next((c for c in shown if c.subject == pinned.source), None)
        graded = own or (shown[0] if shown else None)
        grade: Grade = graded.grade if graded is not None and graded.grade else "text"
        found.append(Finding(pinned.id, pinned.source, pinned.entry, pinned.witness, grade,
                             sorted(c.subject for c in shown), cells))
    return found


def finding_id(report: Report, name: str, entry: str) -> str:
    """The finding (``Finding.id``) a class of ``name``'s report stands for: the subject's
    own entry (its decision is the entry in its expectations file) or one of our intended
    classes (a decision record: our reference, and subjects that inherit its classes)."""
    decisions = {c.id: c.decision for c in report.classes}
    own = report.subject is not None and "#" in decisions.get(entry, "")
    return f"{name}/{entry}" if own else f"{REFERENCE}/{entry}"


def _file_cell(name: str, report: Report | None, fixture: str) -> tuple[FileCell, Fixture | None]:
    run = None if report is None else next(
        (f for f in report.real_models.fixtures if f.fixture == fixture), None)
    if report is None or run is None:
        return FileCell(name, "not-run"), None
    tally = run.tally
    met = {finding_id(report, name, entry): count
           for entry, count in tally.by_class.items() if count}
    failures = sum(f.count for f in tally.failures)
    diverged = sum(counts.get("compared", 0) - counts.get("agreed", 0)
                   for counts in tally.by_operation.values())
    return FileCell(name, "diverges" if diverged or failures or met else "agrees",
                    tally.comparisons, diverged, failures, dict(sorted(met.items()))), run


def real_files(outcomes: Sequence[Outcome], reports: Sequence[Report | None]
               ) -> list[RealFile]:
    """A row per conformance fixture any subject ran: every subject's cell on it."""
    rows: list[RealFile] = []
    for fixture in CONFORMANCE_FIXTURES:
        cells, runs = [], []
        for outcome, report in zip(outcomes, reports, strict=True):
            cell, run = _file_cell(outcome.name, report, fixture)
            cells.append(cell)
            if run is not None:
                runs.append(run)
        if not runs:
            continue
        triggers = sorted({f for cell in cells for f in cell.findings})
        rows.append(RealFile(fixture, runs[0].sha256, max(r.corpus_texts for r in runs),
                             triggers, cells))
    return rows


def build(*, command: str, profile: str, seed: int, outcomes: Sequence[Outcome],
          displays: dict[str, str], witnesses: Sequence[Pinned], skipped: Sequence[str],
          wall_seconds: float) -> Matrix:
    reports = [read_report(o.report) if o.report is not None else None for o in outcomes]
    rows = [subject_row(o, report, displays.get(o.name, ""))
            for o, report in zip(outcomes, reports, strict=True)]
    rows = sorted(rows + not_run_rows(skipped), key=lambda r: r.name)
    graded = findings(witnesses, outcomes)
    return Matrix(MATRIX_VERSION, command, profile, seed, rows,
                  dict(sorted(Counter(r.verdict for r in rows).items())),
                  dict(sorted(Counter(f.grade for f in graded).items())), graded,
                  real_files(outcomes, reports), round(wall_seconds, 1))
