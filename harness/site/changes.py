"""What changed between two report sets: new findings, fixed ones (the trophy case), and
subjects that got better or worse.

Both sides are compared as snapshots (``snapshot``): the cells of a site, keyed by finding
and subject. A published site carries its snapshot as ``matrix.json``, so a pull request
can be compared with the last published matrix without its reports.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .model import Site

SNAPSHOT_VERSION = 1
_SEEN = ("observed", "failure")


class SnapshotError(Exception):
    """A file that is not a site snapshot (matrix.json)."""


def snapshot(site: Site) -> dict[str, Any]:
    return {
        "snapshot_version": SNAPSHOT_VERSION,
        "subjects": {s.key: {"name": s.name, "version": s.version, "verdict": s.verdict}
                     for s in site.subjects},
        "findings": {f.key: {"title": f.title, "severity": f.severity, "role": f.role,
                             "origin": f.origin} for f in site.findings},
        "cells": {f"{finding}|{subject}": {"status": cell.status, "count": cell.count}
                  for (finding, subject), cell in sorted(site.cells.items())},
    }


def parse_snapshot(text: str, where: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SnapshotError(f"{where} is not JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, dict) or data.get("snapshot_version") != SNAPSHOT_VERSION:
        raise SnapshotError(f"{where} is not a site snapshot (snapshot_version "
                            f"{SNAPSHOT_VERSION} expected)")
    for name in ("subjects", "findings", "cells"):
        if not isinstance(data.get(name), dict):
            raise SnapshotError(f"{where}: $.{name} is not a mapping")
    return data


@dataclass(frozen=True)
class Change:
    finding: str
    subject: str
    title: str
    severity: str
    before: str
    after: str
    count_before: int
    count_after: int


@dataclass(frozen=True)
class Changes:
    new: list[Change]
    fixed: list[Change]
    #: subject → (findings shown before, now); only subjects in both sets.
    by_subject: dict[str, tuple[int, int]]
    added_subjects: list[str]
    removed_subjects: list[str]

    def empty(self) -> bool:
        return not (self.new or self.fixed or self.added_subjects or self.removed_subjects)


def compare(now: dict[str, Any], old: dict[str, Any]) -> Changes:
    new: list[Change] = []
    fixed: list[Change] = []
    for key in sorted(set(now["cells"]) | set(old["cells"])):
        finding, _, subject = key.partition("|")
        if subject not in now["subjects"] or subject not in old["subjects"]:
            continue
        after = now["cells"].get(key, {"status": "gone", "count": 0})
        before = old["cells"].get(key, {"status": "gone", "count": 0})
        info = now["findings"].get(finding) or old["findings"].get(finding) or {}
        change = Change(finding, subject, str(info.get("title", finding)),
                        str(info.get("severity", "text")), before["status"],
                        after["status"], int(before["count"]), int(after["count"]))
        if after["status"] in _SEEN and before["status"] not in _SEEN:
            new.append(change)
        elif before["status"] in _SEEN and after["status"] in ("absent", "gone"):
            fixed.append(change)
    by_subject = {s: (_shown(old, s), _shown(now, s))
                  for s in sorted(now["subjects"]) if s in old["subjects"]}
    return Changes(new=new, fixed=fixed, by_subject=by_subject,
                   added_subjects=sorted(set(now["subjects"]) - set(old["subjects"])),
                   removed_subjects=sorted(set(old["subjects"]) - set(now["subjects"])))


def _shown(snap: dict[str, Any], subject: str) -> int:
    return sum(1 for key, cell in snap["cells"].items()
               if key.endswith(f"|{subject}") and cell["status"] in _SEEN)


def markdown(changes: Changes, against: str) -> str:
    """The difference as Markdown, for a pull request's job summary."""
    lines = [f"## Conformance matrix: changes against {against}", ""]
    if changes.empty():
        return "\n".join([*lines, "No finding appeared or was fixed; no subject was added "
                           "or removed."]) + "\n"
    for title, rows in (("New findings", changes.new), ("Fixed (trophy case)", changes.fixed)):
        if rows:
            lines += [f"### {title} ({len(rows)})", "", "| subject | finding | severity | "
                      "before | now |", "|---|---|---|---|---|"]
            lines += [f"| {c.subject} | `{c.finding}` {_cell(c.title)} | {c.severity} | "
                      f"{c.before} ({c.count_before}) | {c.after} ({c.count_after}) |"
                      for c in rows]
            lines.append("")
    moved = [(s, b, a) for s, (b, a) in changes.by_subject.items() if a != b]
    if moved:
        lines += ["### Subjects", "", "| subject | findings shown before | now | |",
                  "|---|--:|--:|---|"]
        lines += [f"| {s} | {b} | {a} | {'better' if a < b else 'worse'} |"
                  for s, b, a in moved]
        lines.append("")
    if changes.added_subjects:
        lines.append("Subjects added: " + ", ".join(changes.added_subjects) + ".")
    if changes.removed_subjects:
        lines.append("Subjects removed: " + ", ".join(changes.removed_subjects) + ".")
    return "\n".join(lines).rstrip("\n") + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
