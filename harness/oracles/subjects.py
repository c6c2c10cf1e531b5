"""Pinned witnesses of third-party subjects (``oracles/subjects/<subject>.json``): for each
entry of a subject's expectations file, the shrunk witness adopted from a conformance
report of that subject (``python -m harness oracles --adopt-witnesses REPORT``). Every
run against the subject re-checks them (``runs.third_party.check_subject_witnesses``): an
entry whose witness no longer shows it is stale (the subject or upstream changed)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..core.case import Case
from ..report.files import ReportError, read_report
from ..runs.third_party import PINNED_FOLDER, engine_for

Json = dict[str, Any]


def subject_witnesses_path(root: Path, name: str) -> Path:
    return root / "oracles" / PINNED_FOLDER / f"{name}.json"


def adopt_subject_witnesses(report_path: Path, root: Path, display_path: str
                            ) -> tuple[Path, Json, list[str]]:
    """The subject's pinned-witness file with each entry witness of the report adopted
    (entries the report has no witness for keep theirs); the file, its data and one line
    per entry. Each witness is re-run on the subject first and kept only if it still
    shows its entry."""
    try:
        report = read_report(report_path)
    except ReportError as exc:
        raise ValueError(str(exc)) from None
    if report.subject is None:
        raise ValueError(f"{display_path} is a report of our reference, not of a subject")
    wired = engine_for(report.subject.spec)
    target = subject_witnesses_path(root, report.subject.name)
    current = json.loads(target.read_text(encoding="utf-8")) if target.is_file() else {}
    rows = {row["class"]: row for row in current.get("cases", [])}
    known = {entry.id for entry in wired.expectations.entries}
    notes: list[str] = []
    for entry in report.classes:
        witness = entry.witness
        if witness is None or witness.case is None or entry.id not in known:
            continue
        case = Case.from_json(witness.case)
        _, judgement = wired.engine.evaluate(case)
        if not any(entry.id in verdict.classes for verdict in judgement.verdicts):
            notes.append(f"skipped {entry.id}: its witness no longer shows the entry")
            continue
        rows[entry.id] = {"id": f"{report.subject.name}/{entry.id}", "class": entry.id,
                          "case": case.to_json(), "source": {
                              "report": display_path, "command": report.header.command,
                              "shrunk": witness.shrunk}}
        notes.append(f"adopted {entry.id}")
    rows = {key: row for key, row in rows.items() if key in known}
    data = {"subject": report.subject.name, "version": report.subject.version,
            "description": "One shrunk witness per entry of harness/expectations/"
                           f"{report.subject.name}.yaml, re-checked by every run against "
                           "the subject (an entry no longer shown is stale).",
            "cases": [rows[key] for key in sorted(rows)]}
    return target, data, notes
