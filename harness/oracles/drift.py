"""Comparing a regeneration with the committed oracle files: ``--check`` (byte-identical,
else why, by case id) and the drift report an upgrade of ``tokenizers`` is reviewed with
(``reports/oracle-drift-*.yaml``, typed in ``harness.report.drift``; rows a version cannot
answer are ``not_reproducible``). Decisions
[0013](../../docs/decisions/0013-tests-session-installs-tokenizers.md),
[0035](../../docs/decisions/0035-tokenizers-api-generations.md)."""

from __future__ import annotations

import json
import platform
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..report.drift import (
    DRIFT_REPORT_VERSION,
    ColumnChange,
    DriftHeader,
    DriftReport,
    DriftSummary,
    LoadChange,
    NewDivergence,
    NotReproducible,
    RowChange,
    StaleClass,
    write_drift,
)
from .generation import Generated
from .layout import ORACLE_DIR, Json, committed_files
from .replay import replay_file


def committed_version(root: Path) -> str | None:
    versions = set()
    for path in sorted((root / ORACLE_DIR).glob("*.json")):
        header = json.loads(path.read_text(encoding="utf-8")).get("header") or {}
        if header.get("tokenizers"):
            versions.add(str(header["tokenizers"]))
    if len(versions) > 1:
        raise ValueError(f"committed oracles disagree on the tokenizers version: "
                         f"{sorted(versions)}")
    return versions.pop() if versions else None


def _rows_by_id(text: str | None) -> dict[str, Json]:
    if text is None:
        return {}
    return {str(row["id"]): row for row in json.loads(text).get("cases", [])}


def describe_difference(path: str, old: str | None, new: str) -> list[str]:
    """Why a committed file is not byte-identical to its regeneration, naming case ids."""
    if old is None:
        return [f"{path}: missing (a regeneration writes it)"]
    if not path.startswith(f"{ORACLE_DIR}/"):
        return [f"{path}: differs from its builder in harness/oracles/cases.py"]
    lines: list[str] = []
    try:
        old_data = json.loads(old)
    except json.JSONDecodeError as exc:
        return [f"{path}: not valid JSON ({exc})"]
    new_data = json.loads(new)
    old_rows, new_rows = _rows_by_id(old), _rows_by_id(new)
    for case_id in sorted(old_rows.keys() | new_rows.keys()):
        if case_id not in new_rows:
            lines.append(f"{path}: case {case_id}: not generated any more")
        elif case_id not in old_rows:
            lines.append(f"{path}: case {case_id}: missing from the committed file")
        elif old_rows[case_id] != new_rows[case_id]:
            keys = sorted(k for k in old_rows[case_id].keys() | new_rows[case_id].keys()
                          if old_rows[case_id].get(k) != new_rows[case_id].get(k))
            lines.append(f"{path}: case {case_id}: differs in {', '.join(keys)}")
    for key in sorted(old_data.keys() | new_data.keys()):
        if key != "cases" and old_data.get(key) != new_data.get(key):
            lines.append(f"{path}: {key} differs")
    if not lines:
        lines.append(f"{path}: same content, not in canonical form (sorted keys, 2-space "
                     "indent, LF, trailing newline)")
    return lines


def check(root: Path, generated: Generated) -> list[str]:
    """Differences between the committed files and a regeneration (empty: up to date)."""
    committed = committed_files(root, generated.files)
    problems: list[str] = []
    for path, text in sorted(generated.files.items()):
        if committed[path] != text:
            problems.extend(describe_difference(path, committed[path], text))
    return problems


def _upstream_of(row: Json) -> Any:
    if row.get("kind") == "witness":  # upstream's side of the witness (and what it shows)
        return {"classes": row.get("classes"), "upstream": row.get("upstream"),
                "observation": row.get("observation"), "tier": row.get("tier")}
    return row.get("upstream")


def _same_input(old: Json, new: Json, old_data: Json, new_data: Json) -> bool:
    if old.get("kind") == "witness":
        return bool(old.get("case") == new.get("case"))
    if old.get("input") != new.get("input") or old.get("tokenizer") != new.get("tokenizer"):
        return False
    name = str(old.get("tokenizer"))
    return bool((old_data.get("tokenizers") or {}).get(name)
                == (new_data.get("tokenizers") or {}).get(name))


def _column_changes(before: Any, after: Any, skip: Sequence[str] = ()
                    ) -> dict[str, ColumnChange]:
    """Per column (``encode``, ``decode_skip_special``, a witness' ``upstream``...), what
    changed; within an encode outcome the ``skip`` tiers are left out (pinned)."""
    before, after = dict(before or {}), dict(after or {})
    out: dict[str, ColumnChange] = {}
    for label in sorted(before.keys() | after.keys()):
        old, new = before.get(label), after.get(label)
        if skip and isinstance(old, dict) and isinstance(new, dict):
            old = {k: v for k, v in old.items() if k not in skip}
            new = {k: v for k, v in new.items() if k not in skip}
        if old != new:
            out[label] = ColumnChange(before=old, after=new)
    return out


