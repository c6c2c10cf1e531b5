"""The pinned witnesses (``oracles/divergences.json``): one row per intended divergence
class, adopted from a conformance report and re-run on every regeneration, plus one row
per declared shape (``shapes.py``). Decision
[0029](../../docs/decisions/0029-pinned-witnesses-first.md)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..core.case import Case
from ..core.observation import Observation
from ..core.outcome import (
    outcome_to_json,
)
from ..judge.registry import load_registry
from ..report.files import ReportError, read_report
from .layout import DIVERGENCES, Json, environment, flag_meanings, oracle_path
from .shapes import SHAPES, Shape

DIVERGENCES_TITLE = "Intended divergences: pinned witnesses of each class"
DIVERGENCES_DESCRIPTION = (
    "For each intended divergence class of the registry (harness/judge/divergences.yaml),"
    " the shrunk witness adopted from a conformance report (python -m harness oracles "
    "--adopt-witnesses REPORT), re-run deterministically on every regeneration (the "
    "fuzzer is not). Each row holds the case, the observation it diverges on and both "
    "outcomes; every conformance run re-checks them, and a witness that stops diverging "
    "fails it. Rows with a shape pin one more distinct way their class shows, from a "
    "hand-built case declared in harness/oracles/shapes.py (outcomes produced by "
    "running it).")


def _selector(observation: Observation) -> Json:
    return {
        "track": observation.track,
        "operation": observation.operation,
        "input": list(observation.input) if isinstance(observation.input, tuple)
        else observation.input,
        "options": dict(observation.options),
    }


def _matches(observation: Observation, selector: Mapping[str, Any]) -> bool:
    return _selector(observation) == dict(selector)


def witness_row(class_id: str, case: Case, selector: Mapping[str, Any],
                source: Json, shape: Shape | None = None) -> Json:
    """Re-run ``case`` on both subjects and pin the observation showing ``class_id``:
    the one at ``selector`` when it still shows the class, else the first that does.
    When none does, the row keeps ``selector`` with the outcomes seen now and no class
    (a stale witness: the drift report and every conformance run name it). A ``shape``
    row is named after its shape and says what it pins."""
    from ..runs.generated import evaluate  # runs upstream: never imported by the replay

    observations, judgement = evaluate(case)
    verdicts = judgement.verdicts
    showing = [v for v in verdicts if class_id in v.classes]
    chosen = next((v for v in showing if _matches(v.divergence.observation, selector)),
                  showing[0] if showing else None)
    row: Json = {"id": f"div-{class_id}", "kind": "witness", "class": class_id,
                 "flags": [class_id], "case": case.to_json(), "source": source}
    if shape is not None:
        row.update({"id": shape.row_id, "shape": shape.name, "why": shape.why})
    if chosen is not None:
        obs = chosen.divergence.observation
        row.update({"observation": _selector(obs), "tier": chosen.divergence.tier,
                    "classes": sorted(chosen.classes),
                    # Every class explaining it: the replay accepts a difference only when
                    # a flagged class explains it (two classes may meet on one witness).
                    "flags": sorted({class_id, *chosen.classes}),
                    "reference": outcome_to_json(obs.subject, masks=False),
                    "upstream": outcome_to_json(obs.upstream, masks=False)})
        return row
    same = next((o for o in observations if _matches(o, selector)), None)
    diverging = {id(v.divergence.observation): v for v in verdicts}
    now = diverging.get(id(same)) if same is not None else None
    row.update({"observation": dict(selector), "tier": now.divergence.tier if now else None,
                "classes": sorted(now.classes) if now else [],
                "reference": outcome_to_json(same.subject, masks=False) if same else None,
                "upstream": outcome_to_json(same.upstream, masks=False) if same else None})
    return row


def regenerate_witnesses(pinned: Json, version: str) -> Json:
    """Re-run every adopted witness, and build one row for each declared shape (a shape
    row whose declaration is gone is dropped)."""
    rows = [witness_row(row["class"], Case.from_json(row["case"]), row["observation"],
                        row.get("source", {}))
            for row in pinned.get("cases", []) if "shape" not in row]
    return witnesses_file(rows + shape_rows(), version)


#: Where a shape row comes from (in place of the report an adopted row names).
SHAPE_SOURCE: Json = {"declared": "harness/oracles/shapes.py"}


def shape_rows() -> list[Json]:
    """The row of each shape of ``harness/oracles/shapes.py``."""
    return [witness_row(shape.class_id, shape.case, {}, SHAPE_SOURCE, shape)
            for shape in SHAPES]


def witnesses_file(rows: list[Json], version: str) -> Json:
    rows = sorted(rows, key=lambda r: str(r["id"]))
    return {
        "name": DIVERGENCES,
        "title": DIVERGENCES_TITLE,
        "description": DIVERGENCES_DESCRIPTION,
        "header": environment(version, {}),
        "flags": flag_meanings(f for r in rows for f in r["flags"]),
        "tokenizers": {},
        "cases": rows,
    }


def _minimal_case(case: Case, selector: Mapping[str, Any]) -> Case:
    """The witness case cut down to the one input its observation needs."""
    operation, value = selector["operation"], selector["input"]
    options = dict(selector.get("options") or {})
    if operation == "load":
        return Case(case.document)
    if operation == "decode" and isinstance(value, list):
        return Case(case.document, id_runs=(tuple(int(i) for i in value),))
    if operation == "encode" and isinstance(value, str):
        pair = options.get("pair")
        if isinstance(pair, str):
            return Case(case.document, pairs=((value, pair),))
        return Case(case.document, texts=(value,))
    return case


def adopt_witnesses(report_path: Path, root: Path, display_path: str | None = None, *,
                    new_classes_only: bool = False) -> tuple[Json, list[str]]:
    """Pin each class witness of a conformance report (replacing that class's pinned
    row; classes the report has no witness for keep theirs; with ``new_classes_only``,
    every class already pinned keeps its row). Returns the new divergences.json data and
    one line per class adopted or skipped."""
    from ..runs.generated import evaluate  # runs upstream: never imported by the replay
    from ..subjects import upstream

    try:
        report = read_report(report_path)
    except ReportError as exc:
        raise ValueError(str(exc)) from None
    target = oracle_path(root, DIVERGENCES)
    current = json.loads(target.read_text(encoding="utf-8")) if target.is_file() else {}
    rows = {row["id"]: row for row in current.get("cases", []) if "shape" not in row}
    known = {cls.id for cls in load_registry()}
    notes: list[str] = []
    for entry in report.classes:
        class_id, witness = entry.id, entry.witness
        if witness is None or witness.case is None:
            continue
        if class_id not in known:
            notes.append(f"skipped {class_id}: not a class of the registry")
            continue
        if new_classes_only and any(row.get("class") == class_id for row in rows.values()):
            notes.append(f"kept {class_id}: already pinned")
            continue
        case = Case.from_json(witness.case)
        selector = {"track": witness.track, "operation": witness.operation,
                    "input": witness.input, "options": witness.options}
        minimal = _minimal_case(case, selector)
        if minimal != case:
            _, judgement = evaluate(minimal)
            if not any(class_id in v.classes for v in judgement.verdicts):
                minimal = case
        source = {"report": display_path or str(report_path),
                  "command": report.header.command,
                  "shrunk": witness.shrunk}
        row = witness_row(class_id, minimal, selector, source)
        if class_id not in row["classes"]:
            notes.append(f"skipped {class_id}: its witness no longer shows the class")
            continue
        rows[row["id"]] = row
        notes.append(f"adopted {class_id} ({row['observation']['operation']}, "
                     f"tier {row['tier']})")
    return witnesses_file(list(rows.values()) + shape_rows(), upstream.version()), notes
