"""Pinned witnesses of third-party subjects (``witnesses.json`` beside the subject's
expectations file, decision 0034): for each entry of a subject's expectations file, the
shrunk witness adopted from a conformance report of that subject
(``python -m harness oracles --adopt-witnesses REPORT``). Every
run against the subject re-checks them (``runs.third_party.check_subject_witnesses``): an
entry whose witness no longer shows it is stale (the subject or upstream changed)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..core.case import Case
from ..judge.classify import judge
from ..report.files import ReportError, read_report
from ..runs.engine import Engine
from ..runs.replay import CaseReplayer
from ..runs.third_party import engine_for, run_of, witnesses_beside
from ..subjects import registry

Json = dict[str, Any]


#: Evaluations the reduction of one witness may spend.
REDUCTION_BUDGET = 600


def _shows(engine: Engine, case: Case, entry_id: str) -> bool:
    """``case`` shows the entry and nothing unexplained, and without the entry something
    is unexplained (a witness no other entry explains as well: deleting its entry turns
    it red)."""
    observations, judgement = engine.evaluate(case)
    if not (any(entry_id in v.classes for v in judgement.verdicts)
            and not any(v.is_failure for v in judgement.verdicts)):
        return False
    fewer = [c for c in engine.classes or () if c.id != entry_id]
    without = judge(case, observations, engine.capabilities, fewer, replay=CaseReplayer())
    return any(v.is_failure for v in without.verdicts)


def _reduced(engine: Engine, case: Case, entry_id: str) -> Case:
    """A smaller case that still shows the entry (and nothing unexplained): inputs to
    the one that shows it, then, greedily, components set to null, added tokens, merges
    and vocabulary entries left out, within ``REDUCTION_BUDGET`` evaluations. A pinned
    witness is also a bug report's reproducer: the smaller, the better."""
    budget = [REDUCTION_BUDGET]

    def keeps(candidate: Case) -> bool:
        if budget[0] <= 0:
            return False
        budget[0] -= 1
        return _shows(engine, candidate, entry_id)

    for single in _single_inputs(case):
        if keeps(single):
            case = single
            break
    for key in ("normalizer", "pre_tokenizer", "post_processor", "decoder"):
        if case.document.get(key) is not None:
            candidate = Case({**case.document, key: None}, case.texts, case.id_runs,
                             case.pairs)
            if keeps(candidate):
                case = candidate
    for field in ("added_tokens", "merges", "vocab"):
        case = _drop_items(case, field, keeps)
    return case


def _single_inputs(case: Case) -> list[Case]:
    return ([Case(case.document, texts=(text,)) for text in case.texts]
            + [Case(case.document, id_runs=(run,)) for run in case.id_runs]
            + [Case(case.document, pairs=(pair,)) for pair in case.pairs])


def _drop_items(case: Case, field: str, keeps: Any) -> Case:
    """Leave out items of ``field`` (added tokens, merges, vocabulary entries), halves
    first, then one at a time, while the case keeps showing the entry."""
    def items(of: Case) -> list[Any]:
        holder = of.document if field == "added_tokens" else of.document.get("model", {})
        found = holder.get(field)
        return list(found.items()) if isinstance(found, dict) else list(found or [])

    def with_items(of: Case, kept: list[Any]) -> Case:
        value: Any = dict(kept) if field == "vocab" else kept
        if field == "added_tokens":
            document = {**of.document, "added_tokens": value}
        else:
            document = {**of.document, "model": {**of.document["model"], field: value}}
        return Case(document, of.texts, of.id_runs, of.pairs)

    chunk = max(1, len(items(case)) // 2)
    while chunk >= 1:
        start = 0
        while start < len(items(case)):
            current = items(case)
            candidate = with_items(case, current[:start] + current[start + chunk:])
            if keeps(candidate):
                case = candidate
            else:
                start += chunk
        chunk //= 2
    return case


def subject_witnesses_path(root: Path, expectations: str) -> Path:
    """Where the witnesses of a subject judged by ``expectations`` are pinned: its folder
    in the checkout ``root`` for a registered subject's own file, else beside the file."""
    beside = witnesses_beside(expectations)
    if beside is None:
        raise ValueError("the report's subject has no expectations file: there is no entry "
                         "to pin a witness for")
    for entry in registry.registered().values():
        if entry.display(registry.EXPECTATIONS) == expectations:
            return registry.folder_in(root, entry) / registry.WITNESSES
    return Path(beside)


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
    wired = engine_for(run_of(report.subject.spec, report.subject.name,
                              report.subject.expectations))
    target = subject_witnesses_path(root, report.subject.expectations)
    current = json.loads(target.read_text(encoding="utf-8")) if target.is_file() else {}
    rows = {row["class"]: row for row in current.get("cases", [])}
    known = {entry.id for entry in wired.expectations.entries}
    notes: list[str] = []
    for entry in report.classes:
        witness = entry.witness
        if witness is None or witness.case is None or entry.id not in known:
            continue
        case = Case.from_json(witness.case)
        if not _shows(wired.engine, case, entry.id):
            # An ambiguous witness (another entry explains it too) pins nothing; the
            # pinned one stays (every run re-checks it: a stale one is reported).
            kept = "kept the pinned one" if entry.id in rows else "none pinned"
            notes.append(f"skipped {entry.id}: its witness does not show the entry alone "
                         f"({kept})")
            continue
        case = _reduced(wired.engine, case, entry.id)
        rows[entry.id] = {"id": f"{report.subject.name}/{entry.id}", "class": entry.id,
                          "case": case.to_json(), "source": {
                              "report": display_path, "command": report.header.command,
                              "shrunk": witness.shrunk}}
        notes.append(f"adopted {entry.id}")
    rows = {key: row for key, row in rows.items() if key in known}
    data = {"subject": report.subject.name, "version": report.subject.version,
            "description": "One shrunk witness per entry of "
                           f"{Path(report.subject.expectations).name} beside this file, "
                           "re-checked by every run against the subject (an entry no "
                           "longer shown is stale).",
            "cases": [rows[key] for key in sorted(rows)]}
    return target, data, notes
