"""Comparing a regeneration with the committed oracle files: ``--check`` (byte-identical,
else why, by case id) and the drift report an upgrade of ``tokenizers`` is reviewed with
(``reports/oracle-drift-*.yaml``). Decision
[0013](../../docs/decisions/0013-tests-session-installs-tokenizers.md)."""

from __future__ import annotations

import json
import platform
import unicodedata
from pathlib import Path
from typing import Any

from ..core.canonical import canonical_yaml, write_atomic
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


def drift(root: Path, generated: Generated) -> Json:
    """What changed between the committed oracles and a regeneration (drift report)."""
    old_version = committed_version(root) or "none"
    committed = committed_files(root, generated.files)
    changed: list[Json] = []
    acceptance: list[Json] = []
    added: list[str] = []
    removed: list[str] = []
    edited: list[str] = []
    stale: list[Json] = []
    new_divergences: list[Json] = []
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
            before, after = _upstream_of(old), _upstream_of(new)
            if before == after:
                continue
            if old.get("kind") == "load":
                acceptance.append({
                    "file": path, "id": case_id, "tokenizer": old.get("tokenizer"),
                    "before": before["load"], "after": after["load"],
                    "change": f"{before['load']['outcome']} -> {after['load']['outcome']}"})
                continue
            entry: Json = {"file": path, "id": case_id, "flags": new.get("flags", [])}
            if old.get("kind") == "witness":
                entry.update({"class": new.get("class"), "before": before, "after": after})
            else:
                entry["input"] = new.get("input")
                entry["changes"] = {label: {"before": before.get(label),
                                            "after": after.get(label)}
                                    for label in sorted(before.keys() | after.keys())
                                    if before.get(label) != after.get(label)}
            changed.append(entry)
        old_problems = ({(p.case_id, p.kind, p.class_id, p.message)
                         for p in replay_file(old_data, root, path)} if old_data else set())
        for problem in replay_file(new_data, root, path, fixtures=generated.files):
            key = (problem.case_id, problem.kind, problem.class_id, problem.message)
            if key in old_problems:
                continue
            if problem.kind == "not-observed":
                stale.append({"file": path, "id": problem.case_id, "class": problem.class_id,
                              "detail": problem.message})
            else:
                new_divergences.append({"file": path, "id": problem.case_id,
                                        "kind": problem.kind, "detail": problem.message})
    drifted = bool(changed or acceptance or stale or new_divergences)
    return {
        "verdict": "drift" if drifted else "no drift",
        "header": {
            "from": old_version,
            "to": generated.version,
            "command": f"nox -s oracles -- --reference {generated.version}",
            "python": platform.python_version(),
            "unicode": unicodedata.unidata_version,
        },
        "summary": {
            "rows_changed": len(changed),
            "acceptance_changed": len(acceptance),
            "stale_intended_classes": len(stale),
            "new_divergences": len(new_divergences),
            "cases_added": len(added),
            "cases_removed": len(removed),
            "cases_edited": len(edited),
        },
        "rows_changed": changed,
        "acceptance_changed": acceptance,
        "stale_intended_classes": stale,
        "new_divergences": new_divergences,
        "cases_added": added,
        "cases_removed": removed,
        "cases_edited": edited,
    }


DRIFT_PREAMBLE = """\
Oracle drift report: what changes in the pinned oracles (oracles/*.json) when they are
regenerated against another tokenizers version. Review it before accepting an upgrade
(nox -s oracles -- --reference VERSION --accept).
  verdict                 drift when any of the four sections below is non-empty
  rows_changed            rows whose upstream result changed: before and after, per column
  acceptance_changed      tokenizer files upstream now loads, refuses or panics on differently
  stale_intended_classes  rows and witnesses whose intended divergence class no longer shows
                          (upstream fixed it, or changed around it)
  new_divergences         rows where the reference now differs from upstream and no class
                          named by the row explains it
  cases_added/removed/edited  inputs that changed (not drift: a change of the cases)
To upgrade: --accept writes the regenerated oracles; then move the pin (pyproject.toml's
harness extra: noxfile.py and the harness read it from there) so that
`nox -s oracles -- --check` regenerates with the new version.
"""


def drift_report_path(root: Path, report: Json) -> Path:
    header = report["header"]
    return root / "reports" / f"oracle-drift-{header['from']}-to-{header['to']}.yaml"


def write_drift_report(root: Path, report: Json) -> Path:
    path = drift_report_path(root, report)
    write_atomic(path, canonical_yaml(report, preamble=DRIFT_PREAMBLE))
    return path