def _not_reproducible(path: str, old: Json, new: Json) -> NotReproducible:
    pinned = new["produced_by"]
    tiers = [str(t) for t in pinned["tiers"]]
    changes = ({} if pinned["whole_row"] else
               _column_changes(_upstream_of(old), _upstream_of(new), tiers))
    return NotReproducible(file=path, id=str(new["id"]), kind=str(new.get("kind")),
                           tiers_gone=tiers, produced_by=str(pinned["version"]),
                           whole_row=bool(pinned["whole_row"]), changes=changes)


def drift(root: Path, generated: Generated) -> DriftReport:
    """What changed between the committed oracles and a regeneration (drift report)."""
    old_version = committed_version(root) or "none"
    committed = committed_files(root, generated.files)
    changed: list[RowChange] = []
    gone: list[NotReproducible] = []
    acceptance: list[LoadChange] = []
    added: list[str] = []
    removed: list[str] = []
    edited: list[str] = []
    stale: list[StaleClass] = []
    new_divergences: list[NewDivergence] = []
    for path, text in sorted(generated.files.items()):
        if not path.startswith(f"{ORACLE_DIR}/"):
            continue
        new_data = json.loads(text)
        old_text = committed[path]
        old_data = json.loads(old_text) if old_text is not None else {}
        old_rows, new_rows = _rows_by_id(old_text), _rows_by_id(text)
        added += [f"{path}: {i}" for i in sorted(new_rows.keys() - old_rows.keys())]
        removed += [f"{path}: {i}" for i in sorted(old_rows.keys() - new_rows.keys())]
        for case_id in sorted(old_rows.keys() & new_rows.keys()):
            old, new = old_rows[case_id], new_rows[case_id]
            if not _same_input(old, new, old_data, new_data):
                edited.append(f"{path}: {case_id}")
                continue
            if "produced_by" in new:
                entry = _not_reproducible(path, old, new)
                if old.get("produced_by") != new["produced_by"] or entry.changes:
                    gone.append(entry)  # newly pinned, or changed around its pinned tiers
                continue
            before, after = _upstream_of(old), _upstream_of(new)
            if before == after:
                continue
            if old.get("kind") == "load":
                acceptance.append(LoadChange(
                    file=path, id=case_id, tokenizer=str(old.get("tokenizer")),
                    before=before["load"], after=after["load"],
                    change=f"{before['load']['outcome']} -> {after['load']['outcome']}"))
                continue
            changed.append(RowChange(
                file=path, id=case_id, kind=str(new.get("kind")),
                flags=list(new.get("flags", [])), changes=_column_changes(before, after),
                input=new.get("input"),
                class_id=new.get("class") if new.get("kind") == "witness" else None))
        old_problems = ({(p.case_id, p.kind, p.class_id, p.message)
                         for p in replay_file(old_data, root, path)} if old_data else set())
        for problem in replay_file(new_data, root, path, fixtures=generated.files):
            key = (problem.case_id, problem.kind, problem.class_id, problem.message)
            if key in old_problems:
                continue
            if problem.kind == "not-observed":
                stale.append(StaleClass(file=path, id=problem.case_id,
                                        class_id=str(problem.class_id),
                                        detail=problem.message))
            else:
                new_divergences.append(NewDivergence(file=path, id=problem.case_id,
                                                     kind=problem.kind,
                                                     detail=problem.message))
    drifted = bool(changed or gone or acceptance or stale or new_divergences)
    return DriftReport(
        report_version=DRIFT_REPORT_VERSION,
        verdict="drift" if drifted else "no drift",
        summary=DriftSummary(
            rows_changed=len(changed), not_reproducible=len(gone),
            acceptance_changed=len(acceptance), stale_intended_classes=len(stale),
            new_divergences=len(new_divergences), cases_added=len(added),
            cases_removed=len(removed), cases_edited=len(edited)),
        header=DriftHeader(
            from_version=old_version, to_version=generated.version,
            command=f"nox -s oracles -- --reference {generated.version}",
            python=platform.python_version(), unicode=unicodedata.unidata_version),
        rows_changed=changed, not_reproducible=gone, acceptance_changed=acceptance,
        stale_intended_classes=stale, new_divergences=new_divergences,
        cases_added=added, cases_removed=removed, cases_edited=edited)


def write_drift_report(root: Path, report: DriftReport) -> Path:
    return write_drift(root, report)
